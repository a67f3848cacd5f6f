! Deeply indented code (statements from column 89) instrumented with
! every region kind into an output directory with a long path: every line
! Regio writes must fit gfortran's 132 columns without
! -ffree-line-length-none. Compiled with and without -fopenmp.
program deep_indent
!$ use omp_lib
  implicit none
  integer :: i, j, s, t
!$ integer(kind=omp_lock_kind) :: lk
                                                                                        s = 0
  t = 0
!$ call omp_init_lock(lk)
                                                                                        !$regio begin outer
                                                                                        !$omp parallel private(j) reduction(+:s)
                                                                                        !$omp do
                                                                                        do i = 1, 4
                                                                                          do j = 1, 3
                                                                                            if (j > 2) exit
                                                                                            s = s + i * j
                                                                                          end do
                                                                                        end do
                                                                                        !$omp end do
                                                                                        !$omp single
                                                                                        call work(t)
                                                                                        !$omp end single
                                                                                        !$omp critical (upd)
                                                                                        t = t + 1
                                                                                        !$omp end critical (upd)
                                                                                        !$omp end parallel
                                                                                        !$omp teams num_teams(2)
                                                                                        t = t + 0
                                                                                        !$omp end teams
                                                                                        !$regio disable
                                                                                        call work(t)
                                                                                        !$regio enable
                                                                                        !$regio end outer
  t = t - 1
!$ call omp_set_lock(lk)
!$ call omp_unset_lock(lk)
  write (*, '(a,i0)') 's = ', s
  write (*, '(a,i0)') 't > 0: ', merge(1, 0, t > 0)
contains
  subroutine work(k)
    integer, intent(inout) :: k
    k = k + 1
  end subroutine work
end program deep_indent
