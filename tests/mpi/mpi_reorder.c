/* mpi_reorder.c — receives completed in another order than they were
 * posted: MPI matches in posting order, so the first message goes to the
 * first receive posted, whichever is waited for first. Rank 0 sends
 * ROUNDS pairs of messages (tag 5, lengths 1 and 2) to rank 1, which posts
 * two receives and waits for the second one first; also with
 * MPI_ANY_SOURCE/MPI_ANY_TAG, and with a cancelled receive between. Prints
 * "ok" per rank when every receive got the message MPI promises. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 20

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < ROUNDS && size >= 2; round++) {
        int any = round % 2;
        if (rank == 0) {
            int a[2] = { 1, round }, b[2] = { 2, round };
            MPI_Send(a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Send(b, 2, MPI_INT, 1, 5, MPI_COMM_WORLD);
        } else if (rank == 1) {
            int first[2] = { 0, 0 }, second[2] = { 0, 0 };
            MPI_Request r[2];
            MPI_Status st;
            MPI_Irecv(first, 2, MPI_INT, any ? MPI_ANY_SOURCE : 0, any ? MPI_ANY_TAG : 5, MPI_COMM_WORLD, &r[0]);
            if (round % 4 == 0) {
                /* a receive posted in between and cancelled: it takes no message */
                MPI_Request c;
                int x;
                MPI_Irecv(&x, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, &c);
                MPI_Cancel(&c);
                MPI_Wait(&c, MPI_STATUS_IGNORE);
            }
            MPI_Irecv(second, 2, MPI_INT, any ? MPI_ANY_SOURCE : 0, any ? MPI_ANY_TAG : 5, MPI_COMM_WORLD, &r[1]);
            MPI_Wait(&r[1], &st);   /* the second posted, first waited for */
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            bad |= first[0] != 1 || second[0] != 2;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("%s\n", bad ? "bad" : "ok");
    MPI_Finalize();
    return bad;
}
