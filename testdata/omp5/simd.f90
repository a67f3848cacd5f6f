! OpenMP 5.x simd forms (free source form): `do simd`, `parallel do
! simd`, `taskloop simd`, `simd`, `declare simd`, and `scan` with an
! inscan reduction. Splitting `parallel do simd` keeps `simd` on the loop
! construct; `!$omp end do simd nowait` is allowed (OpenMP 5.0-5.2 give
! the worksharing-loop SIMD construct that end directive). Nothing is
! instrumented inside a simd loop: its iterations run in SIMD lanes.
! `expect` comments as in testdata/omp/constructs.f90.
module simd_kernels
  implicit none
contains
  ! `declare simd`: listed, not measured; the function itself is.
  ! expect function: 64
  real function scaled(x, f)
    !$omp declare simd(scaled) uniform(f)
    real, intent(in) :: x, f
    scaled = x * f
  end function scaled
end module simd_kernels

program simd_forms
  use simd_kernels
  implicit none
  integer, parameter :: n = 64
  integer :: i, j, s, total, prefix(n)
  real :: a(n), b(n), c(n)

  a = 1.0
  b = 2.0
  c = 0.0
  s = 0
  total = 0

  ! expect omp_parallel: each 1
  !$omp parallel shared(a, b, c, total)
  ! expect omp_do: each 1, omp_implicit_barrier: each 1
  !$omp do simd
  do i = 1, n
     c(i) = a(i) + b(i)
  end do
  !$omp end do simd
  ! expect omp_do: each 1, omp_implicit_barrier: 0
  !$omp do simd reduction(+:total)
  do i = 1, n
     total = total + i
  end do
  !$omp end do simd nowait
  !$omp end parallel

  ! The split keeps simd and the reduction on `do simd`.
  ! expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
  !$omp parallel do simd reduction(+:s) schedule(static)
  do i = 1, n
     s = s + i
  end do

  ! A loop inside a simd loop gets no region.
  ! expect omp_parallel: each 1, omp_do: each 1
  !$omp parallel do simd collapse(1) private(j)
  do i = 1, n
     do j = 1, 2
        c(i) = c(i) + 1.0
     end do
  end do
  !$omp end parallel do simd

  ! expect omp_parallel: each 1
  !$omp parallel
  ! expect omp_single: each 1, omp_single_body: 1
  !$omp single
  ! expect omp_taskloop: 1, omp_taskloop_body: 0
  !$omp taskloop simd grainsize(8)
  do i = 1, n
     c(i) = c(i) * 2.0
  end do
  !$omp end single
  !$omp end parallel

  !$omp simd
  do i = 1, n
     a(i) = scaled(a(i), 3.0)
  end do

  ! Inclusive scan: the loop stays a loop construct.
  s = 0
  ! expect omp_parallel: each 1, omp_do: each 1
  !$omp parallel do reduction(inscan, +:s)
  do i = 1, n
     s = s + i
     !$omp scan inclusive(s)
     prefix(i) = s
  end do

  print '(a,i0,a,i0)', 'total = ', total, ' s = ', s
  print '(a,f0.1,a,f0.1)', 'c(1) = ', c(1), ' a(n) = ', a(n)
  print '(a,i0,a,i0)', 'prefix(1) = ', prefix(1), ' prefix(n) = ', prefix(n)
end program simd_forms
