/* K&R definitions and implicit int, as in old benchmark code (Rodinia's
 * backprop: `bpnn_randomize_weights(w, m, n)` / `float **w;`, and
 * `backprop_face()` with no type and no storage class). */
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

count_down(n)
int n;
{
    while (n > 0) /* @loop count_down */
        n--;
    return n;
}

/* weights */
scale(w, m)
float **w;
int m;
{
    int i;
    for (i = 0; i < m; i++) /* @loop scale */
        w[0][i] *= 2;
    return m;
}

report()
{
    printf("report\n");
    return 0;
}

int main(argc, argv)
int argc;
char **argv;
{
    float row[2] = { 1, 2 }, *w[1] = { row };
    int s = add(argc, 2) + twice(3) + count_down(3) + report() + scale(w, 2) - 2;
    (void)argv;
    printf("s = %d, w = %g %g\n", s, row[0], row[1]);
    return s % 3;
}
