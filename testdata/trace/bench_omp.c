/* Benchmark program for scripts/bench_trace.sh (not a test): repeated
 * OpenMP parallel loops calling a small function per element, with a
 * reduction. Argument: repetitions (default 200). */
#include <stdio.h>
#include <stdlib.h>

#define N 20000

static double f(double x)
{
    return x * 0.5 + 1.0 / (1.0 + x * x);
}

int main(int argc, char **argv)
{
    static double a[N];
    int reps = argc > 1 ? atoi(argv[1]) : 200;
    double sum = 0.0;
    for (int r = 0; r < reps; r++) {
#pragma omp parallel for reduction(+ : sum)
        for (int i = 0; i < N; i++) {
            a[i] = f(a[i] + i * 1e-6);
            sum += a[i];
        }
    }
    printf("sum %.6e\n", sum);
    return 0;
}
