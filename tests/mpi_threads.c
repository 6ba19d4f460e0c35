/* mpi_threads.c — MPI_THREAD_MULTIPLE: THREADS threads per rank (the main
 * one included) exchange messages at once. Thread t of rank r sends to
 * thread t of rank r+1 and receives from thread t of rank r-1 on a
 * communicator of its own (a duplicate of MPI_COMM_WORLD per thread, since
 * collectives may not overlap on one), with tag t: blocking Send/Recv,
 * Isend/Irecv/Waitall, a wildcard receive, and an Allreduce per iteration.
 * Checks every value; prints one line on rank 0.
 * Usage: mpi_threads [ITERATIONS [THREADS]] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int me, N, iters = 200, nthreads = 4;
static MPI_Comm *comms;
static int errors[64];

static void *work(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    int right = (me + 1) % N, left = (me - 1 + N) % N;
    for (int i = 0; i < iters; i++) {
        int out = 1000 * i + 10 * me + t, in = -1;
        if (me % 2 == 0) {   /* even ranks send first: no deadlock on any size */
            MPI_Send(&out, 1, MPI_INT, right, t, c);
            MPI_Recv(&in, 1, MPI_INT, left, t, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, left, t, c, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, right, t, c);
        }
        errors[t] += in != 1000 * i + 10 * left + t;
        int a = out + 1, b = -1;
        MPI_Request rq[2];
        MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, t, c, &rq[0]);
        MPI_Isend(&a, 1, MPI_INT, right, t, c, &rq[1]);
        MPI_Status st[2];
        MPI_Waitall(2, rq, st);
        errors[t] += b != 1000 * i + 10 * left + t + 1 || st[0].MPI_SOURCE != left;
        int sum = 0, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        errors[t] += sum != N;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    if (argc > 1)
        iters = atoi(argv[1]);
    if (argc > 2)
        nthreads = atoi(argv[2]);
    if (provided < MPI_THREAD_MULTIPLE || nthreads < 1 || nthreads > 64) {
        if (me == 0)
            fprintf(stderr, "mpi_threads: needs MPI_THREAD_MULTIPLE (got %d) and 1..64 threads\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    comms = malloc(sizeof *comms * (size_t)nthreads);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[64];
    for (int t = 1; t < nthreads; t++)
        pthread_create(&th[t], NULL, work, (void *)(long)t);
    work((void *)0);   /* the main thread is thread 0 */
    for (int t = 1; t < nthreads; t++)
        pthread_join(th[t], NULL);
    int mine = 0, total = 0;
    for (int t = 0; t < nthreads; t++)
        mine += errors[t];
    MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("mpi_threads: %d ranks, %d threads each, %d iterations, %d errors\n", N, nthreads, iters, total);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comms[t]);
    free(comms);
    MPI_Finalize();
    return total ? 1 : 0;
}
