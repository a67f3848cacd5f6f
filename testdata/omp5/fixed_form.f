C     OpenMP 5.x constructs in fixed source form: do simd with its end
C     directive, parallel do simd, masked with a filter, masked taskloop,
C     host teams with distribute, a target region, loop, and an atomic
C     with end atomic; continued directives (c$omp+ / !$omp&).
C     `expect` comments as in testdata/omp/constructs_fixed.f.
      program fixed5
      use omp_lib
      implicit none
      integer n
      parameter (n = 60)
      integer i, j, s, t, u, v, w, hits
      real a(n)
      s = 0
      t = 0
      u = 0
      v = 0
      w = 0
      hits = 0
      do i = 1, n
        a(i) = 1.0
      end do
C expect omp_parallel: each 1, omp_fork: each 1
!$omp parallel default(shared)
C expect omp_do: each 1, omp_implicit_barrier: each 1
!$omp do simd
!$omp+ reduction(+:s)
      do i = 1, n
        s = s + i
      end do
!$omp end do simd
C expect omp_masked: 1
c$omp masked filter(0)
      hits = hits + 1
c$omp end masked
C expect omp_masked: 1, omp_taskloop: 1, omp_taskloop_body: 60
!$omp masked taskloop
!$omp& reduction(+:t) grainsize(10)
      do i = 1, n
        t = t + 2
      end do
!$omp end parallel
C expect omp_parallel: each 1, omp_do: each 1, omp_implicit_barrier: each 1
*$omp parallel do simd reduction(+:u)
      do i = 1, n
        u = u + 1
      end do
*$omp end parallel do simd
C expect omp_teams: 1, omp_teams_body: 2
!$omp teams num_teams(2) reduction(+:v)
C expect omp_distribute: 2
!$omp distribute
      do i = 1, n
        v = v + i
      end do
!$omp end teams
!$omp target map(tofrom: w)
      do j = 1, n
        w = w + 1
      end do
!$omp end target
C expect omp_parallel: each 1, omp_loop: each 1
!$omp parallel loop reduction(+:w)
      do i = 1, n
        w = w + 1
      end do
C expect omp_atomic: 1
!$omp atomic
      w = w + 1
!$omp end atomic
      write (*, '(6(a,i0))') 's=', s, ' t=', t, ' u=', u, ' v=', v,
     &  ' w=', w, ' hits=', hits
      end
