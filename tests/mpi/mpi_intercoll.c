/* mpi_intercoll.c — every collective on an intercommunicator (even world
 * ranks form group A, odd ranks group B), rooted ones in both directions
 * with MPI_ROOT / MPI_PROC_NULL and every argument that MPI ignores passed
 * as NULL / 0 / MPI_DATATYPE_NULL (receive counts and displacements of the
 * non-root side included), zero counts and sparse v/w counts; then
 * intracommunicator rooted v-collectives with NULL arrays off the root,
 * MPI_IN_PLACE and zero-byte collectives. Each rank logs what it received;
 * world rank 0 prints the logs in rank order, so the output is the same
 * with and without the tracer. tests/checkers/trace_check.py intercoll checks the
 * recorded events against the same rules, call by call.
 *
 * Usage: mpi_intercoll (2 ranks or more) */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_LEN 8192

static char logbuf[LOG_LEN];
static size_t loglen;

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(logbuf + loglen, LOG_LEN - loglen, fmt, ap);
    va_end(ap);
    if (n > 0)
        loglen += (size_t)n < LOG_LEN - loglen ? (size_t)n : LOG_LEN - loglen - 1;
}

static void say_ints(const char *what, const int *v, int n)
{
    say("%s:", what);
    for (int i = 0; i < n; i++)
        say(" %d", v[i]);
    say("\n");
}

