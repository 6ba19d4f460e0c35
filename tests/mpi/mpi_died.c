/* mpi_died.c — jobs that die through MPI itself, for tests/test-died.sh.
 *
 *   mpirun -np 4 mpi_died MODE
 *
 * Every rank first passes a token around a ring 20 times and makes 50 calls
 * of MPI_Topo_test (messages to match, events to keep), then a barrier; then
 *   send99    rank 1 calls MPI_Send to rank 99 with MPI_COMM_WORLD's error
 *             handler left as it is (MPI_ERRORS_ARE_FATAL): MPI kills the
 *             job; the other ranks wait in an MPI_Recv from rank 1
 *   abortall  every rank calls MPI_Abort(MPI_COMM_WORLD, 5)
 * Before dying rank 0 (abortall) or 1 (send99) prints "DYING" (flushed);
 * rank 1 also says whether MPI_COMM_WORLD's error handler is still
 * MPI_ERRORS_ARE_FATAL (the tracer must not change it). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    int send99 = strcmp(mode, "send99") == 0, abortall = strcmp(mode, "abortall") == 0;
    if ((!send99 && !abortall) || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_died send99|abortall (at least 2 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    int token = 0, status;
    for (int i = 0; i < 20; i++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    for (int i = 0; i < 50; i++)
        MPI_Topo_test(MPI_COMM_WORLD, &status);
    MPI_Barrier(MPI_COMM_WORLD);
    if (abortall) {
        if (rank == 0) {
            printf("DYING\n");
            fflush(stdout);
        }
        MPI_Abort(MPI_COMM_WORLD, 5);
    } else if (rank == 1) {
        MPI_Errhandler handler;
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
        printf("DYING with MPI_COMM_WORLD's error handler %s\n",
               handler == MPI_ERRORS_ARE_FATAL ? "MPI_ERRORS_ARE_FATAL" : "changed");
        fflush(stdout);
        MPI_Send(&token, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* not reached */
    sleep(30);
    printf("SURVIVED rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
