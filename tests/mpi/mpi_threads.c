/* mpi_threads.c — MPI_THREAD_MULTIPLE with NTHREADS threads per rank that
 * call MPI concurrently:
 *   - every thread exchanges ROUNDS messages with the same thread of the
 *     neighbouring ranks on MPI_COMM_WORLD (its own tags): blocking
 *     MPI_Send/MPI_Recv, then MPI_Isend/MPI_Irecv completed by MPI_Waitall;
 *   - every thread runs MPI_Allreduce on a communicator of its own
 *     (duplicated by the main thread beforehand: MPI orders collectives per
 *     communicator, not per process);
 *   - hand-off: thread 0 posts receives and thread 1 completes them, so a
 *     request is posted in one location and completed in another.
 * Prints "rank R ok" or what went wrong. Usage: mpi_threads [ROUNDS]. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define HANDOFF 8
#define TAG_HANDOFF 9000

static int rank, size, rounds = 50;
static MPI_Comm thread_comm[NTHREADS];
static MPI_Request handoff[HANDOFF];
static int handoff_buf[HANDOFF];
static pthread_barrier_t posted;
static int errors[NTHREADS];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[4], in[4];
    for (int i = 0; i < rounds; i++) {
        int tag = t * 1000 + i;
        out[0] = rank * 100000 + tag;
        MPI_Status st;
        if (rank % 2 == 0) {
            MPI_Send(out, 4, MPI_INT, right, tag, MPI_COMM_WORLD);
            MPI_Recv(in, 4, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(in, 4, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
            MPI_Send(out, 4, MPI_INT, right, tag, MPI_COMM_WORLD);
        }
        if (in[0] != left * 100000 + tag)
            errors[t]++;
        MPI_Request reqs[2];
        MPI_Irecv(in, 1, MPI_INT, right, tag + 500, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(out, 1, MPI_INT, left, tag + 500, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        if (in[0] != right * 100000 + tag)
            errors[t]++;
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, thread_comm[t]);
        if (sum != size)
            errors[t]++;
    }
    /* Thread 0 posts, thread 1 completes. */
    if (t == 0) {
        for (int k = 0; k < HANDOFF; k++)
            MPI_Irecv(&handoff_buf[k], 1, MPI_INT, (rank + size - 1) % size, TAG_HANDOFF + k, MPI_COMM_WORLD,
                      &handoff[k]);
    }
    pthread_barrier_wait(&posted);
    if (t == 1) {
        MPI_Waitall(HANDOFF, handoff, MPI_STATUSES_IGNORE);
        for (int k = 0; k < HANDOFF; k++)
            if (handoff_buf[k] != left * 10 + k)
                errors[t]++;
    }
    if (t == 2) {
        for (int k = 0; k < HANDOFF; k++) {
            int v = rank * 10 + k;
            MPI_Send(&v, 1, MPI_INT, right, TAG_HANDOFF + k, MPI_COMM_WORLD);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    if (argc > 1)
        rounds = atoi(argv[1]);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("rank %d: MPI_THREAD_MULTIPLE not provided\n", rank);
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm[t]);
    pthread_barrier_init(&posted, NULL, NTHREADS);
    pthread_t tid[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&tid[t], NULL, worker, (void *)(long)t);
    int total = 0;
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(tid[t], NULL);
        total += errors[t];
    }
    pthread_barrier_destroy(&posted);
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&thread_comm[t]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (total)
        printf("rank %d: %d errors\n", rank, total);
    else
        printf("rank %d ok\n", rank);
    MPI_Finalize();
    return 0;
}
