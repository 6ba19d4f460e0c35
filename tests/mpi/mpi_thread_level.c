/* mpi_thread_level.c — MPI_Init_thread at the level named by argv[1]
 * (funneled or multiple), then 300 allreduces on MPI_COMM_WORLD. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int want = argc > 1 && strcmp(argv[1], "multiple") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
    int provided;
    MPI_Init_thread(&argc, &argv, want, &provided);
    double x = 1, y;
    for (int i = 0; i < 300; i++)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return provided >= want ? 0 : 1;
}
