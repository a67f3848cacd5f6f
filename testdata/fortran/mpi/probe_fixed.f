C     MPI probes from fixed form (`mpif.h`): source and tag in `aux`.
      PROGRAM PROBEF
      INCLUDE 'mpif.h'
      INTEGER IERR, ST(MPI_STATUS_SIZE)
      LOGICAL FLAG
      CALL MPI_INIT(IERR)
      CALL MPI_PROBE(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD,
     &               ST, IERR)
      CALL MPI_IPROBE(3, MPI_ANY_TAG, MPI_COMM_WORLD, FLAG, ST, IERR)
      CALL MPI_FINALIZE(IERR)
      END
