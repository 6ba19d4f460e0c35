/* mpi_shared_handle.c — requests that share one handle: Open MPI returns a
 * single static, already complete request for a small MPI_Isend it sends
 * inline, so the two MPI_Isend calls below may return the same handle while
 * both are live. Every one of them must still record its completion.
 * Prints "rank R: N of M send handles shared". */
#include <mpi.h>
#include <stdio.h>

#define N 6

int main(void)
{
    int rank, size, out[N], in[N];
    MPI_Request reqs[2 * N];
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < N; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, (rank + size - 1) % size, i, MPI_COMM_WORLD, &reqs[N + i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        out[i] = i;
        MPI_Isend(&out[i], 1, MPI_INT, (rank + 1) % size, i, MPI_COMM_WORLD, &reqs[i]);
    }
    int shared = 0;
    for (int i = 1; i < N; i++)
        shared += reqs[i] == reqs[0];
    MPI_Waitall(2 * N, reqs, MPI_STATUSES_IGNORE);
    printf("rank %d: %d of %d send handles shared\n", rank, shared, N - 1);
    MPI_Finalize();
    return 0;
}
