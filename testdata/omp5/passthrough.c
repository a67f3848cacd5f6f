/* Directives that pass through or are measured around without changing
 * meaning: loop (stand-alone, in parallel, combined), declare variant,
 * declare reduction, requires, nothing, scope. gcc 12 does not know
 * metadirective, assume and assumes (it ignores them with
 * -Wunknown-pragmas), so they stand in `#ifdef REGIO_OMP51` blocks: Regio
 * still instruments around them (see the golden snapshot) and the file
 * compiles without them. `expect` comments as in
 * testdata/omp/constructs.c. Also built with the 5.1 directives (gcc
 * ignores them in both builds, with the same warnings): */
/* variant: -DREGIO_OMP51 */
#include <stdio.h>

#define N 30

#pragma omp requires atomic_default_mem_order(seq_cst)

#ifdef REGIO_OMP51
#pragma omp assumes no_openmp_routines
#endif

typedef struct {
    long lo, hi;
} range;

#pragma omp declare reduction(span : range : omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
                                               omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = omp_orig)

long triple_parallel(long x);

#pragma omp declare variant(triple_parallel) match(construct = {parallel})
long triple(long x);

long triple(long x)
{
    return 3 * x;
}

long triple_parallel(long x)
{
    return x + x + x;
}

int main(void)
{
    long a[N], sum = 0, par = 0;
    range r = {1000, -1000};

    /* expect omp_parallel: each 1, omp_loop: each 1 */
#pragma omp parallel loop reduction(+ : sum)
    for (int i = 0; i < N; i++) {
        a[i] = triple(i);
        sum += a[i];
    }

    /* expect omp_parallel: each 1 */
#pragma omp parallel shared(a, par, r)
    {
        /* expect omp_loop: each 1 */
#pragma omp loop bind(parallel) reduction(+ : par)
        for (int i = 0; i < N; i++)
            par += a[i];

        /* expect omp_for: each 1, omp_implicit_barrier: each 1 */
#pragma omp for reduction(span : r)
        for (int i = 0; i < N; i++) {
            if (a[i] < r.lo)
                r.lo = a[i];
            if (a[i] > r.hi)
                r.hi = a[i];
        }

#pragma omp scope
        {
#pragma omp nothing
        }
    }

    long seq = 0;
    /* expect omp_loop: 1 */
#pragma omp loop bind(thread) order(concurrent)
    for (int i = 0; i < N; i++)
        a[i] = a[i] + 1;
    for (int i = 0; i < N; i++)
        seq += a[i];

#ifdef REGIO_OMP51
#pragma omp metadirective when(construct = {parallel} : for) default(simd)
    for (int i = 0; i < N; i++)
        a[i] = a[i] - 1;
#pragma omp assume holds(N > 0)
    {
        seq += 0;
    }
#endif

    printf("sum %ld par %ld span %ld..%ld seq %ld\n", sum, par, r.lo, r.hi, seq);
    return 0;
}