static int val(int world, int k) { return 100 * world + k; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int w, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {
        if (w == 0)
            fprintf(stderr, "mpi_intercoll: needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int color = w % 2;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, color, w, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 7, &ic);
    int me, lsize, rsize;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    int *a = calloc(64, sizeof *a), *b = calloc(64, sizeof *b);
    int *cnt = calloc(64, sizeof *cnt), *dsp = calloc(64, sizeof *dsp);
    int *cnt2 = calloc(64, sizeof *cnt2), *dsp2 = calloc(64, sizeof *dsp2);
    MPI_Datatype *ty = malloc(64 * sizeof *ty), *ty2 = malloc(64 * sizeof *ty2);
    if (!a || !b || !cnt || !dsp || !cnt2 || !dsp2 || !ty || !ty2)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < 64; i++)
        ty[i] = ty2[i] = MPI_INT;

    /* Rooted collectives, group A's rank 0 the root, then group B's. The
     * root's group: the root passes MPI_ROOT, the rest MPI_PROC_NULL; the
     * other group names remote rank 0. */
    for (int dir = 0; dir < 2; dir++) {
        int in_root_group = color == dir;
        int root = in_root_group ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int is_root = root == MPI_ROOT, idle = root == MPI_PROC_NULL;
        /* the v-counts the root uses for remote rank i: one of them empty */
        for (int i = 0; i < rsize; i++) {
            cnt[i] = i == 1 ? 0 : i + 1;
            dsp[i] = 4 * i;
        }
        int mycount = me == 1 ? 0 : me + 1;   /* what a non-root member sends or receives */

        /* Bcast: 3 ints */
        for (int k = 0; k < 3; k++)
            a[k] = is_root ? val(w, k) : -1;
        MPI_Bcast(idle ? NULL : a, idle ? 0 : 3, MPI_INT, root, ic);
        if (!in_root_group)
            say_ints("bcast", a, 3);

        /* Gather: 2 ints from each remote member */
        memset(b, 0, 64 * sizeof *b);
        for (int k = 0; k < 2; k++)
            a[k] = val(w, 10 + k);
        if (is_root)
            MPI_Gather(NULL, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, root, ic);
        else if (idle)
            MPI_Gather(NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, ic);
        else
            MPI_Gather(a, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, ic);
        if (is_root)
            say_ints("gather", b, 2 * rsize);

        /* Gatherv: NULL counts and displacements off the root (the crash of issue 10) */
        memset(b, 0, 64 * sizeof *b);
        for (int k = 0; k < 4; k++)
            a[k] = val(w, 20 + k);
        if (is_root)
            MPI_Gatherv(NULL, 0, MPI_DATATYPE_NULL, b, cnt, dsp, MPI_INT, root, ic);
        else if (idle)
            MPI_Gatherv(NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, ic);
        else
            MPI_Gatherv(a, mycount, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, ic);
        if (is_root)
            say_ints("gatherv", b, 4 * rsize);

        /* Scatter: 2 ints to each remote member */
        for (int k = 0; k < 2 * rsize; k++)
            a[k] = val(w, 30 + k);
        memset(b, 0, 64 * sizeof *b);
        if (is_root)
            MPI_Scatter(a, 2, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, ic);
        else if (idle)
            MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, ic);
        else
            MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, b, 2, MPI_INT, root, ic);
        if (!in_root_group)
            say_ints("scatter", b, 2);

        /* Scatterv: NULL counts and displacements off the root */
        for (int k = 0; k < 4 * rsize; k++)
            a[k] = val(w, 40 + k);
        memset(b, 0, 64 * sizeof *b);
        if (is_root)
            MPI_Scatterv(a, cnt, dsp, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, ic);
        else if (idle)
            MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, ic);
        else
            MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, b, mycount, MPI_INT, root, ic);
        if (!in_root_group)
            say_ints("scatterv", b, 4);

        /* Reduce: 2 ints */
        for (int k = 0; k < 2; k++)
            a[k] = val(w, 50 + k);
        memset(b, 0, 64 * sizeof *b);
        if (is_root)
            MPI_Reduce(NULL, b, 2, MPI_INT, MPI_SUM, root, ic);
        else if (idle)
            MPI_Reduce(NULL, NULL, 2, MPI_INT, MPI_SUM, root, ic);   /* Open MPI checks op and type here */
        else
            MPI_Reduce(a, NULL, 2, MPI_INT, MPI_SUM, root, ic);
        if (is_root)
            say_ints("reduce", b, 2);

        /* The non-blocking forms, NULL arguments alike */
        MPI_Request rq[4];
        int *c = malloc(64 * sizeof *c), *e = malloc(64 * sizeof *e), *f = calloc(64, sizeof *f);
        if (!c || !e || !f)
            MPI_Abort(MPI_COMM_WORLD, 3);
        for (int k = 0; k < 4 * rsize; k++)
            c[k] = val(w, 60 + k);
        memset(e, 0, 64 * sizeof *e);
        memset(b, 0, 64 * sizeof *b);
        /* (Open MPI 4.1 hangs when MPI_PROC_NULL ranks give Ibcast a count of 0) */
        MPI_Ibcast(c, 2, MPI_INT, root, ic, &rq[0]);
        if (is_root) {
            MPI_Igatherv(NULL, 0, MPI_DATATYPE_NULL, b, cnt, dsp, MPI_INT, root, ic, &rq[1]);
            MPI_Iscatterv(a, cnt, dsp, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, ic, &rq[2]);
            MPI_Ireduce(NULL, f, 2, MPI_INT, MPI_MAX, root, ic, &rq[3]);
        } else if (idle) {
            MPI_Igatherv(NULL, 0, MPI_DATATYPE_NULL, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, ic, &rq[1]);
            MPI_Iscatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL, root, ic, &rq[2]);
            MPI_Ireduce(NULL, NULL, 2, MPI_INT, MPI_MAX, root, ic, &rq[3]);
        } else {
            MPI_Igatherv(a, mycount, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, ic, &rq[1]);
            MPI_Iscatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, e, mycount, MPI_INT, root, ic, &rq[2]);
            MPI_Ireduce(a, NULL, 2, MPI_INT, MPI_MAX, root, ic, &rq[3]);
        }
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        if (!in_root_group) {
            say_ints("ibcast", c, 2);
            say_ints("iscatterv", e, 4);
        }
        if (is_root) {
            say_ints("igatherv", b, 4 * rsize);
            say_ints("ireduce", f, 2);
        }
        free(c);
        free(e);
        free(f);
    }

    /* All-to-all kinds across the groups */
    MPI_Barrier(ic);
    a[0] = val(w, 70);
    MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, ic);
    say_ints("allgather", b, rsize);
    /* Allgatherv: only rank 0 of each group contributes (one int) */
    for (int i = 0; i < rsize; i++) {
        cnt[i] = i == 0;
        dsp[i] = i;
    }
    memset(b, 0, 64 * sizeof *b);
    a[0] = val(w, 71);
    MPI_Allgatherv(a, me == 0, MPI_INT, b, cnt, dsp, MPI_INT, ic);
    say_ints("allgatherv", b, rsize);
    for (int i = 0; i < rsize; i++)
        a[i] = val(w, 72 + i);
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic);
    say_ints("alltoall", b, rsize);
    /* Alltoallv/w: local i sends (i + j) % 2 ints to remote j: sparse */
    for (int j = 0; j < rsize; j++) {
        cnt[j] = cnt2[j] = (me + j) % 2;
        dsp[j] = dsp2[j] = j;
        a[j] = val(w, 80 + j);
    }
    memset(b, 0, 64 * sizeof *b);
    MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt2, dsp2, MPI_INT, ic);
    say_ints("alltoallv", b, rsize);
    for (int j = 0; j < rsize; j++)
        dsp[j] = dsp2[j] = j * (int)sizeof(int);
    memset(b, 0, 64 * sizeof *b);
    MPI_Alltoallw(a, cnt, dsp, ty, b, cnt2, dsp2, ty2, ic);
    say_ints("alltoallw", b, rsize);
    a[0] = val(w, 90);
    a[1] = val(w, 91);
    MPI_Allreduce(a, b, 2, MPI_INT, MPI_SUM, ic);
    say_ints("allreduce", b, 2);
    /* Reduce_scatter(_block): count = lsize * rsize elements in both groups */
    for (int k = 0; k < lsize * rsize; k++)
        a[k] = val(w, k);
    memset(b, 0, 64 * sizeof *b);
    MPI_Reduce_scatter_block(a, b, rsize, MPI_INT, MPI_SUM, ic);
    say_ints("reduce_scatter_block", b, rsize);
    for (int i = 0; i < lsize; i++)
        cnt[i] = i == 0 ? lsize * rsize : 0;   /* zero counts */
    memset(b, 0, 64 * sizeof *b);
    MPI_Reduce_scatter(a, b, cnt, MPI_INT, MPI_SUM, ic);
    say_ints("reduce_scatter", b, cnt[me]);
    {
        MPI_Request rq[3];
        for (int j = 0; j < rsize; j++) {
            cnt[j] = cnt2[j] = (me + j) % 2;
            dsp[j] = dsp2[j] = j;
            a[j] = val(w, 95 + j);
        }
        int s[2] = { val(w, 1), val(w, 2) }, r[2] = { 0, 0 };
        memset(b, 0, 64 * sizeof *b);
        MPI_Ialltoallv(a, cnt, dsp, MPI_INT, b, cnt2, dsp2, MPI_INT, ic, &rq[0]);
        MPI_Iallreduce(s, r, 2, MPI_INT, MPI_MIN, ic, &rq[1]);
        MPI_Ibarrier(ic, &rq[2]);
        MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
        say_ints("ialltoallv", b, rsize);
        say_ints("iallreduce", r, 2);
    }

    /* Intracommunicator: NULL arrays off the root, MPI_IN_PLACE, zero bytes */
    int root = 1;
    for (int i = 0; i < np; i++) {
        cnt[i] = i % 2;   /* sparse: even ranks contribute nothing */
        dsp[i] = i;
    }
    for (int k = 0; k < 2; k++)
        a[k] = val(w, 110 + k);
    memset(b, 0, 64 * sizeof *b);
    MPI_Gatherv(a, w % 2, MPI_INT, b, w == root ? cnt : NULL, w == root ? dsp : NULL, MPI_INT, root,
                MPI_COMM_WORLD);
    if (w == root)
        say_ints("world gatherv", b, np);
    for (int k = 0; k < np; k++)
        a[k] = val(w, 120 + k);
    memset(b, 0, 64 * sizeof *b);
    MPI_Scatterv(a, w == root ? cnt : NULL, w == root ? dsp : NULL, MPI_INT, b, w % 2, MPI_INT, root,
                 MPI_COMM_WORLD);
    say_ints("world scatterv", b, 1);
    for (int k = 0; k < np; k++)
        b[k] = k == w ? val(w, 130) : -1;
    if (w == root)
        MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, root, MPI_COMM_WORLD);
    else
        MPI_Gather(b + w, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
    if (w == root)
        say_ints("world gather in place", b, np);
    for (int k = 0; k < np; k++)
        b[k] = val(w, 140 + k);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    say_ints("world allgatherv in place", b, np);
    /* zero bytes */
    MPI_Bcast(a, 0, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Alltoall(a, 0, MPI_INT, b, 0, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < np; i++)
        cnt[i] = cnt2[i] = 0, dsp[i] = dsp2[i] = 0;
    MPI_Alltoallv(a, cnt, dsp, MPI_INT, b, cnt2, dsp2, MPI_INT, MPI_COMM_WORLD);
    say("zero-byte collectives done\n");

    /* world rank 0 prints every rank's log, in rank order */
    char *all = w == 0 ? malloc((size_t)np * LOG_LEN) : NULL;
    if (w == 0 && !all)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Gather(logbuf, LOG_LEN, MPI_CHAR, all, LOG_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (w == 0) {
        for (int r = 0; r < np; r++)
            printf("== rank %d\n%s", r, all + (size_t)r * LOG_LEN);
        free(all);
    }
    free(a);
    free(b);
    free(cnt);
    free(dsp);
    free(cnt2);
    free(dsp2);
    free(ty);
    free(ty2);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
