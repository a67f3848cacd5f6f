/* OpenMP directives in #ifdef groups whose statement follows the #endif,
 * AMG's idiom (issue 13): measured where USE_OMP is defined, gone where
 * it is not, and the program prints the same in every build (with and
 * without USE_OMP, with and without -fopenmp). Shapes: a parallel loop
 * whose schedule is a macro, a parallel region continued over two lines
 * with its block after the #endif, holding a loop construct in its own
 * group, a barrier and a master in one group, omp_get_thread_num() under
 * #ifdef _OPENMP; and a loop with a #define / #undef of a name of its
 * condition, left as written. The last line printed is a __LINE__: the
 * instrumented copy keeps the original's line numbers. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define N 64
#define SMP_SCHEDULE schedule(static)

static double a[N], b[N];

int main(void)
{
    int i, t = 0;
    double s = 0;
#ifdef USE_OMP
#pragma omp parallel for private(i) SMP_SCHEDULE
#endif
    for (i = 0; i < N; i++)
        a[i] = 2.0 * i;

#if defined(USE_OMP) && !defined(SERIAL)
#pragma omp parallel private(i, t) \
        reduction(+:s)
#endif
    {
        t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
#ifdef USE_OMP
        /* each thread takes its share */
#pragma omp for
#endif
        for (i = 0; i < N; i++)
            b[i] = a[i] + 1 + 0 * t;
#ifdef USE_OMP
#pragma omp barrier
#pragma omp master
#endif
        {
            s += b[N - 1];
        }
    }

#if defined(USE_OMP) && !defined(STEP)
#pragma omp parallel for reduction(+:s)
#endif
    for (i = 0; i < N; i++) {
#define STEP 1
        s += STEP * b[i];
#undef STEP
    }
    printf("s %.1f\n", s);
    printf("line %d\n", __LINE__);
    return 0;
}
