/* polling.c — a program that waits by polling, for bench/polling.sh.
 *
 *   mpirun -np 2 polling ROUNDS DELAY_US
 *
 * ROUNDS times: rank 1 computes for DELAY_US microseconds (a busy loop on
 * clock_gettime, no MPI call) and sends 8 bytes; rank 0 posted the receive
 * and polls it with MPI_Test until it completes, then answers with 8 bytes
 * (so that rank 1 starts its next round only after rank 0 received).
 * Rank 0 prints "polling rounds=R calls=N" (N: its MPI_Test calls). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rounds = argc > 1 ? atol(argv[1]) : 100;
    double delay = argc > 2 ? atof(argv[2]) : 2000;
    if (size != 2 || rounds < 1 || delay < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 polling ROUNDS DELAY_US\n");
        MPI_Finalize();
        return 2;
    }
    double v = 0, w = 0;
    long calls = 0;
    for (long r = 0; r < rounds; r++) {
        if (rank == 0) {
            MPI_Request req;
            int flag = 0;
            MPI_Irecv(&v, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &req);
            while (!flag) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                calls++;
            }
            MPI_Send(&v, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        } else {
            double until = now_us() + delay;
            while (now_us() < until)
                w += 1;
            MPI_Send(&w, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 0)
        printf("polling rounds=%ld calls=%ld\n", rounds, calls);
    MPI_Finalize();
    return 0;
}
