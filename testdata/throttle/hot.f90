! A tiny function called 10^6 times inside a normal subroutine (see hot.c).
module hot_mod
  implicit none
  integer(8) :: sink = 0
contains
  integer(8) function tiny(i)
    integer(8), intent(in) :: i
    tiny = i * 2654435761_8
  end function tiny

  integer(8) function slow(i)
    integer(8), intent(in) :: i
    integer(8) :: x
    integer :: k
    x = i
    do k = 1, 1000
      x = ieor(x * 6364136223_8, x / 7_8) + 1442695_8
    end do
    sink = x
    slow = x
  end function slow

  subroutine work(tiny_calls, slow_calls, s)
    integer(8), intent(in) :: tiny_calls, slow_calls
    integer(8), intent(out) :: s
    integer(8) :: i
    s = 0
    do i = 1, tiny_calls
      s = s + tiny(i)
    end do
    do i = 1, slow_calls
      s = s + slow(i)
    end do
  end subroutine work
end module hot_mod

program hot
  use hot_mod
  implicit none
  integer(8) :: s
  call work(1000000_8, 110000_8, s)
  print *, s
end program hot
