/* K&R definitions and implicit int, as in old benchmark code. */
#include <stdio.h>

static int add(a, b)
int a;
int b;
{
    return a + b;
}

static twice(x)
int x;
{
    return 2 * x;
}

int main(argc, argv)
int argc;
char **argv;
{
    int s = add(argc, 2) + twice(3);
    (void)argv;
    printf("s = %d\n", s);
    return s % 3;
}
