/*
 * stencil.c — the synctrace example program: 2-D Jacobi heat diffusion
 * with halo exchange on a Cartesian process grid.
 *
 *   mpirun -np 4 ./stencil [-n N] [-i ITERATIONS]
 *
 *   -n N           edge of the local (per-rank) grid, default 64
 *   -i ITERATIONS  number of Jacobi sweeps, default 200
 *
 * The global domain is (rows * N) x (cols * N) cells, where rows x cols is
 * the process grid from MPI_Dims_create.  The outer boundary is held at 0;
 * a square in the middle of the domain starts at 100 degrees and diffuses.
 *
 * MPI features exercised (so that a trace of this program is interesting):
 *   - MPI_Dims_create, MPI_Cart_create (non-periodic), MPI_Cart_shift
 *   - non-blocking halo exchange: MPI_Irecv / MPI_Isend / MPI_Waitall
 *   - every 10th iteration a blocking variant with MPI_Sendrecv
 *   - a derived datatype (MPI_Type_vector) for the column halos
 *   - MPI_Allreduce of the residual each iteration
 *   - MPI_Reduce + MPI_Bcast + MPI_Gather of per-rank summaries
 *   - MPI_Comm_split into row communicators, MPI_Allreduce on each
 *   - a wildcard receive (MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_STATUS_IGNORE)
 *
 * The output of rank 0 is deterministic for a given (ranks, N, iterations):
 * only order-independent reductions (MPI_MAX, integer sums) are used, and
 * floating-point sums are formed by rank 0 in rank order.  So stdout is
 * byte-for-byte identical with and without a tracer.
 */
#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_N 64
#define DEFAULT_ITERS 200
#define MAX_N 8192
#define MAX_ITERS 100000000L
#define BLOCKING_EVERY 10
#define HOT 100.0

/* Message tags: direction in which the data travels. */
enum { TAG_DOWN = 1, TAG_UP = 2, TAG_RIGHT = 3, TAG_LEFT = 4, TAG_DONE = 99 };

/* Index into a local (n+2) x (n+2) array that includes one halo layer. */
#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(n + 2) + (size_t)(j)])

struct neighbours {
    int up, down, left, right; /* MPI_PROC_NULL at the domain boundary */
};

/* Per-rank summary gathered at rank 0. */
struct summary {
    double sum;     /* sum of the local temperatures */
    long long hot;  /* cells above half the global maximum */
};

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

/* Returns 0 on success, 1 for -h, -1 (with a message in err) on error. */
static int parse_args(int argc, char **argv, int *n, long *iters, char *err, size_t errlen)
{
    for (int a = 1; a < argc; a++) {
        const char *opt = argv[a];
        if (strcmp(opt, "-h") == 0 || strcmp(opt, "--help") == 0)
            return 1;
        if (strcmp(opt, "-n") != 0 && strcmp(opt, "-i") != 0) {
            snprintf(err, errlen, "unknown argument '%s'", opt);
            return -1;
        }
        if (a + 1 >= argc) {
            snprintf(err, errlen, "option %s needs a value", opt);
            return -1;
        }
        const char *val = argv[++a];
        long v;
        if (opt[1] == 'n') {
            if (parse_long(val, 1, MAX_N, &v) != 0) {
                snprintf(err, errlen, "-n: '%s' is not an integer in 1..%d", val, MAX_N);
                return -1;
            }
            *n = (int)v;
        } else {
            if (parse_long(val, 0, MAX_ITERS, &v) != 0) {
                snprintf(err, errlen, "-i: '%s' is not an integer in 0..%ld", val, MAX_ITERS);
                return -1;
            }
            *iters = v;
        }
    }
    return 0;
}

