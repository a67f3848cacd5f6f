subroutine s(n)
  integer, intent(in) :: n
  integer :: i
  do i = 1, n
    !$regio begin half
    print *, i
  end do
  !$regio end half
end subroutine s
