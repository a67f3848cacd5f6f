/* Functions part of whose regions would have their probes between
 * preprocessor lines and the code they govern, as NPB, PolyBench, AMG and
 * Meschach write them. Each function is measured with the region kinds
 * whose probes stay outside the conditional groups:
 * - `sweep`: an `omp for` followed by `#if` alternatives of the loop
 *   heads (a reversed sweep under OpenMP, NPB's LU): its loops are left
 *   out, the construct and the calls are measured;
 * - `tally`: an `omp parallel` block opened in one `#ifdef _OPENMP` and
 *   closed in another (PolyBench's PAPI functions): the construct is left
 *   out, the loop and calls inside are measured;
 * - `sparse_add`: a loop whose one statement ends in `#if` alternatives
 *   (`y[idx(j)]` / `#ifdef PERSISTENT` / `+= recv[k++];` / `#else` /
 *   `+= buf[k++];` / `#endif`, AMG's matvec): measured whole, the loop
 *   closing after `#endif`;
 * - `shift`: a loop whose body is an `#ifdef` without `#else` (without
 *   the macro, the body is the statement after `#endif`): its loop is
 *   left out, the calls are measured;
 * - `main` has no type and follows an `enum` at file scope (NPB's
 *   setparams.c), and has a label whose statement is `#pragma omp
 *   atomic` (measured as the construct). */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define N 6

enum kinds { SMALL, LARGE };

static double grid[N][N];
static int runs;

static double scale(int k)
{
    return 0.5 * k;
}

static void sweep(int n)
{
    int i, j;
#pragma omp for nowait schedule(static)
#if defined(_OPENMP)
    for (i = n - 1; i >= 0; i--) {
        for (j = n - 1; j >= 0; j--) {
#else
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
#endif
            grid[i][j] = scale(i + j);
        }
    }
}

static double tally(int n)
{
    double total = 0;
#ifdef _OPENMP
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0)
        {
#endif
            int k;
            for (k = 0; k < n; k++) /* @loop tally */
                total += scale(k) + grid[k][k];
#ifdef _OPENMP
        }
    }
#pragma omp barrier
#endif
    return total;
}

static int idx(int j)
{
    return (j * 5) % N;
}

static double sparse_add(const double *recv, const double *buf)
{
    double y[N] = {0};
    int j, k = 0;
    (void)recv; /* one of the two is read, by configuration */
    (void)buf;
    for (j = 0; j < N; j++) /* @loop sparse */
        y[idx(j)]
#ifdef PERSISTENT
            += recv[k++];
#else
            += buf[k++];
#endif
    return y[0] + y[N - 1];
}

static int shift(int n)
{
    int i, t = 0;
    for (i = 0; i < n; i++)
#ifdef PERSISTENT
        t += idx(i);
#endif
    t += idx(2);
    return t;
}

main(int argc, char *argv[])
{
    enum kinds kind = argc > 1 ? LARGE : SMALL;
    double t;
    (void)argv;
    /* One thread: the test holds the sum of all regions' times against
     * the wall time of the process. */
#pragma omp parallel num_threads(1)
    sweep(N);
    t = tally(N) + sparse_add(grid[1], grid[2]) + shift(3);
    goto count;
count: /* a label whose statement is an OpenMP directive */
#pragma omp atomic
    runs++;
    printf("kind %d total %.1f runs %d\n", (int)kind, t, runs);
    return (int)t % 5;
}
