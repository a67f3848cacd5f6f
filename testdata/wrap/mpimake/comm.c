/* A ring exchange, a reduction and a barrier; only rank 0 prints. */
#include <mpi.h>
#include <stdio.h>

static long pass_ring(long token, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long in = token;
    MPI_Sendrecv(&token, 1, MPI_LONG, right, 7, &in, 1, MPI_LONG, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return in + rank;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long token = rank;
    for (int i = 0; i < 3; i++) {
        token = pass_ring(token, rank, size);
    }
    long total = 0;
    MPI_Allreduce(&token, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ranks %d total %ld\n", size, total);
    }
    MPI_Finalize();
    return 0;
}
