! Fortran OpenMP in trace mode (tests/e2e/trace_fortran.rs), --regions
! omp,functions, OMP_NUM_THREADS=3: two parallel do loops of 12
! iterations, each iteration a call of work (24 calls over the teams'
! threads). Prints 156.0 (2 * (1 + ... + 12)).
program omptrace
  implicit none
  integer :: i, rep
  real(8) :: total
  total = 0d0
  do rep = 1, 2
!$omp parallel do reduction(+:total)
    do i = 1, 12
      total = total + work(i)
    end do
!$omp end parallel do
  end do
  print '(f8.1)', total
contains
  real(8) function work(i)
    integer, intent(in) :: i
    work = dble(i)
  end function work
end program omptrace
