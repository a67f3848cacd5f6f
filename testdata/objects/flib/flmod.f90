! A free-form module of the same Fortran library (tests/e2e/objects.rs).
module flmod
  implicit none
contains
  integer function flsquare(x)
    integer, intent(in) :: x
    flsquare = x * x
  end function flsquare
end module flmod
