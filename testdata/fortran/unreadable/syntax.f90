program broken
  integer :: i, x
  x = (1 + 2
  do i = 1, 10
    print *, i
  end if
end program broken
