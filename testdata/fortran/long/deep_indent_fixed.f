C     Fixed form, statements from column 51, every region kind, an
C     output directory with a long path: every line Regio writes must
C     end by column 72.
      PROGRAM DEEPF
      IMPLICIT NONE
      INTEGER I, J, S, T
                                                  S = 0
      T = 0
C$REGIO BEGIN OUTER
C$OMP PARALLEL PRIVATE(J) REDUCTION(+:S)
C$OMP DO
                                                  DO 10 I = 1, 4
                                                  DO 20 J = 1, 3
                                                  IF (J .GT. 2) GO TO 10
                                                  S = S + I * J
   20                                             CONTINUE
   10                                             CONTINUE
C$OMP END DO
C$OMP SINGLE
                                                  CALL WORK(T)
C$OMP END SINGLE
C$OMP CRITICAL (UPD)
                                                  T = T + 1
C$OMP END CRITICAL (UPD)
C$OMP END PARALLEL
C$REGIO END OUTER
      WRITE (*, '(A,I0)') 'S = ', S
      WRITE (*, '(A,I0)') 'T > 0: ', MERGE(1, 0, T .GT. 0)
      END
      SUBROUTINE WORK(K)
      INTEGER K
      K = K + 1
      END
