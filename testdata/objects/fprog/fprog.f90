! A Fortran program calling the Fortran library of ../flib, each
! instrumented on its own (tests/e2e/objects.rs).
program fprog
  use iso_c_binding, only: c_int
  use flmod
  implicit none
  interface
    integer(c_int) function flwork(n) bind(c, name='flwork')
      import :: c_int
      integer(c_int), value :: n
    end function flwork
  end interface
  integer :: k, total
  total = 0
  do k = 1, 3
    total = total + fp_step(k) + flwork(4_c_int)
  end do
  print '(a,i0)', 'total ', total
contains
  integer function fp_step(x)
    integer, intent(in) :: x
    fp_step = flsquare(x) - 1
  end function fp_step
end program fprog
