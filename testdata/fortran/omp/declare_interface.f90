! A `declare target` inside an interface body declares the external
! procedure `twice` for the device; the main program around the interface
! block is host code: it is measured and writes its run directory.
! `! expect KIND: N` as in testdata/omp.
! expect program: 1
program declare_in_interface
  implicit none
  interface
    subroutine twice(x)
      !$omp declare target
      integer, intent(inout) :: x
    end subroutine twice
  end interface
  integer :: i, s
  s = 0
  ! expect loop: 1
  do i = 1, 4
    s = s + i
  end do
  call twice(s)
  print '(a,i0)', 's = ', s
end program declare_in_interface

subroutine twice(x)
  !$omp declare target
  integer, intent(inout) :: x
  x = 2 * x
end subroutine twice
