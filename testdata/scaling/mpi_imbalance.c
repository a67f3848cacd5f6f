/* A known MPI rank imbalance (wall-clock spins, so the amounts do not
 * depend on the machine) for tests/e2e/overhead.rs.
 *
 * WORK_MS of work is split over the ranks unevenly: rank r of p spins
 * WORK_MS * (r + 1) / (p (p + 1) / 2), so the total is WORK_MS at every p.
 * Then MPI_Barrier: rank r waits for the last rank, (p - 1 - r) shares.
 * Summed over ranks the waits are WORK_MS * (p - 1) p (p + 1) / 6 /
 * (p (p + 1) / 2) = WORK_MS * (p - 1) / 3, i.e. synchronisation
 * WORK_MS * (p - 1) / (3 p) in wall time: WORK_MS / 6 at p = 2.
 *
 * Before that, rank 0 alone runs SERIAL_MS while the others wait in an
 * MPI_Bcast (no OpenMP here, so the analysis books that wait as data
 * movement, not loss of parallelism): SERIAL_MS * (p - 1) / p. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define WORK_MS 300.0
#define SERIAL_MS 100.0

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void spin(double ms)
{
    double end = now_ms() + ms;
    while (now_ms() < end) {
    }
}

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        spin(SERIAL_MS);
        token = 42;
    }
    MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
    spin(WORK_MS * (rank + 1) / (size * (size + 1) / 2.0));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d token %d\n", size, token);
    MPI_Finalize();
    return 0;
}
