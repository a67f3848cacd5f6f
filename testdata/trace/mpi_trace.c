/* MPI messages and collectives for trace mode (tests/e2e/trace_mpi.rs):
 * - ring: rank s sends s + 1 blocking messages of s + 1 ints to
 *   (s + 1) % n (tag 1), received from MPI_ANY_SOURCE (the status names
 *   the sender);
 * - exchange: every rank posts MPI_Irecv from both neighbours and
 *   MPI_Isend to both (tag 2), completed by one MPI_Waitall;
 * - sub-communicator: ranks of equal parity (MPI_Comm_split) pass 3
 *   chars to the next rank of their group with MPI_Sendrecv (ranks are
 *   the group's);
 * - collectives: MPI_Bcast of 8 ints from root 1 % n, MPI_Allreduce of 2,
 *   MPI_Reduce of 4 to root n - 1, MPI_Gather of 3 to root 2 % n,
 *   MPI_Gatherv of rank + 1 ints to root 0, MPI_Barrier (the test knows
 *   every rank's bytes sent and received from these counts).
 * With argument N > 0, sleeps N ms before the barrier (so the two clock
 * measurements lie apart and a drift shows). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void ring(int rank, int size)
{
    int right = (rank + 1) % size;
    int left = (rank + size - 1) % size;
    int out[64] = {0}, in[64];
    MPI_Status st;
    for (int pass = 0; pass < 2; pass++) {
        if ((rank % 2 == 0) == (pass == 0)) {
            for (int i = 0; i < rank + 1; i++)
                MPI_Send(out, rank + 1, MPI_INT, right, 1, MPI_COMM_WORLD);
        } else {
            for (int i = 0; i < left + 1; i++)
                MPI_Recv(in, 64, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        }
    }
}

static void exchange(int rank, int size)
{
    double out[2][16] = {{0}}, in[2][16];
    MPI_Request req[4];
    MPI_Status st[4];
    int right = (rank + 1) % size;
    int left = (rank + size - 1) % size;
    MPI_Irecv(in[0], 16, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(in[1], 16, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(out[0], 8, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(out[1], 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, st);
}

static void sub(int rank)
{
    MPI_Comm half;
    int r, n;
    char out[3] = "ab", in[3];
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &r);
    MPI_Comm_size(half, &n);
    if (n > 1) {
        MPI_Sendrecv(out, 3, MPI_CHAR, (r + 1) % n, 3, in, 3, MPI_CHAR, (r + n - 1) % n, 3, half,
                     MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&half);
}

static void collectives(int rank, int size)
{
    int v[8] = {rank}, sum[8];
    MPI_Bcast(v, 8, MPI_INT, 1 % size, MPI_COMM_WORLD);
    MPI_Allreduce(v, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(v, sum, 4, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD);
    int *all = malloc(sizeof(int) * 3 * (size_t)size);
    int *counts = malloc(sizeof(int) * (size_t)size);
    int *displs = malloc(sizeof(int) * (size_t)size);
    int *got = malloc(sizeof(int) * (size_t)size * (size_t)(size + 1) / 2);
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        displs[r] = r * (r + 1) / 2;
    }
    MPI_Gather(v, 3, MPI_INT, all, 3, MPI_INT, 2 % size, MPI_COMM_WORLD);
    MPI_Gatherv(v, rank + 1, MPI_INT, got, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(counts);
    free(displs);
    free(got);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        ring(rank, size);
        exchange(rank, size);
    }
    sub(rank);
    collectives(rank, size);
    if (argc > 1 && atoi(argv[1]) > 0) {
        long ms = atol(argv[1]);
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_trace done on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
