! gfortran refuses this file too: Regio leaves it as written (the build
! would fail on it with or without Regio; the other files are measured).
subroutine broken(n)
  integer, intent(in) :: n
  print *, (n + 1
end subroutine broken
