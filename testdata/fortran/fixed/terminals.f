C     Fixed form: DO loops whose terminal statement needs probes (a
C     logical IF leaving the loop, an I/O statement), a jump back to a
C     labelled DO statement, a jump to a labelled END and to a labelled
C     RETURN, an ENTRY into a FUNCTION, DO WHILE and a long IF whose THEN
C     would pass column 72. `! expect N`: times a loop is entered.
      PROGRAM TERMS
      INTEGER I, N, K, IFIRST, ISECND
      EXTERNAL IFIRST, ISECND
      N = 0
      K = 0
   10 DO 20 I = 1, 5                                                    ! expect 2
         N = N + I
   20 IF (N .GT. 20) GO TO 30
      K = K + 1
      IF (K .LT. 2) GO TO 10
   30 WRITE (*, '(A,2I4)') ' N K', N, K                                  ! expect 1
      DO 40 I = 1, 3                                                    ! expect 1
   40 WRITE (*, '(A,I2)') ' ROW', I                                      ! expect 3
      CALL JUMPS(1)
      CALL JUMPS(2)
      CALL JUMPS(3)
      CALL JUMPS(5)
      WRITE (*, '(A,2I4)') ' ENTRIES', IFIRST(3), ISECND(4)              ! expect 1
      WRITE (*, '(A,I4)') ' AGAIN', ISECND(1)                            ! expect 1
      CALL LONGIF(7)
      END

      SUBROUTINE JUMPS(M)
      INTEGER M, J
      J = 0
      DO WHILE (J .LT. 10)                                              ! expect 4
         J = J + M
         IF (J .EQ. 4) GO TO 90
         IF (J .EQ. 9) GO TO 99
      END DO
      WRITE (*, '(A,I3)') ' WHILE', J                                    ! expect 1
      GO TO 99
   90 RETURN
   99 END

      INTEGER FUNCTION IFIRST(N)
      INTEGER N, ISECND, M, TWICE
      TWICE(M) = 2*M
      IFIRST = TWICE(N)
      RETURN
      ENTRY ISECND(N)
      IFIRST = TWICE(TWICE(N))
      END

      SUBROUTINE LONGIF(IVERYLONGNAME)
      INTEGER IVERYLONGNAME, I
      DO 10 I = 1, 2                                                    ! expect 1
         IF (IVERYLONGNAME .GT. 5 .AND. IVERYLONGNAME .LT. 100) RETURN
   10 CONTINUE
      WRITE (*, *) 'SHORT'                                               ! expect 0
      END