/* Halo exchange with non-blocking point-to-point calls. */
static void exchange_nonblocking(double *u, int n, const struct neighbours *nb,
                                 MPI_Datatype column, MPI_Comm comm)
{
    MPI_Request req[8];
    /* Receive into the four halo strips. */
    MPI_Irecv(&AT(u, 0, 1), n, MPI_DOUBLE, nb->up, TAG_DOWN, comm, &req[0]);
    MPI_Irecv(&AT(u, n + 1, 1), n, MPI_DOUBLE, nb->down, TAG_UP, comm, &req[1]);
    MPI_Irecv(&AT(u, 1, 0), 1, column, nb->left, TAG_RIGHT, comm, &req[2]);
    MPI_Irecv(&AT(u, 1, n + 1), 1, column, nb->right, TAG_LEFT, comm, &req[3]);
    /* Send the outermost interior rows/columns. */
    MPI_Isend(&AT(u, n, 1), n, MPI_DOUBLE, nb->down, TAG_DOWN, comm, &req[4]);
    MPI_Isend(&AT(u, 1, 1), n, MPI_DOUBLE, nb->up, TAG_UP, comm, &req[5]);
    MPI_Isend(&AT(u, 1, n), 1, column, nb->right, TAG_RIGHT, comm, &req[6]);
    MPI_Isend(&AT(u, 1, 1), 1, column, nb->left, TAG_LEFT, comm, &req[7]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
}

/* The same exchange with blocking MPI_Sendrecv, one call per direction. */
static void exchange_blocking(double *u, int n, const struct neighbours *nb,
                              MPI_Datatype column, MPI_Comm comm)
{
    MPI_Sendrecv(&AT(u, n, 1), n, MPI_DOUBLE, nb->down, TAG_DOWN,
                 &AT(u, 0, 1), n, MPI_DOUBLE, nb->up, TAG_DOWN, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, 1, 1), n, MPI_DOUBLE, nb->up, TAG_UP,
                 &AT(u, n + 1, 1), n, MPI_DOUBLE, nb->down, TAG_UP, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, 1, n), 1, column, nb->right, TAG_RIGHT,
                 &AT(u, 1, 0), 1, column, nb->left, TAG_RIGHT, comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, 1, 1), 1, column, nb->left, TAG_LEFT,
                 &AT(u, 1, n + 1), 1, column, nb->right, TAG_LEFT, comm, MPI_STATUS_IGNORE);
}

