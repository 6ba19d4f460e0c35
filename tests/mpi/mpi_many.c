/* mpi_many.c — many cheap MPI calls, to exercise buffer flushes. Prints the
 * process's peak resident memory (VmHWM, kB) on stderr as "hwm_kb N". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int flag;
    for (long i = 0; i < n; i++)
        /* two tags in turn: no two calls in a row have the same arguments, so
         * each is a region of its own (a polling run would be one region) */
        MPI_Iprobe(MPI_ANY_SOURCE, (int)(i & 1), MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "hwm_kb %d %ld\n", rank, hwm_kb());
    MPI_Finalize();
    return 0;
}
