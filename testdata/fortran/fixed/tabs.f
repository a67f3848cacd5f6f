C     Tab-formatted fixed form (DEC style): a tab in columns 1-6 starts
C     the statement field, a tab followed by a digit 1-9 continues the
C     previous line. `! expect N`: times a loop is entered.
	PROGRAM TABS
	INTEGER I, N
	N = 0
	DO 10 I = 1,
	1 5									! expect 1
10	N = N + I
	IF (N .GT. 10) GOTO 20
	WRITE (*,*) 'SMALL'
20	WRITE (*,*) 'N =', N
	CALL T2(N)
	CALL T2(1)
	END

	SUBROUTINE T2(N)
	INTEGER N, K
	DO 40 K = 1, 3								! expect 2
	   IF (N .GT. 5) GOTO 30
40	CONTINUE
	WRITE (*,*) 'T2', N
30	RETURN
	END
