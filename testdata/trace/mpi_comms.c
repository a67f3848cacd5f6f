/* Communicators in trace mode, for tests/e2e/trace_mpi.rs (4 ranks):
 * - halves of MPI_COMM_WORLD (MPI_Comm_split), then a duplicate of the
 *   half and one of the world, created in opposite orders by the two
 *   halves (legal: the half's collective involves only its members);
 * - two duplicates of the world, A and B, first used in opposite orders:
 *   even ranks send on B (tag 2) before A (tag 1), odd ranks receive on A
 *   before B;
 * - NCOMMS more duplicates of the world (more than the 64 communicators a
 *   process could once trace), one ring message on each (tag k);
 * - a split that leaves the even ranks out (MPI_UNDEFINED: they get
 *   MPI_COMM_NULL), on which the odd ranks exchange one message.
 * Every message is non-blocking and completed by MPI_Waitall. Prints a
 * checksum of what arrived, the same with and without instrumentation. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NCOMMS 80

static void exchange(MPI_Comm comm, int to, int from, int tag, int value, int *got) {
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Irecv(got, 1, MPI_INT, from, tag, comm, &r[0]);
    MPI_Isend(&value, 1, MPI_INT, to, tag, comm, &r[1]);
    MPI_Waitall(2, r, st);
}

int main(int argc, char **argv) {
    int rank, size, got, sum = 0;
    MPI_Comm half, half_dup, world_dup, a, b, odd;
    MPI_Comm ring[NCOMMS];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
    if (rank < 2) {
        MPI_Comm_dup(half, &half_dup);
        MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &world_dup);
        MPI_Comm_dup(half, &half_dup);
    }
    int hrank, hsize;
    MPI_Comm_rank(half_dup, &hrank);
    MPI_Comm_size(half_dup, &hsize);
    if (hsize > 1) {
        exchange(half_dup, 1 - hrank, 1 - hrank, 5, rank, &got);
        sum += got;
    }
    exchange(world_dup, right, left, 6, rank * 10, &got);
    sum += got;

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    int partner = rank ^ 1;
    if (partner < size) {
        MPI_Request r[2];
        MPI_Status st[2];
        int va = 100 + rank, vb = 200 + rank, ga = 0, gb = 0;
        if (rank % 2 == 0) {
            MPI_Isend(&vb, 1, MPI_INT, partner, 2, b, &r[0]);
            MPI_Isend(&va, 1, MPI_INT, partner, 1, a, &r[1]);
        } else {
            MPI_Irecv(&ga, 1, MPI_INT, partner, 1, a, &r[0]);
            MPI_Irecv(&gb, 1, MPI_INT, partner, 2, b, &r[1]);
        }
        MPI_Waitall(2, r, st);
        sum += ga + gb;
    }

    for (int k = 0; k < NCOMMS; k++)
        MPI_Comm_dup(MPI_COMM_WORLD, &ring[k]);
    for (int k = 0; k < NCOMMS; k++) {
        exchange(ring[k], right, left, k, rank + k, &got);
        sum += got;
    }

    MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? 0 : MPI_UNDEFINED, rank, &odd);
    if (odd != MPI_COMM_NULL) {
        int orank, osize;
        MPI_Comm_rank(odd, &orank);
        MPI_Comm_size(odd, &osize);
        exchange(odd, (orank + 1) % osize, (orank + osize - 1) % osize, 9, 1000 + rank, &got);
        sum += got;
        MPI_Comm_free(&odd);
    }

    for (int k = 0; k < NCOMMS; k++)
        MPI_Comm_free(&ring[k]);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&world_dup);
    MPI_Comm_free(&half_dup);
    MPI_Comm_free(&half);

    int total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %d\nmpi_comms done on %d ranks\n", total, size);
    MPI_Finalize();
    return 0;
}
