! MPI messages in trace mode from Fortran (`use mpi`), for
! tests/e2e/trace_mpi.rs: a blocking ring (rank r sends r + 1 messages of
! r + 1 integers to r + 1, received with the exact source and count, since
! the Fortran capture has no status), an MPI_Isend/MPI_Irecv exchange with
! both neighbours completed by MPI_Waitall, MPI_Bcast of 4 integers from
! rank 0, MPI_Allreduce of 1 and MPI_Gather of 2 to rank 1 (the test knows
! every rank's collective bytes from these counts).
program mpi_trace
  use mpi
  implicit none
  integer :: rank, nranks, ierr, right, left, i
  integer :: ring_buf(64), total, gathered(128)
  double precision :: out(8, 2), in(8, 2)
  integer :: req(4)
  integer :: st(MPI_STATUS_SIZE)
  integer :: stats(MPI_STATUS_SIZE, 4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  ring_buf = 0
  out = 1.0d0
  if (nranks > 1) then
    if (mod(rank, 2) == 0) then
      do i = 1, rank + 1
        call MPI_Send(ring_buf, rank + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
      end do
      do i = 1, left + 1
        call MPI_Recv(ring_buf, left + 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
      end do
    else
      do i = 1, left + 1
        call MPI_Recv(ring_buf, left + 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, st, ierr)
      end do
      do i = 1, rank + 1
        call MPI_Send(ring_buf, rank + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
      end do
    end if
    call MPI_Irecv(in(1, 1), 8, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(in(1, 2), 8, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(out(1, 1), 8, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(out(1, 2), 8, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, stats, ierr)
  end if
  call MPI_Bcast(ring_buf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Gather(ring_buf, 2, MPI_INTEGER, gathered, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'mpi_trace done on ', nranks, ' ranks'
  call MPI_Finalize(ierr)
end program mpi_trace
