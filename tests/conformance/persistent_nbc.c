/* persistent_nbc.c — persistent point-to-point requests (Send_init,
 * Ssend_init, Recv_init, Start, Startall) and non-blocking collectives
 * (Ibarrier, Ibcast, Ireduce and Igatherv with NULL off-root arguments,
 * Iallreduce, Ialltoallv, Iscatter), completed by Wait, Waitall, Test
 * loops and Waitany. 4 ranks. */
#include "conformance.h"

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
    int sbuf[8], rbuf[8], sbuf2[8], rbuf2[8];
    MPI_Request p[4];
    MPI_Send_init(sbuf, 8, MPI_INT, to, 1, MPI_COMM_WORLD, &p[0]);
    MPI_Recv_init(rbuf, 8, MPI_INT, from, 1, MPI_COMM_WORLD, &p[1]);
    MPI_Ssend_init(sbuf2, 8, MPI_INT, from, 2, MPI_COMM_WORLD, &p[2]);
    MPI_Recv_init(rbuf2, 8, MPI_INT, to, 2, MPI_COMM_WORLD, &p[3]);
    for (int round = 0; round < 4; round++) {
        cf_fill(sbuf, 8, round);
        cf_fill(sbuf2, 8, round + 50);
        if (cf_rank == round)
            cf_sleep_ms(6);
        cf_expect(cf_rank, to);
        cf_expect(cf_rank, from);
        if (round % 2) {
            MPI_Startall(4, p);
            MPI_Waitall(4, p, MPI_STATUSES_IGNORE);
        } else {
            MPI_Start(&p[1]);
            MPI_Start(&p[3]);
            MPI_Start(&p[0]);
            MPI_Start(&p[2]);
            int done = 0;
            while (!done)
                MPI_Testall(4, p, &done, MPI_STATUSES_IGNORE);
        }
        cf_fold_ints(rbuf, 8);
        cf_fold_ints(rbuf2, 8);
    }
    for (int i = 0; i < 4; i++)
        MPI_Request_free(&p[i]);

    int v[16], out[32], counts[4], displs[4];
    MPI_Request rq[6];
    for (int i = 0; i < n; i++)
        counts[i] = i + 1, displs[i] = 4 * i;
    for (int round = 0; round < 2; round++) {
        int root = (round + 1) % n;
        cf_fill(v, 16, round);
        if (cf_rank == 3 - round)
            cf_sleep_ms(8);
        MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
        MPI_Ibcast(v, 4, MPI_INT, root, MPI_COMM_WORLD, &rq[1]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        cf_fold_ints(v, 4);
        int red[4];
        if (cf_rank == root)
            MPI_Ireduce(v, red, 4, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq[2]);
        else
            MPI_Ireduce(v, NULL, 4, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq[2]);
        if (cf_rank == root)
            MPI_Igatherv(v, cf_rank + 1, MPI_INT, out, counts, displs, MPI_INT, root, MPI_COMM_WORLD, &rq[3]);
        else
            MPI_Igatherv(v, cf_rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD, &rq[3]);
        int ar[4];
        MPI_Iallreduce(v, ar, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq[4]);
        int sc[4], sd[4], rc[4], rd[4], a2a[16];
        for (int i = 0; i < n; i++) {
            sc[i] = (cf_rank + i) % 3;
            rc[i] = (i + cf_rank) % 3;
            sd[i] = rd[i] = 4 * i;
        }
        for (int i = 0; i < 16; i++)
            a2a[i] = 0;
        MPI_Ialltoallv(v, sc, sd, MPI_INT, a2a, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq[5]);
        int left = 4;
        while (left > 0) {
            int idx;
            MPI_Waitany(4, rq + 2, &idx, MPI_STATUS_IGNORE);
            left--;
        }
        if (cf_rank == root) {
            cf_fold_ints(red, 4);
            for (int i = 0; i < n; i++)
                cf_fold_ints(out + displs[i], (size_t)counts[i]);
        }
        cf_fold_ints(ar, 4);
        cf_fold_ints(a2a, 16);
        int sct[2];
        MPI_Iscatter(cf_rank == root ? v : NULL, 2, MPI_INT, sct, 2, MPI_INT, root, MPI_COMM_WORLD, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        cf_fold_ints(sct, 2);
    }
    cf_finish();
    return 0;
}
