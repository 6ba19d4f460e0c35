/* mpi_background.c — programs that never call a collective on
 * MPI_COMM_WORLD between MPI_Init and MPI_Finalize, for the background
 * sync rounds (src/sync_background.h):
 *
 *   mpi_background ring [STEPS [US]] a ring of MPI_Sendrecv with US (20) us
 *                                    of compute between steps (40000)
 *   mpi_background quiet-root [MS]   rank 0 computes MS ms (default 600)
 *                                    without any MPI call while the others
 *                                    exchange: no background round can start
 *   mpi_background threads [STEPS]   MPI_THREAD_MULTIPLE: the ring on the
 *                                    main thread while a second thread of
 *                                    every rank exchanges on a duplicate
 *   mpi_background late-recv         rank 1 blocks in MPI_Recv for 300 ms
 *                                    while rank 0 computes, then sends: the
 *                                    tracer must not deadlock or delay it
 *
 * Every mode prints one checksum line on rank 0, the same traced or not;
 * the exit status is 0 unless MPI reports an error. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double spin_us(double us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    double x = 1;
    do {
        for (int i = 0; i < 50; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < us);
    return x > 0 ? 1 : 0;
}

static long ring(MPI_Comm comm, long steps, double compute_us)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    long a = me, b = 0, sum = 0;
    for (long s = 0; s < steps; s++) {
        MPI_Sendrecv(&a, 1, MPI_LONG, (me + 1) % np, 5, &b, 1, MPI_LONG, (me + np - 1) % np, 5, comm,
                     MPI_STATUS_IGNORE);
        sum += b;
        a = b + 1;
        if (compute_us > 0)
            spin_us(compute_us);
    }
    return sum;
}

struct side {
    MPI_Comm comm;
    long steps, sum;
};

static void *side_ring(void *arg)
{
    struct side *s = arg;
    s->sum = ring(s->comm, s->steps, 5);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ring";
    long n = argc > 2 ? atol(argv[2]) : 0;
    int provided = MPI_THREAD_SINGLE, me, np;
    if (!strcmp(mode, "threads")) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided < MPI_THREAD_MULTIPLE) {
            fprintf(stderr, "mpi_background: MPI_THREAD_MULTIPLE not provided\n");
            MPI_Abort(MPI_COMM_WORLD, 77);
        }
    } else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long check = 0;
    if (!strcmp(mode, "ring")) {
        check = ring(MPI_COMM_WORLD, n ? n : 40000, argc > 3 ? atof(argv[3]) : 20);
    } else if (!strcmp(mode, "quiet-root")) {
        if (me == 0)
            spin_us(1000.0 * (double)(n ? n : 600));
        else {
            int left = me == 1 ? np - 1 : me - 1, right = me == np - 1 ? 1 : me + 1;
            long a = me, b = 0;
            for (long s = 0; s < 20000; s++) {
                if (np > 2)
                    MPI_Sendrecv(&a, 1, MPI_LONG, right, 6, &b, 1, MPI_LONG, left, 6, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                check += b;
                spin_us(20);
            }
        }
    } else if (!strcmp(mode, "threads")) {
        struct side s = { MPI_COMM_NULL, n ? n : 20000, 0 };
        MPI_Comm_dup(MPI_COMM_WORLD, &s.comm);
        pthread_t t;
        pthread_create(&t, NULL, side_ring, &s);
        check = ring(MPI_COMM_WORLD, n ? n : 20000, 20);
        pthread_join(t, NULL);
        check += s.sum;
        MPI_Comm_free(&s.comm);
    } else if (!strcmp(mode, "late-recv")) {
        long v = 42;
        if (me == 0) {
            spin_us(300000);
            MPI_Send(&v, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD);
        } else if (me == 1) {
            MPI_Recv(&v, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        check = v;
    } else {
        fprintf(stderr, "mpi_background: unknown mode '%s'\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long total = 0;
    /* the one world collective, after the measured part */
    MPI_Reduce(&check, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: %d ranks, check %ld\n", mode, np, total);
    MPI_Finalize();
    return 0;
}
