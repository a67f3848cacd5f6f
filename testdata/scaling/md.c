/* Molecular dynamics in the style of the classic OpenMP `md` example
 * (the code SCALEA's overhead study used): N particles in a box, a
 * pairwise sin^2 potential, velocity Verlet integration. Forces and
 * energies are computed in parallel; the update of positions and
 * velocities too. `instrument experiment --threads 1,2 -- ./md` shows
 * where the parallel overhead goes.
 *
 * Output (energies) depends only on the arithmetic, which is the same at
 * any thread count up to the order of the reduction; we print with 6
 * significant digits, which that order does not change.
 *
 * dist, v, dv and the loops over the pairs and their 3 dimensions run
 * once per particle pair (tens of ns each): instrumented, their probes
 * would cost more than they do, so they are skipped; the finest regions
 * left run once per particle and step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NP
#define NP 2000
#endif
#ifndef STEPS
#define STEPS 20
#endif
#define ND 3

static const double mass = 1.0;
static const double dt = 1.0e-4;
static const double PI2 = 3.14159265358979323846 / 2.0;

#pragma regio skip
static double dist(const double *r1, const double *r2, double *dr)
{
    double d = 0.0;
#pragma regio skip
    for (int i = 0; i < ND; i++) {
        dr[i] = r1[i] - r2[i];
        d += dr[i] * dr[i];
    }
    return sqrt(d);
}

#pragma regio skip
static double v(double x)
{
    return pow(sin(fmin(x, PI2)), 2.0);
}

#pragma regio skip
static double dv(double x)
{
    return 2.0 * sin(fmin(x, PI2)) * cos(fmin(x, PI2));
}

/* Forces on every particle, potential and kinetic energy. */
static void compute(int np, const double *pos, const double *vel, double *f, double *pot,
                    double *kin)
{
    double p = 0.0, k = 0.0;
#pragma omp parallel for default(shared) schedule(static) reduction(+ : p, k)
    for (int i = 0; i < np; i++) {
        double rij[ND];
        for (int j = 0; j < ND; j++)
            f[i * ND + j] = 0.0;
#pragma regio skip
        for (int j = 0; j < np; j++) {
            if (i == j)
                continue;
            double d = dist(&pos[i * ND], &pos[j * ND], rij);
            p += 0.5 * v(d);
#pragma regio skip
            for (int l = 0; l < ND; l++)
                f[i * ND + l] -= rij[l] * dv(d) / d;
        }
        for (int l = 0; l < ND; l++)
            k += vel[i * ND + l] * vel[i * ND + l];
    }
    *pot = p;
    *kin = 0.5 * mass * k;
}

/* Velocity Verlet step. */
static void update(int np, double *pos, double *vel, const double *f, double *a)
{
    double rmass = 1.0 / mass;
#pragma omp parallel for default(shared) schedule(static)
    for (int i = 0; i < np * ND; i++) {
        pos[i] += vel[i] * dt + 0.5 * dt * dt * a[i];
        vel[i] += 0.5 * dt * (f[i] * rmass + a[i]);
        a[i] = f[i] * rmass;
    }
}

/* Deterministic start: a jittered lattice, everything at rest. */
static void initialize(int np, double *pos, double *vel, double *a)
{
    unsigned int seed = 12345u;
    for (int i = 0; i < np * ND; i++) {
        seed = seed * 1103515245u + 12345u;
        pos[i] = 10.0 * (double)(seed >> 8) / (double)(1u << 24);
        vel[i] = 0.0;
        a[i] = 0.0;
    }
}

int main(void)
{
    int np = NP;
    double *pos = malloc(sizeof(double) * np * ND);
    double *vel = malloc(sizeof(double) * np * ND);
    double *f = malloc(sizeof(double) * np * ND);
    double *a = malloc(sizeof(double) * np * ND);
    if (!pos || !vel || !f || !a)
        return 1;
    initialize(np, pos, vel, a);
    double pot, kin, e0;
    compute(np, pos, vel, f, &pot, &kin);
    e0 = pot + kin;
    for (int step = 1; step <= STEPS; step++) {
        update(np, pos, vel, f, a);
        compute(np, pos, vel, f, &pot, &kin);
        if (step % 5 == 0)
            printf("step %3d  potential %.6g  kinetic %.6g  rel. error %.3g\n", step, pot, kin,
                   fabs((pot + kin - e0) / e0) < 1e-3 ? 0.0 : (pot + kin - e0) / e0);
    }
    free(pos);
    free(vel);
    free(f);
    free(a);
    return 0;
}
