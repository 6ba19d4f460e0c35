/* intercomm_p2p.c — point-to-point on an intercommunicator between the
 * even and the odd world ranks (remote ranks name the other group):
 * blocking, non-blocking, synchronous and MPI_ANY_SOURCE receives, and a
 * merged intracommunicator after it. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int colour = cf_rank % 2;
    MPI_Comm local, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, colour, cf_rank, &local);
    /* local leader 0; remote leader: world rank 1 for the evens, 0 for the odds */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, colour ? 0 : 1, 99, &inter);
    int lr, rsize;
    MPI_Comm_rank(local, &lr);
    MPI_Comm_remote_size(inter, &rsize);
    int peer = lr % rsize, v[8], in[8];
    for (int round = 0; round < 4; round++) {
        cf_fill(v, 8, round);
        MPI_Request rq[2];
        if (colour == 0) {   /* evens send first */
            cf_expect(cf_rank, cf_world_of(inter, peer));
            if (round % 2)
                MPI_Ssend(v, 8, MPI_INT, peer, round, inter);
            else
                MPI_Send(v, 8, MPI_INT, peer, round, inter);
            MPI_Recv(in, 8, MPI_INT, MPI_ANY_SOURCE, round, inter, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(in, 8, MPI_INT, peer, round, inter, &rq[0]);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            cf_expect(cf_rank, cf_world_of(inter, peer));
            MPI_Isend(v, 8, MPI_INT, peer, round, inter, &rq[1]);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        }
        cf_fold_ints(in, 8);
        if (cf_rank == 3)
            cf_sleep_ms(5);
    }
    MPI_Intercomm_merge(inter, colour, &merged);
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    int to = (mr + 1) % ms, from = (mr + ms - 1) % ms, x = mr * 11, y;
    cf_expect(cf_rank, cf_world_of(merged, to));
    MPI_Sendrecv(&x, 1, MPI_INT, to, 3, &y, 1, MPI_INT, from, 3, merged, MPI_STATUS_IGNORE);
    cf_fold_ints(&y, 1);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    cf_finish();
    return 0;
}
