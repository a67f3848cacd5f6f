/* Communicators made by MPI_Comm_idup and MPI_Comm_create_group, for
 * tests/e2e/trace_mpi.rs (4 ranks): each must have one identity on all its
 * members from its creation, whatever order they first use it in.
 * - Two MPI_Comm_idup duplicates of the world, A then B (both requests
 *   completed by one MPI_Waitall): even ranks send one int to rank + 1 on
 *   B first, then on A; odd ranks receive on A first, then on B (tags
 *   differ, the sends are non-blocking).
 * - MPI_Comm_create_group over the ranks of the same parity, twice with
 *   the same group (tags 1 and 2: G1, G2): the lower rank of each pair
 *   sends on G2 then G1, the higher one receives on G1 then G2.
 * - MPI_Comm_create_group over ranks {0, 1, 2} of an MPI_Comm_split
 *   duplicate of the world (rank 3 takes no part): a ring of one int on it.
 * Prints a checksum of what arrived. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, size, got[4] = {0, 0, 0, 0}, mine;
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4)
        MPI_Abort(MPI_COMM_WORLD, 1);
    mine = 10 * (rank + 1);

    MPI_Comm a, b;
    MPI_Request dup[2], io[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &a, &dup[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &b, &dup[1]);
    MPI_Waitall(2, dup, MPI_STATUSES_IGNORE);
    if (rank % 2 == 0) {
        MPI_Isend(&mine, 1, MPI_INT, rank + 1, 2, b, &io[0]);
        MPI_Isend(&mine, 1, MPI_INT, rank + 1, 1, a, &io[1]);
    } else {
        MPI_Irecv(&got[0], 1, MPI_INT, rank - 1, 1, a, &io[0]);
        MPI_Irecv(&got[1], 1, MPI_INT, rank - 1, 2, b, &io[1]);
    }
    MPI_Waitall(2, io, MPI_STATUSES_IGNORE);
    sum += got[0] + 2 * got[1];

    MPI_Group world, pair, three;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int members[2] = {rank % 2, rank % 2 + 2};
    MPI_Group_incl(world, 2, members, &pair);
    MPI_Comm g1, g2;
    MPI_Comm_create_group(MPI_COMM_WORLD, pair, 1, &g1);
    MPI_Comm_create_group(MPI_COMM_WORLD, pair, 2, &g2);
    if (rank < 2) {
        MPI_Isend(&mine, 1, MPI_INT, 1, 4, g2, &io[0]);
        MPI_Isend(&mine, 1, MPI_INT, 1, 3, g1, &io[1]);
    } else {
        MPI_Irecv(&got[2], 1, MPI_INT, 0, 3, g1, &io[0]);
        MPI_Irecv(&got[3], 1, MPI_INT, 0, 4, g2, &io[1]);
    }
    MPI_Waitall(2, io, MPI_STATUSES_IGNORE);
    sum += 3 * got[2] + 4 * got[3];

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &half);
    if (rank < 3) {
        int first3[3] = {0, 1, 2}, r3, from = 0;
        MPI_Group half_group;
        MPI_Comm_group(half, &half_group);
        MPI_Group_incl(half_group, 3, first3, &three);
        MPI_Comm t;
        MPI_Comm_create_group(half, three, 9, &t);
        MPI_Comm_rank(t, &r3);
        MPI_Sendrecv(&mine, 1, MPI_INT, (r3 + 1) % 3, 5, &from, 1, MPI_INT, (r3 + 2) % 3, 5, t,
                     MPI_STATUS_IGNORE);
        sum += 5 * from;
        MPI_Comm_free(&t);
        MPI_Group_free(&three);
        MPI_Group_free(&half_group);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&g2);
    MPI_Comm_free(&g1);
    MPI_Group_free(&pair);
    MPI_Group_free(&world);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);

    long all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %ld\nmpi_comm_kinds done on %d ranks\n", all, size);
    MPI_Finalize();
    return 0;
}
