subroutine s(n)
  integer, intent(in) :: n
  if (n > 0) then
    print *, n
end subroutine s
