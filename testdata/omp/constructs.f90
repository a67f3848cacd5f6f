! Every OpenMP construct `--regions omp` instruments (free source form),
! with the visits the report must show, known by construction from the
! team size T. An `expect` comment names the regions of the directive (or
! lock call) on the next line:
!   KIND: N        N calls in all (over every thread)
!   KIND: each N   N calls on every one of the T threads
! where N is an integer, `T` or `<integer>T`. tests/omp_fortran_end_to_end.rs
! reads them. Stdout is the same whatever T and the schedule.
module counters
  implicit none
  integer :: tp_counter = 0
  !$omp threadprivate(tp_counter)
end module counters

! Orphaned work-sharing: the DO binds to the caller's team.
subroutine orphan(total)
  implicit none
  integer, intent(inout) :: total
  integer :: i
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
  !$omp do schedule(static)
  do i = 1, 100
     ! expect omp_atomic: 100
     !$omp atomic
     total = total + i
  end do
  !$omp end do
end subroutine orphan

program constructs
  use omp_lib
  use counters
  implicit none
  integer :: i, j, nt, total, sect, masters, locked, copied, tasks, grouped
  integer :: mine, seen, crit, a, b, c, two, orphaned, combined, last, spins
  integer, volatile :: flag
  integer(kind=omp_lock_kind) :: lck
  integer(kind=omp_nest_lock_kind) :: nlck
  integer :: squares(16), vals(32)
  real :: x(64), y(64)
  logical :: got

  total = 0; sect = 0; masters = 0; locked = 0; copied = 0; tasks = 0
  grouped = 0; crit = 0; flag = 0; nt = 0; spins = 0
  x = 1.0
  y = 0.0
  call omp_init_lock(lck)
  call omp_init_nest_lock(nlck)

  ! expect omp_parallel: each 1, omp_fork: each 1, omp_join: each 1, omp_implicit_barrier: each 1
  !$omp parallel default(none) private(i, j, mine, seen, got) &
  !$omp& shared(nt, total, sect, masters, locked, copied, tasks, grouped, crit) &
  !$omp & shared(flag, lck, nlck, squares, vals, x, y, spins)

  ! expect omp_single: each 1, omp_single_body: 1, omp_implicit_barrier: each 1
  !$omp single
  nt = omp_get_num_threads()
  !$omp end single

  ! expect omp_do: each 1, omp_implicit_barrier: each 1
  !$omp do schedule(static) reduction(+:total)
  do i = 1, 100
     total = total + i
  end do
  !$omp end do

  ! expect omp_do: each 1
  !$omp do
  do i = 1, 32
     vals(i) = i
  end do
  !$omp end do nowait

  ! expect omp_sections: each 1, omp_implicit_barrier: each 1
  !$omp sections
  ! expect omp_section: 1
  !$omp section
  ! expect omp_atomic: 1
  !$omp atomic
  sect = sect + 1
  ! expect omp_section: 1
  !$omp section
  ! expect omp_atomic: 1
  !$omp atomic update
  sect = sect + 10
  !$omp end atomic
  !$omp end sections

  ! expect omp_master: 1
  !$omp master
  masters = masters + 1
  !$omp end master

  ! expect omp_masked: 1
  !$omp masked
  masters = masters + 1
  !$omp end masked

  ! expect omp_barrier: each 1
  !$omp barrier

  ! expect omp_critical: each 1, omp_critical_wait: each 1
  !$omp critical
  crit = crit + 1
  !$omp end critical

  ! expect omp_critical: each 1, omp_critical_wait: each 1
  !$omp critical (named)
  crit = crit + 2
  !$omp end critical (named)

  ! expect omp_lock: each 1
  call omp_set_lock(lck)
  locked = locked + 1
  ! expect omp_unlock: each 1
  call omp_unset_lock(lck)
  ! expect omp_lock: each 1
  call omp_set_nest_lock(nlck)
  ! expect omp_lock: each 1
  call omp_set_nest_lock(nlck)
  locked = locked + 1
  ! expect omp_unlock: each 1
  call omp_unset_nest_lock(nlck)
  call omp_unset_nest_lock(nlck)
  ! expect omp_lock: each 1
  got = omp_test_lock(lck)
  if (got) call omp_unset_lock(lck)
  ! A lock test inside a condition (measured through a wrapper call).
  ! expect omp_single: each 1, omp_single_body: 1
  !$omp single
  ! expect omp_lock: 1
  if (omp_test_lock(lck)) call omp_unset_lock(lck)
  !$omp end single

  ! expect omp_single: each 1, omp_single_body: 1
  !$omp single
  copied = copied + 100
  !$omp end single nowait

  ! expect omp_single: each 1, omp_single_body: 1
  !$omp single
  mine = 7
  !$omp end single copyprivate(mine)
  !$omp atomic
  copied = copied + mine

  ! A loop construct without `!$omp end do`: the instrumenter adds one.
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
  !$omp do ordered schedule(static, 1)
  do i = 1, 16
     ! expect omp_ordered: 16, omp_ordered_wait: 16
     !$omp ordered
     squares(i) = i * i
     !$omp end ordered
  end do

  ! expect omp_single: each 1, omp_single_body: 1, omp_implicit_barrier: each 1
  !$omp single
  do j = 1, 4
     ! expect omp_task_create: 4, omp_task: 4
     !$omp task shared(tasks)
     !$omp atomic
     tasks = tasks + 1
     !$omp end task
  end do
  ! expect omp_taskwait: 1
  !$omp taskwait
  !$omp end single

  ! expect omp_taskgroup: each 1
  !$omp taskgroup
  ! expect omp_task_create: each 1, omp_task: T
  !$omp task shared(grouped)
  !$omp atomic
  grouped = grouped + 1
  !$omp end task
  !$omp end taskgroup

  ! expect omp_workshare: each 1, omp_implicit_barrier: each 1
  !$omp workshare
  y = 2.0 * x
  !$omp end workshare

  tp_counter = omp_get_thread_num() + 1

  ! A spin-wait on a flag with flush: thread 0 sets it, the others wait
  ! for it (nobody waits when alone).
  if (omp_get_thread_num() == 0) then
     flag = 1
     ! expect omp_flush: 1
     !$omp flush(flag)
  else
     seen = 0
     do while (seen == 0)
        !$omp flush (flag)
        seen = flag
     end do
     !$omp atomic
     spins = spins + 1
  end if
  !$omp end parallel

  orphaned = 0
  ! expect omp_parallel: each 1
  !$omp parallel shared(orphaned)
  call orphan(orphaned)
  !$omp end parallel

  ! Combined constructs, split in two; `end parallel do` may be absent.
  combined = 0
  ! expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
  !$omp parallel do reduction(+:combined) schedule(dynamic, 4) collapse(2)
  do i = 1, 8
     do j = 1, 8
        combined = combined + i * j
     end do
  end do

  last = 0
  ! expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
  !$omp parallel do default(none) shared(vals) private(i) lastprivate(last)
  do i = 1, 32
     vals(i) = vals(i) + i
     last = i
  end do
  !$omp end parallel do

  a = 0; b = 0; c = 0
  ! expect omp_parallel: each 1, omp_sections: each 1, omp_section: 1
  !$omp parallel sections
  a = 1
  ! expect omp_section: 1
  !$omp section
  b = 2
  ! expect omp_section: 1
  !$omp section
  c = 3
  !$omp end parallel sections

  ! expect omp_parallel: each 1, omp_workshare: each 1
  !$omp parallel workshare
  x = x + y
  !$omp end parallel workshare

  ! A parallel region whose body is directly a loop construct.
  ! expect omp_parallel: each 1
  !$omp parallel
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
  !$omp do
  do i = 1, 32
     vals(i) = vals(i) + 1
  end do
  !$omp end parallel

  ! Continuation lines and clauses (a team of 2).
  two = 0
  ! expect omp_parallel: 2
  !$omp parallel num_threads(2) &
  !$omp   if(.true.) &   ! a comment in the directive
  !$omp   reduction(+:two)
  two = two + 1
  !$omp end parallel

  print '(a,i0,a,i0,a,i0,a,l1)', 'total ', total, ' sections ', sect, &
       ' masters ', masters, ' locked ', locked == 2 * nt
  print '(a,l1,a,l1,a,i0,a,l1)', 'critical ', crit == 3 * nt, ' copied ', &
       copied == 100 + 7 * nt, ' tasks ', tasks, ' grouped ', grouped == nt
  print '(a,l1,a,i0,a,i0)', 'spins ', spins == nt - 1, ' squares ', sum(squares), &
       ' orphaned ', orphaned
  print '(a,i0,a,i0,a,i0,3(a,i0))', 'combined ', combined, ' last ', last, &
       ' vals ', sum(vals), ' sections ', a, ' ', b, ' ', c
  print '(a,f0.1,a,i0)', 'x ', sum(x), ' two ', two
  call omp_destroy_lock(lck)
  call omp_destroy_nest_lock(nlck)
end program constructs
