/* mpi_chdir.c — a program that changes its working directory after
 * MPI_Init (to the directory given, made if missing), as codes that run in
 * a work directory of their own do, then communicates. Usage:
 * mpi_chdir DIR CALLS. Prints "rank R ok" per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3)
        MPI_Abort(MPI_COMM_WORLD, 2);
    mkdir(argv[1], 0777);
    if (chdir(argv[1]) != 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int calls = atoi(argv[2]);
    for (int i = 0; i < calls; i++) {
        int v = rank + i, got = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 7, &got, 1, MPI_INT, (rank + size - 1) % size, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got != (rank + size - 1) % size + i)
            MPI_Abort(MPI_COMM_WORLD, 4);
    }
    printf("rank %d ok\n", rank);
    MPI_Finalize();
    return 0;
}
