/* mpi_kill9.c — a rank killed with SIGKILL, for tests/test-recover.sh.
 *
 *   mpirun -np 4 mpi_kill9 [CALLS [rma]]
 *
 * Every rank first makes one MPI_Comm_dup (a communicator definition for
 * the journal) and a barrier. Rank 2 then makes CALLS calls of MPI_Iprobe
 * (default 300000, i.e. 600000 events: with SYNCTRACE_BUFFER_MB=1 the
 * tracer flushes its buffer several times), prints
 * "KILLING rank 2 after CALLS calls" (flushed) and sends itself SIGKILL,
 * which no tracer can catch. The other ranks wait in an MPI_Recv from
 * rank 2 that never comes, until mpirun kills them (SIGTERM).
 * With "rma", every rank first also makes a window on the duplicate named
 * "killed window", puts to its right neighbour in a fence epoch and gets
 * from it under MPI_Win_lock_all (the window is never freed: rank 2 dies
 * with it). With "sparse", every rank first takes part in an MPI_Alltoallv
 * on the duplicate in which rank 0 receives from every rank (dense), rank 1
 * from none, rank 2 from rank 1 only and rank 3 from rank 2 only: ranks 2
 * and 3 are sparse members, whose sources the tracer records. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* kill() */
#endif
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = argc > 1 ? atol(argv[1]) : 300000;
    if (size < 3 || calls < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_kill9 [CALLS] (needs at least 3 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    if (argc > 2 && argv[2][0] == 'r') {
        static int mem[4], got;
        int right = (rank + 1) % size;
        MPI_Win win;
        MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, dup, &win);
        MPI_Win_set_name(win, "killed window");
        MPI_Win_fence(0, win);
        MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Win_lock_all(0, win);
        MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_unlock_all(win);
        MPI_Barrier(dup);
    }
    if (argc > 2 && argv[2][0] == 's') {
        int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
        int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
        int *in = calloc((size_t)size, sizeof *in), *out = calloc((size_t)size, sizeof *out);
        if (!sc || !rc || !sd || !rd || !in || !out)
            MPI_Abort(MPI_COMM_WORLD, 3);
        for (int i = 0; i < size; i++) {
            sd[i] = rd[i] = i;
            in[i] = 100 * rank + i;
            /* to rank 0 always; 1 -> 2 and 2 -> 3 besides */
            sc[i] = i == 0 || (rank == 1 && i == 2) || (rank == 2 && i == 3);
            rc[i] = rank == 0 || (rank == 2 && i == 1) || (rank == 3 && i == 2);
        }
        MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, dup);
        free(sc);
        free(rc);
        free(sd);
        free(rd);
        free(in);
        free(out);
        MPI_Barrier(dup);
    }

    if (rank == 2) {
        int flag;
        for (long i = 0; i < calls; i++)
            /* two tags in turn: each call a region of its own (no polling run) */
            MPI_Iprobe(MPI_ANY_SOURCE, 12345 + (int)(i & 1), dup, &flag, MPI_STATUS_IGNORE);
        printf("KILLING rank 2 after %ld calls\n", calls);
        fflush(stdout);
        kill(getpid(), SIGKILL);
        /* not reached */
        sleep(30);
        printf("SURVIVED rank %d\n", rank);
        MPI_Finalize();
        return 0;
    }
    int never;
    MPI_Recv(&never, 1, MPI_INT, 2, 99, dup, MPI_STATUS_IGNORE);
    printf("SURVIVED rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
