/* self_comm.c — MPI_COMM_SELF on every rank, at different times: each rank
 * is 15 ms later than the one before, and uses its own MPI_COMM_SELF for
 * collectives and a message to itself. Each rank's SELF is its own
 * communicator: nothing pairs it with another rank's. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    cf_sleep_ms(15 * cf_rank);
    for (int round = 0; round < 3; round++) {
        int v[4], out[4];
        cf_fill(v, 4, round);
        MPI_Barrier(MPI_COMM_SELF);
        MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_SELF);
        MPI_Allreduce(v, out, 4, MPI_INT, MPI_SUM, MPI_COMM_SELF);
        cf_fold_ints(out, 4);
        MPI_Request rq;
        cf_expect(cf_rank, cf_rank);
        MPI_Isend(v, 4, MPI_INT, 0, 7, MPI_COMM_SELF, &rq);
        MPI_Recv(out, 4, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        cf_fold_ints(out, 4);
        MPI_Gather(v, 2, MPI_INT, out, 2, MPI_INT, 0, MPI_COMM_SELF);
        cf_fold_ints(out, 2);
        MPI_Alltoall(v, 3, MPI_INT, out, 3, MPI_INT, MPI_COMM_SELF);
        cf_fold_ints(out, 3);
    }
    /* a world exchange in between, so that the ranks' clocks are tied */
    int right = (cf_rank + 1) % cf_size, left = (cf_rank + cf_size - 1) % cf_size, x = cf_rank, y;
    cf_expect(cf_rank, right);
    MPI_Sendrecv(&x, 1, MPI_INT, right, 1, &y, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cf_fold_ints(&y, 1);
    cf_sleep_ms(15 * (cf_size - 1 - cf_rank));   /* now in the opposite order */
    MPI_Barrier(MPI_COMM_SELF);
    int z = cf_rank, w;
    MPI_Reduce(&z, &w, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_SELF);
    cf_fold_ints(&w, 1);
    cf_finish();
    return 0;
}
