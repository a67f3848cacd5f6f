! Non-blocking messages completed by the MPI_Test family from Fortran
! (`use mpi`), for tests/e2e/trace_mpi.rs (4 ranks). Every rank, with
! right = r + 1 and left = r - 1 (mod the size):
! 1. MPI_Irecv of 1 integer from MPI_ANY_SOURCE (tag 1, the left
!    neighbour sends it) and MPI_Isend of 1 to the right, each completed
!    by an MPI_Test loop (the receive with a status, the send with
!    MPI_STATUS_IGNORE);
! 2. 2 integers to and from both neighbours (tag 2), completed by an
!    MPI_Testall loop with statuses;
! 3. 3 integers from the left and to the right (tag 3), completed by an
!    MPI_Testany loop;
! 4. 4 integers from the right and to the left (tag 4), completed by an
!    MPI_Testsome loop;
! 5. persistent requests: 5 integers from the left and to the right
!    (tag 5, MPI_Recv_init/MPI_Send_init, MPI_Startall), completed by an
!    MPI_Testall loop with MPI_STATUSES_IGNORE (the handles do not
!    change: only the flag tells).
! So each rank sends 4 messages (44 bytes) to its right neighbour and 2
! (24 bytes) to its left one. Prints a checksum of what arrived.
program mpi_test_calls
  use mpi
  implicit none
  integer :: rank, nranks, ierr, right, left, idx, outcount, done, total
  integer :: req(4), indices(4)
  integer :: st(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 4)
  integer :: sbuf(8), rbuf(8, 4), check
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  sbuf = rank + 1
  rbuf = 0
  check = 0

  ! 1. MPI_Test.
  call MPI_Irecv(rbuf(1, 1), 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(sbuf, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req(1), flag, st, ierr)
  end do
  check = check + rbuf(1, 1) * st(MPI_SOURCE)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req(2), flag, MPI_STATUS_IGNORE, ierr)
  end do

  ! 2. MPI_Testall.
  call MPI_Irecv(rbuf(1, 1), 2, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Irecv(rbuf(1, 2), 2, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Isend(sbuf, 2, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(3), ierr)
  call MPI_Isend(sbuf, 2, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(4), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(4, req, flag, stats, ierr)
  end do
  check = check + rbuf(2, 1) + rbuf(2, 2)

  ! 3. MPI_Testany.
  call MPI_Irecv(rbuf(1, 3), 3, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(2), ierr)
  done = 0
  do while (done < 2)
    call MPI_Testany(2, req, idx, flag, st, ierr)
    if (flag .and. idx /= MPI_UNDEFINED) done = done + 1
  end do
  check = check + rbuf(3, 3)

  ! 4. MPI_Testsome.
  call MPI_Irecv(rbuf(1, 4), 4, MPI_INTEGER, right, 4, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(sbuf, 4, MPI_INTEGER, left, 4, MPI_COMM_WORLD, req(2), ierr)
  done = 0
  do while (done < 2)
    call MPI_Testsome(2, req, outcount, indices, stats, ierr)
    if (outcount /= MPI_UNDEFINED) done = done + outcount
  end do
  check = check + rbuf(4, 4)

  ! 5. Persistent requests completed by MPI_Testall.
  call MPI_Recv_init(rbuf(1, 1), 5, MPI_INTEGER, left, 5, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send_init(sbuf, 5, MPI_INTEGER, right, 5, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Startall(2, req, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, req, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  check = check + rbuf(5, 1)
  call MPI_Request_free(req(1), ierr)
  call MPI_Request_free(req(2), ierr)

  call MPI_Reduce(check, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, i0)', 'checksum ', total
    print '(a, i0, a)', 'mpi_test_calls done on ', nranks, ' ranks'
  end if
  call MPI_Finalize(ierr)
end program mpi_test_calls
