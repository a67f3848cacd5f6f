C     Fixed form: blanks are never significant, also in directives:
C     `C$OMP END PARALLELDO`, `c$omp paralleldoprivate(j)`, `*$omp enddo
C     nowait` glued to its clause. `C expect KIND: N` as in testdata/omp.
      PROGRAM BLANKF
      IMPLICIT NONE
      INTEGER N
      PARAMETER (N = 30)
      INTEGER I, J, S, T, C
      REAL A(N)
      S = 0
      T = 0
      C = 0
      J = 0
      DO 5 I = 1, N
         A(I) = 1.0
    5 CONTINUE
C expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
C$OMP PARALLELDO REDUCTION(+:S)
      DO 10 I = 1, N
         S = S + I
   10 CONTINUE
C$OMP END PARALLELDO
C expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
c$omp paralleldoprivate(j) reduction(+:t)
      do 20 i = 1, n
         j = i * 2
         t = t + j
   20 continue
c$omp endparalleldo
C expect omp_parallel: each 1, omp_implicit_barrier: each 1
!$OMP PARALLEL
C expect omp_do: each 1
*$OMP DO
      DO 30 I = 1, N
         A(I) = A(I) + 1.0
   30 CONTINUE
*$OMP ENDDONOWAIT
C expect omp_barrier: each 1
!$OMP BARRIER
C expect omp_do: each 1, omp_implicit_barrier: each 1
!$OMP DOSIMD
      DO 40 I = 1, N
         A(I) = A(I) * 2.0
   40 CONTINUE
!$OMP ENDDOSIMD
C expect omp_critical: each 1, omp_critical_wait: each 1
C$OMP CRITICAL
      C = C + 1
C$OMP ENDCRITICAL
C expect omp_single: each 1, omp_single_body: 1, omp_implicit_barrier: each 1
C$OMP SINGLE
      C = C + 10
C$OMP ENDSINGLE
C expect omp_master: 1
C$OMP MASTER
      C = C + 100
C$OMP ENDMASTER
C expect omp_sections: each 1, omp_implicit_barrier: each 1
C$OMP SECTIONS
C expect omp_section: 1
C$OMP SECTION
      C = C + 1
C$OMP ENDSECTIONS
C expect omp_workshare: each 1, omp_implicit_barrier: each 1
C$OMP WORKSHARE
      A = A + 1.0
C$OMP ENDWORKSHARE
C$OMP ENDPARALLEL
      PRINT '(A,I0,1X,I0)', 'S T = ', S, T
      PRINT '(A,F0.1)', 'A = ', SUM(A)
      PRINT '(A,I0)', 'C > 0: ', MERGE(1, 0, C .GT. 0)
      END
