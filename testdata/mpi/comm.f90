! MPI from free-form Fortran with `use mpi`: ring sendrecv, non-blocking
! exchange with waits, collectives, a CALL spread over continuation lines,
! and an imbalance before MPI_BARRIER (rank r spins (r + 1) * 100 ms).
! Per-rank call counts are in tests/mpi_end_to_end.rs. Only rank 0 prints.
program comm
  use mpi
  implicit none
  integer, parameter :: iter = 5
  integer :: rank, nprocs, ierr, i, left, right
  integer :: req(2)
  integer(8) :: mine, got, total, ex

  call MPI_Init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  got = -1
  do i = 1, iter
    mine = rank + i
    call MPI_Sendrecv(mine, 1, MPI_INTEGER8, right, 30, &
                      got, 1, MPI_INTEGER8, left, 30, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end do

  ex = 0
  do i = 1, iter
    mine = rank * 100 + i
    call MPI_Irecv(got, 1, MPI_INTEGER8, left, 20, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(mine, 1, MPI_INTEGER8, right, 20, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    ex = ex + got
  end do

  call MPI_Allreduce(ex, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(total, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)

  call spin((rank + 1) * 100)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  if (rank == 0) then
    print '(a,i0,a,i0)', 'size ', nprocs, ' total ', total
  end if
  call MPI_Finalize(ierr)

contains

  subroutine spin(ms)
    integer, intent(in) :: ms
    integer(8) :: t0, t, rate
    call system_clock(t0, rate)
    do
      call system_clock(t)
      if ((t - t0) * 1000 >= ms * rate) exit
    end do
  end subroutine spin

end program comm
