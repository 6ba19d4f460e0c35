/* mpi_kill9_threads.c — a threaded rank killed with SIGKILL, for
 * tests/test-recover-threads.sh.
 *
 *   mpirun -np 3 mpi_kill9_threads [CALLS]
 *
 * MPI_THREAD_MULTIPLE. Every rank makes one MPI_Comm_dup and a barrier.
 * On rank 1, NBUSY threads and the main thread then each make CALLS calls
 * of MPI_Iprobe (default 100000, i.e. 200000 events: with
 * SYNCTRACE_BUFFER_MB=1 each location's buffer flushes several times), and
 * one more thread makes a single call (its location is made, but never
 * flushed). Once all have finished, rank 1 prints "KILLING rank 1 after
 * CALLS calls in each of NBUSY+1 threads" (flushed) and sends itself
 * SIGKILL, which no tracer can catch. The other ranks wait in an MPI_Recv
 * from rank 1 that never comes, until mpirun kills them (SIGTERM). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* kill() */
#endif
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NBUSY 3

static MPI_Comm probe_comm;

static void probe(long calls)
{
    int flag;
    for (long i = 0; i < calls; i++)
        /* two tags in turn: each call a region of its own (no polling run) */
        MPI_Iprobe(MPI_ANY_SOURCE, 12345 + (int)(i & 1), probe_comm, &flag, MPI_STATUS_IGNORE);
}

static void *busy(void *arg)
{
    probe((long)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = argc > 1 ? atol(argv[1]) : 100000;
    if (size < 2 || calls < 1 || provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_kill9_threads [CALLS] (needs 2 ranks and MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &probe_comm);
    MPI_Barrier(probe_comm);

    if (rank == 1) {
        pthread_t tid[NBUSY + 1];
        for (int t = 0; t <= NBUSY; t++)
            if (pthread_create(&tid[t], NULL, busy, (void *)(t < NBUSY ? calls : 1L)) != 0) {
                perror("pthread_create");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        probe(calls);
        for (int t = 0; t <= NBUSY; t++)
            pthread_join(tid[t], NULL);
        printf("KILLING rank 1 after %ld calls in each of %d threads\n", calls, NBUSY + 1);
        fflush(stdout);
        kill(getpid(), SIGKILL);
        /* not reached */
        sleep(30);
        printf("SURVIVED rank %d\n", rank);
        MPI_Finalize();
        return 0;
    }
    int never;
    MPI_Recv(&never, 1, MPI_INT, 1, 99, probe_comm, MPI_STATUS_IGNORE);
    printf("SURVIVED rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
