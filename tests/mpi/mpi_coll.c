/* mpi_coll.c — every collective, for tests/test-collectives.sh.
 *
 * The calls below are made in a fixed order; tests/checkers/trace_check.py ("coll")
 * holds the same list with the bytes each rank must record, so keep the two
 * in step. N = number of ranks, me = world rank, ints are 4 bytes, doubles 8.
 *
 *   world:  blocking collectives (with MPI_IN_PLACE variants and non-zero
 *           roots), then their non-blocking forms completed by
 *           Wait/Waitall/Test/Testall/Waitany/Testany/Waitsome/Testsome
 *   half:   MPI_Comm_split(world, me % 2, -me): ranks reversed, so roots are
 *           comm ranks that differ from world ranks
 *   ring:   1-D periodic Cartesian communicator of all ranks
 *   grid:   2-D non-periodic Cartesian communicator (MPI_Dims_create):
 *           border ranks have MPI_PROC_NULL neighbours
 *
 * The program checks the results and rank 0 prints a deterministic summary,
 * which the test compares with and without the tracer. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB 4096

static int me, N, errors;
static double sum;

static void fail(const char *what, double got, double want)
{
    errors++;
    fprintf(stderr, "mpi_coll: rank %d: %s: got %g, want %g\n", me, what, got, want);
}

static void expect_int(const char *what, int got, int want)
{
    if (got != want)
        fail(what, got, want);
    sum += got;
}

static void expect_dbl(const char *what, double got, double want)
{
    if (got != want)
        fail(what, got, want);
    sum += got;
}

static int ibuf[MAXB], ibuf2[MAXB], counts[64], displs[64], counts2[64], displs2[64];
static double dbuf[MAXB], dbuf2[MAXB];

/* Value that rank r contributes at position i. */
static int val(int r, int i) { return 1000 * r + i; }

