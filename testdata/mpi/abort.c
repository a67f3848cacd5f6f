/* MPI_Abort path: every rank measures some work, then the last rank
 * aborts while the others wait in a barrier they never leave. Every
 * rank's profile must still be written (the aborting one before it
 * aborts, the others on its host when it asks them to before aborting,
 * or when the launcher terminates them). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static long work(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += i % 7;
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long s = work(100000 + rank), all = 0;
    MPI_Allreduce(&s, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("sum %ld\n", all);
        fflush(stdout);
    }
    /* Rank 0 has printed before anyone aborts, and the launcher gets a
     * moment to forward it: the output does not race with the abort. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
