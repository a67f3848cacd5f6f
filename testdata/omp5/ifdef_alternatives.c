/* Alternative directives for one loop in #if / #else branches, and #if
 * lines between a directive and its loop. The alternatives of one loop
 * share its regions (the IDF lists the other directives under
 * `alternatives`). Built without SCHED_CYCLIC and FAST_PATH, so the #else
 * branches are the ones compiled. `expect` comments as in
 * testdata/omp/constructs.c. The other branches are built too: */
/* variant: -DSCHED_CYCLIC=1 */
/* variant: -DSCHED_CYCLIC=1 -DFAST_PATH */
#include <stdio.h>

#define N 48

static long f(int i)
{
    return (long)(i % 7) * (i % 3);
}

int main(void)
{
    long a[N], b[N], total = 0, more = 0, chained = 0;

    /* expect omp_parallel: each 1 */
#pragma omp parallel shared(a, total)
    {
        /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#ifdef SCHED_CYCLIC
#pragma omp for schedule(static, 1)
#else
#pragma omp for schedule(dynamic, 4)
#endif
        for (int i = 0; i < N; i++)
            a[i] = f(i);

        /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp for reduction(+ : total)
#if defined(FAST_PATH)
        for (int i = 0; i < N; i++)
            total += a[i] * 2;
#else
        for (int i = 0; i < N; i++)
            total += a[i];
#endif
    }

    /* expect omp_parallel: each 1, omp_for: each 1, omp_implicit_barrier: each 1 */
#if SCHED_CYCLIC
#pragma omp parallel for schedule(static, 1) reduction(+ : more)
#elif defined(FAST_PATH)
#pragma omp parallel for schedule(guided) reduction(+ : more)
#else
#pragma omp parallel for reduction(+ : more)
#endif
    for (int i = 0; i < N; i++) {
        b[i] = a[i] + 1;
        more += b[i];
    }

    /* The parallel applies to the for of whichever branch is compiled. */
    /* expect omp_parallel: each 1 */
#pragma omp parallel shared(chained)
#ifdef SCHED_CYCLIC
#pragma omp for schedule(static, 1) reduction(+ : chained)
#else
#pragma omp for reduction(+ : chained)
#endif
    for (int i = 0; i < N; i++)
        chained += b[i];

    printf("total %ld more %ld chained %ld\n", total, more, chained);
    return 0;
}
