! User events from Fortran (tests/e2e/user_events.rs), --regions functions.
! Expected: under events;step "step_size" 4 events, values 0.5, 1.0,
! 1.5, 2.0 (min 0.5, max 2, sum 5); under events "phase" once, value 1.
program events
  implicit none
  integer :: i
  call regio_event('phase', 1d0)
  do i = 1, 4
    call step(i)
  end do
  print '(a)', 'done'
contains
  subroutine step(i)
    integer, intent(in) :: i
    call regio_event('step_size', dble(i) * 0.5d0)
  end subroutine step
end program events
