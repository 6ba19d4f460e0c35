/* mpi_thread_colls.c — collectives on one communicator called from
 * different threads of a rank, one after the other (MPI_THREAD_MULTIPLE;
 * MPI asks only that a communicator's collectives be ordered alike on
 * every rank, not that one thread call them). The odd rounds of every
 * rank run on a second thread, the even ones on the main thread, each
 * waiting while the other calls, and rank k % size is late in round k. A rank's instances must be numbered
 * over all its threads, in time order: numbered per thread, the k-th
 * barrier of one thread would pair with another's and constrain the
 * clocks with calls that never met. Prints one line per rank: its sums.
 *
 * With the argument "overlap", it then breaks that rule on purpose: both
 * threads of every rank call MPI_Barrier on MPI_COMM_WORLD at once, 4
 * times each (erroneous: their order on a rank is a race; all barriers
 * are alike, so Open MPI completes them). The merge must say so. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 12

static int rank, size;
static long total;

static void nap_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void one_round(int k)
{
    if (rank == k % size)
        nap_ms(2);
    switch (k % 3) {
    case 0:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    case 1: {
        long v = rank + k, s = 0;
        MPI_Allreduce(&v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        total += s;
        break;
    }
    default: {
        long v = rank == k % size ? 1000 + k : -1;
        MPI_Bcast(&v, 1, MPI_LONG, k % size, MPI_COMM_WORLD);
        total += v;
        break;
    }
    }
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int next_round;   /* the round to run next; odd: the worker's */

/* Wait for round k's turn, run it, hand the next round over. */
static void take_turn(int k)
{
    pthread_mutex_lock(&lock);
    while (next_round != k)
        pthread_cond_wait(&turn, &lock);
    pthread_mutex_unlock(&lock);
    one_round(k);
    pthread_mutex_lock(&lock);
    next_round = k + 1;
    pthread_cond_broadcast(&turn);
    pthread_mutex_unlock(&lock);
}

/* The worker runs the odd rounds. */
static void *worker(void *arg)
{
    (void)arg;
    for (int k = 1; k < ROUNDS; k += 2)
        take_turn(k);
    return NULL;
}

static pthread_barrier_t together;

static void *overlapping(void *arg)
{
    (void)arg;
    for (int k = 0; k < 4; k++) {
        pthread_barrier_wait(&together);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int k = 0; k < ROUNDS; k += 2)
        take_turn(k);
    pthread_join(t, NULL);
    if (argc > 1 && !strcmp(argv[1], "overlap")) {
        pthread_barrier_init(&together, NULL, 2);
        if (pthread_create(&t, NULL, overlapping, NULL) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        overlapping(NULL);
        pthread_join(t, NULL);
        pthread_barrier_destroy(&together);
    }
    long all[64] = { 0 };
    MPI_Gather(&total, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size && r < 64; r++)
            printf("rank %d total %ld\n", r, all[r]);
    MPI_Finalize();
    return 0;
}
