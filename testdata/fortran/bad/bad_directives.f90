module m
  !$regio begin in_module
contains
  subroutine s()
    !$regio start x
    !$regio begin 9lives
    !$regio begin
    !$regio enable now
    print *, 'x'
  end subroutine s
end module m
