! OpenMP 5.1 block syntax (a directive followed by a BLOCK construct and no
! end directive), `!$omp atomic ... !$omp end atomic` (nothing may come
! between them), constructs inside ASSOCIATE and BLOCK constructs (the
! team variables we declare go to the procedure's specification part,
! never among executable statements), `loop`, `parallel loop`, `scope`
! and `declare variant` (free source form). `expect` comments as in
! testdata/omp/constructs.f90.
module variants
  implicit none
contains
  subroutine add_base(x, k)
    integer, intent(inout) :: x
    integer, intent(in) :: k
    !$omp declare variant(add_par) match(construct={parallel})
    x = x + k
  end subroutine add_base

  subroutine add_par(x, k)
    integer, intent(inout) :: x
    integer, intent(in) :: k
    !$omp atomic
    x = x + k
  end subroutine add_par
end module variants

program blocks
  use variants
  implicit none
  integer, parameter :: n = 50
  integer :: i, s, c, cap, old, a(n)

  s = 0; c = 0; cap = 0
  a = 0

  ! Block syntax: the end directive is ours.
  ! expect omp_parallel: each 1, omp_implicit_barrier: each 1
  !$omp parallel shared(s, c)
  block
    integer :: mine
    mine = 1
    ! expect omp_atomic: each 1
    !$omp atomic update
    s = s + mine
    !$omp end atomic
    ! expect omp_single: each 1, omp_single_body: 1
    !$omp single
    block
      c = c + 1
    end block
  end block

  ! Block syntax with the optional end directive after END BLOCK.
  ! expect omp_parallel: each 1
  !$omp parallel shared(cap) private(old)
  block
    ! expect omp_atomic: each 1
    !$omp atomic capture
    old = cap
    cap = cap + 1
    !$omp end atomic
    ! expect omp_critical: each 1
    !$omp critical
    block
      if (old < 0) print *, 'never'
    end block
    !$omp end critical
  end block
  !$omp end parallel

  associate (m => a)
    ! expect omp_parallel: each 1, omp_do: each 1
    !$omp parallel do
    do i = 1, n
       m(i) = i
    end do
    !$omp end parallel do
  end associate

  block
    integer :: inner(n), t
    inner = 2
    t = 0
    ! expect omp_parallel: each 1, omp_implicit_barrier: each 1
    !$omp parallel shared(inner) reduction(+:t)
    ! expect omp_loop: each 1
    !$omp loop
    do i = 1, n
       t = t + inner(i)
    end do
    !$omp end loop
    !$omp end parallel
    ! expect omp_parallel: each 1, omp_loop: each 1
    !$omp parallel loop reduction(+:t)
    do i = 1, n
       t = t + 1
    end do
    print '(a,i0)', 't = ', t
  end block

  ! expect omp_parallel: each 1
  !$omp parallel shared(s)
  !$omp scope
  call add_base(s, 2)
  !$omp end scope
  !$omp end parallel

  print '(a,i0,a,i0,a,i0)', 'c = ', c, ' sum(a) = ', sum(a), ' s >= 3: ', merge(1, 0, s >= 3)
  print '(a,l1)', 'cap >= 1: ', cap >= 1
end program blocks
