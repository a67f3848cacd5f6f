/* teams on the host, with distribute and nested parallel regions; combined
 * teams forms; target regions and declare target functions, which pass
 * through untouched (listed in the IDF as not measured). Nothing that is
 * an OpenMP region is added strictly inside teams: Regio's probes are
 * plain calls that make no OpenMP runtime call. libgomp runs host teams one
 * after another on the encountering thread, so with num_teams(2) a region
 * inside the teams body is visited twice. `expect` comments as in
 * testdata/omp/constructs.c. */
#include <omp.h>
#include <stdio.h>

#define N 24

#pragma omp declare target
static int square(int x)
{
    int s = 0;
    for (int k = 0; k < x; k++)
        s += x;
    return s;
}
#pragma omp end declare target

static int cube(int x)
{
    return x * x * x;
}
#pragma omp declare target to(cube)

int main(void)
{
    int a[N], b[N], c[N], d[N];
    long per_team[2] = {0, 0}, threads[2] = {0, 0};

    /* expect omp_teams: 1, omp_teams_body: 2 */
#pragma omp teams num_teams(2) thread_limit(3)
    {
        int team = omp_get_team_num();
        /* expect omp_distribute: 2 */
#pragma omp distribute
        for (int i = 0; i < N; i++)
            a[i] = i + 1;

        /* expect omp_parallel: 2T, omp_fork: 2T, omp_join: 2T, omp_implicit_barrier: 2T */
#pragma omp parallel shared(threads) firstprivate(team)
        {
            /* expect omp_atomic: 2T */
#pragma omp atomic
            threads[team] += 1;
        }
        per_team[team] = team + 1;
    }

    long s = 0;
    /* expect omp_teams: 1 */
#pragma omp teams distribute parallel for num_teams(2) reduction(+ : s)
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++)
            s += a[i];
    }

    long inner = 0;
    /* expect omp_teams: 1 */
#pragma omp teams distribute num_teams(2) reduction(+ : inner)
    for (int i = 0; i < N; i++) {
        /* expect loop: 24 */
        for (int k = 0; k < 2; k++)
            inner += k;
    }

#pragma omp target teams distribute parallel for map(to : a) map(from : b)
    for (int i = 0; i < N; i++)
        b[i] = square(a[i]);

#pragma omp target map(to : a) map(from : c)
#pragma omp teams distribute
    for (int i = 0; i < N; i++)
        c[i] = cube(a[i]);

#pragma omp target enter data map(to : a)
#pragma omp target data map(from : d)
    {
        /* Host code: measured. */
        /* expect loop: 1 */
        for (int i = 0; i < N; i++)
            a[i] = a[i] + 1;
#pragma omp target update to(a)
#pragma omp target
        for (int i = 0; i < N; i++)
            d[i] = a[i];
    }
#pragma omp target exit data map(release : a)

    long sb = 0, sc = 0, sd = 0;
    for (int i = 0; i < N; i++) {
        sb += b[i];
        sc += c[i];
        sd += d[i];
    }
    printf("teams %ld %ld threads %ld s %ld inner %ld b %ld c %ld d %ld\n", per_team[0],
           per_team[1], (long)(threads[0] + threads[1] == 2L * omp_get_max_threads()), s, inner, sb, sc,
           sd);
    return 0;
}
