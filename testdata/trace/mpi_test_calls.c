/* Non-blocking messages completed by the MPI_Test family from C, the twin
 * of mpi_test_calls.f90, for tests/e2e/trace_mpi.rs (4 ranks). Every
 * rank, with right = r + 1 and left = r - 1 (mod the size):
 * 1. MPI_Irecv of 1 int from MPI_ANY_SOURCE (tag 1, the left neighbour
 *    sends it) and MPI_Isend of 1 to the right, each completed by an
 *    MPI_Test loop (the receive with a status, the send with
 *    MPI_STATUS_IGNORE);
 * 2. 2 ints to and from both neighbours (tag 2), completed by an
 *    MPI_Testall loop with statuses;
 * 3. 3 ints from the left and to the right (tag 3), completed by an
 *    MPI_Testany loop;
 * 4. 4 ints from the right and to the left (tag 4), completed by an
 *    MPI_Testsome loop;
 * 5. persistent requests: 5 ints from the left and to the right (tag 5,
 *    MPI_Recv_init/MPI_Send_init, MPI_Startall), completed by an
 *    MPI_Testall loop with MPI_STATUSES_IGNORE.
 * So each rank sends 4 messages (44 bytes) to its right neighbour and 2
 * (24 bytes) to its left one. Prints a checksum of what arrived. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, n, flag, idx, outcount, done, total, check = 0;
    int sbuf[8], rbuf[4][8] = {{0}}, indices[4];
    MPI_Request req[4];
    MPI_Status st, stats[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int right = (rank + 1) % n, left = (rank + n - 1) % n;
    for (int i = 0; i < 8; i++)
        sbuf[i] = rank + 1;

    /* 1. MPI_Test. */
    MPI_Irecv(rbuf[0], 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[1]);
    for (flag = 0; !flag;)
        MPI_Test(&req[0], &flag, &st);
    check += rbuf[0][0] * st.MPI_SOURCE;
    for (flag = 0; !flag;)
        MPI_Test(&req[1], &flag, MPI_STATUS_IGNORE);

    /* 2. MPI_Testall. */
    MPI_Irecv(rbuf[0], 2, MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(rbuf[1], 2, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(sbuf, 2, MPI_INT, right, 2, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(sbuf, 2, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
    for (flag = 0; !flag;)
        MPI_Testall(4, req, &flag, stats);
    check += rbuf[0][1] + rbuf[1][1];

    /* 3. MPI_Testany. */
    MPI_Irecv(rbuf[2], 3, MPI_INT, left, 3, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, 3, MPI_INT, right, 3, MPI_COMM_WORLD, &req[1]);
    for (done = 0; done < 2;) {
        MPI_Testany(2, req, &idx, &flag, &st);
        if (flag && idx != MPI_UNDEFINED)
            done++;
    }
    check += rbuf[2][2];

    /* 4. MPI_Testsome. */
    MPI_Irecv(rbuf[3], 4, MPI_INT, right, 4, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, 4, MPI_INT, left, 4, MPI_COMM_WORLD, &req[1]);
    for (done = 0; done < 2;) {
        MPI_Testsome(2, req, &outcount, indices, stats);
        if (outcount != MPI_UNDEFINED)
            done += outcount;
    }
    check += rbuf[3][3];

    /* 5. Persistent requests completed by MPI_Testall. */
    MPI_Recv_init(rbuf[0], 5, MPI_INT, left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(sbuf, 5, MPI_INT, right, 5, MPI_COMM_WORLD, &req[1]);
    MPI_Startall(2, req);
    for (flag = 0; !flag;)
        MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
    check += rbuf[0][4];
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);

    MPI_Reduce(&check, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("checksum %d\n", total);
        printf("mpi_test_calls done on %d ranks\n", n);
    }
    MPI_Finalize();
    return 0;
}
