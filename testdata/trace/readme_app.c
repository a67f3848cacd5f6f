/* The `app` of README.md "Event traces: Vampir, Scalasca and Perfetto",
 * run as written by tests/e2e/readme_build.rs: a 1-D halo exchange on
 * any number of ranks (MPI_Irecv/MPI_Isend/MPI_Waitall with both
 * neighbours, an MPI_Allreduce every 10 steps) whose cells are updated by
 * `accumulate`, a cheap function called 32 times per step: the one region
 * `instrument score --filter-out` should suggest leaving out (thousands of
 * calls, far under a microsecond each). Rank 0 prints one line, the same
 * in every build. Argument: steps (default 500). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 256
#define BLOCK 8

/* A loop, so that the instrumenter does not take it for a small function
 * to leave alone; a few nanoseconds per call. */
static double accumulate(double *u, const double *v, int n)
{
    double change = 0.0;
    for (int i = 0; i < n; i++) {
        double d = 0.5 * (v[i] - u[i]);
        u[i] += d;
        change += d * d;
    }
    return change;
}

static void halo(double *u, int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Request req[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[CELLS + 1], 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[CELLS], 1, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, steps = argc > 1 ? atoi(argv[1]) : 500;
    double u[CELLS + 2], v[CELLS + 2], residual = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < CELLS + 2; i++)
        u[i] = v[i] = (double)((rank * CELLS + i) % 17);
    for (int s = 0; s < steps; s++) {
        halo(u, rank, size);
        double change = 0.0;
        for (int i = 1; i <= CELLS; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
        for (int b = 0; b < CELLS / BLOCK; b++)
            change += accumulate(&u[1 + b * BLOCK], &v[1 + b * BLOCK], BLOCK);
        if (s % 10 == 9)
            MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("app: %d steps on %d ranks, residual %.6e\n", steps, size, residual);
    MPI_Finalize();
    return 0;
}
