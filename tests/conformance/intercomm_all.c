/* intercomm_all.c — every all-to-all collective on an intercommunicator
 * (the even world ranks against the odd ones, groups of 1 and 3 in a second
 * round): Barrier, Allgather(v), Alltoall(v/w), Allreduce, Reduce_scatter,
 * Reduce_scatter_block, and non-blocking ones; one rank is late each time.
 * 4 ranks. */
#include "conformance.h"

static void all_kinds(MPI_Comm inter, int round, int late)
{
    int lr, rsize;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rsize);
    int v[32], out[64], sc[8], sd[8], rc[8], rd[8], sb[8], rb[8];
    MPI_Datatype st[8], rt[8];
    cf_fill(v, 32, round);
    if (cf_rank == late)
        cf_sleep_ms(8);
    MPI_Barrier(inter);
    MPI_Allgather(v, 2, MPI_INT, out, 2, MPI_INT, inter);
    cf_fold_ints(out, (size_t)2 * rsize);
    int lsize;
    MPI_Comm_size(inter, &lsize);
    for (int i = 0; i < rsize; i++) {
        rc[i] = 1 + i % 2;   /* remote rank i sends me 1 + i%2 */
        rd[i] = 4 * i;
    }
    MPI_Allgatherv(v, 1 + lr % 2, MPI_INT, out, rc, rd, MPI_INT, inter);
    for (int i = 0; i < rsize; i++)
        cf_fold_ints(out + rd[i], (size_t)rc[i]);
    MPI_Alltoall(v, 2, MPI_INT, out, 2, MPI_INT, inter);
    cf_fold_ints(out, (size_t)2 * rsize);
    for (int i = 0; i < rsize; i++) {
        sc[i] = (lr + i) % 2 + 1;   /* I send remote i (lr+i)%2+1; it sends me (i+lr)%2+1 */
        sd[i] = 3 * i;
        rc[i] = (i + lr) % 2 + 1;
        rd[i] = 3 * i;
        sb[i] = sd[i] * (int)sizeof(int);
        rb[i] = rd[i] * (int)sizeof(int);
        st[i] = rt[i] = MPI_INT;
    }
    MPI_Alltoallv(v, sc, sd, MPI_INT, out, rc, rd, MPI_INT, inter);
    for (int i = 0; i < rsize; i++)
        cf_fold_ints(out + rd[i], (size_t)rc[i]);
    MPI_Alltoallw(v, sc, sb, st, out, rc, rb, rt, inter);
    for (int i = 0; i < rsize; i++)
        cf_fold_ints(out + rd[i], (size_t)rc[i]);
    MPI_Allreduce(v, out, 5, MPI_INT, MPI_SUM, inter);
    cf_fold_ints(out, 5);
    /* Reduce_scatter: each group's vectors reduced, scattered over the other
     * group; every group splits the same 6 elements */
    int counts[8];
    for (int i = 0; i < lsize; i++)
        counts[i] = lsize == 1 ? 6 : lsize == 2 ? 2 + 2 * i : 1 + i;
    MPI_Reduce_scatter_block(v, out, 6 / lsize, MPI_INT, MPI_SUM, inter);
    cf_fold_ints(out, (size_t)(6 / lsize));
    MPI_Reduce_scatter(v, out, counts, MPI_INT, MPI_SUM, inter);
    cf_fold_ints(out, (size_t)counts[lr]);
    /* non-blocking: Ibarrier, Iallgather, Ialltoallw, Iallreduce */
    MPI_Request rq[4];
    int ag[16] = { 0 }, aw[64] = { 0 }, ar[5] = { 0 };
    MPI_Ibarrier(inter, &rq[0]);
    MPI_Iallgather(v, 2, MPI_INT, ag, 2, MPI_INT, inter, &rq[1]);
    MPI_Ialltoallw(v, sc, sb, st, aw, rc, rb, rt, inter, &rq[2]);
    MPI_Iallreduce(v, ar, 5, MPI_INT, MPI_MAX, inter, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    cf_fold_ints(ag, (size_t)2 * rsize);
    for (int i = 0; i < rsize; i++)
        cf_fold_ints(aw + rd[i], (size_t)rc[i]);
    cf_fold_ints(ar, 5);
}

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    MPI_Comm local, inter;
    /* groups {0,2} and {1,3} */
    int colour = cf_rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, colour, cf_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, colour ? 0 : 1, 3, &inter);
    all_kinds(inter, 1, 3);
    all_kinds(inter, 2, 0);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    /* groups {0} and {1,2,3}: one side of one rank */
    colour = cf_rank > 0;
    MPI_Comm_split(MPI_COMM_WORLD, colour, cf_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, colour ? 0 : 1, 4, &inter);
    all_kinds(inter, 3, 2);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    cf_finish();
    return 0;
}
