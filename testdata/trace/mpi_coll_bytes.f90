! Collective bytes from Fortran (`use mpi`), for tests/e2e/trace_mpi.rs
! (4 ranks): the test knows every rank's bytes sent and received from
! these counts, in call order (with MPI_IN_PLACE a process's own block is
! not counted, as Score-P does):
! 1. MPI_Allreduce of 2 integers given MPI_IN_PLACE through a subroutine's
!    dummy argument (only the buffer's address tells), 2. the same
!    subroutine with a real buffer, 3. MPI_Gather of 3 to root 2 through a
!    subroutine handed MPI_IN_PLACE on the root, 4. MPI_Scan of 2,
!    5. MPI_Scan of 2 with MPI_IN_PLACE, 6. MPI_Exscan of 2 (Score-P: rank
!    r of N sends N - r blocks and receives r + 1, one fewer each way in
!    place and for Exscan), 7. MPI_Alltoallw of one element to each rank
!    (an integer to even ranks, a double precision to odd ones), 8. the
!    same in place (an integer each way), 9. MPI_Neighbor_allgather of 2
!    on a periodic 1-D MPI_Cart_create ring, 10. MPI_Neighbor_alltoallv
!    of 1 to the left and 2 to the right there, 11. MPI_Neighbor_alltoallw
!    of an integer to the left and a double precision to the right there,
!    12. MPI_Neighbor_alltoall of 3 on an MPI_Dist_graph_create_adjacent
!    chain (in: left, out: right), 13. MPI_Reduce of the checksum to 0.
program mpi_coll_bytes
  use mpi
  implicit none
  integer :: rank, nranks, ierr, i, ring, chain, total, check
  integer :: mine(64), buf(64), x(8)
  integer :: wcounts(16), wsd(16), wrd(16), wst(16), wrt(16)
  double precision :: wsend(16), wrecv(16)
  integer :: dims(1), nb(4), ncs(2), ncr(2), nsd(2), nrd(2)
  integer :: from(1), to(1), weight(1), ntypes_s(2), ntypes_r(2), ncount(2)
  integer(kind=MPI_ADDRESS_KIND) :: nwsd(2), nwrd(2)
  logical :: periods(1)
  double precision :: nwsend(2), nwrecv(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (nranks > 16) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  do i = 1, 64
    mine(i) = rank + i
    buf(i) = rank + i
  end do
  x = rank
  check = 0

  ! 1, 2. Allreduce through a subroutine: in place, then not.
  call sum_into(MPI_IN_PLACE, x, 2)
  check = check + x(2)
  call sum_into(mine(1), x, 2)
  check = check + x(1)
  ! 3. Gather of 3 to root 2, in place at the root (through a subroutine).
  if (rank == 2) then
    buf(7:9) = mine(1:3)
    call gather_at(MPI_IN_PLACE, buf, 2)
  else
    call gather_at(mine(1), buf, 2)
  end if
  if (rank == 2) check = check + buf(3 * nranks)
  ! 4-6. Prefix reductions.
  call MPI_Scan(mine, x, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  check = check + x(2)
  call MPI_Scan(MPI_IN_PLACE, x, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  check = check + x(1)
  call MPI_Exscan(mine, x, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0) check = check + x(2)
  ! 7, 8. Alltoallw with a datatype per rank, then in place.
  do i = 1, nranks
    wsend(i) = rank + i
    wrecv(i) = 0
    wcounts(i) = 1
    wsd(i) = (i - 1) * 8
    wrd(i) = (i - 1) * 8
    if (mod(i - 1, 2) == 1) then
      wst(i) = MPI_DOUBLE_PRECISION
    else
      wst(i) = MPI_INTEGER
    end if
    if (mod(rank, 2) == 1) then
      wrt(i) = MPI_DOUBLE_PRECISION
    else
      wrt(i) = MPI_INTEGER
    end if
  end do
  call MPI_Alltoallw(wsend, wcounts, wsd, wst, wrecv, wcounts, wrd, wrt, MPI_COMM_WORLD, ierr)
  if (mod(rank, 2) == 1) check = check + int(wrecv(nranks))
  do i = 1, nranks
    wrt(i) = MPI_INTEGER
    wrd(i) = (i - 1) * 4
  end do
  call MPI_Alltoallw(MPI_IN_PLACE, wcounts, wsd, wst, buf, wcounts, wrd, wrt, MPI_COMM_WORLD, ierr)
  check = check + buf(nranks)
  ! 9-11. Neighbourhood collectives on a periodic ring.
  dims(1) = nranks
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call MPI_Neighbor_allgather(mine, 2, MPI_INTEGER, buf, 2, MPI_INTEGER, ring, ierr)
  check = check + buf(4)
  ncs = (/ 1, 2 /)
  ncr = (/ 2, 1 /)
  nsd = (/ 0, 1 /)
  nrd = (/ 0, 2 /)
  call MPI_Neighbor_alltoallv(mine, ncs, nsd, MPI_INTEGER, nb, ncr, nrd, MPI_INTEGER, ring, ierr)
  check = check + nb(1) + nb(3)
  ! An integer to the left neighbour, a double precision to the right
  ! one: so a double comes from the left and an integer from the right.
  ncount = 1
  ntypes_s = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION /)
  ntypes_r = (/ MPI_DOUBLE_PRECISION, MPI_INTEGER /)
  nwsd = (/ 0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND /)
  nwrd = nwsd
  nwsend = rank
  nwrecv = 0
  call MPI_Neighbor_alltoallw(nwsend, ncount, nwsd, ntypes_s, nwrecv, ncount, nwrd, ntypes_r, &
                              ring, ierr)
  check = check + int(nwrecv(1))
  ! 12. A distributed-graph chain.
  from(1) = mod(rank + nranks - 1, nranks)
  to(1) = mod(rank + 1, nranks)
  weight(1) = 1
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, from, weight, 1, to, weight, &
                                      MPI_INFO_NULL, .false., chain, ierr)
  call MPI_Neighbor_alltoall(mine, 3, MPI_INTEGER, buf, 3, MPI_INTEGER, chain, ierr)
  check = check + buf(3)
  call MPI_Comm_free(chain, ierr)
  call MPI_Comm_free(ring, ierr)

  ! 13. The checksum.
  call MPI_Reduce(check, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, i0)', 'checksum ', total
    print '(a, i0, a)', 'mpi_coll_bytes done on ', nranks, ' ranks'
  end if
  call MPI_Finalize(ierr)
contains
  ! Sums `n` integers over the ranks into `recvbuf`; `sendbuf` is what the
  ! caller passes (MPI_IN_PLACE or its data).
  subroutine sum_into(sendbuf, recvbuf, n)
    integer, intent(in) :: sendbuf
    integer, intent(inout) :: recvbuf(*)
    integer, intent(in) :: n
    integer :: err
    call MPI_Allreduce(sendbuf, recvbuf, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, err)
  end subroutine sum_into

  ! Gathers 3 integers from every rank into `recvbuf` on `root`.
  subroutine gather_at(sendbuf, recvbuf, root)
    integer, intent(in) :: sendbuf
    integer, intent(inout) :: recvbuf(*)
    integer, intent(in) :: root
    integer :: err
    call MPI_Gather(sendbuf, 3, MPI_INTEGER, recvbuf, 3, MPI_INTEGER, root, MPI_COMM_WORLD, err)
  end subroutine gather_at
end program mpi_coll_bytes
