! tests/e2e/objects.rs: a lock test of its own, run from the loop body
! of ../flocka.
subroutine flockb_poll(m)
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: m
  if (omp_test_lock(m)) call omp_unset_lock(m)
end subroutine flockb_poll
