// The C++ part: compiled unchanged by `instrument wrap mpicxx`; the C part
// it calls (halo.c) is instrumented by `instrument wrap mpicc`.
#include <mpi.h>
#include <cstdio>
#include <vector>

#include "halo.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> totals;
    for (int round = 1; round <= 3; round++) {
        totals.push_back(halo_steps(4 * round, 1.0 + rank));
    }
    if (rank == 0) {
        for (double t : totals) {
            std::printf("%.6f\n", t);
        }
        std::printf("ranks %d\n", size);
    }
    MPI_Finalize();
    return 0;
}
