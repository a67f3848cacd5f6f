/* A small OpenMP program: one parallel loop on two threads, so start-up,
 * the team's thread states, OpenMP discovery and the exit write are what
 * the instrumented build adds. */
#include <omp.h>
#include <stdio.h>

#define N 10000

static double a[N];

int main(void) {
    double sum = 0.0;
#pragma omp parallel for num_threads(2) reduction(+ : sum)
    for (int i = 0; i < N; i++) {
        a[i] = i * 0.5;
        sum += a[i];
    }
    printf("%g\n", sum);
    return 0;
}
