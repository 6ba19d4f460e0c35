/*
 * overhead.c — micro-benchmarks for the per-call cost of an MPI tracer.
 *
 *   mpirun -np 1 ./overhead loop N
 *       N iterations of { MPI_Isend to self (0 bytes), MPI_Recv from self,
 *       MPI_Wait on the send, MPI_Iprobe (nothing pending) } = 4N calls,
 *       after a warm-up of N/10 iterations.  Prints
 *       loop calls=<4N> ns_per_call=<float>
 *
 *   mpirun -np 2 ./overhead pingpong BYTES N
 *       N round trips of MPI_Send/MPI_Recv with BYTES bytes between ranks
 *       0 and 1, after a warm-up of N/10 round trips.  Rank 0 prints
 *       pingpong bytes=<B> iters=<N> ns_per_roundtrip=<float>
 *
 * Times are taken with clock_gettime(CLOCK_MONOTONIC) around the timed loop
 * only.  Bad arguments: message on stderr, exit code 2.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BYTES (1L << 30)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int parse_long(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static void loop_iterations(long n, MPI_Comm comm)
{
    char sbuf[1], rbuf[1];
    int flag;
    for (long i = 0; i < n; i++) {
        MPI_Request req;
        MPI_Isend(sbuf, 0, MPI_BYTE, 0, 0, comm, &req);
        MPI_Recv(rbuf, 0, MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE);
    }
}

static int run_loop(long n)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 1) {
        fprintf(stderr, "overhead: loop mode needs exactly 1 rank (got %d)\n", size);
        return 2;
    }
    loop_iterations(n / 10, MPI_COMM_WORLD);
    double t0 = now_ns();
    loop_iterations(n, MPI_COMM_WORLD);
    double t1 = now_ns();
    printf("loop calls=%ld ns_per_call=%.3f\n", 4 * n, (t1 - t0) / (4.0 * (double)n));
    return 0;
}

static void pingpong_iterations(int rank, char *buf, int bytes, long n)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

static int run_pingpong(int rank, long bytes, long n)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "overhead: pingpong mode needs exactly 2 ranks (got %d)\n", size);
        return 2;
    }
    char *buf = calloc((size_t)bytes + 1, 1);
    if (buf == NULL) {
        fprintf(stderr, "overhead: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pingpong_iterations(rank, buf, (int)bytes, n / 10);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ns();
    pingpong_iterations(rank, buf, (int)bytes, n);
    double t1 = now_ns();
    if (rank == 0)
        printf("pingpong bytes=%ld iters=%ld ns_per_roundtrip=%.3f\n", bytes, n, (t1 - t0) / (double)n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    int rc = 2;
    long n, bytes;
    if (argc == 3 && strcmp(argv[1], "loop") == 0 && parse_long(argv[2], 1, 1000000000L, &n) == 0) {
        rc = run_loop(n);
    } else if (argc == 4 && strcmp(argv[1], "pingpong") == 0 &&
               parse_long(argv[2], 0, MAX_BYTES, &bytes) == 0 &&
               parse_long(argv[3], 1, 1000000000L, &n) == 0) {
        rc = run_pingpong(rank, bytes, n);
    } else if (rank == 0) {
        fprintf(stderr, "usage: overhead loop N | overhead pingpong BYTES N\n");
    }

    fflush(stdout);
    MPI_Finalize();
    return rc;
}
