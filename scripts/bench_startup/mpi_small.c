/* A one-rank MPI program: init, one reduction, finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d\n", y);
    MPI_Finalize();
    return 0;
}
