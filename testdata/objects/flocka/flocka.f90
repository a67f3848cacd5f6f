! tests/e2e/objects.rs: a lock test in a DO WHILE condition, evaluated
! again after every iteration, whose loop body runs the lock test of a
! separately instrumented object (../flockb). The loop ends twice by
! CYCLE and once by END DO.
program flocka
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: l, m
  integer :: n
  call omp_init_lock(l)
  call omp_init_lock(m)
  call omp_set_lock(l)
  n = 0
  do while (.not. omp_test_lock(l))
    n = n + 1
    call flockb_poll(m)
    if (n < 3) cycle
    call omp_unset_lock(l)
  end do
  call omp_unset_lock(l)
  call omp_destroy_lock(l)
  call omp_destroy_lock(m)
  print '(a,i0)', 'iterations ', n
end program flocka
