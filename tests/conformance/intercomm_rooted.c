/* intercomm_rooted.c — every rooted collective on an intercommunicator
 * (even world ranks against odd ones): the root passes MPI_ROOT, the rest of
 * its group MPI_PROC_NULL, the other group the root's rank; every argument
 * that is significant only at the root is NULL everywhere else, as the
 * standard allows; blocking and non-blocking. Once with the root in each
 * group. 4 ranks. */
#include "conformance.h"

#define N 4

static void rooted(MPI_Comm inter, int colour, int root_group, int root_local, int round)
{
    int lr, rsize;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rsize);
    int in_root_group = colour == root_group, am_root = in_root_group && lr == root_local;
    int root = in_root_group ? (am_root ? MPI_ROOT : MPI_PROC_NULL) : root_local;
    int v[N], all[N * 8], counts[8], displs[8];
    cf_fill(v, N, round);
    for (int i = 0; i < rsize; i++) {
        counts[i] = 1 + i;   /* remote rank i sends / receives 1 + i ints */
        displs[i] = i * N;
    }
    /* Bcast */
    if (am_root)
        MPI_Bcast(v, N, MPI_INT, root, inter);
    else if (in_root_group)
        MPI_Bcast(NULL, 0, MPI_INT, root, inter);
    else {
        MPI_Bcast(all, N, MPI_INT, root, inter);
        cf_fold_ints(all, N);
    }
    /* Gather and Gatherv: the other group sends, the root receives */
    if (am_root) {
        MPI_Gather(NULL, 0, MPI_INT, all, N, MPI_INT, root, inter);
        cf_fold_ints(all, (size_t)N * rsize);
        MPI_Gatherv(NULL, 0, MPI_INT, all, counts, displs, MPI_INT, root, inter);
        for (int i = 0; i < rsize; i++)
            cf_fold_ints(all + displs[i], (size_t)counts[i]);
    } else if (in_root_group) {
        MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, inter);
        MPI_Gatherv(NULL, 0, MPI_INT, NULL, NULL, NULL, MPI_INT, root, inter);
    } else {
        MPI_Gather(v, N, MPI_INT, NULL, 0, MPI_INT, root, inter);
        MPI_Gatherv(v, 1 + lr, MPI_INT, NULL, NULL, NULL, MPI_INT, root, inter);
    }
    /* Scatter and Scatterv: the root sends, the other group receives */
    if (am_root) {
        for (int i = 0; i < N * 8; i++)
            all[i] = round * 100 + i;
        MPI_Scatter(all, N, MPI_INT, NULL, 0, MPI_INT, root, inter);
        MPI_Scatterv(all, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, inter);
    } else if (in_root_group) {
        MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, root, inter);
        MPI_Scatterv(NULL, NULL, NULL, MPI_INT, NULL, 0, MPI_INT, root, inter);
    } else {
        MPI_Scatter(NULL, 0, MPI_INT, v, N, MPI_INT, root, inter);
        cf_fold_ints(v, N);
        MPI_Scatterv(NULL, NULL, NULL, MPI_INT, v, 1 + lr, MPI_INT, root, inter);
        cf_fold_ints(v, (size_t)(1 + lr));
    }
    /* the same, non-blocking: Ibcast, Igatherv, Iscatterv */
    MPI_Request rq[3];
    int ib[N] = { 0 }, ig[N * 8] = { 0 };
    if (am_root) {
        cf_fill(ib, N, round + 20);
        for (int i = 0; i < N * 8; i++)
            all[i] = round * 300 + i;
        MPI_Ibcast(ib, N, MPI_INT, root, inter, &rq[0]);
        MPI_Igatherv(NULL, 0, MPI_INT, ig, counts, displs, MPI_INT, root, inter, &rq[1]);
        MPI_Iscatterv(all, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, inter, &rq[2]);
    } else if (in_root_group) {
        /* a real buffer: Open MPI 4.1's non-blocking intercommunicator
         * broadcast hangs when MPI_PROC_NULL passes a count of 0 */
        MPI_Ibcast(ib, N, MPI_INT, root, inter, &rq[0]);
        MPI_Igatherv(NULL, 0, MPI_INT, NULL, NULL, NULL, MPI_INT, root, inter, &rq[1]);
        MPI_Iscatterv(NULL, NULL, NULL, MPI_INT, NULL, 0, MPI_INT, root, inter, &rq[2]);
    } else {
        cf_fill(v, N, round + 30);
        MPI_Ibcast(ib, N, MPI_INT, root, inter, &rq[0]);
        MPI_Igatherv(v, 1 + lr, MPI_INT, NULL, NULL, NULL, MPI_INT, root, inter, &rq[1]);
        MPI_Iscatterv(NULL, NULL, NULL, MPI_INT, ig, 1 + lr, MPI_INT, root, inter, &rq[2]);
    }
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    if (am_root)
        for (int i = 0; i < rsize; i++)
            cf_fold_ints(ig + displs[i], (size_t)counts[i]);
    else if (!in_root_group) {
        cf_fold_ints(ib, N);
        cf_fold_ints(ig, (size_t)(1 + lr));
    }
    /* Reduce: the other group contributes, the root receives */
    if (am_root) {
        MPI_Reduce(NULL, all, N, MPI_INT, MPI_SUM, root, inter);
        cf_fold_ints(all, N);
    } else if (in_root_group)
        MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, root, inter);
    else {
        cf_fill(v, N, round);
        MPI_Reduce(v, NULL, N, MPI_INT, MPI_SUM, root, inter);
    }
}

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int colour = cf_rank % 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, colour, cf_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, colour ? 0 : 1, 7, &inter);
    rooted(inter, colour, 0, 0, 1);   /* root: world rank 0 */
    if (cf_rank == 2)
        cf_sleep_ms(10);
    rooted(inter, colour, 1, 1, 2);   /* root: world rank 3 */
    if (cf_rank == 3)
        cf_sleep_ms(10);
    rooted(inter, colour, 0, 1, 3);   /* root: world rank 2 */
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    cf_finish();
    return 0;
}
