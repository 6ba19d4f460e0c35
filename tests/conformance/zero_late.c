/* zero_late.c — collectives that move no data, and sparse v/w collectives
 * whose counts are mostly zero, while one rank (a different one each round)
 * is 20 ms late. Open MPI completes zero-byte collectives locally: only the
 * data that flows ties the ranks together. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, v[16], out[16], sc[4], sd[4], rc[4], rd[4], sb[4], rb[4];
    MPI_Datatype ty[4] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT };
    for (int round = 0; round < 4; round++) {
        int late = (round + 1) % n;
        cf_fill(v, 16, round);
        if (cf_rank == late)
            cf_sleep_ms(20);
        /* zero bytes everywhere */
        MPI_Allreduce(v, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Alltoall(v, 0, MPI_INT, out, 0, MPI_INT, MPI_COMM_WORLD);
        MPI_Bcast(v, 0, MPI_INT, round % n, MPI_COMM_WORLD);
        MPI_Reduce(v, out, 0, MPI_INT, MPI_SUM, round % n, MPI_COMM_WORLD);
        MPI_Allgather(v, 0, MPI_INT, out, 0, MPI_INT, MPI_COMM_WORLD);
        MPI_Gather(v, 0, MPI_INT, out, 0, MPI_INT, round % n, MPI_COMM_WORLD);
        MPI_Scatter(v, 0, MPI_INT, out, 0, MPI_INT, round % n, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            rc[i] = 0, rd[i] = 0, sc[i] = 0, sd[i] = 0, sb[i] = rb[i] = 0;
        MPI_Reduce_scatter(v, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce_scatter_block(v, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allgatherv(v, 0, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
        MPI_Alltoallv(v, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
        MPI_Alltoallw(v, sc, sb, ty, out, rc, rb, ty, MPI_COMM_WORLD);
        MPI_Scan(v, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Exscan(v, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (cf_rank == (late + 1) % n)
            cf_sleep_ms(20);
        /* sparse: only rank r -> r+1 carries data (a ring) */
        int to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
        for (int i = 0; i < n; i++) {
            sc[i] = i == to ? 3 : 0;
            rc[i] = i == from ? 3 : 0;
            sd[i] = rd[i] = 4 * i;
            sb[i] = rb[i] = 4 * i * (int)sizeof(int);
        }
        for (int i = 0; i < 16; i++)
            out[i] = 0;
        MPI_Alltoallv(v, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
        cf_fold_ints(out, 16);
        MPI_Alltoallw(v, sc, sb, ty, out, rc, rb, ty, MPI_COMM_WORLD);
        cf_fold_ints(out, 16);
        /* Gatherv / Scatterv where only one non-root rank has data */
        int root = round % n, only = (root + 2) % n;
        for (int i = 0; i < n; i++)
            rc[i] = i == only ? 2 : 0;
        MPI_Gatherv(v, cf_rank == only ? 2 : 0, MPI_INT, out, rc, rd, MPI_INT, root, MPI_COMM_WORLD);
        if (cf_rank == root)
            cf_fold_ints(out + rd[only], 2);
        MPI_Scatterv(v, rc, rd, MPI_INT, out, cf_rank == only ? 2 : 0, MPI_INT, root, MPI_COMM_WORLD);
        if (cf_rank == only)
            cf_fold_ints(out, 2);
        /* Allgatherv where only one rank contributes */
        MPI_Allgatherv(v, cf_rank == only ? 2 : 0, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
        cf_fold_ints(out + rd[only], 2);
    }
    cf_finish();
    return 0;
}
