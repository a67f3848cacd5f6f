/* MPI_Abort in trace mode (tests/e2e/trace_mpi/abort.rs), instrumented
 * with --regions mpi,functions and run on 3 ranks with a small
 * REGIO_TRACE_BUFFER.
 *
 * Every rank calls `leaf` CALLS times: enough records that each rank's
 * buffer is written out several times before the abort. Then every rank
 * but the last waits in `wait_forever`, inside a synchronous send to the
 * last rank that is never received, and the last rank, once MPI_Probe has
 * seen each of those sends (so each waiting rank has made its enter
 * records of `wait_forever` and `MPI_Ssend` and makes no probe any more),
 * calls MPI_Abort. No timing decides what any rank has recorded when the
 * job is aborted. */
#include <mpi.h>
#include <stdio.h>

#define CALLS 30000
#define TAG 7

static volatile long sink;

static void leaf(int i)
{
    for (int k = 0; k < (i & 3); k++)
        sink += k;
}

static void wait_forever(int last)
{
    int token = 1;
    MPI_Ssend(&token, 1, MPI_INT, last, TAG, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < CALLS; i++)
        leaf(i);
    int last = size - 1;
    if (rank != last) {
        wait_forever(last);
    } else {
        for (int r = 0; r < last; r++) {
            MPI_Status status;
            MPI_Probe(r, TAG, MPI_COMM_WORLD, &status);
        }
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Finalize();
    return 0;
}
