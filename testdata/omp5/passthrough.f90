! not compiled: gfortran 12 rejects `metadirective` and `assume` ("Unclassifiable OpenMP directive") even without instrumentation
! OpenMP 5.1 directives Regio passes through (free source form):
! `metadirective` (stand-alone form before a loop, and the `begin
! metadirective` block form), `assume` / `end assume`, and `assumes` in
! the specification part. Nothing inside a metadirective is touched,
! since the compiler picks the directive. tests/omp5_fortran_end_to_end.rs
! instruments this file and checks its IDF; it does not compile it.
program passthrough
  implicit none
  !$omp assumes no_openmp_routines
  integer, parameter :: n = 10
  integer :: i, s

  s = 0
  !$omp metadirective when(user={condition(n > 5)}: parallel do reduction(+:s)) &
  !$omp& default(parallel do collapse(1) reduction(+:s))
  do i = 1, n
     s = s + i
  end do

  !$omp begin metadirective when(implementation={vendor(gnu)}: parallel) default(nothing)
  s = s + 1
  !$omp end metadirective

  !$omp assume holds(n > 0)
  do i = 1, n
     s = s + 1
  end do
  !$omp end assume

  ! expect omp_parallel: each 1
  !$omp parallel reduction(+:s)
  s = s + 1
  !$omp end parallel
  print *, s
end program passthrough
