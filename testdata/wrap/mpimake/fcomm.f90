! A reduction and a broadcast in Fortran; only rank 0 prints.
program fcomm
  use mpi
  implicit none
  integer :: rank, nranks, ierr, n
  double precision :: mine, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  mine = square(rank + 1)
  call MPI_Allreduce(mine, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  n = 0
  if (rank == 0) n = 42
  call MPI_Bcast(n, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,f8.1,a,i0)', 'ranks ', nranks, ' total ', total, ' n ', n
  call MPI_Finalize(ierr)
contains
  double precision function square(k)
    integer, intent(in) :: k
    square = dble(k) * dble(k)
  end function square
end program fcomm
