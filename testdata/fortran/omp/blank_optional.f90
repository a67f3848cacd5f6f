! Directive names written without the optional blanks between their
! keywords (OpenMP 5.2, 3.1.2: free form): `paralleldo`, `enddo`,
! `endparallel`, ... Each construct must be paired with its end directive
! as if the blanks were there. `! expect KIND: N` as in testdata/omp.
program blank_optional
  implicit none
  integer, parameter :: n = 40
  integer :: i, s, t, c, o
  real :: a(n), b(n)
  s = 0
  t = 0
  c = 0
  o = 0
  a = 1.0
  b = 0.0
  ! expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
!$omp paralleldo reduction(+:s)
  do i = 1, n
    s = s + i
  end do
!$omp endparalleldo
  ! expect omp_parallel: each 1, omp_implicit_barrier: each 1
!$omp parallel
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
!$omp do reduction(+:t)
  do i = 1, n
    t = t + 1
  end do
!$omp enddo
  ! expect omp_do: each 1
!$omp do
  do i = 1, n
    b(i) = a(i) * 2.0
  end do
!$omp enddo nowait
  ! expect omp_barrier: each 1
!$omp barrier
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
!$omp dosimd
  do i = 1, n
    a(i) = a(i) + 1.0
  end do
!$omp enddosimd
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
!$omp do ordered
  do i = 1, 8
    ! expect omp_ordered: 8, omp_ordered_wait: 8
!$omp ordered
    o = o * 2 + mod(i, 2)
!$omp endordered
  end do
!$omp enddo
  ! expect omp_critical: each 1, omp_critical_wait: each 1
!$omp critical
  c = c + 1
!$omp endcritical
  ! expect omp_critical: each 1, omp_critical_wait: each 1
!$omp critical (named)
  c = c + 1
!$omp endcritical (named)
  ! expect omp_sections: each 1, omp_implicit_barrier: each 1
!$omp sections
  ! expect omp_section: 1
!$omp section
  c = c + 0
!$omp endsections
  ! expect omp_single: each 1, omp_single_body: 1, omp_implicit_barrier: each 1
!$omp single
  c = c + 10
!$omp endsingle
  ! expect omp_workshare: each 1, omp_implicit_barrier: each 1
!$omp workshare
  b = b + 1.0
!$omp endworkshare
  ! expect omp_master: 1
!$omp master
  c = c + 100
!$omp endmaster
  ! expect omp_atomic: each 1
!$omp atomic
  c = c + 1000
!$omp endatomic
  ! expect omp_single: each 1, omp_single_body: 1
!$omp single
  ! expect omp_taskgroup: 1
!$omp taskgroup
  ! expect omp_task_create: 1, omp_task: 1
!$omp task
  c = c + 10000
!$omp endtask
!$omp endtaskgroup
!$omp endsingle
!$omp endparallel
  ! expect omp_parallel: each 1, omp_sections: each 1
!$omp parallelsections
  ! expect omp_section: 1
!$omp section
  c = c + 1
!$omp endparallelsections
  ! expect omp_parallel: each 1, omp_workshare: each 1
!$omp parallelworkshare
  a = a + 1.0
!$omp endparallelworkshare
  ! expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
!$omp parallel do
  do i = 1, n
    b(i) = b(i) + 1.0
  end do
!$omp end paralleldo
  ! expect omp_parallel: each 1, omp_do: each 1
!$omp paralleldosimd
  do i = 1, n
    b(i) = b(i) + 1.0
  end do
!$omp endparalleldosimd
  print '(a,i0,1x,i0,1x,i0)', 's t o = ', s, t, o
  print '(a,f0.1,1x,f0.1)', 'a b = ', sum(a), sum(b)
  print '(a,i0)', 'c > 0: ', merge(1, 0, c > 0)
end program blank_optional
