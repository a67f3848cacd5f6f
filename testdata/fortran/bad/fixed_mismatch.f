      SUBROUTINE S(N)
      INTEGER N
c$regio begin a
      IF (N .GT. 0) THEN
         WRITE (*,*) N
*$regio end b
      END IF
      END
