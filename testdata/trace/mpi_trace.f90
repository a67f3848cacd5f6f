! MPI messages in trace mode from Fortran (`use mpi`), for
! tests/e2e/trace_mpi.rs: a blocking ring (rank r sends r + 1 messages of
! r + 1 integers to r + 1; even ranks receive them from MPI_ANY_SOURCE with
! a status, odd ranks from their left neighbour through a subroutine that
! is handed MPI_STATUS_IGNORE as its status argument), an
! MPI_Isend/MPI_Irecv exchange with both neighbours (receives from
! MPI_ANY_SOURCE) completed by MPI_Waitall with statuses, one message to
! the next rank of the same parity on a duplicate of MPI_Comm_split's
! communicator (MPI_Sendrecv, from MPI_ANY_SOURCE), MPI_Bcast of 4
! integers from rank 0, MPI_Allreduce of 1, MPI_Gather of 2 to rank 1 and
! MPI_Allreduce of 1 with MPI_IN_PLACE (the test knows every rank's
! collective bytes from these counts).
program mpi_trace
  use mpi
  implicit none
  integer :: rank, nranks, ierr, right, left, i
  integer :: ring_buf(64), total, gathered(128)
  double precision :: out(8, 2), in(8, 2)
  integer :: req(4), sub, sub2, subrank, subsize
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
        call MPI_Recv(ring_buf, left + 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, st, ierr)
      end do
    else
      do i = 1, left + 1
        call recv_from(ring_buf, left + 1, left, MPI_STATUS_IGNORE)
      end do
      do i = 1, rank + 1
        call MPI_Send(ring_buf, rank + 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
      end do
    end if
    call MPI_Irecv(in(1, 1), 8, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(in(1, 2), 8, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(out(1, 1), 8, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(out(1, 2), 8, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, stats, ierr)
    ! A duplicate of the split by parity: one message to the next rank of
    ! the same parity, received from MPI_ANY_SOURCE.
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
    call MPI_Comm_dup(sub, sub2, ierr)
    call MPI_Comm_rank(sub2, subrank, ierr)
    call MPI_Comm_size(sub2, subsize, ierr)
    if (subsize > 1) then
      call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(subrank + 1, subsize), 5, &
                        total, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, sub2, st, ierr)
    end if
    call MPI_Comm_free(sub2, ierr)
    call MPI_Comm_free(sub, ierr)
  end if
  call MPI_Bcast(ring_buf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Gather(ring_buf, 2, MPI_INTEGER, gathered, 2, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a)', 'mpi_trace done on ', nranks, ' ranks'
  call MPI_Finalize(ierr)
contains
  ! A receive whose status argument is whatever the caller passes (here
  ! MPI_STATUS_IGNORE: only the runtime can tell).
  subroutine recv_from(buf, n, source, status)
    integer, intent(inout) :: buf(*)
    integer, intent(in) :: n, source
    integer, intent(inout) :: status(MPI_STATUS_SIZE)
    integer :: err
    call MPI_Recv(buf, n, MPI_INTEGER, source, 1, MPI_COMM_WORLD, status, err)
  end subroutine recv_from
end program mpi_trace
