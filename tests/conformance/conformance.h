/* conformance.h — helpers shared by the conformance corpus (one MPI
 * situation per program, run by tests/test-conformance.sh).
 *
 * Every program folds what it receives into a per-rank checksum and ends
 * with cf_finish(), which prints one deterministic line per rank on rank 0's
 * stdout. Every point-to-point message the program sends is announced with
 * cf_expect(world sender, world receiver) in the side file named by
 * $CONFORMANCE_PEERS (one file per rank: PREFIX.RANK), so that an
 * independent reader can check that each message of the merged archive
 * points at the right world ranks; cf_expect_record() announces other
 * things the merged archive must hold (names, windows, RMA operations,
 * topologies). Header-only: each program is one file. */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cf_rank, cf_size;
static uint64_t cf_sum = 1469598103934665603ULL;   /* FNV-1a over received bytes */
static FILE *cf_peers;

static inline void cf_fail(const char *what)
{
    printf("FAIL %s (world rank %d)\n", what, cf_rank);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void cf_init(int *argc, char ***argv, int need)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &cf_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cf_size);
    if (cf_size != need)
        cf_fail("wrong number of ranks");
    const char *p = getenv("CONFORMANCE_PEERS");
    if (p && *p) {
        char name[4096];
        snprintf(name, sizeof name, "%s.%d", p, cf_rank);
        cf_peers = fopen(name, "w");
        if (!cf_peers)
            cf_fail("cannot write $CONFORMANCE_PEERS");
    }
}

/* Fold `n` bytes into this rank's checksum. */
static inline void cf_fold(const void *buf, size_t n)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++) {
        cf_sum ^= b[i];
        cf_sum *= 1099511628211ULL;
    }
}

static inline void cf_fold_ints(const int *v, size_t n) { cf_fold(v, n * sizeof *v); }

/* A message from world rank `from` to world rank `to` will be sent. */
static inline void cf_expect(int from, int to)
{
    if (cf_peers)
        fprintf(cf_peers, "%d %d\n", from, to);
}

/* The merged archive must hold `what` (a line for the checker: "name S",
 * "window", "put", "get", "cart"). */
static inline void cf_expect_record(const char *what)
{
    if (cf_peers)
        fprintf(cf_peers, "%s\n", what);
}

/* World rank of rank `r` of communicator `comm` (of its remote group on an
 * intercommunicator). */
static inline int cf_world_of(MPI_Comm comm, int r)
{
    int inter, w;
    MPI_Group g, wg;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_group(comm, &g);
    else
        MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &r, wg, &w);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return w;
}

/* The merged archive must hold this rank's one-sided operation on window
 * `win` (its name) to rank `target` of `comm`, `kind` put, get or the OTF2
 * atomic type (accumulate, fetch_and_accumulate, compare_and_swap). */
static inline void cf_expect_rma(const char *win, const char *kind, MPI_Comm comm, int target, int sent,
                                 int received)
{
    char line[200];
    snprintf(line, sizeof line, "rma %s %s %d %d %d", win, kind, cf_world_of(comm, target), sent, received);
    cf_expect_record(line);
}

/* ... and its lock request on rank `target` of `comm` (< 0: MPI_Win_lock_all). */
static inline void cf_expect_lock(const char *win, MPI_Comm comm, int target, const char *type)
{
    char line[200], who[16] = "all";
    if (target >= 0)
        snprintf(who, sizeof who, "%d", cf_world_of(comm, target));
    snprintf(line, sizeof line, "lock %s %s %s", win, who, type);
    cf_expect_record(line);
}

/* Sleep `ms` milliseconds: makes one rank late, deterministically in order
 * (the outputs never depend on it). */
static inline void cf_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Keep this rank busy for `ms` milliseconds (a user-defined reduction that
 * takes time: a sleep would let Open MPI's progress run meanwhile). */
static inline void cf_spin_ms(double ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double until = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 + ms;
    do
        clock_gettime(CLOCK_MONOTONIC, &ts);
    while ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 < until);
}

/* Fill `v` with values that depend on the rank, the round and the index. */
static inline void cf_fill(int *v, int n, int round)
{
    for (int i = 0; i < n; i++)
        v[i] = cf_rank * 1000 + round * 37 + i;
}

static inline void cf_finish(void)
{
    unsigned long long mine = cf_sum, *all = NULL;
    if (cf_rank == 0 && !(all = malloc(sizeof *all * (size_t)cf_size)))
        cf_fail("out of memory");
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (cf_rank == 0) {
        for (int r = 0; r < cf_size; r++)
            printf("rank %d checksum %016llx\n", r, all[r]);
        free(all);
    }
    if (cf_peers)
        fclose(cf_peers);
    MPI_Finalize();
}
#endif
