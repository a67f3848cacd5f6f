C     A fixed-form program that includes a Fortran `.h` file.
      PROGRAM MAIN
      INCLUDE 'params.h'
      INTEGER I
      DO 10 I = 1, NMAX
         A(I) = DBLE(I)
   10 CONTINUE
      CALL ADDUP
      WRITE (*, '(A, F8.1)') 'total', TOTAL
      END

      SUBROUTINE ADDUP
      INCLUDE 'params.h'
      INTEGER I
      TOTAL = 0.0D0
      DO 20 I = 1, NMAX
         TOTAL = TOTAL + A(I)
   20 CONTINUE
      END
