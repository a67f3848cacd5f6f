! Free form: ERROR STOP deep inside a loop of a procedure ends the run
! with its code; the runtime still writes what it measured. `! expect N`:
! times a loop is entered.
program errstop
  implicit none
  integer :: i
  do i = 1, 3  ! expect 1
    call step(i)
  end do
contains
  subroutine step(k)
    integer, intent(in) :: k
    integer :: j
    do j = 1, k  ! expect 3
      if (k == 3 .and. j == 2) then
        print '(a,2i2)', 'failing at', k, j
        error stop 4
      end if
    end do
    print '(a,i0)', 'step ', k
  end subroutine step
end program errstop
