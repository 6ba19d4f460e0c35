/* mpi_fork.c — a rank forks a child that never calls MPI and ends with
 * exit() (so atexit handlers run in it), or is killed with SIGTERM, while
 * the parent goes on calling MPI: the child must not touch the parent's
 * trace (traced, the parent checks that its archive is still open after
 * the child ended). Usage: mpi_fork CALLS exit|term|kill. Prints "rank R ok"
 * per rank. With "kill" the child calls MPI_Comm_rank 2000 times (a local
 * call that the tracer records, into its copy of the parent's chunk of
 * records) before it exits, and rank 0 then prints "KILLING rank 0" and
 * SIGKILLs itself: its trace is recovered from its records file, which
 * must hold the parent's records only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* kill() */
#endif
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void ring(int rank, int size, int calls)
{
    for (int i = 0; i < calls; i++) {
        int v = rank + i, got = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT, (rank + size - 1) % size, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got != (rank + size - 1) % size + i)
            MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int calls = argc > 1 ? atoi(argv[1]) : 100;
    int term = argc > 2 && strcmp(argv[2], "term") == 0;
    int killed = argc > 2 && strcmp(argv[2], "kill") == 0;
    ring(rank, size, calls);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (term)
            raise(SIGTERM);
        for (int i = 0; killed && i < 2000; i++) {
            int r;
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        }
        exit(0);   /* atexit handlers run here, in the child */
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child)
        MPI_Abort(MPI_COMM_WORLD, 4);
    if (term ? !(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) : !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        printf("rank %d: the child did not end as it should (status %#x)\n", rank, status);
    if (killed && rank == 0) {
        printf("KILLING rank 0\n");
        fflush(stdout);
        kill(getpid(), SIGKILL);
    }
    /* Traced, the rank's archive is still open: its journal is there and
     * its checksum file (written last, at close) is not. */
    const char *dir = getenv("SYNCTRACE_DIR");
    if (dir) {
        char journal[4096], sum[4096];
        snprintf(journal, sizeof journal, "%s/rank-%06d.journal", dir, rank);
        snprintf(sum, sizeof sum, "%s/rank-%06d.sum", dir, rank);
        if (access(journal, F_OK) != 0 || access(sum, F_OK) == 0)
            printf("rank %d: the archive was closed by the child\n", rank);
    }
    ring(rank, size, calls);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d ok\n", rank);
    MPI_Finalize();
    return 0;
}
