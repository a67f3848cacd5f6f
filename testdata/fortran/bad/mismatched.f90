subroutine s(n)
  integer, intent(in) :: n
  !$regio begin outer
  !$regio begin inner
  print *, n
  !$regio end outer
  !$regio end inner
end subroutine s
