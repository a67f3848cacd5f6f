program heat
  use heat_mod
  implicit none
  integer, parameter :: n = 64
  double precision :: u(n)
  u = 0d0
  u(1) = 100d0
  u(n) = 50d0
  call relax(u, n, 200)
  print '(a, f12.6)', 'total', total(u, n)
end program heat
