! The Fortran twin of flips.c: probe gates that change while regions are
! open. Fortran's probes read no gate themselves (the runtime reads it),
! and their exits cannot tell whether their entry made a frame. A
! recursive function and a tiny one it calls are throttled in the middle
! of the run (with a low REGIO_THROTTLE), or `leaf` is filtered
! (REGIO_FILTER); the event mask is switched off and on inside a user
! region and inside a function region. Every region must still close
! where it ends, and the program's output must not change.
module flips_mod
  implicit none
  integer(8) :: sink = 0
contains
  integer(8) function leaf(i)
    integer(8), intent(in) :: i
    leaf = i * 2654435761_8
  end function leaf

  recursive integer(8) function rec(depth, i) result(s)
    integer(8), intent(in) :: depth, i
    s = leaf(i)
    if (depth > 0) then
      s = s + rec(depth - 1, i + 1)
    end if
  end function rec

  ! Entered while functions are measured; inside, only user regions are:
  ! its exit must still close its frame.
  integer(8) function masked_inside(n)
    integer(8), intent(in) :: n
    integer(8) :: i
    call regio_set_events('user')
    masked_inside = 0
    do i = 0, n - 1
      masked_inside = masked_inside + rec(2_8, i)
    end do
    call regio_set_events('all')
  end function masked_inside

  integer(8) function phase(n)
    integer(8), intent(in) :: n
    integer(8) :: i
    phase = 0
    !$regio begin span
    call regio_set_events('none')
    do i = 0, n - 1
      phase = phase + leaf(i)
    end do
    call regio_set_events('all')
    !$regio end span
  end function phase
end module flips_mod

program main
  use flips_mod
  implicit none
  integer(8) :: s, i
  s = 0
  do i = 0, 19999
    s = s + rec(3_8, i)
  end do
  s = s + masked_inside(1000_8)
  s = s + phase(1000_8)
  sink = s
  print '(i0)', s
end program main
