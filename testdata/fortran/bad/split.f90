! A user region must lie inside one procedure.
subroutine first()
  !$regio begin across
  print *, 'first'
end subroutine first

subroutine second()
  print *, 'second'
  !$regio end across
end subroutine second
