C     Every OpenMP construct `--regions omp` instruments, fixed source
C     form: `c$omp`, `*$omp` and `!$omp` sentinels, continuation lines
C     (`c$omp+`, `!$omp&`), labelled DO loops. An `expect` comment names
C     the regions of the directive (or lock call) on the next line:
C       KIND: N        N calls in all (over every thread)
C       KIND: each N   N calls on every one of the T threads
C     where N is an integer, `T` or `<integer>T`. Read by
C     tests/omp_fortran_end_to_end.rs. Stdout does not depend on T.
      SUBROUTINE ORPHAN(TOTAL)
      IMPLICIT NONE
      INTEGER TOTAL, I
C     expect omp_do: each 1, omp_implicit_barrier: each 1
C$OMP DO SCHEDULE(STATIC)
C$OMP+REDUCTION(+:TOTAL)
      DO 10 I = 1, 100
         TOTAL = TOTAL + I
   10 CONTINUE
      END

      PROGRAM FIXED
      IMPLICIT NONE
      INCLUDE 'omp_lib.h'
      INTEGER I, J, NT, TOTAL, SECT, MASTRS, LOCKED, COPIED, TASKS
      INTEGER MINE, SEEN, CRIT, A, B, TWO, ORPHND, COMBND, SPINS
      INTEGER ITP, FLAG, SQ(16), VALS(32)
      INTEGER(KIND=OMP_LOCK_KIND) LCK
      REAL X(64), Y(64)
      LOGICAL GOT
      COMMON /TPC/ ITP
!$OMP THREADPRIVATE(/TPC/)
      VOLATILE FLAG

      TOTAL = 0
      SECT = 0
      MASTRS = 0
      LOCKED = 0
      COPIED = 0
      TASKS = 0
      CRIT = 0
      FLAG = 0
      SPINS = 0
      NT = 0
      X = 1.0
      Y = 0.0
      CALL OMP_INIT_LOCK(LCK)

C     expect omp_parallel: each 1, omp_fork: each 1, omp_join: each 1
c$omp parallel default(none) private(i, j, mine, seen, got)
c$omp+ shared(nt, total, sect, mastrs, locked, copied, tasks, crit)
c$omp& shared(flag, lck, sq, vals, x, y, spins)

C     expect omp_single: each 1, omp_single_body: 1
*$omp single
      NT = OMP_GET_NUM_THREADS()
*$omp end single

C     A labelled DO without `end do`: the instrumenter adds one.
C     expect omp_do: each 1, omp_implicit_barrier: each 1
C$OMP DO SCHEDULE(STATIC) REDUCTION(+:TOTAL)
      DO 20 I = 1, 100
         TOTAL = TOTAL + I
   20 CONTINUE

C     expect omp_do: each 1
C$OMP DO
      DO 30 I = 1, 32
         VALS(I) = I
   30 CONTINUE
C$OMP END DO NOWAIT

C     expect omp_sections: each 1, omp_implicit_barrier: each 1
C$OMP SECTIONS
C     expect omp_section: 1
C$OMP SECTION
C     expect omp_atomic: 1
C$OMP ATOMIC
      SECT = SECT + 1
C     expect omp_section: 1
C$OMP SECTION
C$OMP ATOMIC
      SECT = SECT + 10
C$OMP END SECTIONS

C     expect omp_master: 1
C$OMP MASTER
      MASTRS = MASTRS + 1
C$OMP END MASTER

C     expect omp_masked: 1
C$OMP MASKED
      MASTRS = MASTRS + 1
C$OMP END MASKED

C     expect omp_barrier: each 1
C$OMP BARRIER

C     expect omp_critical: each 1, omp_critical_wait: each 1
C$OMP CRITICAL
      CRIT = CRIT + 1
C$OMP END CRITICAL

C     expect omp_critical: each 1, omp_critical_wait: each 1
C$OMP CRITICAL(UPD)
      CRIT = CRIT + 2
C$OMP END CRITICAL(UPD)

C     expect omp_lock: each 1
      CALL OMP_SET_LOCK(LCK)
      LOCKED = LOCKED + 1
C     expect omp_unlock: each 1
      CALL OMP_UNSET_LOCK(LCK)
C     expect omp_lock: each 1
      GOT = OMP_TEST_LOCK(LCK)
      IF (GOT) CALL OMP_UNSET_LOCK(LCK)
C     A lock test inside a condition (measured through a wrapper).
C     expect omp_single: each 1, omp_single_body: 1
C$OMP SINGLE
C     expect omp_lock: 1
      IF (OMP_TEST_LOCK(LCK)) CALL OMP_UNSET_LOCK(LCK)
