/* masked (with and without filter), parallel masked, masked taskloop,
 * parallel masked taskloop, taskloop, taskloop simd. No barrier may be
 * added inside masked, task, taskloop or critical regions; taskloop is
 * measured like task (around the construct on the creating thread, and
 * every iteration where the generated task runs it). `expect` comments as
 * in testdata/omp/constructs.c. */
#include <omp.h>
#include <stdio.h>

#define N 40

static long work(int i)
{
    return (long)i * i;
}

int main(void)
{
    long sum = 0, sum2 = 0, masked = 0, filtered = 0, grouped = 0, vec[N];
    int last_thread = 0;

    /* expect omp_parallel: each 1 */
#pragma omp parallel shared(sum, masked, filtered, last_thread)
    {
        /* expect omp_masked: 1 */
#pragma omp masked
        masked += 1;

        /* The last thread of the team: one visit at any team size. */
        /* expect omp_masked: 1 */
#pragma omp masked filter(omp_get_num_threads() - 1)
        {
            filtered += 10;
            last_thread = omp_get_thread_num() == omp_get_num_threads() - 1;
        }

        /* expect omp_masked: 1, omp_taskloop: 1, omp_taskloop_body: 40 */
#pragma omp masked taskloop grainsize(4) reduction(+ : sum)
        for (int i = 0; i < N; i++)
            sum += work(i);

        /* expect omp_barrier: each 1 */
#pragma omp barrier

        /* expect omp_single: each 1, omp_single_body: 1 */
#pragma omp single
        {
            /* expect omp_taskloop: 1, omp_taskloop_body: 40 */
#pragma omp taskloop num_tasks(5) shared(grouped)
            for (int i = 0; i < N; i++) {
                if (i % 2)
                    continue;
#pragma omp atomic
                grouped += i;
            }
        }
    }

    /* expect omp_parallel: 2, omp_masked: 1, omp_taskloop: 1, omp_taskloop_body: 40 */
#pragma omp parallel masked taskloop num_threads(2) reduction(+ : sum2) collapse(2) grainsize(8)
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 5; j++)
            sum2 += work(i * 5 + j);

    /* expect omp_parallel: each 1, omp_masked: 1 */
#pragma omp parallel masked default(none) shared(masked)
    masked += 100;

    /* expect omp_parallel: each 1, omp_masked: 1, omp_taskloop: 1 */
#pragma omp parallel masked taskloop simd shared(vec)
    for (int i = 0; i < N; i++)
        vec[i] = 2 * i;

    long v = 0;
    /* expect omp_parallel: each 1 */
#pragma omp parallel shared(v, vec)
    {
        /* expect omp_masked: 1, omp_taskloop: 1 */
#pragma omp masked taskloop simd reduction(+ : v)
        for (int i = 0; i < N; i++)
            v += vec[i];
    }

    long t = 0;
    /* expect omp_taskloop: 1 */
#pragma omp taskloop simd reduction(+ : t)
    for (int i = 0; i < N; i++)
        t += i;

    printf("sum %ld sum2 %ld masked %ld filtered %ld last %d grouped %ld v %ld t %ld\n", sum, sum2,
           masked, filtered, last_thread, grouped, v, t);
    return 0;
}
