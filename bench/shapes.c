/* shapes.c — MPI program shapes for bench/accuracy_shapes.sh: the cases
 * where a clock model can go wrong, each a few milliseconds to seconds.
 *
 *   mpirun -np N shapes SHAPE [ITERATIONS]
 *
 *   bcast       root 0 broadcasts ITERATIONS (500) small messages: a short
 *               run of collectives only, no point-to-point message
 *   silent      ranks compute for ITERATIONS (200) ms apart, one barrier at
 *               the end: almost no message of their own
 *   bucket      bucket sort: MPI_Alltoall of counts, MPI_Alltoallv of data,
 *               ITERATIONS (50) rounds (NAS IS)
 *   iallreduce  MPI_Iallreduce overlapped with compute, ITERATIONS (300)
 *   gatherv     MPI_Gatherv of uneven blocks to root 0, ITERATIONS (300)
 *   ring        a token around the ring, ITERATIONS (500) laps
 *   longrun     a stencil exchange every 10 ms for ITERATIONS (150) steps,
 *               world collectives only at its start and end (NAS LU/BT)
 *   pingpong    ranks 0 and 1 ping-pong, the others wait in a barrier
 *
 * Prints one line of results on rank 0 (the same traced or not). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double work(double ms)
{
    /* busy compute for about ms milliseconds: the same result every run */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    double x = 1;
    do {
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
    return x > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *shape = argc > 1 ? argv[1] : "bcast";
    long n = argc > 2 ? atol(argv[2]) : 0;
    long check = 0;
    if (!strcmp(shape, "bcast")) {
        for (long i = 0; i < (n ? n : 500); i++) {
            long v = me == 0 ? i : -1;
            MPI_Bcast(&v, 1, MPI_LONG, 0, MPI_COMM_WORLD);
            check += v;
        }
    } else if (!strcmp(shape, "silent")) {
        work((double)(n ? n : 200) * (me + 1) / np);
        MPI_Barrier(MPI_COMM_WORLD);
        check = np;
    } else if (!strcmp(shape, "bucket")) {
        int *counts = malloc(sizeof *counts * np), *rcounts = malloc(sizeof *rcounts * np);
        int *sd = malloc(sizeof *sd * np), *rd = malloc(sizeof *rd * np);
        int *data = malloc(sizeof *data * 64 * np), *recv = malloc(sizeof *recv * 64 * np * np);
        for (long it = 0; it < (n ? n : 50); it++) {
            for (int p = 0; p < np; p++) {
                counts[p] = 1 + (int)((me * 7 + p * 13 + it) % 64);
                sd[p] = p * 64;
                for (int k = 0; k < counts[p]; k++)
                    data[p * 64 + k] = me + p + k;
            }
            MPI_Alltoall(counts, 1, MPI_INT, rcounts, 1, MPI_INT, MPI_COMM_WORLD);
            for (int p = 0; p < np; p++)
                rd[p] = p * 64;
            MPI_Alltoallv(data, counts, sd, MPI_INT, recv, rcounts, rd, MPI_INT, MPI_COMM_WORLD);
            for (int p = 0; p < np; p++)
                check += recv[p * 64] + rcounts[p];
            work(0.2);
        }
        free(counts); free(rcounts); free(sd); free(rd); free(data); free(recv);
    } else if (!strcmp(shape, "iallreduce")) {
        for (long it = 0; it < (n ? n : 300); it++) {
            long v = me + it, s = 0;
            MPI_Request rq;
            MPI_Iallreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &rq);
            work(0.05 * (me + 1));
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            check += s;
        }
    } else if (!strcmp(shape, "gatherv")) {
        int *cnt = malloc(sizeof *cnt * np), *dsp = malloc(sizeof *dsp * np);
        int *all = malloc(sizeof *all * 16 * np), mine[16];
        for (int p = 0; p < np; p++) {
            cnt[p] = 1 + p % 16;
            dsp[p] = p * 16;
        }
        for (long it = 0; it < (n ? n : 300); it++) {
            for (int k = 0; k < cnt[me]; k++)
                mine[k] = me * 100 + k + (int)it;
            MPI_Gatherv(mine, cnt[me], MPI_INT, all, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD);
            if (me == 0)
                for (int p = 0; p < np; p++)
                    check += all[p * 16];
        }
        free(cnt); free(dsp); free(all);
    } else if (!strcmp(shape, "ring")) {
        long tok = 0;
        for (long lap = 0; lap < (n ? n : 500); lap++) {
            if (me == 0) {
                tok++;
                MPI_Send(&tok, 1, MPI_LONG, 1 % np, 0, MPI_COMM_WORLD);
                MPI_Recv(&tok, 1, MPI_LONG, np - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&tok, 1, MPI_LONG, me - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                tok++;
                MPI_Send(&tok, 1, MPI_LONG, (me + 1) % np, 0, MPI_COMM_WORLD);
            }
        }
        check = tok;
    } else if (!strcmp(shape, "longrun")) {
        int left = (me + np - 1) % np, right = (me + 1) % np;
        double a = me, b = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (long it = 0; it < (n ? n : 150); it++) {
            MPI_Sendrecv(&a, 1, MPI_DOUBLE, right, 1, &b, 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            a = (a + b) / 2;
            work(10);
        }
        double s = 0;
        MPI_Allreduce(&a, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        check = (long)(s * 1000);
    } else if (!strcmp(shape, "pingpong")) {
        long v = 0;
        if (me < 2 && np >= 2)
            for (long it = 0; it < (n ? n : 1000); it++) {
                if (me == 0) {
                    MPI_Send(&v, 1, MPI_LONG, 1, 2, MPI_COMM_WORLD);
                    MPI_Recv(&v, 1, MPI_LONG, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(&v, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    v++;
                    MPI_Send(&v, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD);
                }
            }
        MPI_Barrier(MPI_COMM_WORLD);
        check = v;
    } else {
        if (me == 0)
            fprintf(stderr, "shapes: unknown shape '%s'\n", shape);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long total = 0;
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: %d ranks, check %ld\n", shape, np, total);
    MPI_Finalize();
    return 0;
}
