subroutine s(n)
  integer, intent(in) :: n
  if (n > 0) goto 10
  !$regio begin guarded
  print *, 'inside'
10 print *, n
  !$regio end guarded
end subroutine s
