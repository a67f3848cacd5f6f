C     Fortran include file named .h, as old benchmarks have them: read
C     by `include 'params.h'` in fixed-form code, never by a C compiler.
      INTEGER NMAX
      PARAMETER (NMAX = 10)
      DOUBLE PRECISION A(NMAX), TOTAL
      COMMON /BLK/ A, TOTAL
