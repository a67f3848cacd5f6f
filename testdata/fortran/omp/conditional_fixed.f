C     Fixed form: `c$`, `*$` and `!$` in columns 1-2 make lines that are
C     code when compiled with OpenMP; a labelled DO loop on such lines is
C     what `c$omp parallel do` binds to. Built with and without -fopenmp,
C     with the same output. `C expect KIND: N` as in testdata/omp.
      PROGRAM CONDF
      IMPLICIT NONE
      INTEGER N
      PARAMETER (N = 30)
      INTEGER I, S, T
      LOGICAL PAR
      PAR = .FALSE.
C$    PAR = .TRUE.
      S = 0
      T = 0
      IF (.NOT. PAR) THEN
         S = N * (N + 1) / 2
         T = N
      END IF
C expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
C$OMP PARALLEL DO REDUCTION(+:S)
C$    DO 10 I = 1, N
C$       S = S + I
C$ 10 CONTINUE
C$OMP END PARALLEL DO
C expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
!$OMP PARALLEL DO REDUCTION(+:T)
*$    DO I = 1, N
*$       T = T + 1
*$    END DO
      CALL JUMPS(T)
      PRINT '(A,I0,1X,I0)', 'S T = ', S, T
      END
      SUBROUTINE JUMPS(K)
      INTEGER K, J
C expect loop: 1
      DO 20 J = 1, 3
C$       IF (J .EQ. 2) RETURN
         K = K + 100
   20 CONTINUE
      K = K - 200
      END