static void blocking_world(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int root, total;

    /* 1 Barrier */
    MPI_Barrier(w);

    /* 2 Bcast 10 ints from root 2 % N */
    root = 2 % N;
    for (int i = 0; i < 10; i++)
        ibuf[i] = me == root ? val(root, i) : -1;
    MPI_Bcast(ibuf, 10, MPI_INT, root, w);
    for (int i = 0; i < 10; i++)
        expect_int("bcast", ibuf[i], val(root, i));

    /* 3 Bcast 7 doubles from root 0 */
    for (int i = 0; i < 7; i++)
        dbuf[i] = me == 0 ? i + 0.5 : -1;
    MPI_Bcast(dbuf, 7, MPI_DOUBLE, 0, w);
    for (int i = 0; i < 7; i++)
        expect_dbl("bcast double", dbuf[i], i + 0.5);

    /* 4 Gather 5 ints to root 1 */
    root = 1;
    for (int i = 0; i < 5; i++)
        ibuf[i] = val(me, i);
    MPI_Gather(ibuf, 5, MPI_INT, ibuf2, 5, MPI_INT, root, w);
    if (me == root)
        for (int r = 0; r < N; r++)
            for (int i = 0; i < 5; i++)
                expect_int("gather", ibuf2[5 * r + i], val(r, i));

    /* 5 Gather 5 ints to root N-1, in place at the root */
    root = N - 1;
    for (int i = 0; i < 5; i++)
        ibuf2[5 * me + i] = ibuf[i] = val(me, i);
    if (me == root)
        MPI_Gather(MPI_IN_PLACE, 5, MPI_INT, ibuf2, 5, MPI_INT, root, w);
    else
        MPI_Gather(ibuf, 5, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, w);
    if (me == root)
        for (int r = 0; r < N; r++)
            expect_int("gather in place", ibuf2[5 * r + 4], val(r, 4));

    /* 6 Gatherv to root 0: rank r sends r+1 ints */
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += counts[r];
    }
    for (int i = 0; i < me + 1; i++)
        ibuf[i] = val(me, i);
    MPI_Gatherv(ibuf, me + 1, MPI_INT, ibuf2, counts, displs, MPI_INT, 0, w);
    if (me == 0)
        for (int r = 0; r < N; r++)
            expect_int("gatherv", ibuf2[displs[r] + r], val(r, r));

    /* 7 Gatherv to root 1, in place at the root */
    for (int i = 0; i < me + 1; i++)
        ibuf2[displs[me] + i] = ibuf[i] = val(me, i);
    if (me == 1)
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, counts, displs, MPI_INT, 1, w);
    else
        MPI_Gatherv(ibuf, me + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, 1, w);
    if (me == 1)
        for (int r = 0; r < N; r++)
            expect_int("gatherv in place", ibuf2[displs[r]], val(r, 0));

    /* 8 Scatter 6 ints from root 1 */
    for (int i = 0; i < 6 * N; i++)
        ibuf[i] = val(1, i);
    MPI_Scatter(ibuf, 6, MPI_INT, ibuf2, 6, MPI_INT, 1, w);
    for (int i = 0; i < 6; i++)
        expect_int("scatter", ibuf2[i], val(1, 6 * me + i));

    /* 9 Scatter 6 ints from root 0, in place at the root */
    for (int i = 0; i < 6 * N; i++)
        ibuf[i] = val(0, i);
    if (me == 0)
        MPI_Scatter(ibuf, 6, MPI_INT, MPI_IN_PLACE, 6, MPI_INT, 0, w);
    else
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, ibuf2, 6, MPI_INT, 0, w);
    if (me != 0)
        expect_int("scatter in place", ibuf2[5], val(0, 6 * me + 5));

    /* 10 Scatterv from root 2 % N: rank r gets 2r+1 ints */
    root = 2 % N;
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = 2 * r + 1;
        displs[r] = total;
        total += counts[r];
    }
    for (int i = 0; i < total; i++)
        ibuf[i] = val(root, i);
    MPI_Scatterv(ibuf, counts, displs, MPI_INT, ibuf2, 2 * me + 1, MPI_INT, root, w);
    expect_int("scatterv", ibuf2[2 * me], val(root, displs[me] + 2 * me));

    /* 11 Scatterv from root 0, in place at the root */
    if (me == 0)
        MPI_Scatterv(ibuf, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, 0, w);
    else
        MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, ibuf2, 2 * me + 1, MPI_INT, 0, w);

    /* 12 Allgather 3 ints */
    for (int i = 0; i < 3; i++)
        ibuf[i] = val(me, i);
    MPI_Allgather(ibuf, 3, MPI_INT, ibuf2, 3, MPI_INT, w);
    for (int r = 0; r < N; r++)
        expect_int("allgather", ibuf2[3 * r + 2], val(r, 2));

    /* 13 Allgather 3 ints in place */
    for (int i = 0; i < 3; i++)
        ibuf2[3 * me + i] = val(me, i);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, 3, MPI_INT, w);
    for (int r = 0; r < N; r++)
        expect_int("allgather in place", ibuf2[3 * r], val(r, 0));

    /* 14 Allgatherv: rank r contributes r+2 ints */
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = r + 2;
        displs[r] = total;
        total += counts[r];
    }
    for (int i = 0; i < me + 2; i++)
        ibuf[i] = val(me, i);
    MPI_Allgatherv(ibuf, me + 2, MPI_INT, ibuf2, counts, displs, MPI_INT, w);
    for (int r = 0; r < N; r++)
        expect_int("allgatherv", ibuf2[displs[r] + r + 1], val(r, r + 1));

    /* 15 Allgatherv in place */
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, counts, displs, MPI_INT, w);

    /* 16 Alltoall 2 ints */
    for (int i = 0; i < 2 * N; i++)
        ibuf[i] = val(me, i);
    MPI_Alltoall(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, w);
    for (int r = 0; r < N; r++)
        expect_int("alltoall", ibuf2[2 * r + 1], val(r, 2 * me + 1));

    /* 17 Alltoall 2 ints in place */
    for (int i = 0; i < 2 * N; i++)
        ibuf2[i] = val(me, i);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, 2, MPI_INT, w);
    for (int r = 0; r < N; r++)
        expect_int("alltoall in place", ibuf2[2 * r], val(r, 2 * me));

    /* 18 Alltoallv: me sends me+j+1 ints to j */
    total = 0;
    int total2 = 0;
    for (int j = 0; j < N; j++) {
        counts[j] = me + j + 1;
        displs[j] = total;
        total += counts[j];
        counts2[j] = j + me + 1;
        displs2[j] = total2;
        total2 += counts2[j];
    }
    for (int i = 0; i < total; i++)
        ibuf[i] = val(me, i);
    MPI_Alltoallv(ibuf, counts, displs, MPI_INT, ibuf2, counts2, displs2, MPI_INT, w);

    /* 19 Alltoallw: me sends to j (me+j+1) elements of MPI_INT if me+j is
     * even, of MPI_DOUBLE if odd; byte displacements */
    {
        MPI_Datatype st[64], rt[64];
        int sd[64], rd[64], off_s = 0, off_r = 0;
        for (int j = 0; j < N; j++) {
            MPI_Datatype t = (me + j) % 2 ? MPI_DOUBLE : MPI_INT;
            int sz = (me + j) % 2 ? 8 : 4;
            st[j] = rt[j] = t;
            counts[j] = counts2[j] = me + j + 1;
            sd[j] = off_s;
            rd[j] = off_r;
            off_s += counts[j] * sz;
            off_r += counts2[j] * sz;
        }
        memset(dbuf, 0, sizeof dbuf);
        MPI_Alltoallw(dbuf, counts, sd, st, dbuf2, counts2, rd, rt, w);
    }

    /* 20 Allreduce 4 doubles */
    for (int i = 0; i < 4; i++)
        dbuf[i] = me + i;
    MPI_Allreduce(dbuf, dbuf2, 4, MPI_DOUBLE, MPI_SUM, w);
    expect_dbl("allreduce", dbuf2[3], N * (N - 1) / 2.0 + 3.0 * N);

    /* 21 Allreduce 4 doubles in place */
    MPI_Allreduce(MPI_IN_PLACE, dbuf, 4, MPI_DOUBLE, MPI_MAX, w);
    expect_dbl("allreduce in place", dbuf[0], N - 1);

    /* 22 Reduce 3 ints to root N-1 */
    for (int i = 0; i < 3; i++)
        ibuf[i] = me + i;
    MPI_Reduce(ibuf, ibuf2, 3, MPI_INT, MPI_SUM, N - 1, w);
    if (me == N - 1)
        expect_int("reduce", ibuf2[0], N * (N - 1) / 2);

    /* 23 Reduce 3 ints to root 0, in place at the root */
    if (me == 0)
        MPI_Reduce(MPI_IN_PLACE, ibuf, 3, MPI_INT, MPI_SUM, 0, w);
    else
        MPI_Reduce(ibuf, NULL, 3, MPI_INT, MPI_SUM, 0, w);
    if (me == 0)
        expect_int("reduce in place", ibuf[1], N * (N - 1) / 2 + N);

    /* 24 Reduce_scatter: rank r gets r+1 ints */
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = r + 1;
        total += counts[r];
    }
    for (int i = 0; i < total; i++)
        ibuf[i] = 1;
    MPI_Reduce_scatter(ibuf, ibuf2, counts, MPI_INT, MPI_SUM, w);
    expect_int("reduce_scatter", ibuf2[me], N);

    /* 25 Reduce_scatter in place */
    for (int i = 0; i < total; i++)
        ibuf[i] = 2;
    MPI_Reduce_scatter(MPI_IN_PLACE, ibuf, counts, MPI_INT, MPI_SUM, w);
    expect_int("reduce_scatter in place", ibuf[0], 2 * N);

    /* 26 Reduce_scatter_block 2 ints each */
    for (int i = 0; i < 2 * N; i++)
        ibuf[i] = i;
    MPI_Reduce_scatter_block(ibuf, ibuf2, 2, MPI_INT, MPI_SUM, w);
    expect_int("reduce_scatter_block", ibuf2[1], N * (2 * me + 1));

    /* 27 Scan 5 ints, 28 Scan in place, 29 Exscan 5 ints */
    for (int i = 0; i < 5; i++)
        ibuf[i] = me + 1;
    MPI_Scan(ibuf, ibuf2, 5, MPI_INT, MPI_SUM, w);
    expect_int("scan", ibuf2[4], (me + 1) * (me + 2) / 2);
    MPI_Scan(MPI_IN_PLACE, ibuf, 5, MPI_INT, MPI_SUM, w);
    expect_int("scan in place", ibuf[0], (me + 1) * (me + 2) / 2);
    for (int i = 0; i < 5; i++)
        ibuf[i] = me + 1;
    MPI_Exscan(ibuf, ibuf2, 5, MPI_INT, MPI_SUM, w);
    if (me > 0)
        expect_int("exscan", ibuf2[2], me * (me + 1) / 2);
}

