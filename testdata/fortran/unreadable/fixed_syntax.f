     &      X = 1
      PROGRAM P
      INTEGER I
   1A CONTINUE
      Y = 'UNTERMINATED
      END
