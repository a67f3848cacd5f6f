! A module with two procedures: an OpenMP-free relaxation sweep and a sum.
module heat_mod
  implicit none
contains
  subroutine relax(u, n, steps)
    integer, intent(in) :: n, steps
    double precision, intent(inout) :: u(n)
    integer :: i, s
    do s = 1, steps
      do i = 2, n - 1
        u(i) = 0.5d0 * u(i) + 0.25d0 * (u(i - 1) + u(i + 1))
      end do
    end do
  end subroutine relax

  function total(u, n) result(t)
    integer, intent(in) :: n
    double precision, intent(in) :: u(n)
    double precision :: t
    integer :: i
    t = 0d0
    do i = 1, n
      t = t + u(i)
    end do
  end function total
end module heat_mod
