! Free form: modules, recursive and internal procedures, result(), named
! EXIT/CYCLE, GOTO, RETURN in the middle, PURE/ELEMENTAL, DO WHILE,
! DO CONCURRENT and user regions. `! expect N` marks how often a loop or
! user region is entered (by construction); procedures are checked
! against gfortran -finstrument-functions.
module geometry
  implicit none
  private
  public :: fact, fib, sq, twice, classify, accumulate
contains
  recursive function fact(n) result(r)
    integer, intent(in) :: n
    integer :: r
    if (n <= 1) then
      r = 1
      return
    end if
    r = n * fact(n - 1)
  end function fact

  recursive integer function fib(n) result(f)
    integer, intent(in) :: n
    if (n < 2) then
      f = n
    else
      f = fib(n - 1) + fib(n - 2)
    end if
  end function fib

  pure integer function sq(x)
    integer, intent(in) :: x
    sq = x * x
  end function sq

  elemental real function twice(x)
    real, intent(in) :: x
    twice = 2.0 * x
  end function twice

  subroutine classify(v, nneg, nzero, npos)
    integer, intent(in) :: v(:)
    integer, intent(out) :: nneg, nzero, npos
    integer :: i
    nneg = 0; nzero = 0; npos = 0
    do i = 1, size(v)  ! expect 1
      if (v(i) < 0) then
        nneg = nneg + 1
        cycle
      end if
      if (v(i) == 0) then
        nzero = nzero + 1
      else
        npos = npos + 1
      end if
    end do
  end subroutine classify

  subroutine accumulate(total, limit)
    integer, intent(inout) :: total
    integer, intent(in) :: limit
    integer :: i, j
    outer: do i = 1, 10  ! expect 1
      inner: do j = 1, 10  ! expect 6
        if (j > i) cycle outer
        total = total + bump(j)
        if (total > limit) exit outer
      end do inner
    end do outer
  contains
    integer function bump(k)
      integer, intent(in) :: k
      bump = k
    end function bump
  end subroutine accumulate
end module geometry

program shapes
  use geometry
  implicit none (external)
  integer :: i, k, total, nneg, nzero, npos
  integer :: values(7) = [3, -1, 0, 4, -5, 0, 2]
  real :: r(3) = [1.0, 2.5, -3.0]
  integer :: squares(4)

  print '(a,i0)', 'fact(6) = ', fact(6)
  print '(a,i0)', 'fib(10) = ', fib(10)
  print '(a,3f6.1)', 'twice = ', twice(r)
  call classify(values, nneg, nzero, npos)
  print '(a,3i3)', 'classify = ', nneg, nzero, npos
  total = 0
  call accumulate(total, 40)
  print '(a,i0)', 'total = ', total
  i = 0
10 i = i + 1
  if (i < 3) goto 10
  print '(a,i0)', 'i = ', i
  k = 1
  do while (k < 100)  ! expect 1
    k = k * 3
  end do
  do concurrent (i = 1:4)  ! expect 1
    squares(i) = sq(i)
  end do
  print '(a,4i4,i5)', 'squares = ', squares, k
  !$regio begin report_phase  ! expect 1
  do i = 1, 3  ! expect 1
    call report(total * i)
  end do
  !$regio end report_phase
contains
  subroutine report(t)
    integer, intent(in) :: t
    if (t > 100) then
      print *, 'large'
      return
    end if
    print '(a,i0)', 'report ', t
  end subroutine report
end program shapes
