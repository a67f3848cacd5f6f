/* Function-heavy workloads for the slowdown benchmark.
 *   ./calls fib    -- 1.6 million calls of a function that does almost
 *                     nothing: the worst case for any function probe.
 *   ./calls kernel -- a stencil where each call does ~4k flops: the
 *                     granularity of typical HPC code. */
#include <stdio.h>
#include <string.h>

static long fib(int n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

static double row(const double *a, int n, int i)
{
    double s = 0.0;
    int j;
    for (j = 1; j < n - 1; j++)
        s += a[i * n + j - 1] - 2.0 * a[i * n + j] + a[i * n + j + 1];
    return s;
}

static double sweep(const double *a, int n)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        s += row(a, n, i);
    return s;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "fib") == 0) {
        printf("%ld\n", fib(30));
    } else {
        static double a[1024 * 1024];
        double s = 0.0;
        int i, it;
        for (i = 0; i < 1024 * 1024; i++)
            a[i] = (double)(i % 17);
        for (it = 0; it < 40; it++)
            s += sweep(a, 1024);
        printf("%f\n", s);
    }
    return 0;
}
