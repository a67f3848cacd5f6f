! Trace mode from Fortran (tests/e2e/trace_fortran.rs), --regions
! functions. Expected: tracef 1 call, outer 3 calls, inner 3 * 4 = 12
! calls (inner nested in outer nested in tracef on the one thread), and
! the user event "inner_j" 12 times with values 1..4 each time round.
! The fourth call of outer (4 more of inner, 4 more events) is made while
! the event mask is `none` (regio_set_events): in neither the trace nor
! the profile, and the trace has two mask records.
program tracef
  implicit none
  integer :: i
  real(8) :: total
  total = 0d0
  do i = 1, 3
    call outer(i, total)
  end do
  call regio_set_events('none')
  call outer(10, total)
  call regio_set_events('all')
  print '(f8.1)', total
contains
  subroutine outer(i, total)
    integer, intent(in) :: i
    real(8), intent(inout) :: total
    integer :: j
    do j = 1, 4
      total = total + inner(i, j)
    end do
  end subroutine outer

  real(8) function inner(i, j)
    integer, intent(in) :: i, j
    call regio_event('inner_j', dble(j))
    inner = dble(i * j)
  end function inner
end program tracef
