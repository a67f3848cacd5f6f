/* An intercommunicator between the two halves of 4 ranks, for
 * tests/e2e/trace_mpi.rs. Group A is world ranks 0 and 1, group B 2 and 3
 * (MPI_Comm_split, MPI_Intercomm_create with leaders 0 and 2). On the
 * intercommunicator: every process exchanges one message with the remote
 * process of its own local rank (MPI_Isend/MPI_Irecv from MPI_ANY_SOURCE,
 * MPI_Waitall with statuses); A's local rank h sends one more to B's
 * local rank 1 - h (MPI_Send / MPI_Recv); MPI_Bcast of 3 ints from A's
 * rank 0 (MPI_ROOT there, MPI_PROC_NULL at A's rank 1, root 0 in B);
 * MPI_Gather of 2 ints from every A process to B's rank 0; MPI_Allreduce
 * of 1 int. Then MPI_Intercomm_merge, a ring message and an Allreduce of
 * 1 int on the merged communicator. Prints a checksum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, hrank;
    long sum = 0;
    MPI_Comm half, inter, merged;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            printf("needs 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    int in_a = rank < 2;
    MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, in_a ? 2 : 0, 7, &inter);

    int out = 10 * rank, got[2] = {0, 0};
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, 1, inter, &r[0]);
    MPI_Isend(&out, 1, MPI_INT, hrank, 1, inter, &r[1]);
    MPI_Waitall(2, r, st);
    sum += got[0] + st[0].MPI_SOURCE;
    MPI_Status one;
    if (in_a) {
        MPI_Send(&out, 1, MPI_INT, 1 - hrank, 2, inter);
    } else {
        MPI_Recv(&got[1], 1, MPI_INT, 1 - hrank, 2, inter, &one);
        sum += got[1];
    }

    int b[3] = {rank, rank, rank};
    int root = in_a ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(b, 3, MPI_INT, root, inter);
    sum += b[2];
    int g[4] = {0, 0, 0, 0}, mine[2] = {rank, rank + 1};
    root = in_a ? 0 : (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Gather(mine, 2, MPI_INT, g, 2, MPI_INT, root, inter);
    sum += g[0] + g[3];
    int x = rank + 1, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    sum += y;

    MPI_Intercomm_merge(inter, in_a ? 0 : 1, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    MPI_Request mr[2];
    MPI_Status ms[2];
    int m = mrank, mg = 0;
    MPI_Irecv(&mg, 1, MPI_INT, (mrank + msize - 1) % msize, 3, merged, &mr[0]);
    MPI_Isend(&m, 1, MPI_INT, (mrank + 1) % msize, 3, merged, &mr[1]);
    MPI_Waitall(2, mr, ms);
    sum += mg;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, merged);
    sum += y;

    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    long all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %ld\nmpi_intercomm done on %d ranks\n", all, size);
    MPI_Finalize();
    return 0;
}
