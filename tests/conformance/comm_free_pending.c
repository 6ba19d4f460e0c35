/* comm_free_pending.c — MPI_Comm_free while requests on the communicator
 * are still pending, which MPI allows: the communicator is only marked
 * for deallocation and lives until they are done. Its CommDestroy must
 * not come before the events that still name it (a receive's completion,
 * a non-blocking collective's end, a persistent request's next start).
 * Pending at the free: a receive whose message comes late, a 1 MiB send
 * (a rendezvous: done only once received), a non-blocking barrier and
 * reduction, and persistent requests started again after the free and
 * only then freed. 4 ranks. */
#include "conformance.h"

#define BIG (256 * 1024)   /* ints: 1 MiB, past Open MPI's eager limit */

static int big_out[BIG], big_in[BIG];

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int me = cf_rank, partner = me ^ 1;
    int v[8], r[8];

    /* a receive, a send and two non-blocking collectives pending at the free */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Request q[4];
    cf_fill(v, 8, 1);
    for (int i = 0; i < BIG; i++)
        big_out[i] = me * 7 + i;
    if (me % 2 == 0) {
        MPI_Irecv(r, 8, MPI_INT, partner, 5, c, &q[0]);
        cf_expect(me, partner);
        MPI_Isend(big_out, BIG, MPI_INT, partner, 6, c, &q[1]);
    } else {
        cf_expect(me, partner);
        MPI_Isend(v, 8, MPI_INT, partner, 5, c, &q[0]);
        MPI_Irecv(big_in, BIG, MPI_INT, partner, 6, c, &q[1]);
    }
    MPI_Ibarrier(c, &q[2]);
    int sum_in = me + 1, sum_out = 0;
    MPI_Iallreduce(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, c, &q[3]);
    MPI_Comm_free(&c);
    if (c != MPI_COMM_NULL)
        cf_fail("MPI_Comm_free left the handle");
    if (me % 2 == 1)
        cf_sleep_ms(5);   /* the odd ranks are late: the even ones' requests stay pending */
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Waitall(3, &q[1], MPI_STATUSES_IGNORE);
    if (me % 2 == 0)
        cf_fold_ints(r, 8);
    else
        cf_fold_ints(big_in, BIG);
    cf_fold_ints(&sum_out, 1);

    /* persistent requests: started again after the free, then freed */
    MPI_Comm p;
    MPI_Comm_dup(MPI_COMM_WORLD, &p);
    MPI_Request pq;
    if (me % 2 == 0)
        MPI_Send_init(v, 8, MPI_INT, partner, 7, p, &pq);
    else
        MPI_Recv_init(r, 8, MPI_INT, partner, 7, p, &pq);
    MPI_Comm_free(&p);
    for (int round = 0; round < 2; round++) {
        cf_fill(v, 8, 10 + round);
        if (me % 2 == 0)
            cf_expect(me, partner);
        MPI_Start(&pq);
        MPI_Wait(&pq, MPI_STATUS_IGNORE);
        if (me % 2 == 1)
            cf_fold_ints(r, 8);
    }
    MPI_Request_free(&pq);

    /* nothing pending: the CommDestroy stays inside MPI_Comm_free */
    MPI_Comm s;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &s);
    MPI_Allreduce(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, s);
    cf_fold_ints(&sum_out, 1);
    MPI_Comm_free(&s);
    cf_finish();
    return 0;
}
