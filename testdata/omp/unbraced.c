/* OpenMP directives where a statement is expected (issue 13): a task as
 * the unbraced body of a loop, the loop the body of a single. The task
 * is left as written (a warning says so: braces would get it measured);
 * everything around it is measured. `expect` comments as in
 * constructs.c. */
#include <omp.h>
#include <stdio.h>

#define N 16

static int x[N];
static int y[N];

/* The directive in `#ifdef _OPENMP` without `#else`, its loop after the
 * `#endif`: probes would exist in one configuration only, so the
 * construct is left as written (with a warning) and the copy builds with
 * and without -fopenmp. */
static void fill(void)
{
    int i;
#ifdef _OPENMP
#pragma omp parallel for
#endif
    for (i = 0; i < N; i++)
        y[i] = 2 * i;
}

int main(void)
{
    int i;
    long total = 0;

    /* expect omp_parallel: each 1, omp_fork: each 1, omp_join: each 1 */
#pragma omp parallel
    /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single
    for (i = 0; i < N; i++)
#pragma omp task firstprivate(i)
        x[i] += i;

    fill();
    for (i = 0; i < N; i++)
        total += x[i] + y[i];
    printf("total %ld\n", total);
    return 0;
}
