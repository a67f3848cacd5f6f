! A Fortran program calling the C library of testdata/objects/lib, each
! instrumented on its own (tests/e2e/objects.rs).
program fmain
  use iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function lib_work(n) bind(c, name='lib_work')
      import :: c_int
      integer(c_int), value :: n
    end function lib_work
  end interface
  integer :: k, total

  total = 0
  do k = 0, 2
    total = total + f_step(k) + lib_work(4_c_int)
  end do
  print '(a,i0)', 'total ', total
contains
  integer function f_step(x)
    integer, intent(in) :: x
    f_step = x - 1
  end function f_step
end program fmain
