/* mpi_init_time.c — reads CLOCK_MONOTONIC_RAW just before MPI_Init and
 * prints it: a tracer run with SYNCTRACE_CLOCK=monotonic_raw must stamp
 * MPI_Init's Enter right after that reading, not after PMPI_Init returned. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    printf("rank %d before_init_ns %llu\n", me, (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    MPI_Finalize();
    return 0;
}
