subroutine s(n)
  !$regio begin early
  integer, intent(in) :: n
  print *, n
  !$regio end early
end subroutine s
