function perimeter(side) result(p) bind(C, name="perimeter")
  use iso_c_binding
  implicit none
  real(c_double), value :: side
  real(c_double) :: p
  p = 4 * side
end function perimeter
