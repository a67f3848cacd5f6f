! masked (with and without filter), parallel masked, masked taskloop,
! parallel masked taskloop, taskloop (free source form). No barrier may
! be added inside masked, task, taskloop or critical regions; taskloop is
! measured like task: around the construct on the creating thread, and
! each iteration where a generated task runs it. `expect` comments as in
! testdata/omp/constructs.f90.
program masked_taskloop
  use omp_lib
  implicit none
  integer, parameter :: n = 40
  integer :: i, j, sum1, sum2, sum3, masked, filtered, grouped, last

  sum1 = 0; sum2 = 0; sum3 = 0; masked = 0; filtered = 0; grouped = 0
  last = 0

  ! expect omp_parallel: each 1, omp_implicit_barrier: each 1
  !$omp parallel default(none) shared(sum1, masked, filtered, grouped, last) private(i)
  ! expect omp_masked: 1
  !$omp masked
  masked = masked + 1
  !$omp end masked

  ! The last thread of the team: one visit at any team size.
  ! expect omp_masked: 1
  !$omp masked filter(omp_get_num_threads() - 1)
  filtered = filtered + 10
  if (omp_get_thread_num() == omp_get_num_threads() - 1) last = 1
  !$omp end masked

  ! expect omp_masked: 1, omp_taskloop: 1, omp_taskloop_body: 40
  !$omp masked taskloop grainsize(4) reduction(+:sum1)
  do i = 1, n
     sum1 = sum1 + i * i
  end do
  !$omp end masked taskloop

  ! expect omp_barrier: each 1
  !$omp barrier

  ! expect omp_single: each 1, omp_single_body: 1
  !$omp single
  ! A CYCLE in the body: no body region (its exit would be skipped).
  ! expect omp_taskloop: 1, omp_taskloop_body: 0
  !$omp taskloop num_tasks(5) shared(grouped)
  do i = 1, n
     if (mod(i, 2) == 1) cycle
     !$omp atomic
     grouped = grouped + i
  end do
  !$omp end single
  !$omp end parallel

  ! expect omp_parallel: 2, omp_masked: 1, omp_taskloop: 1, omp_taskloop_body: 20
  !$omp parallel masked taskloop num_threads(2) reduction(+:sum2) collapse(2) grainsize(8)
  do i = 1, 4
     do j = 1, 5
        sum2 = sum2 + i * j
     end do
  end do

  ! expect omp_parallel: each 1, omp_masked: 1, omp_fork: each 1
  !$omp parallel masked shared(sum3) private(i)
  ! expect omp_taskloop: 1, omp_taskloop_body: 10
  !$omp taskloop
  do i = 1, 10
     !$omp atomic
     sum3 = sum3 + i
  end do
  !$omp end parallel masked

  ! expect omp_parallel: each 1, omp_masked: 1, omp_taskloop: 1
  !$omp parallel masked taskloop simd reduction(+:sum3)
  do i = 1, 10
     sum3 = sum3 + i
  end do
  !$omp end parallel masked taskloop simd

  ! A critical region around a task: no barrier inside either.
  ! expect omp_parallel: each 1
  !$omp parallel shared(sum3)
  ! expect omp_critical: each 1
  !$omp critical (upd)
  ! expect omp_task_create: each 1, omp_task: T
  !$omp task shared(sum3)
  sum3 = sum3 + 1
  !$omp end task
  !$omp taskwait
  !$omp end critical (upd)
  !$omp end parallel

  print '(a,i0,a,i0,a,i0)', 'sum1 = ', sum1, ' sum2 = ', sum2, ' grouped = ', grouped
  print '(a,i0,a,i0,a,i0)', 'masked = ', masked, ' filtered = ', filtered, ' last = ', last
  ! sum3 gains one per thread of the last team: print what does not
  ! depend on it.
  print '(a,l1)', 'sum3 >= 111: ', sum3 >= 111
end program masked_taskloop
