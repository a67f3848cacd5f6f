/* An OpenMP directive in `#ifdef _OPENMP` (its loop after `#endif`) in a
 * function the parser reads only the second time (an `#ifdef WIDE` body
 * of another loop): the group is read as written, so the directive gets
 * the same rendering as in the first reading (the condition repeated
 * around the closing half) and the function keeps its loops and
 * construct. Built with and without -fopenmp and -DWIDE. */
#include <stdio.h>

static int work(int n, double *a)
{
  int i, s = 0;
  /* Indented, a block, and the same condition again below: the
   * closing half of each construct repeats its own group. */
  #ifdef _OPENMP
  #pragma omp parallel
  #endif
  {
    int t = n;
    (void)t;
  }
#ifdef _OPENMP
#pragma omp parallel for private(i)
#endif
  for (i = 0; i < n; i++) /* the construct's loop (omp_for), no loop region */
    a[i] = i;
  for (i = 0; i < n; i++) /* @loop work_sum */
#ifdef WIDE
    s += 2 * (int)a[i];
#else
    s += (int)a[i];
#endif
  return s;
}

int main(void)
{
  double a[4];
  int s = work(4, a);
  printf("s = %d\n", s);
  return s % 5;
}
