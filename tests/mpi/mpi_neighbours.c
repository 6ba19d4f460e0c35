/* mpi_neighbours.c — neighbourhood collectives on every kind of topology:
 * a distributed graph whose edges all point one way (rank r receives from
 * r+1 and r+2, sends to r-1 and r-2), a graph ring, a periodic Cartesian
 * ring and its duplicate. Ranks arrive late by turns (a rank-dependent
 * sleep), so each exit waits for an in-neighbour's entry: the merge must
 * keep every exit after its in-neighbours' entries. Checks the data moved;
 * prints one line on rank 0. Usage: mpi_neighbours [ITERATIONS [kill]]:
 * with "kill", rank 1 makes 200000 MPI_Comm_rank calls (so that its
 * buffer is flushed at least once; run with SYNCTRACE_BUFFER_MB=1) and
 * sends itself SIGKILL (its topology must then come back from its recovery
 * journal). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* kill() */
#endif
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <time.h>

static int me, N, errors;

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static void expect(const char *what, int got, int want)
{
    if (got != want && errors++ < 5)
        fprintf(stderr, "mpi_neighbours: rank %d: %s: got %d, want %d\n", me, what, got, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &N);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    if (N < 3) {
        if (me == 0)
            fprintf(stderr, "mpi_neighbours: needs 3 or more ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int src[2] = { (me + 1) % N, (me + 2) % N }, dst[2] = { (me - 1 + N) % N, (me - 2 + N) % N };
    MPI_Comm oneway, gring, cring, cdup;
    int w[2] = { 1, 1 };   /* weights: MPI_UNWEIGHTED trips gcc's -Wstringop-overread in Open MPI's mpi.h */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, w, 2, dst, w, MPI_INFO_NULL, 0, &oneway);
    int *index = malloc(sizeof *index * (size_t)N), *edges = malloc(sizeof *edges * (size_t)(2 * N));
    for (int r = 0; r < N; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r - 1 + N) % N;
        edges[2 * r + 1] = (r + 1) % N;
    }
    MPI_Graph_create(MPI_COMM_WORLD, N, index, edges, 0, &gring);
    int dims[1] = { N }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cring);
    MPI_Comm_dup(cring, &cdup);

    int in[4];
    for (int it = 0; it < iters; it++) {
        /* the late rank this time: everyone else waits for it */
        if (it % N == me)
            nap_us(300);
        int v = 1000 * it + me;
        MPI_Neighbor_allgather(&v, 1, MPI_INT, in, 1, MPI_INT, oneway);
        expect("dist graph", in[0], 1000 * it + src[0]);
        expect("dist graph", in[1], 1000 * it + src[1]);
        MPI_Neighbor_allgather(&v, 1, MPI_INT, in, 1, MPI_INT, gring);
        expect("graph ring", in[0], 1000 * it + (me - 1 + N) % N);
        expect("graph ring", in[1], 1000 * it + (me + 1) % N);
        MPI_Request rq;
        MPI_Ineighbor_allgather(&v, 1, MPI_INT, in, 1, MPI_INT, it % 2 ? cring : cdup, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        expect("cartesian ring", in[0], 1000 * it + (me - 1 + N) % N);
        expect("cartesian ring", in[1], 1000 * it + (me + 1) % N);
        if (it % 10 == 9)
            nap_us(1000);   /* stretch the run so that clocks drift apart */
    }
    if (argc > 2 && strcmp(argv[2], "kill") == 0 && me == 1) {
        int r;
        for (int i = 0; i < 200000; i++)   /* enough events for a buffer flush: something survives */
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
        printf("KILLING rank 1\n");
        fflush(stdout);
        kill(getpid(), SIGKILL);
    }
    int total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("mpi_neighbours: %d ranks, %d iterations, %d errors\n", N, iters, total);
    MPI_Comm_free(&cdup);
    MPI_Comm_free(&cring);
    MPI_Comm_free(&gring);
    MPI_Comm_free(&oneway);
    free(index);
    free(edges);
    MPI_Finalize();
    return total ? 1 : 0;
}