/* The same operations, non-blocking, completed in different ways. */
static void nonblocking_world(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request rq[8];
    int flag, idx, outcount, indices[8], total;

    /* 1 Ibarrier: Wait */
    MPI_Ibarrier(w, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);

    /* 2 Ibcast 10 ints root 1 + 3 Igather 5 ints root 2 % N: Waitall */
    for (int i = 0; i < 10; i++)
        ibuf[i] = me == 1 ? val(1, i) : -1;
    for (int i = 0; i < 5; i++)
        ibuf[100 + i] = val(me, i);
    MPI_Ibcast(ibuf, 10, MPI_INT, 1, w, &rq[0]);
    MPI_Igather(ibuf + 100, 5, MPI_INT, ibuf2, 5, MPI_INT, 2 % N, w, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    expect_int("ibcast", ibuf[9], val(1, 9));

    /* 4 Igatherv root 0 (r+1 ints): Test loop */
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += counts[r];
    }
    MPI_Igatherv(ibuf, me + 1, MPI_INT, ibuf2, counts, displs, MPI_INT, 0, w, &rq[0]);
    do
        MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    while (!flag);

    /* 5 Iscatter 6 ints root N-1, 6 Iscatterv root 1 (2r+1 ints): Testall loop */
    for (int r = 0; r < N; r++) {
        counts2[r] = 2 * r + 1;
        displs2[r] = r == 0 ? 0 : displs2[r - 1] + counts2[r - 1];
    }
    for (int i = 0; i < 6 * N; i++)
        ibuf[i] = val(N - 1, i);
    MPI_Iscatter(ibuf, 6, MPI_INT, ibuf2, 6, MPI_INT, N - 1, w, &rq[0]);
    MPI_Iscatterv(ibuf, counts2, displs2, MPI_INT, ibuf2 + 100, 2 * me + 1, MPI_INT, 1, w, &rq[1]);
    do
        MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
    while (!flag);
    expect_int("iscatter", ibuf2[0], val(N - 1, 6 * me));

    /* 7 Iallgather 3 ints (in place), 8 Iallgatherv (r+2 ints): Waitany x2 */
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = r + 2;
        displs[r] = total;
        total += counts[r];
    }
    for (int i = 0; i < 3; i++)
        ibuf2[3 * me + i] = val(me, i);
    for (int i = 0; i < me + 2; i++)
        ibuf[i] = val(me, i);
    MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ibuf2, 3, MPI_INT, w, &rq[0]);
    MPI_Iallgatherv(ibuf, me + 2, MPI_INT, ibuf2 + 1000, counts, displs, MPI_INT, w, &rq[1]);
    MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
    MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
    expect_int("iallgather in place", ibuf2[3 * (N - 1) + 1], val(N - 1, 1));

    /* 9 Ialltoall 2 ints, 10 Ialltoallv (me+j+1 to j), 11 Ialltoallw: Waitsome */
    {
        static int sd[64], rd[64];
        static MPI_Datatype st[64], rt[64];
        static int wc[64], wc2[64];
        int ts = 0, tr = 0, os = 0, orr = 0;
        for (int j = 0; j < N; j++) {
            counts[j] = me + j + 1;
            displs[j] = ts;
            ts += counts[j];
            counts2[j] = j + me + 1;
            displs2[j] = tr;
            tr += counts2[j];
            st[j] = rt[j] = (me + j) % 2 ? MPI_DOUBLE : MPI_INT;
            wc[j] = wc2[j] = me + j + 1;
            sd[j] = os;
            rd[j] = orr;
            os += wc[j] * ((me + j) % 2 ? 8 : 4);
            orr += wc2[j] * ((me + j) % 2 ? 8 : 4);
        }
        for (int i = 0; i < 2 * N; i++)
            ibuf[i] = val(me, i);
        MPI_Ialltoall(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, w, &rq[0]);
        MPI_Ialltoallv(ibuf + 500, counts, displs, MPI_INT, ibuf2 + 500, counts2, displs2, MPI_INT, w, &rq[1]);
        MPI_Ialltoallw(dbuf, wc, sd, st, dbuf2, wc2, rd, rt, w, &rq[2]);
        for (int done = 0; done < 3;) {
            MPI_Waitsome(3, rq, &outcount, indices, MPI_STATUSES_IGNORE);
            done += outcount;
        }
        expect_int("ialltoall", ibuf2[2 * (N - 1)], val(N - 1, 2 * me));
    }

    /* 12 Iallreduce 4 doubles, 13 Ireduce 3 ints root 1: Testany loop */
    for (int i = 0; i < 4; i++)
        dbuf[i] = me + i;
    for (int i = 0; i < 3; i++)
        ibuf[i] = me + i;
    MPI_Iallreduce(dbuf, dbuf2, 4, MPI_DOUBLE, MPI_SUM, w, &rq[0]);
    MPI_Ireduce(ibuf, ibuf2, 3, MPI_INT, MPI_SUM, 1, w, &rq[1]);
    for (int done = 0; done < 2;) {
        MPI_Testany(2, rq, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED)
            done++;
    }
    expect_dbl("iallreduce", dbuf2[0], N * (N - 1) / 2.0);

    /* 14 Ireduce_scatter (r+1 ints), 15 Ireduce_scatter_block 2 ints,
     * 16 Iscan 5 ints, 17 Iexscan 5 ints: Testsome loop */
    total = 0;
    for (int r = 0; r < N; r++) {
        counts[r] = r + 1;
        total += counts[r];
    }
    for (int i = 0; i < 2 * total + 64; i++)
        ibuf[i] = 1;
    MPI_Ireduce_scatter(ibuf, ibuf2, counts, MPI_INT, MPI_SUM, w, &rq[0]);
    MPI_Ireduce_scatter_block(ibuf, ibuf2 + 200, 2, MPI_INT, MPI_SUM, w, &rq[1]);
    MPI_Iscan(ibuf, ibuf2 + 300, 5, MPI_INT, MPI_SUM, w, &rq[2]);
    MPI_Iexscan(ibuf, ibuf2 + 400, 5, MPI_INT, MPI_SUM, w, &rq[3]);
    for (int done = 0; done < 4;) {
        MPI_Testsome(4, rq, &outcount, indices, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED)
            done += outcount;
    }
    expect_int("ireduce_scatter", ibuf2[0], N);
    expect_int("iscan", ibuf2[300], me + 1);
}

