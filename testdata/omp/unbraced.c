/* OpenMP directives where a statement is expected (issue 13): a task as
 * the unbraced body of a loop (the loop the body of a single), a parallel
 * loop as the body of a loop, `critical` and `atomic` as the body of an
 * `if` and a `while`, two directives as the body of an `else`. Each is
 * measured as the construct it is: its text stays one statement, so the
 * statement it is the body of keeps it as its body, and no line moves.
 * `expect` comments as in constructs.c. */
#include <omp.h>
#include <stdio.h>

#define N 16

static int x[N];
static int y[N];
static long sum;
static long hits;

/* The directive in `#ifdef _OPENMP` without `#else`, its loop after the
 * `#endif`: measured, its closing probes under `#ifdef _OPENMP` again
 * (followed by a `#line`), so the copy builds with and without -fopenmp
 * and keeps every line number. */
static void fill(void)
{
    int i;
    /* expect omp_parallel: each 1, omp_for: each 1, omp_implicit_barrier: each 1 */
#ifdef _OPENMP
#pragma omp parallel for
#endif
    for (i = 0; i < N; i++)
        y[i] = 2 * i;
}

/* A parallel loop as the body of a serial loop: run twice. */
static void add_twice(void)
{
    int i, j;
    for (j = 0; j < 2; j++)
        /* expect omp_parallel: each 2, omp_for: each 2, omp_implicit_barrier: each 2 */
#pragma omp parallel for reduction(+:sum)
        for (i = 0; i < N; i++)
            sum += x[i];
}

/* Called by every thread of a team. */
static void count(int n)
{
    if (n > 0)
        /* expect omp_critical: each 1, omp_critical_wait: each 1 */
#pragma omp critical
        hits++;
    while (n-- > N - 4)
        /* expect omp_atomic: each 4 */
#pragma omp atomic
        hits += 1;
}

static void count_again(int n)
{
    if (n < 0)
        hits = 0;
    else
        /* expect omp_parallel: each 1, omp_fork: each 1, omp_join: each 1 */
#pragma omp parallel
        /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single
        hits += n;
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
        /* expect omp_task_create: 16, omp_task: 16 */
#pragma omp task firstprivate(i)
        x[i] += i;

    fill();
    add_twice();
#pragma omp parallel
    count(N);
    count_again(N);
    for (i = 0; i < N; i++)
        total += x[i] + y[i];
    /* Each thread adds 5 in count(), count_again() adds N: the
     * remainder does not depend on the team size. */
    printf("total %ld sum %ld hits %ld\n", total, sum, (hits - N) % 5);
    return 0;
}
