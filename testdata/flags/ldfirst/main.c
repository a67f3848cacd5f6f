#include <stdio.h>

long work(int n);

int main(void)
{
    long t = 0;
    for (int k = 0; k < 3; k++)
        t += work(10 + k);
    printf("%ld\n", t);
    return 0;
}
