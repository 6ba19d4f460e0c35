/* mpi_periodic.c — a ring exchange and an allreduce, repeated for SECONDS
 * (argument, default 1.5) with 1 ms pauses: long enough for several periodic
 * sync rounds. Rank 0's clock decides when all stop: the exit is collective. */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 1.5;
    double t0 = MPI_Wtime(), x = 1, y;
    for (int done = 0; !done;) {
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 1, &y, 1, MPI_DOUBLE, (rank + size - 1) % size, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        done = rank == 0 && MPI_Wtime() - t0 >= seconds;
        MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    MPI_Finalize();
    return 0;
}
