/* mpi_commkeys.c — communicator situations whose identity the merge must get
 * right (tests/test-commkeys.sh). One situation per mode (argv[1]):
 *
 *   self     every rank calls MPI_Barrier, MPI_Allreduce and a message to
 *            itself on MPI_COMM_SELF, and a barrier on a size-1 split, at its
 *            own time (rank r after r * 0.2 s): rank-local, never matched
 *            across ranks
 *   order    even ranks make a communicator with MPI_Comm_create_group
 *            before an MPI_Comm_idup of the same members, odd ranks after;
 *            then barriers on both, a late rank making wrong pairs visible
 *   inter    an intercommunicator between the lower and upper halves of the
 *            world: point-to-point across (each rank with the rank of the
 *            same local rank on the other side) and a barrier
 *   reqfree  rank 1 sends to rank 0, whose receive request is released with
 *            MPI_Request_free before it completes
 *   dups N   N MPI_Comm_dup/MPI_Comm_free pairs; prints the time they took
 *            (stderr, so that the output does not depend on it)
 *
 * Prints the same lines traced and untraced. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void pause_s(double s)
{
    struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&t, NULL);
}

static int self_mode(int me)
{
    pause_s(0.2 * me);
    int x = me, y = -1;
    MPI_Barrier(MPI_COMM_SELF);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    int back = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, 0, 4, &back, 1, MPI_INT, 0, 4, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    MPI_Comm alone;
    MPI_Comm_split(MPI_COMM_WORLD, me, 0, &alone);   /* size 1 */
    pause_s(0.1);
    MPI_Barrier(alone);
    MPI_Bcast(&x, 1, MPI_INT, 0, alone);
    MPI_Comm_free(&alone);
    MPI_Barrier(MPI_COMM_WORLD);
    int sum = 0;
    MPI_Reduce(&y, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("self: sum %d\n", sum);
    return back == me ? 0 : 1;
}

static int order_mode(int me, int n)
{
    MPI_Group all;
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    MPI_Comm made = MPI_COMM_NULL, dup = MPI_COMM_NULL;
    MPI_Request req;
    if (me % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, all, 5, &made);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        MPI_Comm_create_group(MPI_COMM_WORLD, all, 5, &made);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_set_name(made, "made by create_group");
    MPI_Comm_set_name(dup, "made by idup");
    /* a late rank 0 on one, rank 1 on the other: wrong pairs would cross */
    if (me == 0)
        pause_s(0.3);
    MPI_Barrier(made);
    if (me == 1)
        pause_s(0.3);
    MPI_Barrier(dup);
    int x = me, s1 = 0, s2 = 0;
    MPI_Allreduce(&x, &s1, 1, MPI_INT, MPI_SUM, made);
    MPI_Allreduce(&x, &s2, 1, MPI_INT, MPI_SUM, dup);
    MPI_Comm_free(&made);
    MPI_Comm_free(&dup);
    MPI_Group_free(&all);
    if (me == 0)
        printf("order: sums %d %d of %d ranks\n", s1, s2, n);
    return 0;
}

static int inter_mode(int me, int n)
{
    int lower = me < n / 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, lower, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? n / 2 : 0, 7, &inter);
    int lr, rsize;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rsize);
    int out = me, in = -1;
    if (lr < rsize) {
        /* the upper side waits first: a late sender shows in the merge */
        if (lower) {
            pause_s(0.1);
            MPI_Send(&out, 1, MPI_INT, lr, 3, inter);
            MPI_Recv(&in, 1, MPI_INT, lr, 4, inter, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, lr, 3, inter, MPI_STATUS_IGNORE);
            MPI_Request r;
            MPI_Isend(&out, 1, MPI_INT, lr, 4, inter, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(inter);
    int x = me, y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);   /* each side gets the other's sum */
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    /* every rank reports whom it heard from, in rank order */
    int *got = me == 0 ? malloc(sizeof *got * (size_t)n) : NULL;
    MPI_Gather(&in, 1, MPI_INT, got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0) {
        for (int i = 0; i < n; i++)
            printf("inter: rank %d received from world rank %d\n", i, got[i]);
        free(got);
    }
    return 0;
}

static int reqfree_mode(int me)
{
    int v = 0;
    if (me == 0) {
        MPI_Request r;
        MPI_Irecv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r);
        MPI_Request_free(&r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
        pause_s(0.05);
        int x = 42;
        MPI_Ssend(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);   /* returns once the receive has matched */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0)
        printf("reqfree: done\n");
    return 0;
}

static int dups_mode(int me, long count)
{
    double t0 = MPI_Wtime(), half = t0;
    for (long i = 0; i < count; i++) {
        if (i == count / 2)
            half = MPI_Wtime();
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
    }
    double end = MPI_Wtime();
    if (me == 0) {
        printf("dups: %ld done\n", count);
        /* total, first half, second half: a cost that grows with the run
         * makes the second half dearer */
        fprintf(stderr, "dups_seconds %.6f %.6f %.6f\n", end - t0, half - t0, end - half);
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 2;
    if (strcmp(mode, "self") == 0)
        rc = self_mode(me);
    else if (strcmp(mode, "order") == 0)
        rc = order_mode(me, n);
    else if (strcmp(mode, "inter") == 0 && n >= 2)
        rc = inter_mode(me, n);
    else if (strcmp(mode, "reqfree") == 0 && n >= 2)
        rc = reqfree_mode(me);
    else if (strcmp(mode, "dups") == 0 && argc > 2)
        rc = dups_mode(me, atol(argv[2]));
    else if (me == 0)
        fprintf(stderr, "usage: mpi_commkeys self|order|inter|reqfree|dups N\n");
    MPI_Finalize();
    return rc;
}
