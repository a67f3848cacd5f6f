C     Fixed form FORTRAN 77: shared DO termination, arithmetic IF,
C     computed GO TO, alternate RETURN, ENTRY, continuation lines, a
C     statement ending exactly at column 72, sequence numbers in
C     columns 73-80, statement functions, Hollerith, END= jumps and
C     c$regio / *$regio directives. `! expect N`: times a loop or user
C     region is entered (by construction).
      PROGRAM LEGACY
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INTEGER I, J, K, IR, NSUM
      DIMENSION A(4,3)
      COMMON /TOTALS/ NSUM
      DOUBLE PRECISION CUBE, X
      CHARACTER*20 LINE
      DATA LINE /'1 2 3'/
      CUBE(X) = X*X*X
      NSUM = 0
      DO 10 I = 1, 4                                                     ! expect 1
         DO 10 J = 1, 3                                                  ! expect 4
            A(I,J) = DBLE(I*10 + J)
   10 CONTINUE
      DO 20 I = 1, 4                                                    ! expect 1
      DO 20 J = 1, 3                                                    ! expect 4
   20 NSUM = NSUM + INT(A(I,J))
      WRITE (*, 900) NSUM                                                ! expect 1
  900 FORMAT (6H NSUM=, I6)
      CALL SHARE(A, 4, 3)                                                ! expect 1
      DO 30 K = -1, 1                                                   ! expect 1
         CALL SIGNS(K)                                                   ! expect 3
   30 CONTINUE
      DO 40 K = 1, 5                                                    ! expect 1
         CALL PICK(K, IR)                                                ! expect 5
         WRITE (*, '(A,I2,A,I4)') ' PICK', K, ' ->', IR                  ! expect 5
   40 CONTINUE
      CALL ALTRET(1, *50, *60)                                           ! expect 1
      WRITE (*, *) 'NO JUMP'                                             ! expect 0
      GO TO 70
   50 WRITE (*, *) 'JUMP 50'                                             ! expect 1
      GO TO 70
   60 WRITE (*, *) 'JUMP 60'                                             ! expect 0
   70 CALL ALTRET(2, *80, *80)                                           ! expect 1
   80 CALL ALTRET(3, *50, *60)                                           ! expect 1
      X = CUBE(2.0D0) + CUBE(1.0D0) + CUBE(3.0D0) + CUBE(0.5D0) + 1.25D0
      WRITE (*, '(A,F10.3)') ' CUBES', X                                 ! expect 1
      CALL COUNTER(3)                                                    ! expect 1
      CALL TWICE(4)                                                      ! expect 1
      CALL READER(LINE)                                                  ! expect 1
      WRITE (*, '(A,I3)') ' LONG', LONGSUM(1, 2, 3, 4, 5, 6, 7, 8, 9,    ! expect 1
     &                          10, 11, 12,
     +                          13)
      CALL FINISH(NSUM)                                                  ! expect 1
      END

      SUBROUTINE SHARE(A, M, N)
      DOUBLE PRECISION A(M,N), S
      INTEGER M, N, I, J
      S = 0.0D0
      DO 100 I = 1, M                                                   ! expect 1
         DO 100 J = 1, N                                                ! expect 4
            IF (J .EQ. 2) GO TO 100
            IF (A(I,J) .GT. 42.0D0) GO TO 110
            S = S + A(I,J)
  100 CONTINUE
  110 WRITE (*, '(A,F8.1)') ' SHARE', S                                  ! expect 1
      RETURN
      END

      SUBROUTINE SIGNS(K)
      INTEGER K, M
      DO 200 M = 1, 2                                                   ! expect 3
         IF (K) 210, 220, 230
  200 CONTINUE
  210 WRITE (*, *) 'NEGATIVE'                                            ! expect 1
      RETURN
  220 WRITE (*, *) 'ZERO'                                                ! expect 1
      RETURN
  230 WRITE (*, *) 'POSITIVE'                                            ! expect 1
      END

      SUBROUTINE PICK(K, IR)
      INTEGER K, IR, M
      IR = 0
      DO 300 M = 1, 3                                                   ! expect 5
         GO TO (310, 320, 330) K
         IR = IR + 100
  300 CONTINUE
      RETURN
  310 IR = 1
      RETURN
  320 IR = 2
      RETURN
  330 IR = 3
      END

      SUBROUTINE ALTRET(K, *, *)
      INTEGER K
      IF (K .EQ. 1) RETURN 1
      IF (K .EQ. 2) RETURN 2
      RETURN
      END

      SUBROUTINE COUNTER(N)
      INTEGER N, I, ICOUNT
      SAVE ICOUNT
      DATA ICOUNT /0/
      ICOUNT = ICOUNT + N
      WRITE (*, '(A,I4)') ' COUNTER', ICOUNT                             ! expect 1
      RETURN
      ENTRY TWICE(N)
      DO 400 I = 1, 2                                                   ! expect 1
         ICOUNT = ICOUNT + N
  400 CONTINUE
      WRITE (*, '(A,I4)') ' TWICE', ICOUNT                               ! expect 1
      END

      SUBROUTINE READER(LINE)
      CHARACTER*(*) LINE
      INTEGER V(10), I, N
      N = 0
c$regio begin parse  ! expect 1
      DO 500 I = 1, 10                                                  ! expect 1
         READ (LINE, *, END=510) (V(K), K = 1, I)                        ! expect 4
         N = I
  500 CONTINUE
*$regio end parse
  510 WRITE (*, '(A,I3)') ' READ', N                                     ! expect 1
      END

      INTEGER FUNCTION LONGSUM(I1, I2, I3, I4, I5, I6, I7, I8, I9, I10,
     &                         I11, I12, I13)
      INTEGER I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13
      LONGSUM = I1 + I2 + I3 + I4 + I5 + I6 + I7 + I8 + I9 + I10 + I11
     &        + I12 + I13
      END

      SUBROUTINE FINISH(NSUM)
      INTEGER NSUM
      IF (NSUM .GT. 100) STOP 3
      WRITE (*, *) 'NOT REACHED'                                         ! expect 0
      END
