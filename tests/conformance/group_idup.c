/* group_idup.c — MPI_Comm_create_group and MPI_Comm_idup of the same member
 * set in a different order on even and odd ranks (legal: idup does not
 * block): the two communicators must still be told apart on every rank.
 * Barriers and messages on both. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm made, dup;
    MPI_Request rq;
    if (cf_rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, wg, 42, &made);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &rq);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &rq);
        MPI_Comm_create_group(MPI_COMM_WORLD, wg, 42, &made);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int n = cf_size, to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
    for (int round = 0; round < 3; round++) {
        if (cf_rank == round)
            cf_sleep_ms(10);
        MPI_Barrier(made);
        if (cf_rank == round + 1)
            cf_sleep_ms(10);
        MPI_Barrier(dup);
        int v[3], out[3];
        cf_fill(v, 3, round);
        cf_expect(cf_rank, to);
        MPI_Sendrecv(v, 3, MPI_INT, to, 0, out, 3, MPI_INT, from, 0, made, MPI_STATUS_IGNORE);
        cf_fold_ints(out, 3);
        cf_expect(cf_rank, from);
        MPI_Sendrecv(v, 2, MPI_INT, from, 0, out, 2, MPI_INT, to, 0, dup, MPI_STATUS_IGNORE);
        cf_fold_ints(out, 2);
        MPI_Allreduce(v, out, 3, MPI_INT, MPI_SUM, made);
        cf_fold_ints(out, 3);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&made);
    MPI_Group_free(&wg);
    cf_finish();
    return 0;
}
