module stats
  use iso_c_binding
  implicit none
contains
  function stats_mean(x, n) result(m) bind(C, name="stats_mean")
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: m
    m = sum(x) / n
  end function stats_mean
end module stats
