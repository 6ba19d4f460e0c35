/* in_place.c — MPI_IN_PLACE in every collective that allows it, on
 * MPI_COMM_WORLD and on a split communicator; rank 2 is late. 4 ranks. */
#include "conformance.h"

static void in_place(MPI_Comm c, int round)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    int v[32], counts[8], displs[8];
    cf_fill(v, 32, round);
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, c);
    cf_fold_ints(v, 4);
    cf_fill(v, 32, round);
    if (me == 0)
        MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_MAX, 0, c);
    else
        MPI_Reduce(v, NULL, 4, MPI_INT, MPI_MAX, 0, c);
    cf_fold_ints(v, 4);
    cf_fill(v, 32, round);
    if (me == n - 1)
        MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, v, 2, MPI_INT, n - 1, c);
    else
        MPI_Gather(v, 2, MPI_INT, NULL, 0, MPI_INT, n - 1, c);
    cf_fold_ints(v, (size_t)2 * n);
    for (int i = 0; i < n; i++)
        counts[i] = 1 + i, displs[i] = 3 * i;
    if (me == 0)
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, v, counts, displs, MPI_INT, 0, c);
    else
        MPI_Gatherv(v, 1 + me, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, c);
    cf_fold_ints(v, (size_t)3 * n);
    cf_fill(v, 32, round);
    if (me == 0)
        MPI_Scatter(v, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, 0, c);
    else
        MPI_Scatter(NULL, 0, MPI_INT, v, 2, MPI_INT, 0, c);
    cf_fold_ints(v, 2);
    if (me == 0)
        MPI_Scatterv(v, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0, c);
    else
        MPI_Scatterv(NULL, NULL, NULL, MPI_INT, v, 1 + me, MPI_INT, 0, c);
    cf_fold_ints(v, (size_t)(1 + me));
    cf_fill(v, 32, round);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, v, 2, MPI_INT, c);
    cf_fold_ints(v, (size_t)2 * n);
    cf_fill(v, 32, round);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, v, counts, displs, MPI_INT, c);
    cf_fold_ints(v, (size_t)3 * n);
    cf_fill(v, 32, round);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, v, 2, MPI_INT, c);
    cf_fold_ints(v, (size_t)2 * n);
    cf_fill(v, 32, round);
    int sym[8];   /* in place, what I get from i is what I send i: symmetric counts */
    for (int i = 0; i < n; i++)
        sym[i] = 1 + (me + i) % 3;
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, v, sym, displs, MPI_INT, c);
    for (int i = 0; i < n; i++)
        cf_fold_ints(v + displs[i], (size_t)sym[i]);
    cf_fill(v, 32, round);
    MPI_Reduce_scatter(MPI_IN_PLACE, v, counts, MPI_INT, MPI_SUM, c);
    cf_fold_ints(v, (size_t)counts[me]);
    cf_fill(v, 32, round);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, c);
    cf_fold_ints(v, 2);
    cf_fill(v, 32, round);
    MPI_Scan(MPI_IN_PLACE, v, 3, MPI_INT, MPI_SUM, c);
    cf_fold_ints(v, 3);
    cf_fill(v, 32, round);
    MPI_Exscan(MPI_IN_PLACE, v, 3, MPI_INT, MPI_SUM, c);
    if (me > 0)
        cf_fold_ints(v, 3);
    MPI_Request rq;
    cf_fill(v, 32, round);
    MPI_Iallreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_SUM, c, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    cf_fold_ints(v, 4);
}

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    for (int round = 0; round < 2; round++) {
        if (cf_rank == 2)
            cf_sleep_ms(10);
        in_place(MPI_COMM_WORLD, round);
    }
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, cf_rank / 2, cf_size - cf_rank, &half);
    in_place(half, 5);
    MPI_Comm_free(&half);
    cf_finish();
    return 0;
}
