/* Persistent requests in trace mode (tests/e2e/trace_mpi.rs): every rank
 * makes MPI_Recv_init from its left neighbour and MPI_Send_init to its
 * right one (8 doubles, tag 5), then 3 times starts both (MPI_Startall
 * in rounds 0 and 2, two MPI_Start calls in round 1) and completes them
 * with MPI_Waitall. Even ranks sleep N ms (argument, default 40) between
 * the start and the wait: their sends begin at the start, and the
 * receiving (odd) ranks may finish their receives long before the
 * senders reach their wait. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    int rank, size;
    double out[8] = {0}, in[8];
    MPI_Request req[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long ms = argc > 1 ? atol(argv[1]) : 40;
    int right = (rank + 1) % size;
    int left = (rank + size - 1) % size;
    MPI_Recv_init(in, 8, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(out, 8, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &req[1]);
    for (int round = 0; round < 3; round++) {
        if (round == 1) {
            MPI_Start(&req[0]);
            MPI_Start(&req[1]);
        } else {
            MPI_Startall(2, req);
        }
        if (rank % 2 == 0 && ms > 0) {
            struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
            nanosleep(&t, NULL);
        }
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_persistent done on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
