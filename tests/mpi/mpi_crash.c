/* mpi_crash.c — a job that dies, for tests/test-crash.sh.
 *
 *   mpirun -np 4 mpi_crash MODE [CALLS]
 *
 * Every rank first makes 50 calls of MPI_Topo_test (100 events); the dying
 * rank makes CALLS of them (default 500, i.e. 1000 events), then:
 *   segv   rank 1 writes through a null pointer (a real SIGSEGV)
 *   abort  rank 2 calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   term   rank 3 sends itself SIGTERM
 * The other ranks wait meanwhile in an MPI_Recv from the dying rank that is
 * never sent, until MPI kills them. Before dying, the dying rank prints
 * "DYING rank R after CALLS calls" (flushed), so the test knows how far it got. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* kill() */
#endif
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    long calls = argc > 2 ? atol(argv[2]) : 500;
    int victim = strcmp(mode, "segv") == 0 ? 1 : strcmp(mode, "abort") == 0 ? 2 : strcmp(mode, "term") == 0 ? 3 : -1;
    if (victim < 0 || victim >= size || calls < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_crash segv|abort|term [CALLS] (needs 4 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    int status;
    for (int i = 0; i < 50; i++)
        MPI_Topo_test(MPI_COMM_WORLD, &status);
    /* Everyone has recorded its first events before anyone dies. */
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == victim) {
        for (long i = 50; i < calls; i++)
            MPI_Topo_test(MPI_COMM_WORLD, &status);
        printf("DYING rank %d after %ld calls\n", rank, calls);
        fflush(stdout);
        if (victim == 1) {
            volatile int *volatile null = NULL;   /* opaque to the optimiser: a real fault, not a trap */
            *null = 1;
        } else if (victim == 2) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else {
            kill(getpid(), SIGTERM);
        }
        /* not reached */
        sleep(30);
        printf("SURVIVED rank %d\n", rank);
        MPI_Finalize();
        return 0;
    }
    int never;
    MPI_Recv(&never, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("SURVIVED rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
