/* Message probes on MPI_COMM_WORLD or cycling over NCOMMS duplicates, one
 * rank sending to itself, for the comms benchmark in notes/handoff-h-mpitrace3.md:
 * argv[1] iterations, argv[2] 0 (world) or 1 (duplicates). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define NCOMMS 80
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 1000, dups = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Comm c[NCOMMS];
    for (int k = 0; k < NCOMMS; k++)
        MPI_Comm_dup(MPI_COMM_WORLD, &c[k]);
    int s = 1, r = 0;
    for (int i = 0; i < n; i++) {
        MPI_Comm comm = dups ? c[i % NCOMMS] : MPI_COMM_WORLD;
        MPI_Request q[2];
        MPI_Status st[2];
        MPI_Irecv(&r, 1, MPI_INT, 0, 1, comm, &q[0]);
        MPI_Isend(&s, 1, MPI_INT, 0, 1, comm, &q[1]);
        MPI_Waitall(2, q, st);
    }
    for (int k = 0; k < NCOMMS; k++)
        MPI_Comm_free(&c[k]);
    printf("%d\n", r);
    MPI_Finalize();
    return 0;
}
