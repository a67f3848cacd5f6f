! Host `teams` with `distribute`, `target` regions, `target teams
! distribute parallel do`, a `declare target` procedure, `target data`
! and `requires` (free source form). Nothing inside a target region or a
! declare-target procedure is touched (they are listed as not measured);
! host teams are measured around the construct and once per team inside
! it, where our probes are plain calls, legal strictly inside teams.
! Without an offload device the target regions run on the host, so the
! output is the same. `expect` comments as in testdata/omp/constructs.f90.
module device_code
  implicit none
contains
  integer function twice(x)
    !$omp declare target
    integer, intent(in) :: x
    integer :: k
    twice = 0
    do k = 1, 2
       twice = twice + x
    end do
  end function twice
end module device_code

program teams_target
  use device_code
  implicit none
  !$omp requires atomic_default_mem_order(seq_cst)
  integer, parameter :: n = 100
  integer :: i, s, t, u, v, a(n)

  s = 0; t = 0; u = 0; v = 0
  a = 1

  ! expect omp_teams: 1, omp_teams_body: 2
  !$omp teams num_teams(2) thread_limit(2) reduction(+:s)
  ! expect omp_distribute: 2
  !$omp distribute
  do i = 1, n
     s = s + i
  end do
  !$omp end teams

  ! expect omp_teams: 1
  !$omp teams num_teams(2) reduction(+:t)
  ! expect omp_distribute: 2
  !$omp distribute parallel do reduction(+:t)
  do i = 1, n
     t = t + a(i)
  end do
  !$omp end teams

  ! Everything inside stays as written.
  !$omp target map(tofrom: u) map(to: a)
  do i = 1, n
     u = u + twice(a(i))
  end do
  !$omp end target

  !$omp target teams distribute parallel do reduction(+:v) map(tofrom: v)
  do i = 1, n
     v = v + i
  end do

  ! Its body runs on the host: measured.
  !$omp target data map(tofrom: a)
  ! expect loop: 1
  do i = 1, n
     a(i) = a(i) + 1
  end do
  !$omp end target data

  print '(4(a,i0))', 's = ', s, ' t = ', t, ' u = ', u, ' v = ', v
  print '(a,i0)', 'sum(a) = ', sum(a)
end program teams_target