/* One Jacobi sweep from u into v; returns the largest change of a cell. */
static double jacobi_sweep(const double *u, double *v, int n)
{
    double maxdiff = 0.0;
    for (int i = 1; i <= n; i++) {
        for (int j = 1; j <= n; j++) {
            double x = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1));
            double d = fabs(x - AT(u, i, j));
            if (d > maxdiff)
                maxdiff = d;
            AT(v, i, j) = x;
        }
    }
    return maxdiff;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    /* Every rank parses the same command line; only rank 0 complains. */
    int n = DEFAULT_N;
    long iters = DEFAULT_ITERS;
    char err[256];
    int rc = parse_args(argc, argv, &n, &iters, err, sizeof err);
    if (rc != 0) {
        if (world_rank == 0) {
            if (rc > 0)
                printf("usage: %s [-n N (local grid edge, default %d)] [-i iterations, default %d]\n",
                       argv[0], DEFAULT_N, DEFAULT_ITERS);
            else
                fprintf(stderr, "stencil: %s (usage: stencil [-n N] [-i iterations])\n", err);
        }
        MPI_Finalize();
        return rc > 0 ? 0 : 2;
    }

    /* Process grid: rows x cols, non-periodic, ranks not reordered. */
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    MPI_Dims_create(world_size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int rank;
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);

    struct neighbours nb;
    MPI_Cart_shift(cart, 0, 1, &nb.up, &nb.down);
    MPI_Cart_shift(cart, 1, 1, &nb.left, &nb.right);

    /* A column of the local interior: n doubles, stride n+2. */
    MPI_Datatype column;
    MPI_Type_vector(n, 1, n + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    /* Two (n+2)^2 arrays; halos at the domain boundary stay 0. */
    size_t cells = (size_t)(n + 2) * (size_t)(n + 2);
    double *u = calloc(cells, sizeof *u);
    double *v = calloc(cells, sizeof *v);
    if (u == NULL || v == NULL) {
        fprintf(stderr, "stencil: rank %d: out of memory\n", world_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Initial condition: the middle half (in each direction) of the global
     * domain is hot.  Global cell (gi, gj), 0-based. */
    long grows = (long)dims[0] * n, gcols = (long)dims[1] * n;
    for (int i = 1; i <= n; i++) {
        long gi = (long)coords[0] * n + (i - 1);
        for (int j = 1; j <= n; j++) {
            long gj = (long)coords[1] * n + (j - 1);
            int hot = 4 * gi >= grows && 4 * gi < 3 * grows && 4 * gj >= gcols && 4 * gj < 3 * gcols;
            AT(u, i, j) = hot ? HOT : 0.0;
        }
    }

    /* Main loop. */
    double residual = 0.0;
    for (long it = 1; it <= iters; it++) {
        if (it % BLOCKING_EVERY == 0)
            exchange_blocking(u, n, &nb, column, cart);
        else
            exchange_nonblocking(u, n, &nb, column, cart);
        double local = jacobi_sweep(u, v, n);
        /* MPI_MAX is exact and order-independent: deterministic output. */
        MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_MAX, cart);
        double *t = u;
        u = v;
        v = t;
    }

    /* Summaries: global maximum (Reduce to 0, then Bcast to all), per-rank
     * count of cells above half of it, gathered at rank 0 with the sums. */
    double local_max = 0.0;
    struct summary mine = {0.0, 0};
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            if (AT(u, i, j) > local_max)
                local_max = AT(u, i, j);
    double global_max = 0.0;
    MPI_Reduce(&local_max, &global_max, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
    MPI_Bcast(&global_max, 1, MPI_DOUBLE, 0, cart);
    for (int i = 1; i <= n; i++) {
        for (int j = 1; j <= n; j++) {
            mine.sum += AT(u, i, j);
            if (AT(u, i, j) > 0.5 * global_max)
                mine.hot++;
        }
    }

    /* Gather the two fields as a derived struct type. */
    MPI_Datatype summary_type;
    int blocklens[2] = {1, 1};
    MPI_Aint displs[2] = {offsetof(struct summary, sum), offsetof(struct summary, hot)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_LONG_LONG};
    MPI_Type_create_struct(2, blocklens, displs, types, &summary_type);
    MPI_Type_commit(&summary_type);
    struct summary *all = NULL;
    if (rank == 0) {
        all = malloc((size_t)world_size * sizeof *all);
        if (all == NULL) {
            fprintf(stderr, "stencil: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Gather(&mine, 1, summary_type, all, 1, summary_type, 0, cart);

    /* Row communicators: total hot cells per process row. */
    MPI_Comm row;
    MPI_Comm_split(cart, coords[0], coords[1], &row);
    long long row_hot = 0;
    MPI_Allreduce(&mine.hot, &row_hot, 1, MPI_LONG_LONG, MPI_SUM, row);

    /* Everyone reports "done" to rank 0 with its row total; rank 0 accepts
     * them in any order.  Summed over all ranks this is cols * total. */
    long long reported = 0;
    if (rank == 0) {
        reported = row_hot;
        for (int k = 1; k < world_size; k++) {
            long long r;
            MPI_Recv(&r, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, cart, MPI_STATUS_IGNORE);
            reported += r;
        }
    } else {
        MPI_Send(&row_hot, 1, MPI_LONG_LONG, 0, TAG_DONE, cart);
    }

    if (rank == 0) {
        double checksum = 0.0;
        long long hot = 0;
        for (int k = 0; k < world_size; k++) { /* fixed order: deterministic */
            checksum += all[k].sum;
            hot += all[k].hot;
        }
        printf("stencil: %d ranks as %d x %d grid, global grid %ld x %ld (local %d x %d)\n",
               world_size, dims[0], dims[1], grows, gcols, n, n);
        printf("iterations: %ld (blocking exchange every %d)\n", iters, BLOCKING_EVERY);
        printf("final residual: %.6e\n", residual);
        printf("max temperature: %.6e\n", global_max);
        printf("checksum: %.10e\n", checksum);
        printf("hot cells: %lld (row check %s)\n", hot,
               reported == (long long)dims[1] * hot ? "ok" : "FAILED");
        free(all);
    }

    MPI_Comm_free(&row);
    MPI_Type_free(&summary_type);
    MPI_Type_free(&column);
    MPI_Comm_free(&cart);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
