/* mpi_waits.c — wait states injected with known lengths, for
 * tests/test-waits.sh: `mpi_waits PHASE [DELAY_MS] [REPS]`, each
 * repetition aligned by an MPI_Barrier first. With N ranks and delay D:
 *   late_sender     rank k sleeps k D, then sends to 0, which receives from
 *                   1, 2, ... in turn: rank 0 waits (N-1) D
 *   wrong_order     rank 1 sleeps 2 D, the others send at once; rank 0
 *                   receives from 1 first: 2 D, in the wrong order
 *   late_receiver   ranks k > 0 MPI_Ssend to 0, which sleeps D first:
 *                   each sender waits D, (N-1) D in all
 *   late_broadcast  the root sleeps D: each other rank waits D; then the
 *                   root sleeps D again (not counted) before a zero-count
 *                   MPI_Bcast, which the others leave at once (it moves
 *                   nothing): no wait there longer than their call, the
 *                   D shows in the MPI_Barrier after it
 *   late_scatter    the root sleeps D before MPI_Scatter: each other
 *                   rank waits D
 *   early_gather    every rank but the root sleeps D before MPI_Gatherv:
 *                   the root waits D
 *   late_barrier    rank N-1 sleeps D: each other rank waits D
 *   wait_nxn        rank N-1 sleeps D before MPI_Allreduce: the same
 *   early_reduce    every rank but the root sleeps D: the root waits D
 *   early_scan      rank 0 sleeps D before MPI_Scan: each other rank waits D
 *   late_fence      rank N-1 sleeps D before MPI_Win_fence: each other rank
 *                   waits D
 *   late_post       (post/start/complete/wait, rank 0 the target of all
 *                   the others) the target sleeps D before MPI_Win_post:
 *                   each origin waits D
 *   early_wait      origin N-1 sleeps D after MPI_Win_start, then puts and
 *                   completes: the target's MPI_Win_wait waits D
 *   late_complete   origin N-1 puts, sleeps D, completes: the same Early
 *                   Wait, all of it Late Complete
 *   zero_op         as late_complete without any operation: Late Complete
 *                   is the whole Early Wait (Scalasca's rule)
 *   win_test        as late_complete, the target polling MPI_Win_test:
 *                   no Early Wait (test does not block)
 *   iallreduce      rank N-1 sleeps D before MPI_Iallreduce, every rank
 *                   completes it in MPI_Wait: each other rank waits D there
 *   ibcast          the root sleeps D before MPI_Ibcast, the others post
 *                   theirs at once and MPI_Wait: each waits D
 *   neighbor        a periodic 1-D Cartesian ring, rank 0 sleeps D before
 *                   MPI_Neighbor_allgather: only its in-neighbours, ranks 1
 *                   and N-1, wait D (2 D; 3 D with N = 4 if every member
 *                   waited for the whole communicator); then, after a
 *                   barrier, the same on a distributed-graph ring (no
 *                   sleep: whose neighbours the merge writes to
 *                   OUT/neighbours.txt)
 *   late_issend     ranks k > 0 MPI_Issend two messages to 0 and complete
 *                   them in one MPI_Waitall; rank 0 sleeps D, then
 *                   receives: each Waitall waits D once, (N-1) D in all
 *   rendezvous      ranks k > 0 send 0 a small message (eager: no wait) and
 *                   a large one, by MPI_Send (odd k) or MPI_Isend + MPI_Wait
 *                   (even k); rank 0 sleeps D, then posts the receives:
 *                   the large sends wait D each, (N-1) D in all
 *   p2p_edges       MPI_PROC_NULL sends and receives, MPI_Sendrecv around a
 *                   ring, a self-message and two collectives on
 *                   MPI_COMM_SELF and a message over an
 *                   intercommunicator (no waits injected); then ranks k > 0
 *                   sleep k D and send 0 a zero-count message, which rank 0
 *                   receives with MPI_ANY_SOURCE / MPI_ANY_TAG, all in one
 *                   MPI_Waitall: one Late Sender of (N-1) D
 * per repetition. Each rank prints "slept R MS": how long its sleeps took
 * in all, measured untraced around them (a loaded machine wakes a sleeper
 * late), from which test-waits.sh computes the expected totals. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double slept_ms;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void sleep_ms(double ms)
{
    double t0 = now_ms();
    struct timespec ts = { (time_t)(ms / 1000), (long)((ms - 1000 * (time_t)(ms / 1000)) * 1e6) };
    while (nanosleep(&ts, &ts) != 0)
        ;
    slept_ms += now_ms() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n, x = 1, y = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *phase = argc > 1 ? argv[1] : "late_sender";
    double d = argc > 2 ? atof(argv[2]) : 10;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    MPI_Win win = MPI_WIN_NULL;
    enum { BIG = 1 << 20 };   /* ints: 4 MB, beyond any eager limit */
    int *big = !strcmp(phase, "rendezvous") ? calloc(rank ? BIG : (size_t)BIG * n, sizeof *big) : NULL;
    MPI_Request *reqs = malloc(2 * (size_t)n * sizeof *reqs);
    int pscw = !strcmp(phase, "late_post") || !strcmp(phase, "early_wait") || !strcmp(phase, "late_complete")
               || !strcmp(phase, "zero_op") || !strcmp(phase, "win_test");
    MPI_Group origins = MPI_GROUP_NULL, target = MPI_GROUP_NULL;
    MPI_Comm ring = MPI_COMM_NULL, graph = MPI_COMM_NULL;
    if (!strcmp(phase, "neighbor")) {
        int periodic = 1, around[2] = { (rank + n - 1) % n, (rank + 1) % n }, weights[2] = { 1, 1 };
        MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periodic, 0, &ring);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, around, weights, 2, around, weights,
                                       MPI_INFO_NULL, 0, &graph);
    }
    int got[2] = { 0, 0 };
    if (!strcmp(phase, "late_fence") || pscw) {
        MPI_Win_create(&y, sizeof y, sizeof y, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
    }
    if (pscw) {
        MPI_Group world;
        int zero = 0, range[1][3] = { { 0, 0, 1 } };
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &zero, &target);
        MPI_Group_range_excl(world, 1, range, &origins);
        MPI_Group_free(&world);
    }
    for (int rep = 0; rep < reps; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (!strcmp(phase, "late_sender")) {
            if (rank > 0) {
                sleep_ms(rank * d);
                MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            } else
                for (int k = 1; k < n; k++)
                    MPI_Recv(&y, 1, MPI_INT, k, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (!strcmp(phase, "wrong_order")) {
            if (rank > 0) {
                if (rank == 1)
                    sleep_ms(2 * d);
                MPI_Send(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            } else
                for (int k = 1; k < n; k++)
                    MPI_Recv(&y, 1, MPI_INT, k, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (!strcmp(phase, "late_receiver")) {
            if (rank > 0)
                MPI_Ssend(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
            else {
                sleep_ms(d);
                for (int k = 1; k < n; k++)
                    MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else if (!strcmp(phase, "late_issend")) {
            if (rank > 0) {
                MPI_Issend(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &reqs[0]);
                MPI_Issend(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &reqs[1]);
                MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
            } else {
                sleep_ms(d);
                for (int k = 1; k < n; k++)
                    for (int tag = 3; tag <= 4; tag++)
                        MPI_Recv(&y, 1, MPI_INT, k, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else if (!strcmp(phase, "rendezvous")) {
            if (rank > 0) {
                MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
                if (rank % 2)
                    MPI_Send(big, BIG, MPI_INT, 0, 6, MPI_COMM_WORLD);
                else {
                    MPI_Isend(big, BIG, MPI_INT, 0, 6, MPI_COMM_WORLD, &reqs[0]);
                    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
                }
            } else {
                sleep_ms(d);
                for (int k = 1; k < n; k++) {
                    MPI_Irecv(&y, 1, MPI_INT, k, 5, MPI_COMM_WORLD, &reqs[2 * k]);
                    MPI_Irecv(big + (size_t)k * BIG, BIG, MPI_INT, k, 6, MPI_COMM_WORLD, &reqs[2 * k + 1]);
                }
                MPI_Waitall(2 * (n - 1), reqs + 2, MPI_STATUSES_IGNORE);
            }
        } else if (!strcmp(phase, "p2p_edges")) {
            int z, self = 0, left = (rank + n - 1) % n, right = (rank + 1) % n;
            MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD);
            MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&x, 1, MPI_INT, right, 8, &y, 1, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Isend(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &reqs[0]);
            MPI_Recv(&self, 1, MPI_INT, 0, 9, MPI_COMM_SELF, MPI_STATUS_IGNORE);
            MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
            /* collectives on MPI_COMM_SELF: one communicator definition for
             * every rank's own, each rank alone in it (no instance joins them) */
            MPI_Barrier(MPI_COMM_SELF);
            MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
            MPI_Comm half, inter;   /* even and odd ranks, rank k talking to its peer k ^ 1 */
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
            MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 10, &inter);
            if ((rank ^ 1) < n)
                MPI_Sendrecv(&x, 1, MPI_INT, rank / 2, 11, &y, 1, MPI_INT, rank / 2, 11, inter, MPI_STATUS_IGNORE);
            MPI_Comm_free(&inter);
            MPI_Comm_free(&half);
            if (rank > 0) {
                sleep_ms(rank * d);
                MPI_Send(&z, 0, MPI_INT, 0, 12 + rank, MPI_COMM_WORLD);
            } else {
                for (int k = 1; k < n; k++)
                    MPI_Irecv(&z, 0, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[k]);
                MPI_Waitall(n - 1, reqs + 1, MPI_STATUSES_IGNORE);
            }
        } else if (!strcmp(phase, "late_broadcast")) {
            if (rank == 0)
                sleep_ms(d);
            MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                double counted = slept_ms;
                sleep_ms(d);
                slept_ms = counted;
            }
            MPI_Bcast(&x, 0, MPI_INT, 0, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (!strcmp(phase, "late_scatter") || !strcmp(phase, "early_gather")) {
            int scatter = !strcmp(phase, "late_scatter");
            int *all = rank == 0 ? calloc((size_t)n, sizeof *all) : NULL, *counts = NULL, *at = NULL;
            if (rank == 0) {
                counts = malloc(sizeof *counts * (size_t)n);
                at = malloc(sizeof *at * (size_t)n);
                for (int k = 0; k < n && counts && at; k++)
                    counts[k] = 1, at[k] = k;
            }
            if (scatter ? rank == 0 : rank != 0)
                sleep_ms(d);
            if (scatter)
                MPI_Scatter(all, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
            else
                MPI_Gatherv(&x, 1, MPI_INT, all, counts, at, MPI_INT, 0, MPI_COMM_WORLD);
            free(all);
            free(counts);
            free(at);
        } else if (!strcmp(phase, "late_barrier")) {
            if (rank == n - 1)
                sleep_ms(d);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (!strcmp(phase, "wait_nxn")) {
            if (rank == n - 1)
                sleep_ms(d);
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else if (!strcmp(phase, "early_reduce")) {
            if (rank != 0)
                sleep_ms(d);
            MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        } else if (!strcmp(phase, "early_scan")) {
            if (rank == 0)
                sleep_ms(d);
            MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else if (!strcmp(phase, "late_fence")) {
            if (rank == n - 1)
                sleep_ms(d);
            MPI_Win_fence(0, win);
        } else if (!strcmp(phase, "iallreduce") || !strcmp(phase, "ibcast")) {
            int ib = !strcmp(phase, "ibcast");
            MPI_Request req;
            if (rank == (ib ? 0 : n - 1))
                sleep_ms(d);
            if (ib)
                MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
            else
                MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (!strcmp(phase, "neighbor")) {
            if (rank == 0)
                sleep_ms(d);
            MPI_Neighbor_allgather(&x, 1, MPI_INT, got, 1, MPI_INT, ring);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Neighbor_allgather(&x, 1, MPI_INT, got, 1, MPI_INT, graph);
        } else if (pscw && rank == 0) {   /* the target */
            if (!strcmp(phase, "late_post"))
                sleep_ms(d);
            MPI_Win_post(origins, 0, win);
            if (!strcmp(phase, "win_test")) {
                int done = 0;
                while (MPI_Win_test(win, &done), !done) {
                    struct timespec ts = { 0, 200000 };
                    nanosleep(&ts, NULL);
                }
            } else
                MPI_Win_wait(win);
        } else if (pscw) {                /* an origin */
            int last = rank == n - 1, ops = strcmp(phase, "zero_op") != 0;
            MPI_Win_start(target, 0, win);
            if (last && !strcmp(phase, "early_wait"))
                sleep_ms(d);
            if (ops)
                MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            if (last && strcmp(phase, "late_post") && strcmp(phase, "early_wait"))
                sleep_ms(d);
            MPI_Win_complete(win);
        } else {
            if (rank == 0)
                fprintf(stderr, "mpi_waits: unknown phase '%s'\n", phase);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (origins != MPI_GROUP_NULL) {
        MPI_Group_free(&origins);
        MPI_Group_free(&target);
    }
    if (ring != MPI_COMM_NULL) {
        MPI_Comm_free(&ring);
        MPI_Comm_free(&graph);
    }
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);
    free(big);
    free(reqs);
    printf("slept %d %.6f\n", rank, slept_ms);
    MPI_Finalize();
    return 0;
}
