! The Fortran twin of probe_cost.c's `tiny`: called from the C driver
! (probe_cost.c built with -DREGIO_FORTRAN), arguments by reference.
integer function tiny_f(x)
  integer :: x
  tiny_f = x * 3 + 1
end function tiny_f

!$regio skip
integer function tiny_f_plain(x)
  integer :: x
  tiny_f_plain = x * 3 + 1
end function tiny_f_plain
