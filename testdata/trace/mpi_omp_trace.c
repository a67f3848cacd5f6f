/* MPI and OpenMP in one traced program (tests/e2e/trace_mpi.rs),
 * --regions mpi,omp,functions, 4 ranks with OMP_NUM_THREADS=2: each rank
 * runs two rounds of a parallel loop whose threads call work() 8 times in
 * all, then passes its rank around the ring with MPI_Sendrecv (MPI only
 * outside the parallel regions: MPI_THREAD_FUNNELED). Rank 0 prints
 * "done on N ranks". */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static double work(int i)
{
    return i * 0.5;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 2; round++) {
        double sum = 0;
#pragma omp parallel for reduction(+ : sum)
        for (int i = 0; i < 8; i++)
            sum += work(i);
        int out = rank, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, round, &in, 1, MPI_INT,
                     (rank + size - 1) % size, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sink += sum + in;
    }
    if (rank == 0)
        printf("done on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
