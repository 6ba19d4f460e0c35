/* request_free.c — MPI_Request_free on active requests: a receive freed
 * while it waits for its message (the program learns that it has arrived
 * from a later message on the same channel: MPI does not overtake), and a
 * freed send. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
    int early[4], late[4], v[4];
    for (int round = 0; round < 3; round++) {
        MPI_Request rq;
        MPI_Irecv(early, 4, MPI_INT, from, 3, MPI_COMM_WORLD, &rq);
        MPI_Request_free(&rq);
        if (cf_rank == round)
            cf_sleep_ms(10);
        cf_fill(v, 4, round);
        cf_expect(cf_rank, to);
        MPI_Send(v, 4, MPI_INT, to, 3, MPI_COMM_WORLD);
        cf_expect(cf_rank, to);
        MPI_Request sq;
        MPI_Isend(v, 4, MPI_INT, to, 3, MPI_COMM_WORLD, &sq);
        MPI_Recv(late, 4, MPI_INT, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request_free(&sq);
        cf_fold_ints(early, 4);
        cf_fold_ints(late, 4);
        MPI_Barrier(MPI_COMM_WORLD);   /* every freed send has been received */
    }
    cf_finish();
    return 0;
}
