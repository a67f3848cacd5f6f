/* Messages whose sender x receiver matrix is known by construction
 * (tests/e2e/mpi.rs, `expected_matrix`), on any number of ranks n:
 * - ring: rank s sends s + 1 messages of 2 (s + 1) ints to (s + 1) % n,
 *   received with MPI_ANY_SOURCE (the status names the sender);
 * - fan-out: rank 0 sends d * 100 doubles to each rank d > 0 with
 *   MPI_Isend, received by MPI_Irecv from MPI_ANY_SOURCE + MPI_Wait;
 * - sub-communicator: ranks of equal parity (MPI_Comm_split) send 3 chars
 *   to the next rank of their group (ranks are the group's, so the
 *   runtime must translate them to world ranks);
 * - persistent: rank 1 sends 4 ints to rank 0 three times through one
 *   MPI_Send_init request (MPI_Start + MPI_Wait).
 * With argument 1, sleeps SLEEP_MS between the two clock measurements. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLEEP_MS 400

static void ring(int rank, int size)
{
    int right = (rank + 1) % size;
    int left = (rank + size - 1) % size;
    int out[64] = {0}, in[64];
    MPI_Status st;
    /* Receive first on odd ranks, so the ring cannot deadlock. */
    for (int pass = 0; pass < 2; pass++) {
        if ((rank % 2 == 0) == (pass == 0)) {
            for (int i = 0; i < rank + 1; i++)
                MPI_Send(out, 2 * (rank + 1), MPI_INT, right, 1, MPI_COMM_WORLD);
        } else {
            for (int i = 0; i < left + 1; i++)
                MPI_Recv(in, 64, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        }
    }
}

static void fan_out(int rank, int size)
{
    static double buf[100 * 64];
    MPI_Request req;
    MPI_Status st;
    if (rank == 0) {
        for (int d = 1; d < size; d++) {
            MPI_Isend(buf, d * 100, MPI_DOUBLE, d, 2, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Irecv(buf, 100 * 64, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
    }
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

static void persistent(int rank, int size)
{
    int out[4] = {1, 2, 3, 4}, in[4];
    MPI_Request req;
    if (size < 2)
        return;
    if (rank == 1) {
        MPI_Send_init(out, 4, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
        for (int i = 0; i < 3; i++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    } else if (rank == 0) {
        for (int i = 0; i < 3; i++)
            MPI_Recv(in, 4, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1)
        ring(rank, size);
    fan_out(rank, size);
    sub(rank);
    persistent(rank, size);
    if (argc > 1 && atoi(argv[1]) == 1) {
        struct timespec t = {SLEEP_MS / 1000, (SLEEP_MS % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("matrix done on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
