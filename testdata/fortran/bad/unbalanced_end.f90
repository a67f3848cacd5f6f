subroutine s(n)
  integer, intent(in) :: n
  print *, n
  !$regio end work
end subroutine s
