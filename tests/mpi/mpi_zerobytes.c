/* mpi_zerobytes.c — collectives that move no data, or data between some
 * members only, while one rank is late: Open MPI completes zero-byte
 * Allreduce, Alltoall, Bcast, Reduce_scatter and Allgatherv locally, so the
 * other ranks leave before the late one enters. Sparse Alltoallv/w (each
 * rank sends to its successor only), a sparse neighbourhood Alltoallv on
 * a non-periodic line (data to the right only; the ends have MPI_PROC_NULL
 * neighbours) and an intercommunicator Allreduce / Bcast follow. A ring exchange after each round gives the merge messages
 * to check. The merge must constrain only where data flowed (docs/design.md
 * "Clock model and solver"): no tachyon, every true offset inside its
 * bounds (tests/test-dataflow.sh).
 *
 * Usage: mpi_zerobytes [ROUNDS] [LATE_MS]  (defaults 6 and 20) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 6, late_ms = argc > 2 ? atoi(argv[2]) : 20;
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *sc = calloc((size_t)np, sizeof *sc), *rc = calloc((size_t)np, sizeof *rc);
    int *sd = calloc((size_t)np, sizeof *sd), *rd = calloc((size_t)np, sizeof *rd);
    int *buf = calloc((size_t)np, sizeof *buf), *out = calloc((size_t)np, sizeof *out);
    MPI_Datatype *ty = malloc(sizeof *ty * (size_t)np);
    if (!sc || !rc || !sd || !rd || !buf || !out || !ty)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < np; i++)
        ty[i] = MPI_INT;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &local);
    int inter = np >= 2;
    if (inter)
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 5, &ic);
    MPI_Comm line;
    int dims[1] = { np }, periods[1] = { 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    long sum = 0;
    int next = (me + 1) % np, prev = (me + np - 1) % np;
    for (int r = 0; r < rounds; r++) {
        if (me == r % np)
            sleep_ms(late_ms);
        /* zero bytes: nothing to wait for */
        MPI_Allreduce(buf, out, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Alltoall(buf, 0, MPI_INT, out, 0, MPI_INT, MPI_COMM_WORLD);
        MPI_Bcast(buf, 0, MPI_INT, r % np, MPI_COMM_WORLD);
        for (int i = 0; i < np; i++)
            sc[i] = rc[i] = 0, sd[i] = rd[i] = i;
        MPI_Reduce_scatter(buf, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allgatherv(buf, 0, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
        MPI_Request rq;
        MPI_Ialltoall(buf, 0, MPI_INT, out, 0, MPI_INT, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        /* sparse: each rank sends one int to its successor only */
        sc[next] = 1;
        rc[prev] = 1;
        buf[next] = 1000 * r + me;
        MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
        sum += out[prev];
        for (int i = 0; i < np; i++)
            sd[i] = rd[i] = i * (int)sizeof(int);
        MPI_Alltoallw(buf, sc, sd, ty, out, rc, rd, ty, MPI_COMM_WORLD);
        sum += out[prev];
        for (int i = 0; i < np; i++)
            sd[i] = rd[i] = i;
        MPI_Ialltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        sum += out[prev];
        /* neighbourhood: slot 0 is the left neighbour, slot 1 the right;
         * send right only, so receive from the left only */
        {
            int nsc[2] = { 0, 1 }, nrc[2] = { 1, 0 }, nsd[2] = { 0, 1 }, nrd[2] = { 0, 1 };
            int nout[2] = { -1, -1 }, nin[2] = { 1000 * r + me, 1000 * r + me };
            MPI_Neighbor_alltoallv(nin, nsc, nsd, MPI_INT, nout, nrc, nrd, MPI_INT, line);
            sum += me > 0 ? nout[0] : 0;
        }
        /* zero bytes on an intercommunicator */
        if (inter) {
            MPI_Allreduce(buf, out, 0, MPI_INT, MPI_SUM, ic);
            int is_root_group = me % 2 == 0;
            MPI_Bcast(buf, 0, MPI_INT, is_root_group ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic);
        }
        /* a ring exchange: messages for the merge to check */
        int token = r * np + me, got = -1;
        MPI_Sendrecv(&token, 1, MPI_INT, next, 3, &got, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += got;
    }
    long total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("mpi_zerobytes: %d rounds on %d ranks, checksum %ld\n", rounds, np, total);
    if (inter)
        MPI_Comm_free(&ic);
    MPI_Comm_free(&line);
    MPI_Comm_free(&local);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(buf);
    free(out);
    free(ty);
    MPI_Finalize();
    return 0;
}
