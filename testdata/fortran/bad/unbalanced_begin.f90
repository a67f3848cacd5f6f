subroutine s(n)
  integer, intent(in) :: n
  !$regio begin work
  print *, n
end subroutine s
