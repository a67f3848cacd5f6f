/* Benchmark program for scripts/bench_trace.sh (not a test): MPI and
 * OpenMP in one program, the bytes per event of issue 15 measured on
 * both kinds of records at once. Each step every rank exchanges a halo
 * with both neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall) and relaxes its
 * cells in an OpenMP parallel loop that calls a small function per cell;
 * every 10 steps the ranks agree on a residual (MPI_Allreduce). MPI is
 * called by the master thread only (MPI_THREAD_FUNNELED). Argument:
 * steps (default 400). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 4096

static double relax(double left, double mid, double right)
{
    return 0.25 * left + 0.5 * mid + 0.25 * right;
}

static double sweep(double *u, double *v, int n)
{
    double change = 0.0;
#pragma omp parallel for reduction(+ : change)
    for (int i = 1; i <= n; i++) {
        v[i] = relax(u[i - 1], u[i], u[i + 1]);
        change += (v[i] - u[i]) * (v[i] - u[i]);
    }
#pragma omp parallel for
    for (int i = 1; i <= n; i++)
        u[i] = v[i];
    return change;
}

static void halo(double *u, int n, int rank, int size)
{
    MPI_Request req[4];
    int left = (rank + size - 1) % size;
    int right = (rank + 1) % size;
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    static double u[CELLS + 2], v[CELLS + 2];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int steps = argc > 1 ? atoi(argv[1]) : 400;
    for (int i = 0; i < CELLS + 2; i++)
        u[i] = rank + i * 1e-3;
    double residual = 0.0;
    for (int s = 0; s < steps; s++) {
        halo(u, CELLS, rank, size);
        double local = sweep(u, v, CELLS);
        if (s % 10 == 0)
            MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("residual %.3e\n", residual);
    MPI_Finalize();
    return 0;
}
