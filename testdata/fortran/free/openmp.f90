! Free form with OpenMP directives and conditional compilation (`!$ `):
! probes never come between a loop directive and its DO, and the
! declarations and the entry probe come before conditional statements.
! Compiled with and without -fopenmp. `! expect N`: times a loop is entered.
program omp_demo
!$ use omp_lib
  implicit none
  integer :: i, s
  integer, parameter :: n = 100
!$ integer :: nt
!$ nt = omp_get_max_threads()
  s = 0
!$omp parallel do reduction(+:s)
  do i = 1, n  ! expect 1
    s = s + i
  end do
!$omp end parallel do
  print '(a,i0)', 's = ', s
!$ if (nt < 1) print *, 'never'
end program omp_demo