C$OMP END SINGLE

C     expect omp_single: each 1, omp_single_body: 1
C$OMP SINGLE
      MINE = 7
C$OMP END SINGLE COPYPRIVATE(MINE)
C$OMP ATOMIC
      COPIED = COPIED + MINE

C     expect omp_do: each 1, omp_implicit_barrier: each 1
C$OMP DO ORDERED SCHEDULE(STATIC, 1)
      DO 40 I = 1, 16
C     expect omp_ordered: 16, omp_ordered_wait: 16
C$OMP ORDERED
         SQ(I) = I * I
C$OMP END ORDERED
   40 CONTINUE
C$OMP END DO

C     expect omp_single: each 1, omp_single_body: 1
C$OMP SINGLE
      DO 50 J = 1, 4
C     expect omp_task_create: 4, omp_task: 4
C$OMP TASK SHARED(TASKS)
C$OMP ATOMIC
         TASKS = TASKS + 1
C$OMP END TASK
   50 CONTINUE
C     expect omp_taskwait: 1
C$OMP TASKWAIT
C$OMP END SINGLE

C     expect omp_taskgroup: each 1
C$OMP TASKGROUP
C$OMP TASK SHARED(TASKS)
C$OMP ATOMIC
      TASKS = TASKS + 1
C$OMP END TASK
C$OMP END TASKGROUP

C     expect omp_workshare: each 1
C$OMP WORKSHARE
      Y = 2.0 * X
C$OMP END WORKSHARE NOWAIT
C     expect omp_barrier: each 1
C$OMP BARRIER

      ITP = OMP_GET_THREAD_NUM() + 1
      IF (OMP_GET_THREAD_NUM() .EQ. 0) THEN
         FLAG = 1
C     expect omp_flush: 1
C$OMP FLUSH(FLAG)
      ELSE
         SEEN = 0
   60    IF (SEEN .EQ. 0) THEN
C$OMP FLUSH(FLAG)
            SEEN = FLAG
            GO TO 60
         END IF
C$OMP ATOMIC
         SPINS = SPINS + 1
      END IF
c$omp end parallel

      ORPHND = 0
C     expect omp_parallel: each 1
C$OMP PARALLEL SHARED(ORPHND)
      CALL ORPHAN(ORPHND)
C$OMP END PARALLEL

      COMBND = 0
C     expect omp_parallel: each 1, omp_do: each 1
C$OMP PARALLEL DO REDUCTION(+:COMBND) SCHEDULE(DYNAMIC, 4)
C$OMP&COLLAPSE(2)
      DO 80 I = 1, 8
      DO 70 J = 1, 8
         COMBND = COMBND + I * J
   70 CONTINUE
   80 CONTINUE
C$OMP END PARALLEL DO

      A = 0
      B = 0
C     expect omp_parallel: each 1, omp_sections: each 1
C$OMP PARALLEL SECTIONS
C     expect omp_section: 1
C$OMP SECTION
      A = 1
C     expect omp_section: 1
C$OMP SECTION
      B = 2
C$OMP END PARALLEL SECTIONS

C     expect omp_parallel: each 1, omp_workshare: each 1
C$OMP PARALLEL WORKSHARE
      X = X + Y
C$OMP END PARALLEL WORKSHARE

      TWO = 0
C     expect omp_parallel: 2
!$OMP PARALLEL NUM_THREADS(2) IF(.TRUE.)
!$OMP&REDUCTION(+:TWO)
      TWO = TWO + 1
C$OMP END PARALLEL

      WRITE (*, '(A,I0,A,I0,A,I0,A,L1)') 'total ', TOTAL, ' sect ',
     &   SECT, ' masters ', MASTRS, ' locked ', LOCKED .EQ. NT
      WRITE (*, '(A,L1,A,L1,A,L1,A,L1)') 'crit ', CRIT .EQ. 3 * NT,
     &   ' copied ', COPIED .EQ. 7 * NT, ' tasks ', TASKS .EQ. 4 + NT,
     &   ' spins ', SPINS .EQ. NT - 1
      WRITE (*, '(A,I0,A,I0,A,I0,A,I0)') 'sq ', SUM(SQ), ' orph ',
     &   ORPHND, ' comb ', COMBND, ' vals ', SUM(VALS)
      WRITE (*, '(A,I0,A,I0,A,F0.1,A,I0)') 'a ', A, ' b ', B, ' x ',
     &   SUM(X), ' two ', TWO
      CALL OMP_DESTROY_LOCK(LCK)
      END
