/* OpenMP simd forms: combined `parallel for simd` (split into parallel +
 * `for simd`, simd stays on the loop construct), `for simd`, stand-alone
 * `simd`, `declare simd` and `declare variant` with simd traits. Nothing is
 * instrumented inside a SIMD loop. `expect` comments as in
 * testdata/omp/constructs.c: KIND: N (in all) or KIND: each N (per thread),
 * N an integer, `T` or `<integer>T` (T = team size). */
#include <stdio.h>

#define N 64

double twice_simd(double x);

/* The variant the compiler calls from SIMD loops. */
#pragma omp declare variant(twice_simd) match(construct = {simd(simdlen(4), notinbranch)})
double twice(double x);

double twice(double x)
{
    return 2.0 * x;
}

double twice_simd(double x)
{
    return x + x;
}

#pragma omp declare simd simdlen(4) notinbranch
static double scale(double x, double f)
{
    return x * f;
}

int main(void)
{
    double a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = i;

    double s = 0, last = 0;
    /* expect omp_parallel: each 1, omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp parallel for simd if(parallel: N > 8) default(none) shared(a, b) \
        lastprivate(last) reduction(+ : s) schedule(static) simdlen(4)
    for (int i = 0; i < N; i++) {
        b[i] = scale(a[i], 3.0);
        for (int k = 0; k < 2; k++)
            s += b[i];
        last = b[i];
    }

    double t = 0;
    /* expect omp_parallel: each 1, omp_fork: each 1, omp_join: each 1 */
#pragma omp parallel shared(t)
    {
        /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp for simd reduction(+ : t)
        for (int i = 0; i < N; i++)
            t += twice(a[i]);

        /* expect omp_for: each 1 */
#pragma omp for simd nowait
        for (int i = 0; i < N; i++)
            b[i] = b[i] + 1.0;
    }

    double m = 0;
#pragma omp simd reduction(max : m)
    for (int i = 0; i < N; i++)
        m = a[i] > m ? a[i] : m;

    double c = 0;
#pragma omp simd collapse(2) reduction(+ : c)
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            c += a[i * 8 + j];

    double sb = 0;
    for (int i = 0; i < N; i++)
        sb += b[i];
    printf("s %.1f last %.1f t %.1f m %.1f c %.1f sb %.1f\n", s, last, t, m, c, sb);
    return 0;
}
