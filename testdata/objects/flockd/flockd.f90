! tests/e2e/objects.rs: a function with a lock test of its own, called in
! the lock argument of ../flockc's lock test.
integer function flockd_pick(m)
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: m
  flockd_pick = 1
  if (omp_test_lock(m)) call omp_unset_lock(m)
end function flockd_pick
