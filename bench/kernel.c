/* kernel.c — a compute-bound MPI program for measuring the tracer's cost
 * on a real workload (issue 13: "run time within 3 % of untraced"): a 2-D
 * Jacobi relaxation, rows dealt out to the ranks, each iteration a halo
 * exchange with both neighbours (MPI_Sendrecv) and the residual summed
 * with MPI_Allreduce, so the program makes a few MPI calls per
 * millisecond of computation, like a stencil code.
 *
 *   mpirun -np P ./kernel N ITERATIONS
 *
 * Rank 0 prints one line: kernel ranks=P n=N iterations=I seconds=S
 * calls_per_rank=C residual=R (R identical traced and untraced). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n, iters;
    if (argc != 3 || parse(argv[1], 8, 1L << 14, &n) != 0 || parse(argv[2], 1, 1L << 30, &iters) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: kernel N ITERATIONS   (N: grid columns and rows per rank, 8..16384)\n");
        MPI_Finalize();
        return 2;
    }
    /* n rows of n columns per rank, plus a halo row above and below. */
    size_t cells = (size_t)(n + 2) * (size_t)n;
    double *u = calloc(cells, sizeof *u), *v = calloc(cells, sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "kernel: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* A fixed source: the top edge of rank 0 is hot. */
    if (rank == 0)
        for (long j = 0; j < n; j++)
            u[j] = v[j] = 1.0;
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    long calls = 0;
    double residual = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        /* Halo rows: my first row goes up, my last row goes down. */
        MPI_Sendrecv(u + n, (int)n, MPI_DOUBLE, up, 0, u + (n + 1) * n, (int)n, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + n * n, (int)n, MPI_DOUBLE, down, 1, u, (int)n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (rank == 0)   /* the hot edge is fixed */
            for (long j = 0; j < n; j++)
                u[j] = 1.0;
        double local = 0.0;
        for (long i = 1; i <= n; i++)
            for (long j = 0; j < n; j++) {
                double left = j > 0 ? u[i * n + j - 1] : 0.0, right = j < n - 1 ? u[i * n + j + 1] : 0.0;
                double x = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + left + right);
                double d = x - u[i * n + j];
                local += d * d;
                v[i * n + j] = x;
            }
        double *t = u;
        u = v;
        v = t;
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        calls += 3;
    }
    double seconds = MPI_Wtime() - t0;
    double slowest;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("kernel ranks=%d n=%ld iterations=%ld seconds=%.6f calls_per_rank=%ld residual=%.17g\n", size, n,
               iters, slowest, calls, residual);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
