#include <mpi.h>
#include "halo.h"

static double relax(double mine, double left, double right)
{
    double v = 0.5 * mine + 0.25 * (left + right);
    for (int i = 0; i < 3; i++) {
        v = v * 0.99 + 0.01 * mine;
    }
    return v;
}

double halo_steps(int steps, double value)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int s = 0; s < steps; s++) {
        double from_left = value, from_right = value;
        MPI_Sendrecv(&value, 1, MPI_DOUBLE, right, 1, &from_left, 1, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&value, 1, MPI_DOUBLE, left, 2, &from_right, 1, MPI_DOUBLE, right, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        value = relax(value, from_left, from_right);
    }
    double total = 0.0;
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
}
