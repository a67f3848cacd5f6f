! Free form, instrumented with --regions io,calls too: I/O statements and
! CALL sites are regions, also as the action of a logical IF, and a READ
! with END= leaves a loop and its own region. `! expect N`: times a loop,
! I/O or call region is entered.
program io_calls
  implicit none
  integer :: i, n, total, u
  logical :: opened
  character(len=32) :: line
  total = 0
  open(newunit=u, status='scratch')  ! expect 1
  do i = 1, 3  ! expect 1
    write(u, '(i0)') i * 10  ! expect 3
  end do
  rewind(u)
  n = 0
  do  ! expect 1
    read(u, *, end=50) i  ! expect 4
    n = n + 1
    total = total + i
  end do
50 close(u)  ! expect 1
  if (total > 0) call show(total, n)  ! expect 1
  call show(n, n)  ! expect 1
  write(line, '(a,i0)') 'total=', total  ! expect 1
  if (n == 3) print *, trim(line)  ! expect 1
  inquire(unit=6, opened=opened)  ! expect 1
  if (.not. opened) stop 1
contains
  subroutine show(a, b)
    integer, intent(in) :: a, b
    print '(a,i0,1x,i0)', 'show ', a, b  ! expect 2
  end subroutine show
end program io_calls
