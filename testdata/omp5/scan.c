/* Prefix sums with `scan` and `reduction(inscan, ...)`: the loop stays a
 * loop construct, the `scan` directive stays directly in its body between
 * the two phases, and nothing is put between them. `expect` comments as in
 * testdata/omp/constructs.c. */
#include <stdio.h>

#define N 32

int main(void)
{
    int a[N], incl[N], excl[N], both[N];
    for (int i = 0; i < N; i++)
        a[i] = i % 5 + 1;

    int x = 0;
    /* expect omp_parallel: each 1, omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp parallel for reduction(inscan, + : x)
    for (int i = 0; i < N; i++) {
        x += a[i];
#pragma omp scan inclusive(x)
        incl[i] = x;
    }

    int y = 0;
    /* expect omp_parallel: each 1 */
#pragma omp parallel default(none) shared(a, excl, y)
    {
        /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp for reduction(inscan, + : y)
        for (int i = 0; i < N; i++) {
            excl[i] = y;
#pragma omp scan exclusive(y)
            {
                /* expect loop: 32 */
                for (int k = 0; k < 2; k++)
                    y += a[i] * k;
            }
        }
    }

    int z = 0;
    /* expect omp_parallel: each 1, omp_for: each 1 */
#pragma omp parallel for simd default(none) shared(a, both) reduction(inscan, + : z)
    for (int i = 0; i < N; i++) {
        z += a[i];
#pragma omp scan inclusive(z)
        both[i] = z;
    }

    int w = 0, ws[N];
#pragma omp simd reduction(inscan, + : w)
    for (int i = 0; i < N; i++) {
        w += a[i];
#pragma omp scan inclusive(w)
        ws[i] = w;
    }

    long si = 0, se = 0, sb = 0, sw = 0;
    for (int i = 0; i < N; i++) {
        si += incl[i];
        se += excl[i];
        sb += both[i];
        sw += ws[i];
    }
    printf("x %d y %d z %d w %d incl %ld excl %ld both %ld ws %ld\n", x, y, z, w, si, se, sb, sw);
    return 0;
}
