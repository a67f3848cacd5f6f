! MPI routines whose peer and tag arguments the IDF records in `aux`:
! probes (plain, nonblocking, matched), persistent and partitioned
! requests, and a nonblocking combined send and receive. Instrumented
! only (fortran_golden), never run; it compiles against MPICH 4.
program probe
  use mpi
  implicit none
  integer :: rank, ierr, msg, n, req, preq
  integer :: st(MPI_STATUS_SIZE)
  logical :: flag
  integer :: buf(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 0) then
    call MPI_Send_init(buf, 4, MPI_INTEGER, 1, 11, MPI_COMM_WORLD, req, ierr)
    call MPI_Start(req, ierr)
    call MPI_Wait(req, st, ierr)
  else if (rank == 1) then
    call MPI_Probe(0, 11, MPI_COMM_WORLD, st, ierr)
    call mpi_iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, st, ierr)
    call MPI_MPROBE(0, 11, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_Improbe(0, 11, MPI_COMM_WORLD, flag, msg, st, ierr)
    call MPI_Recv_init(buf, 4, MPI_INTEGER, 0, 11, &
                       MPI_COMM_WORLD, req, ierr)
  end if
  n = 2
  call MPI_Psend_init(buf, n, 2, MPI_INTEGER, 1, 12, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, preq, ierr)
  call MPI_Precv_init(buf, n, 2, MPI_INTEGER, 0, 12, MPI_COMM_WORLD, &
                      MPI_INFO_NULL, preq, ierr)
  call MPI_Isendrecv(buf(1), 1, MPI_INTEGER, 1, 13, buf(2), 1, MPI_INTEGER, &
                     0, 13, MPI_COMM_WORLD, req, ierr)
  call MPI_Finalize(ierr)
end program probe
