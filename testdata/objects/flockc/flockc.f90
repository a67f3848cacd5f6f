! tests/e2e/objects.rs: a lock test in a DO WHILE condition whose lock
! argument calls a function of a separately instrumented object
! (../flockd) that runs a lock test of its own: within one statement, the
! other object's lock test runs between this statement's base and its
! lock test (the argument is evaluated before the test).
program flockc
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: locks(2), m
  integer, external :: flockd_pick
  integer :: n
  call omp_init_lock(locks(1))
  call omp_init_lock(locks(2))
  call omp_init_lock(m)
  call omp_set_lock(locks(1))
  n = 0
  do while (.not. omp_test_lock(locks(flockd_pick(m))))
    n = n + 1
    if (n == 3) call omp_unset_lock(locks(1))
  end do
  call omp_unset_lock(locks(1))
  call omp_destroy_lock(locks(1))
  call omp_destroy_lock(locks(2))
  call omp_destroy_lock(m)
  print '(a,i0)', 'iterations ', n
end program flockc
