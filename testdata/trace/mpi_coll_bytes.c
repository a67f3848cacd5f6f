/* Collective bytes, for tests/e2e/trace_mpi.rs (4 ranks):
 * the test knows every rank's bytes sent and received from these counts
 * (a process's own block is not counted, as Score-P does), in call order:
 * Gather of 3 ints to root 2 (in place at the root), Gatherv of rank + 1
 * ints to root 0 (in place at the root), Reduce of 4 to root 3 (in place
 * at the root), Allreduce of 2, Allgather of 2, Scatter of 2 from root 1
 * (the root's receive buffer in place), Alltoall of 1, Allgatherv and
 * Reduce_scatter of rank + 1 each (all in place), an Allreduce of 2
 * with separate buffers, an Alltoallw with a datatype per rank (ints to
 * even ranks, doubles to odd ones) and one in place (an int each way),
 * neighbourhood collectives on a Cartesian ring and a distributed
 * graph (see there), and Scan, Scan in place and Exscan of 2. The
 * sendbuf argument of the in-place calls is a variable (compared at run
 * time) except for the Allreduce, which names MPI_IN_PLACE. Prints a
 * checksum of the results. */
#include <mpi.h>
#include <stdio.h>

#define MAXR 16

static int left_of(int rank, int size) { return (rank + size - 1) % size; }

int main(int argc, char **argv) {
    int rank, size;
    int buf[4 * MAXR], mine[4 * MAXR], counts[MAXR], displs[MAXR];
    long sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXR)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < 4 * MAXR; i++)
        buf[i] = mine[i] = rank + i;
    int total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    const void *in_place = MPI_IN_PLACE;

    /* Each call's send buffer is `send` (the root or every rank:
     * MPI_IN_PLACE) or the rank's own data. */
    const void *send = rank == 2 ? in_place : (const void *)mine;
    MPI_Gather(send, 3, MPI_INT, buf, 3, MPI_INT, 2, MPI_COMM_WORLD);
    sum += buf[3 * (size - 1)];
    send = rank == 0 ? in_place : (const void *)mine;
    MPI_Gatherv(send, rank + 1, MPI_INT, buf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    sum += buf[total - 1];
    send = rank == size - 1 ? in_place : (const void *)mine;
    MPI_Reduce(send, buf, 4, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD);
    sum += buf[0];
    MPI_Allreduce(MPI_IN_PLACE, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += buf[1];
    send = in_place;
    MPI_Allgather(send, 0, MPI_DATATYPE_NULL, buf, 2, MPI_INT, MPI_COMM_WORLD);
    sum += buf[2 * size - 1];
    void *recv = rank == 1 ? (void *)in_place : (void *)buf;
    MPI_Scatter(mine, 2, MPI_INT, recv, 2, MPI_INT, 1, MPI_COMM_WORLD);
    sum += buf[1];
    MPI_Alltoall(send, 0, MPI_DATATYPE_NULL, buf, 1, MPI_INT, MPI_COMM_WORLD);
    sum += buf[size - 1];
    for (int i = 0; i < 4 * MAXR; i++)
        buf[i] = rank + i;
    MPI_Allgatherv(send, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_INT, MPI_COMM_WORLD);
    sum += buf[total - 1];
    MPI_Reduce_scatter(send, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += buf[0];
    MPI_Allreduce(mine, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += buf[1];

    /* Alltoallw: one element to each rank i, an int to even ranks and a
     * double to odd ones (so rank r receives its own kind from everyone);
     * then in place, one int each way. */
    double wsend[MAXR], wrecv[MAXR];
    int wcounts[MAXR], wsdispls[MAXR], wrdispls[MAXR];
    MPI_Datatype wstypes[MAXR], wrtypes[MAXR];
    for (int i = 0; i < size; i++) {
        wsend[i] = rank + i;
        wcounts[i] = 1;
        wsdispls[i] = wrdispls[i] = i * (int)sizeof(double);
        wstypes[i] = i % 2 ? MPI_DOUBLE : MPI_INT;
        wrtypes[i] = rank % 2 ? MPI_DOUBLE : MPI_INT;
    }
    MPI_Alltoallw(wsend, wcounts, wsdispls, wstypes, wrecv, wcounts, wrdispls, wrtypes,
                  MPI_COMM_WORLD);
    sum += (long)(rank % 2 ? wrecv[size - 1] : *(int *)&wrecv[size - 1]);
    for (int i = 0; i < size; i++)
        wrtypes[i] = MPI_INT;
    MPI_Alltoallw(MPI_IN_PLACE, wcounts, wsdispls, wstypes, buf, wcounts, wrdispls, wrtypes,
                  MPI_COMM_WORLD);

    /* Neighbourhood collectives: on a periodic 1-D Cartesian ring (two
     * neighbours each way) an Allgather of 2 ints and an Alltoallv of 1
     * int to the left and 2 to the right; on a distributed graph with one
     * neighbour each way (in: left, out: right) an Alltoall of 3. */
    MPI_Comm ring, chain;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int nb[4], ncounts_s[2] = {1, 2}, ncounts_r[2] = {2, 1}, nsd[2] = {0, 1}, nrd[2] = {0, 2};
    MPI_Neighbor_allgather(mine, 2, MPI_INT, buf, 2, MPI_INT, ring);
    sum += buf[3];
    MPI_Neighbor_alltoallv(mine, ncounts_s, nsd, MPI_INT, nb, ncounts_r, nrd, MPI_INT, ring);
    sum += nb[0] + nb[2];
    int from[1] = {left_of(rank, size)}, to[1] = {(rank + 1) % size}, weight[1] = {1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, from, weight, 1, to, weight, MPI_INFO_NULL,
                                   0, &chain);
    MPI_Neighbor_alltoall(mine, 3, MPI_INT, buf, 3, MPI_INT, chain);
    sum += buf[2];
    MPI_Comm_free(&chain);
    MPI_Comm_free(&ring);

    /* Prefix reductions of 2 ints: Scan, Scan in place (through the
     * variable), Exscan (Score-P: rank r of N sends N - r blocks and
     * receives r + 1, one fewer each way in place and for Exscan). */
    MPI_Scan(mine, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += buf[1];
    MPI_Scan(in_place, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += buf[0];
    MPI_Exscan(mine, buf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0)
        sum += buf[1];

    long all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %ld\nmpi_coll_bytes done on %d ranks\n", all, size);
    MPI_Finalize();
    return 0;
}
