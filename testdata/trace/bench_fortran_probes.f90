! Fortran MPI probes, one rank, for the benchmark of
! notes/handoff-h-mpifort.md (`scripts/bench_fortran_mpi_probes.sh`): the
! first argument is the number of iterations; each makes an MPI_Allreduce
! in a subroutine whose send buffer is its dummy argument (captured with
! LOC(buffer): regio_mpi_coll_buf; the script's second build declares a
! name `loc`, which keeps the capture at regio_mpi_coll) and a message to
! itself completed by an MPI_Test with a status (regio_mpi_test_status).
program bench_fortran_probes
  use mpi
  implicit none
  integer :: i, n, ierr, x, y, s, r, req
  integer :: st(MPI_STATUS_SIZE)
  logical :: flag
  character(len=16) :: arg

  call MPI_Init(ierr)
  n = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  x = 1
  s = 1
  do i = 1, n
    call sum_of(x, y)
    call MPI_Irecv(r, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, req, ierr)
    call MPI_Send(s, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(req, flag, st, ierr)
    end do
  end do
  print '(i0)', y + r
  call MPI_Finalize(ierr)
contains
  subroutine sum_of(sendbuf, recvbuf)
    integer, intent(in) :: sendbuf
    integer, intent(out) :: recvbuf
    integer :: err
    call MPI_Allreduce(sendbuf, recvbuf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, err)
  end subroutine sum_of
end program bench_fortran_probes
