C     MPI from fixed-form Fortran with INCLUDE 'mpif.h': a ring of
C     SENDRECV, a reduction and a barrier, calls in upper case and over
C     continuation lines. Only rank 0 prints.
      PROGRAM COMMFX
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ITER
      PARAMETER (ITER = 5)
      INTEGER RANK, NPROCS, IERR, I, MINE, GOT, TOTAL
      INTEGER STATUS(MPI_STATUS_SIZE)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      GOT = -1
      DO 10 I = 1, ITER
         MINE = RANK * 10 + I
         CALL MPI_SENDRECV(MINE, 1, MPI_INTEGER, MOD(RANK + 1, NPROCS),
     &        40, GOT, 1, MPI_INTEGER, MOD(RANK + NPROCS - 1, NPROCS),
     &        40, MPI_COMM_WORLD, STATUS, IERR)
   10 CONTINUE
      CALL MPI_REDUCE(GOT, TOTAL, 1, MPI_INTEGER, MPI_SUM, 0,
     &     MPI_COMM_WORLD, IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) WRITE (*, '(A,I0,A,I0)') 'size ', NPROCS,
     &     ' total ', TOTAL
      CALL MPI_FINALIZE(IERR)
      END