/* Collectives on the rank-reversed halves. */
static void halves(MPI_Comm half)
{
    int hn, hme;
    MPI_Comm_size(half, &hn);
    MPI_Comm_rank(half, &hme);
    int root = hn - 1;   /* the lowest world rank of the half */
    MPI_Barrier(half);
    for (int i = 0; i < 4; i++)
        ibuf[i] = hme == 0 ? 77 + i : 0;
    MPI_Bcast(ibuf, 4, MPI_INT, 0, half);
    expect_int("half bcast", ibuf[3], 80);
    for (int i = 0; i < 2; i++)
        ibuf[i] = me;
    MPI_Reduce(ibuf, ibuf2, 2, MPI_INT, MPI_MAX, root, half);
    MPI_Request r;
    MPI_Iallreduce(ibuf, ibuf2, 2, MPI_INT, MPI_MIN, half, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expect_int("half iallreduce", ibuf2[0], me % 2);
}

/* Neighbourhood collectives. Slot 2d is the neighbour in the negative
 * direction of dimension d, slot 2d+1 the positive one; border slots of the
 * grid are MPI_PROC_NULL and move nothing.
 *   allgather 3 ints, alltoall 2 ints (per slot);
 *   allgatherv: each rank sends me+1 ints, receives nb+1 from neighbour nb
 *     (the count given for a MPI_PROC_NULL slot is 5, never used);
 *   alltoallv/w: send counts per slot (2d+1, 2d+2), receive counts (2d+2, 2d+1)
 *     (what a rank sends towards +d arrives in the receiver's -d slot). */
static void neighbours(MPI_Comm cart)
{
    int ndims;
    MPI_Cartdim_get(cart, &ndims);
    int slots = 2 * ndims;
    MPI_Request rq[2];
    int nb[8], sc[8], sdp[8], rc[8], rdp[8], gc[8], gdp[8];
    MPI_Aint sdw[8], rdw[8];
    MPI_Datatype tw[8];

    for (int d = 0; d < ndims; d++)
        MPI_Cart_shift(cart, d, 1, &nb[2 * d], &nb[2 * d + 1]);
    int ts = 0, tr = 0, tg = 0;
    for (int k = 0; k < slots; k++) {
        int d = k / 2;
        sc[k] = k % 2 ? 2 * d + 2 : 2 * d + 1;
        rc[k] = k % 2 ? 2 * d + 1 : 2 * d + 2;
        gc[k] = nb[k] == MPI_PROC_NULL ? 5 : nb[k] + 1;
        sdp[k] = ts;
        rdp[k] = tr;
        gdp[k] = tg;
        sdw[k] = (MPI_Aint)ts * 4;
        rdw[k] = (MPI_Aint)tr * 4;
        tw[k] = MPI_INT;
        ts += sc[k];
        tr += rc[k];
        tg += gc[k];
    }
    for (int i = 0; i < 64; i++)
        ibuf[i] = val(me, i);
    for (int i = 0; i < 256; i++)
        ibuf2[i] = -1;

    MPI_Neighbor_allgather(ibuf, 3, MPI_INT, ibuf2, 3, MPI_INT, cart);
    for (int k = 0; k < slots; k++)
        if (nb[k] != MPI_PROC_NULL)
            expect_int("neighbor_allgather", ibuf2[3 * k + 2], val(nb[k], 2));
    MPI_Neighbor_alltoall(ibuf, 2, MPI_INT, ibuf2, 2, MPI_INT, cart);
    MPI_Neighbor_allgatherv(ibuf, me + 1, MPI_INT, ibuf2, gc, gdp, MPI_INT, cart);
    for (int k = 0; k < slots; k++)
        if (nb[k] != MPI_PROC_NULL)
            expect_int("neighbor_allgatherv", ibuf2[gdp[k] + nb[k]], val(nb[k], nb[k]));
    MPI_Neighbor_alltoallv(ibuf, sc, sdp, MPI_INT, ibuf2, rc, rdp, MPI_INT, cart);
    MPI_Neighbor_alltoallw(ibuf, sc, sdw, tw, ibuf2, rc, rdw, tw, cart);
    MPI_Ineighbor_allgather(ibuf, 3, MPI_INT, ibuf2, 3, MPI_INT, cart, &rq[0]);
    MPI_Ineighbor_alltoall(ibuf, 2, MPI_INT, ibuf2 + 100, 2, MPI_INT, cart, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Ineighbor_alltoallv(ibuf, sc, sdp, MPI_INT, ibuf2, rc, rdp, MPI_INT, cart, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    for (int k = 0; k < slots; k++)
        if (nb[k] != MPI_PROC_NULL)
            expect_int("ineighbor_alltoallv", ibuf2[rdp[k]], val(nb[k], sdp[k ^ 1]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    if (N < 2 || N > 16) {
        if (me == 0)
            fprintf(stderr, "mpi_coll: needs 2..16 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    blocking_world();
    nonblocking_world();

    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
    halves(half);
    MPI_Comm_free(&half);

    MPI_Comm ring, grid;
    int dims1[1] = { N }, periods1[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, periods1, 0, &ring);
    int dims2[2] = { 0, 0 }, periods2[2] = { 0, 0 };
    MPI_Dims_create(N, 2, dims2);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 0, &grid);
    neighbours(ring);
    neighbours(grid);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&grid);

    int total_errors = 0;
    double total_sum = 0;
    MPI_Reduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sum, &total_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("mpi_coll: %d ranks, grid %d x %d, %d errors, checksum %.1f\n", N, dims2[0], dims2[1],
               total_errors, total_sum);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
