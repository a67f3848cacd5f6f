! Free form: every way out of a region (RETURN in a loop, GOTO out of a
! loop, named EXIT and CYCLE, EXIT from a BLOCK, CYCLE and EXIT leaving a
! user region), DISABLE/ENABLE, SKIP, shared DO termination and STOP with
! a status. `! expect N`: times a loop or user region is entered.
module counters
  implicit none (external)
  integer :: hits = 0
contains
  integer function find(v, x) result(pos)
    integer, intent(in) :: v(:), x
    integer :: i
    pos = 0
    do i = 1, size(v)  ! expect 4
      if (v(i) == x) then
        pos = i
        return
      end if
    end do
  end function find

  subroutine scan_grid(n, found)
    integer, intent(in) :: n
    logical, intent(out) :: found
    integer :: i, j
    found = .false.
    rows: do i = 1, n  ! expect 2
      cols: do j = 1, n  ! expect 5
        if (i * j == 12) then
          found = .true.
          exit rows
        end if
        if (j > i) cycle rows
      end do cols
    end do rows
  end subroutine scan_grid

  subroutine jumpy(n)
    integer, intent(in) :: n
    integer :: i, k
    k = 0
    do i = 1, n  ! expect 2
      k = k + i
      if (k > 5) goto 100
    end do
    print '(a,i0)', 'jumpy small ', k
    return
100 print '(a,i0)', 'jumpy big ', k
  end subroutine jumpy

  subroutine nested_user(n)
    integer, intent(in) :: n
    integer :: i
    do i = 1, n  ! expect 2
      !$regio begin body  ! expect 6
      hits = hits + 1
      if (mod(i, 2) == 0) cycle
      if (i > 3) exit
      !$regio end body
    end do
  end subroutine nested_user

  subroutine blocky(n)
    integer, intent(in) :: n
    integer :: i
    blk: block
      integer :: t
      t = 0
      do i = 1, 10  ! expect 2
        t = t + i
        if (t > n) exit blk
      end do
      print '(a,i0)', 'blocky full ', t
    end block blk
    print '(a,i0)', 'blocky done ', n
  end subroutine blocky
end module counters

program exits
  use counters
  implicit none
  integer :: p, i
  logical :: found
  integer :: v(5) = [5, 4, 3, 2, 1]
  p = find(v, 3) + find(v, 9) + find(v, 5) + find(v, 1)
  print '(a,i0)', 'find sum ', p
  call scan_grid(4, found)
  print *, 'found', found
  call scan_grid(2, found)
  print *, 'found', found
  call jumpy(2)
  call jumpy(10)
  call nested_user(5)
  call nested_user(1)
  print '(a,i0)', 'hits ', hits
  call blocky(5)
  call blocky(100)
  !$regio disable
  do i = 1, 2  ! expect 0
    p = p + i
  end do
  !$regio enable
  !$regio skip
  do i = 1, 2
    p = p + i
  end do
  do 20 i = 1, 3  ! expect 1
    do 20 p = 1, 2  ! expect 3
20 continue
  print '(a,i0)', 'end ', p
  stop 7
end program exits
