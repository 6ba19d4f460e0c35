/* nbc_progress.c — a nonblocking reduction with a user-defined function
 * left pending while blocking sends wait: their progress runs the
 * function, whose MPI calls (it asks for the datatype's extent, as
 * mpi4py's do) are recorded inside the send. The send's record, stamped at
 * its entry, must come before them, or it goes back in time and the merge
 * takes a later send time than the true one (ms too late: the function
 * takes 1 ms). Large messages (a rendezvous: the send waits for its
 * receiver, one rank late in turn) by MPI_Send, MPI_Ssend and
 * MPI_Sendrecv (the first send of MPI_DOUBLE, the program's first use
 * of that type: its record can be written early only because the
 * tracer learnt the C types' sizes at MPI_Init); and a window's creation,
 * fences and free, whose RmaCollectiveBegin is stamped at their entry
 * too. 4 ranks. */
#include "conformance.h"

#define BIG (256 * 1024)   /* ints: 1 MiB, well past Open MPI's eager limit */

static void slow_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*type, &lb, &extent);
    if (extent != (MPI_Aint)sizeof(int))
        cf_fail("the reduction's datatype");
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
    cf_spin_ms(1.0);
}

static int big_out[BIG], big_in[BIG];

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, me = cf_rank, partner = me ^ 1, right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_Op sum;
    MPI_Op_create(slow_sum, 1, &sum);
    int v0[8], r0[8], cell[8] = { 0 };
    cf_fill(v0, 8, 9);
    MPI_Request q0;
    MPI_Iallreduce(v0, r0, 8, MPI_INT, sum, MPI_COMM_WORLD, &q0);
    MPI_Win win;
    MPI_Win_create(cell, sizeof cell, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_name(win, "progress window");
    cf_expect_record("name progress window");
    cf_expect_record("window");
    for (int k = 0; k < 3; k++) {
        if (me == k)
            cf_sleep_ms(3);
        MPI_Win_fence(0, win);
        MPI_Put(v0, 2, MPI_INT, right, 2 * k, 2, MPI_INT, win);
        cf_expect_record("put");
        cf_expect_rma("progress window", "put", MPI_COMM_WORLD, right, 8, 0);
    }
    MPI_Win_fence(0, win);
    MPI_Wait(&q0, MPI_STATUS_IGNORE);
    cf_fold_ints(r0, 8);
    cf_fold_ints(cell, 8);
    MPI_Iallreduce(v0, r0, 8, MPI_INT, sum, MPI_COMM_WORLD, &q0);
    MPI_Win_free(&win);
    MPI_Wait(&q0, MPI_STATUS_IGNORE);
    cf_fold_ints(r0, 8);
    for (int round = 0; round < 4; round++) {
        int v[64], r[64];
        cf_fill(v, 64, round);
        cf_fill(big_out, BIG, round);
        MPI_Request q;
        MPI_Iallreduce(v, r, 64, MPI_INT, sum, MPI_COMM_WORLD, &q);
        if (me == round)
            cf_sleep_ms(3);   /* late: its partner's send waits, and progresses */
        /* pairs: the even rank sends first in even rounds */
        int first = (me % 2 == 0) == (round % 2 == 0);
        for (int k = 0; k < 2; k++) {
            if (first == (k == 0)) {
                cf_expect(me, partner);
                if (round == 0)   /* the program's first MPI_DOUBLE: its size is known from MPI_Init on */
                    MPI_Send(big_out, BIG / 2, MPI_DOUBLE, partner, k, MPI_COMM_WORLD);
                else if (round < 2)
                    MPI_Send(big_out, BIG, MPI_INT, partner, k, MPI_COMM_WORLD);
                else
                    MPI_Ssend(big_out, BIG, MPI_INT, partner, k, MPI_COMM_WORLD);
            } else if (round == 0) {
                MPI_Recv(big_in, BIG / 2, MPI_DOUBLE, partner, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                cf_fold_ints(big_in, 16);
            } else {
                MPI_Recv(big_in, BIG, MPI_INT, partner, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                cf_fold_ints(big_in, 16);
            }
        }
        /* a ring of large messages */
        cf_expect(me, right);
        MPI_Sendrecv(big_out, BIG, MPI_INT, right, 7, big_in, BIG, MPI_INT, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        cf_fold_ints(big_in, 16);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        cf_fold_ints(r, 64);
    }
    MPI_Op_free(&sum);
    cf_finish();
    return 0;
}
