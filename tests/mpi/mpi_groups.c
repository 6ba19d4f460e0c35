/* mpi_groups.c — calls of several SYNCTRACE_MPI_GROUPS groups, a known
 * number of times each, for tests/test-groups.sh: a polling loop of
 * MPI_Wtime/MPI_Wtick (QUERY), datatype queries (TYPE), communicator
 * queries (CG), unsuccessful MPI_Iprobe (XREQTEST), and a message and a
 * barrier, which the merge needs whatever the groups. Prints a result that
 * must not depend on tracing. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, flag, tsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t = 0;
    for (int i = 0; i < 1000; i++)
        t += MPI_Wtime() * 0 + MPI_Wtick() * 0;
    for (int i = 0; i < 10; i++)
        MPI_Type_size(MPI_DOUBLE, &tsize);
    for (int i = 0; i < 10; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    int token = rank;
    if (size > 1) {
        if (rank == 0)
            MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d of %d: token %d, size %d, t %.0f\n", rank, size, token, tsize, t);
    MPI_Finalize();
    return 0;
}
