/* Regio demo: 1-D heat diffusion with an explicit scheme.
 *
 * Small on purpose, but it has what a report should show: a program
 * region, functions called from several places, nested loops, recursion,
 * an early return and a user region marked with a directive. */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 400

static double grid[N], next[N];

static void init(double *u, int n)
{
    int i;
    for (i = 0; i < n; i++)
        u[i] = (i > n / 4 && i < n / 2) ? 100.0 : 0.0;
}

static void step(const double *u, double *v, int n, double alpha)
{
    int i;
    v[0] = u[0];
    v[n - 1] = u[n - 1];
    for (i = 1; i < n - 1; i++)
        v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* Pairwise sum: recursive, so the report shows recursive calls folded
 * onto one node instead of a graph that grows with the depth. */
static double pairwise_sum(const double *u, int n)
{
    if (n <= 64) {
        double s = 0.0;
        int i;
        for (i = 0; i < n; i++)
            s += u[i];
        return s;
    }
    return pairwise_sum(u, n / 2) + pairwise_sum(u + n / 2, n - n / 2);
}

static int converged(const double *u, const double *v, int n, double tol)
{
    int i;
    for (i = 0; i < n; i++)
        if (u[i] - v[i] > tol || v[i] - u[i] > tol)
            return 0; /* early exit from the loop and the function */
    return 1;
}

int main(void)
{
    int t, done = 0;
    double *u = grid, *v = next, *tmp;

    init(u, N);
    printf("initial heat: %.3f\n", pairwise_sum(u, N));
    for (t = 0; t < STEPS && !done; t++) {
#pragma regio begin timestep
        step(u, v, N, 0.25);
        done = converged(u, v, N, 1e-9);
        tmp = u;
        u = v;
        v = tmp;
#pragma regio end timestep
    }
    printf("after %d steps: heat %.3f, centre %.6f\n", t, pairwise_sum(u, N), u[N / 2]);
    return EXIT_SUCCESS;
}
