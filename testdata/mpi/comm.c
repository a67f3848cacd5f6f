/* MPI calls of every shape the C front end must wrap, with per-rank call
 * counts known by construction (tests/mpi_end_to_end.rs holds them):
 * point-to-point, non-blocking with waits, sendrecv, collectives, a call
 * inside a condition, as an argument and inside a macro's argument, and a
 * built-in imbalance before MPI_Barrier: rank r spins (r + 1) * SPIN_MS
 * first, so it waits about (size - 1 - r) * SPIN_MS there.
 * Only rank 0 prints, so stdout does not depend on scheduling. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITER 5
#ifndef SPIN_MS
#define SPIN_MS 100
#endif

#define CHECK(call)                                                     \
    do {                                                                \
        if ((call) != MPI_SUCCESS) {                                    \
            fprintf(stderr, "MPI error at %s:%d\n", __FILE__, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 2);                               \
        }                                                               \
    } while (0)

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void spin_ms(double ms)
{
    double end = now_ms() + ms;
    while (now_ms() < end) {
    }
}

static int checked(int rc)
{
    return rc == MPI_SUCCESS ? 0 : 1;
}

/* Blocking ring: even ranks send first, odd ranks receive first. */
static long ring(long token, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < ITER; i++) {
        long in = token;
        if (size > 1) {
            if (rank % 2 == 0) {
                CHECK(MPI_Send(&token, 1, MPI_LONG, right, 10, MPI_COMM_WORLD));
                CHECK(MPI_Recv(&in, 1, MPI_LONG, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                CHECK(MPI_Recv(&in, 1, MPI_LONG, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(MPI_Send(&token, 1, MPI_LONG, right, 10, MPI_COMM_WORLD));
            }
        }
        token = in + 1;
    }
    return token;
}

/* Non-blocking exchange with both neighbours (itself when alone). */
static long exchange(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long sum = 0;
    for (int i = 0; i < ITER; i++) {
        long out = rank * 100 + i, in = -1;
        MPI_Request req[2];
        MPI_Irecv(&in, 1, MPI_LONG, left, 20, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&out, 1, MPI_LONG, right, 20, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        sum += in;
    }
    long out = rank, in = -1;
    MPI_Request r_in, r_out;
    MPI_Irecv(&in, 1, MPI_LONG, left, 21, MPI_COMM_WORLD, &r_in);
    MPI_Isend(&out, 1, MPI_LONG, right, 21, MPI_COMM_WORLD, &r_out);
    MPI_Wait(&r_out, MPI_STATUS_IGNORE);
    MPI_Wait(&r_in, MPI_STATUS_IGNORE);
    return sum + in;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    long token = ring(rank, rank, size);
    long ex = exchange(rank, size);

    long shifted = -1;
    for (int i = 0; i < ITER; i++) {
        long mine = rank + i;
        MPI_Sendrecv(&mine, 1, MPI_LONG, (rank + 1) % size, 30, &shifted, 1, MPI_LONG,
                     (rank + size - 1) % size, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    int root_value = rank == 0 ? 42 : 0;
    MPI_Bcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long total = 0, all = 0;
    MPI_Reduce(&token, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int bad = checked(MPI_Allreduce(&ex, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    long *gathered = malloc(sizeof(long) * (size_t)size);
    MPI_Gather(&shifted, 1, MPI_LONG, gathered, 1, MPI_LONG, 0, MPI_COMM_WORLD);

    spin_ms((rank + 1) * SPIN_MS);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        long g = 0;
        for (int i = 0; i < size; i++)
            g += gathered[i];
        printf("size %d bcast %d reduce %ld allreduce %ld gather %ld bad %d\n", size,
               root_value, total, all, g, bad);
    }
    free(gathered);
    MPI_Finalize();
    return 0;
}
