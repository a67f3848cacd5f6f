! MPI from free-form Fortran with `use mpi_f08` (no ierror arguments,
! derived-type handles). Only rank 0 prints.
program comm_f08
  use mpi_f08
  implicit none
  integer, parameter :: iter = 5
  integer :: rank, nprocs, i
  type(MPI_Request) :: req(2)
  integer :: mine, got, total

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  total = 0
  do i = 1, iter
    mine = rank + i
    call MPI_Irecv(got, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 7, &
         MPI_COMM_WORLD, req(1))
    call MPI_Isend(mine, 1, MPI_INTEGER, mod(rank + 1, nprocs), 7, &
         MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    total = total + got
  end do
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,i0)', 'size ', nprocs, ' total ', total
  call MPI_Finalize()
end program comm_f08
