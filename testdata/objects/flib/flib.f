C     A fixed-form Fortran library instrumented on its own
C     (tests/e2e/objects.rs): its local ids overlap the program's.
      INTEGER FUNCTION FLHELP(X)
      INTEGER X
      FLHELP = X * 2
      END

      INTEGER FUNCTION FLWORK(N) BIND(C, NAME='flwork')
      USE ISO_C_BINDING, ONLY: C_INT
      INTEGER(C_INT), VALUE :: N
      INTEGER I, S, FLHELP
      S = 0
      DO 10 I = 1, N
         S = S + FLHELP(I)
   10 CONTINUE
      FLWORK = S
      END
