! Conditional compilation: lines that begin with the `!$ ` sentinel are
! code when compiled with OpenMP and comments without. An `!$omp do`
! binds to a DO loop written on such lines, their calls are measured, and
! their jumps out of regions get exit probes on such lines too. Built with
! and without -fopenmp, with the same output. `! expect KIND: N` as in
! testdata/omp (the OpenMP build).
program conditional
!$ use omp_lib
  implicit none
  integer, parameter :: n = 40
  integer :: i, s, t, k
  logical :: par
!$ integer(kind=omp_lock_kind) :: lk
  par = .false.
!$ par = .true.
  s = 0
  t = 0
  k = 0
!$ call omp_init_lock(lk)
  if (.not. par) then
    s = n * (n + 1) / 2
    t = n
  end if
  ! expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
!$omp parallel do reduction(+:s)
!$ do i = 1, n
!$   s = s + i
!$ end do
!$omp end parallel do
  ! expect omp_parallel: each 1
!$omp parallel reduction(+:t)
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
!$omp do
!$      do i = 1, n
!$        t = t + 1
!$      end do
  ! expect omp_lock: each 1
!$ call omp_set_lock(lk)
!$omp atomic
  k = k + 1
  ! expect omp_unlock: each 1
!$ call omp_unset_lock(lk)
!$omp end parallel
!$ call omp_destroy_lock(lk)
!$ if (omp_get_max_threads() > 0) then
  k = min(k, 1)
!$ end if
  if (.not. par) k = 1
  call jumps(k)
  print '(a,i0,1x,i0,1x,i0)', 's t k = ', s, t, k
contains
  subroutine jumps(k)
    integer, intent(inout) :: k
    integer :: j
    ! expect user: 1
    !$regio begin body
    ! expect loop: 1
    do j = 1, 10
      k = k + 1
      if (j == 5) then
!$      k = k + 5
!$      go to 10
      end if
    end do
    !$regio end body
10  continue
    ! expect loop: 1
    do j = 1, 3
!$    if (j == 2) return
      k = k + 100
    end do
    k = k - 200
  end subroutine jumps
end program conditional
