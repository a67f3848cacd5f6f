/* MPI dynamic processes, for tests/e2e/trace_mpi.rs: 2 parents spawn 2
 * children (MPI_Comm_spawn of this program with the argument "child").
 * Over the intercommunicator each parent sends its child of the same rank
 * one int and receives one back (MPI_Send/MPI_Recv); the children
 * (MPI_Comm_get_parent) also sum over their own MPI_COMM_WORLD. Parent 0
 * prints a checksum. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size;
    MPI_Comm parent, inter;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        char *args[] = {"child", NULL};
        int errs[2];
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        int out = 100 + rank, back = 0;
        MPI_Send(&out, 1, MPI_INT, rank, 1, inter);
        MPI_Recv(&back, 1, MPI_INT, rank, 2, inter, MPI_STATUS_IGNORE);
        long sum = back, all = 0;
        MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Comm_disconnect(&inter);
        if (rank == 0)
            printf("checksum %ld\nmpi_spawn done on %d ranks\n", all, size);
    } else {
        int got = 0, x, y = 0;
        MPI_Recv(&got, 1, MPI_INT, rank, 1, parent, MPI_STATUS_IGNORE);
        x = got;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        int reply = got + y;
        MPI_Send(&reply, 1, MPI_INT, rank, 2, parent);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
