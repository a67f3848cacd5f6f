! Preprocessed free form (.F90): cpp lines are left alone, code in #ifdef
! branches is instrumented in every branch, and the line markers survive
! cpp. `! expect N`: times a loop is entered.
#define SCALE 3
program preproc
  implicit none
  integer :: i, total
  total = 0
  do i = 1, 4  ! expect 1
#ifdef VERBOSE
    print '(a,i0)', 'step ', i
#endif
    total = total + SCALE * i
  end do
#ifdef VERBOSE
  call report(total)
#else
  call report(-total)
#endif
contains
  subroutine report(t)
    integer, intent(in) :: t
    print '(a,i0)', 'total ', t
  end subroutine report
end program preproc
