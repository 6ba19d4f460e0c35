/* gen.c — `synctrace-gen OUT_DIR --ranks P ...`: a synthetic raw trace,
 * written exactly as libsynctrace.so writes one, for P simulated ranks whose
 * clocks are known. It lets the merge be tested and benchmarked at scales no
 * test machine can run, against ground truth.
 *
 * Time. The simulation runs on one ideal clock: true time t, integer ns from
 * the start of the run. A true instant is recorded as the tracer records it
 * with SYNCTRACE_SKEW:
 *     raw       = round((T0 + t) * resolution / 1e9)     (the true_time attribute)
 *     recorded  = raw + off_ticks + floor(drift_fp * (raw - origin) / 2^32)
 * with origin = raw at t = 0, off_ticks = round(offset_us * 1e-6 * resolution),
 * drift_fp = round(drift_ppm * 1e-6 * 2^32): the same integer arithmetic as
 * src/clock.c, so recorded ~ (T0 + t + offset + drift * t) * resolution / 1e9.
 * With --drift-slope S the drift itself changes at a node's slope w (uniform
 * in +-S ppm per second), as a warming node's does, adding
 * floor(w/2 * (raw - origin)^2 / resolution) ticks: then no single drift
 * fits the run, and drift must be estimated between sync rounds.
 * Ranks r with the same r / R (--ranks-per-node R) share a node and so one
 * clock; a node's offset and drift are drawn from (seed, node) the way
 * src/clock.c draws a rank's (with R = 1, `--seed S` gives every rank the
 * skew SYNCTRACE_SKEW=seed=S,... would).
 *
 * Execution. Iteration-synchronous phases with exact causality: per
 * iteration every rank computes (exponential duration), then communicates by
 * the pattern. Message latency is MIN + exponential(MEAN - MIN). A receive
 * completes at max(post, send + latency); collectives complete per their
 * semantics (all-to-all kinds: every exit after the last entry + latency;
 * reduce: the root after every entry, through a binomial tree; bcast: every
 * exit after the root's entry, through a binomial tree). Events carry the
 * timestamps the tracer gives them: sends and posts at the call's entry,
 * receives and completions at its exit.
 *
 * Clock synchronisation rounds, as src/sync.c runs them: at MPI_Init, at
 * MPI_Finalize and (--sync-rounds K > 2) K - 2 more spread evenly over the
 * iterations, each inside an MPI_Barrier as the periodic rounds run inside a
 * world collective. The lowest ranks of the clock domains walk the binomial
 * tree of common/sync_tree.h, 20 ping-pongs per edge on the
 * communicator "synctrace sync" (tag 7117); every rank then gets the
 * ClockOffset definitions src/sync.c computes (the same estimator and
 * composition, common/offset_estimate.c).
 *
 * Memory. Events are simulated into a file-backed map (an unlinked file in
 * OUT_DIR, one fixed-size region per rank, sized in advance), then written
 * one archive at a time through bounded OTF2 buffers. */
#include "defs_write.h"
#include "meta_write.h"
#include "members.h"
#include "fsutil.h"
#include "rawformat.h"
#include "offset_estimate.h"
#include "sync_tree.h"
#include "skew.h"
#include "timing.h"
#include "sumfile.h"
#include "otf2_memory.h"
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 10000
#define SYNC_TAG RF_SYNC_TAG
#define SYNC_ROUNDS 20                    /* ping-pongs per peer, as SYNCTRACE_SYNC_ROUNDS defaults */
#define T0_NS 2000000000000ULL            /* true time 0 is 2000 s "since boot" */
#define MAX_OFFSET_US 1e9                 /* src/clock.c's limits */
#define MAX_DRIFT_PPM 100000.0
#define EVT_BUDGET (16u << 20)            /* OTF2 event chunk memory per archive */
#define META_BUFFER_BYTES 16777216

enum pattern { P_RING, P_STENCIL2D, P_STENCIL3D, P_TREE, P_ALLTOALL, P_RANDOM, P_COUNT };
static const char *pattern_names[P_COUNT] = { "ring", "stencil2d", "stencil3d", "tree", "alltoall", "random" };

struct config {
    const char *out;
    int ranks, ranks_per_node, sync_rounds;
    enum pattern pattern;
    uint64_t iterations, seed, lat_min, lat_mean;
    double offset_us, drift_ppm, compute_us, resolution;
    double drift_slope;       /* ppm per second, --drift-slope */
    int no_true_time;         /* --no-true-time: events as a real run writes them */
    uint64_t flush_every;     /* --flush-every N: a BufferFlush record (no true_time) before every N-th event */
};

/* ---------- errors ---------- */

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    fputs("synctrace-gen: ", stderr);
    vfprintf(stderr, fmt, va);
    fputc('\n', stderr);
    va_end(va);
    exit(code);
}

/* ---------- random numbers ---------- */


static uint64_t rng_s[4];   /* xoshiro256** for the simulation */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(void)
{
    uint64_t result = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return result;
}

static double rng_unit(void)   /* [0, 1) */
{
    return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t rng_exp(double mean)
{
    return mean > 0 ? (uint64_t)llround(-mean * log1p(-rng_unit())) : 0;
}

static uint64_t rng_between(uint64_t lo, uint64_t hi)   /* [lo, hi] */
{
    return lo + rng_next() % (hi - lo + 1);
}

/* ---------- the model ---------- */

static struct config C;
static int P, R, nnodes;
static uint64_t latency_extra_mean;

static uint64_t latency(void) { return C.lat_min + rng_exp((double)latency_extra_mean); }
static uint64_t overhead(void) { return rng_between(100, 300); }    /* inside an MPI call */
static uint64_t gap(void) { return rng_between(20, 80); }           /* between two calls */
static uint64_t compute(void) { return rng_exp(C.compute_us * 1000.0); }

/* Per node clock, src/clock.c's arithmetic. */
struct node_clock {
    double offset_us, drift_ppm;
    int64_t off_ticks, drift_fp;
    long double slope;        /* change of drift per tick, over 2 (--drift-slope) */
};
static struct node_clock *clocks;
static uint64_t origin_ticks;   /* raw ticks at t = 0 */

static uint64_t raw_ticks(uint64_t t)
{
    if (C.resolution == 1e9)
        return T0_NS + t;
    return (uint64_t)llroundl(((long double)T0_NS + (long double)t) * (long double)C.resolution / 1e9L);
}

static uint64_t recorded_ticks(int node, uint64_t raw)
{
    const struct node_clock *c = &clocks[node];
    uint64_t t = st_skew_apply(raw, origin_ticks, c->off_ticks, c->drift_fp);
    if (c->slope != 0) {
        long double d = (long double)(int64_t)(raw - origin_ticks);
        t += (uint64_t)(int64_t)floorl(c->slope * d * d);
    }
    return t;
}

static void setup_clocks(void)
{
    clocks = calloc((size_t)nnodes, sizeof *clocks);
    if (!clocks)
        die(1, "out of memory");
    origin_ticks = raw_ticks(0);
    for (int n = 0; n < nnodes; n++) {
        st_skew_draw(C.seed, (uint32_t)n, C.offset_us, C.drift_ppm, &clocks[n].offset_us, &clocks[n].drift_ppm);
        clocks[n].off_ticks = llround(clocks[n].offset_us * 1e-6 * C.resolution);
        clocks[n].drift_fp = st_skew_drift_fp(clocks[n].drift_ppm);
        if (C.drift_slope > 0) {
            /* its own stream, so the offsets and drifts stay those of SYNCTRACE_SKEW */
            uint64_t st = C.seed ^ 0x736c6f7065ull;
            st = st_splitmix64(&st) ^ (uint64_t)n;
            double w = st_unit_signed(st_splitmix64(&st)) * C.drift_slope * 1e-6;   /* per second */
            clocks[n].slope = (long double)w / 2 / (long double)C.resolution;
        }
    }
}

static int node_of(int r) { return r / R; }
static int domain_of(int r) { return node_of(r) * R; }
/* Clock domains are the nodes: domain index d is node d, represented by its
 * lowest rank d * R, and the sync tree (sync_tree.h) is over them. */
static int ndomains(void) { return (P + R - 1) / R; }
static int is_sync_rep(int r) { return domain_of(r) == r; }

/* ---------- event storage ---------- */

enum kind { E_ENTER, E_LEAVE, E_SEND, E_RECV, E_ISEND, E_ISEND_COMPLETE, E_IRECV_REQUEST, E_IRECV,
            E_COLL_BEGIN, E_COLL_END };
enum region { R_INIT, R_FINALIZE, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAITALL, R_BARRIER, R_BCAST,
              R_REDUCE, R_ALLTOALL, R_SYNC, R_COUNT };
static const struct { const char *name; OTF2_RegionRole role; } regions[R_COUNT] = {
    { "MPI_Init", OTF2_REGION_ROLE_FUNCTION },
    { "MPI_Finalize", OTF2_REGION_ROLE_FUNCTION },
    { "MPI_Send", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Recv", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Isend", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Irecv", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Waitall", OTF2_REGION_ROLE_POINT2POINT },
    { "MPI_Barrier", OTF2_REGION_ROLE_BARRIER },
    { "MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL },
    { "MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE },
    { "MPI_Alltoall", OTF2_REGION_ROLE_COLL_ALL2ALL },
    { RF_REGION_SYNC_NAME, OTF2_REGION_ROLE_ARTIFICIAL },
};
enum { COMM_WORLD = 0, COMM_SYNC = 1 };

struct ev {
    uint64_t t;        /* true ns */
    uint32_t a;        /* region, peer (world rank = comm rank), or collective op */
    uint32_t req;      /* request id; collectives: root */
    uint16_t tag;
    uint8_t kind;
    uint8_t comm;
};

static struct ev *events;
static size_t map_bytes;
static uint64_t *ev_base, *ev_count, total_events;
static uint64_t *req_next;
static uint64_t n_messages, n_collectives;

static void emit(int r, enum kind k, uint64_t t, uint32_t a, uint16_t tag, uint32_t req, uint8_t comm)
{
    uint64_t i = ev_base[r] + ev_count[r];
    if (i >= ev_base[r + 1])
        die(3, "internal error: rank %d emits more events than planned", r);
    if (ev_count[r] && t < events[i - 1].t)
        die(3, "internal error: rank %d: event %" PRIu64 " goes back in time", r, ev_count[r]);
    events[i] = (struct ev){ t, a, req, tag, (uint8_t)k, comm };
    ev_count[r]++;
}

static void enter(int r, uint64_t t, enum region g) { emit(r, E_ENTER, t, g, 0, 0, 0); }
static void leave(int r, uint64_t t, enum region g) { emit(r, E_LEAVE, t, g, 0, 0, 0); }

/* ---------- the stencil grid ---------- */

static int dims[3] = { 1, 1, 1 };
static int ndirs, dirs[6];              /* live directions: 2 per dimension of size > 1 */
static int neighbour[6];                /* scratch */

static int largest_divisor_upto(int n, double limit)
{
    int best = 1;
    for (int d = 1; d <= n && d <= (int)(limit + 1e-9); d++)
        if (n % d == 0)
            best = d;
    return best;
}

static void setup_grid(void)
{
    int n = P;
    if (C.pattern == P_STENCIL3D) {
        dims[2] = largest_divisor_upto(n, cbrt((double)n));
        n /= dims[2];
    }
    if (C.pattern == P_STENCIL2D || C.pattern == P_STENCIL3D) {
        dims[1] = largest_divisor_upto(n, sqrt((double)n));
        dims[0] = n / dims[1];
        for (int d = 0; d < 3; d++)
            if (dims[d] > 1) {
                dirs[ndirs++] = 2 * d;
                dirs[ndirs++] = 2 * d + 1;
            }
    }
}

/* neighbour of r in direction dir (2d: minus along d, 2d+1: plus), periodic */
static int grid_neighbour(int r, int dir)
{
    int c[3] = { r % dims[0], r / dims[0] % dims[1], r / (dims[0] * dims[1]) };
    int d = dir / 2;
    c[d] = (c[d] + (dir & 1 ? 1 : dims[d] - 1)) % dims[d];
    return c[0] + dims[0] * (c[1] + dims[1] * c[2]);
}

/* ---------- planning: events per rank ---------- */


static uint64_t per_iteration(void)
{
    switch (C.pattern) {
    case P_RING:
    case P_RANDOM:
        return 6;                          /* Send: ENTER SEND LEAVE; Recv: ENTER RECV LEAVE */
    case P_STENCIL2D:
    case P_STENCIL3D:
        return 8 * (uint64_t)ndirs + 2;    /* 3 per Irecv, 3 per Isend, Waitall 2 + 1 per request */
    case P_TREE:
        return 8;                          /* Reduce and Bcast: ENTER BEGIN END LEAVE */
    case P_ALLTOALL:
        return 4;
    default:
        return 0;
    }
}

/* A representative's events in one round: Enter, Leave and a ping-pong
 * (two events) per sample with its parent and each child. */
static uint64_t sync_events(int r)
{
    if (!is_sync_rep(r))
        return 0;
    int d = node_of(r);
    return 2 + 2 * (uint64_t)SYNC_ROUNDS * (uint64_t)(st_tree_nchildren(d, ndomains()) + (d > 0));
}

static int middle_rounds(void) { return C.sync_rounds > 2 ? C.sync_rounds - 2 : 0; }

static void plan_storage(void)
{
    ev_base = calloc((size_t)P + 1, sizeof *ev_base);
    ev_count = calloc((size_t)P, sizeof *ev_count);
    req_next = malloc(sizeof *req_next * (size_t)P);
    if (!ev_base || !ev_count || !req_next)
        die(1, "out of memory");
    for (int r = 0; r < P; r++) {
        uint64_t n = 4 + C.iterations * per_iteration() + 4 * (uint64_t)middle_rounds()
                     + (uint64_t)C.sync_rounds * sync_events(r);
        ev_base[r + 1] = ev_base[r] + n;
        req_next[r] = 1;
    }
    total_events = ev_base[P];
    map_bytes = (size_t)total_events * sizeof *events;
    char path[4200];
    snprintf(path, sizeof path, "%s/.synctrace-gen-%ld.tmp", C.out, (long)getpid());
    FILE *f = fopen(path, "w+");
    if (!f)
        die(1, "%s: %s", path, strerror(errno));
    unlink(path);
    if (ftruncate(fileno(f), (off_t)map_bytes) != 0)
        die(1, "%s: cannot reserve %zu bytes for %" PRIu64 " events: %s", C.out, map_bytes, total_events,
            strerror(errno));
    events = mmap(NULL, map_bytes ? map_bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fileno(f), 0);
    fclose(f);
    if (events == MAP_FAILED)
        die(1, "cannot map %zu bytes of event storage: %s", map_bytes, strerror(errno));
}

/* ---------- clock synchronisation: src/sync.c's estimator ---------- */

struct epoch {
    uint64_t ref_time;          /* rank 0's recorded clock at the round */
    uint64_t true_start;
    uint64_t true_length;       /* first representative's entry to the last one's exit */
    uint64_t edge_true_sum;     /* the edges' exchanges, added up: what a star would serialise */
    struct estimate *est;       /* per domain: its offset to rank 0's, composed along the tree */
};
static struct epoch *epochs;
static int nepochs;

/* The samples of one tree edge: parent domain d pings child c. cur[x] is
 * when domain x's representative is free; both move past the exchange.
 * Returns the edge's estimate (child clock + offset = parent clock). */
static struct estimate sync_edge(int d, int c, uint64_t *cur)
{
    int p = d * R, q = c * R;
    struct sample s[SYNC_ROUNDS];
    uint64_t at = cur[d], posted = cur[c];
    uint64_t begin = at > posted ? at : posted;
    for (int k = 0; k < SYNC_ROUNDS; k++) {
        uint64_t t1 = at;
        emit(p, E_SEND, t1, (uint32_t)q, SYNC_TAG, 0, COMM_SYNC);
        uint64_t arrival = t1 + latency();
        uint64_t t2 = (arrival > posted ? arrival : posted) + rng_between(30, 120);
        emit(q, E_RECV, t2, (uint32_t)p, SYNC_TAG, 0, COMM_SYNC);
        uint64_t t3 = t2 + rng_between(20, 80);
        emit(q, E_SEND, t3, (uint32_t)p, SYNC_TAG, 0, COMM_SYNC);
        uint64_t back = t3 + latency(), t4 = (back > t1 ? back : t1) + rng_between(30, 120);
        emit(p, E_RECV, t4, (uint32_t)q, SYNC_TAG, 0, COMM_SYNC);
        s[k] = (struct sample){ recorded_ticks(d, raw_ticks(t1)), recorded_ticks(c, raw_ticks(t2)),
                                recorded_ticks(c, raw_ticks(t3)), recorded_ticks(d, raw_ticks(t4)) };
        posted = t3 + gap();
        at = t4 + gap();
        n_messages += 2;
    }
    cur[d] = at;
    cur[c] = posted + gap();
    epochs[nepochs - 1].edge_true_sum += at - begin;
    return estimate_offset(s, SYNC_ROUNDS, C.resolution, C.resolution);
}

/* One round, as src/sync.c runs it: the representatives walk the tree step
 * by step. ready[r]: when representative r enters the sync region; done[r]
 * is set to when it leaves it. cur: per domain scratch. */
static void sync_round(const uint64_t *ready, uint64_t *done, uint64_t *cur)
{
    struct epoch *e = &epochs[nepochs++];
    int m = ndomains();
    e->true_start = ready[0];
    e->ref_time = recorded_ticks(0, raw_ticks(ready[0]));
    for (int d = 0; d < m; d++) {
        enter(d * R, ready[d * R], R_SYNC);
        cur[d] = ready[d * R] + gap();
    }
    /* edges first (e->est[c] holds c's edge), then composed in index order:
     * a parent's index is below its children's */
    for (int l = 0; l < st_tree_steps(m); l++)
        for (int d = 0; d < m && d < (1 << l); d++) {
            int c = st_tree_child(d, l, m);
            if (c >= 0)
                e->est[c] = sync_edge(d, c, cur);
        }
    e->est[0] = (struct estimate){ .peer_time = e->ref_time };
    for (int d = 1; d < m; d++)
        e->est[d] = estimate_compose(e->est[d], e->est[st_tree_parent(d)]);
    uint64_t first = UINT64_MAX, last = 0;
    for (int d = 0; d < m; d++) {
        done[d * R] = cur[d];
        leave(d * R, cur[d], R_SYNC);
        first = ready[d * R] < first ? ready[d * R] : first;
        last = cur[d] > last ? cur[d] : last;
    }
    e->true_length = last - first;
}

/* ---------- simulation ---------- */

static uint64_t *now_t;              /* per rank: when it is free */
static uint64_t *tmp_a, *tmp_b, *tmp_c;   /* per rank scratch */
static uint64_t *dom_cur;            /* per clock domain scratch of the sync rounds */
static uint64_t *sendtime;           /* [rank][6] for the stencils */
static int *perm;
static uint64_t true_span;

static int is_participant(int r) { return is_sync_rep(r); }

static void coll_end(int r, uint64_t t, OTF2_CollectiveOp op, uint32_t root)
{
    emit(r, E_COLL_END, t, (uint32_t)op, 0, root, COMM_WORLD);
}

/* All-to-all completion: every exit after the last entry plus a latency. */
static void all_to_all(const uint64_t *in, uint64_t *out, uint64_t per_rank_cost)
{
    uint64_t last = 0;
    for (int r = 0; r < P; r++)
        if (in[r] > last)
            last = in[r];
    for (int r = 0; r < P; r++) {
        uint64_t t = last + (P > 1 ? latency() : 0);
        out[r] = (t > in[r] ? t : in[r]) + overhead() + per_rank_cost * (uint64_t)P;
    }
}

static void iterate_p2p_blocking(uint64_t it)
{
    /* ring: to r+1, from r-1; random: a random single-cycle permutation
     * (Sattolo), received with MPI_ANY_SOURCE and a per-iteration tag, so
     * that each receive can only match this iteration's one message. */
    uint16_t tag = 1;
    if (C.pattern == P_RANDOM) {
        for (int r = 0; r < P; r++)
            perm[r] = r;
        for (int i = P - 1; i > 0; i--) {
            int j = (int)(rng_next() % (uint64_t)i);
            int t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        tag = (uint16_t)(it % 32768);
    }
    for (int r = 0; r < P; r++) {
        int dst = C.pattern == P_RING ? (r + 1) % P : perm[r];
        uint64_t t = now_t[r] + compute();
        enter(r, t, R_SEND);
        emit(r, E_SEND, t, (uint32_t)dst, tag, 0, COMM_WORLD);
        tmp_a[dst] = t;                         /* the message for dst left at t */
        tmp_c[dst] = (uint64_t)r;               /* from r */
        t += overhead();
        leave(r, t, R_SEND);
        t += gap();
        enter(r, t, R_RECV);
        tmp_b[r] = t;                           /* receive posted */
    }
    for (int r = 0; r < P; r++) {
        uint64_t arrival = tmp_a[r] + latency(), posted = tmp_b[r] + overhead();
        uint64_t t = (arrival > posted ? arrival : posted) + rng_between(30, 120);
        emit(r, E_RECV, t, (uint32_t)tmp_c[r], tag, 0, COMM_WORLD);
        leave(r, t, R_RECV);
        now_t[r] = t;
    }
    n_messages += (uint64_t)P;
}

static void iterate_stencil(void)
{
    for (int r = 0; r < P; r++) {
        uint64_t t = now_t[r] + compute();
        uint32_t base = (uint32_t)req_next[r];
        for (int i = 0; i < ndirs; i++) {       /* Irecv: the message travelling in direction dirs[i] */
            enter(r, t, R_IRECV);
            emit(r, E_IRECV_REQUEST, t, 0, 0, (uint32_t)req_next[r]++, COMM_WORLD);
            t += overhead();
            leave(r, t, R_IRECV);
            t += gap();
        }
        for (int i = 0; i < ndirs; i++) {
            int d = dirs[i];
            enter(r, t, R_ISEND);
            emit(r, E_ISEND, t, (uint32_t)grid_neighbour(r, d), (uint16_t)d, (uint32_t)req_next[r]++, COMM_WORLD);
            sendtime[(size_t)r * 6 + (size_t)d] = t;
            t += overhead();
            leave(r, t, R_ISEND);
            t += gap();
        }
        enter(r, t, R_WAITALL);
        tmp_a[r] = t;
        tmp_b[r] = base;
    }
    for (int r = 0; r < P; r++) {
        uint64_t done = tmp_a[r] + overhead();
        for (int i = 0; i < ndirs; i++) {
            int d = dirs[i], src = grid_neighbour(r, d ^ 1);
            neighbour[i] = src;
            uint64_t arrival = sendtime[(size_t)src * 6 + (size_t)d] + latency();
            if (arrival > done)
                done = arrival;
        }
        done += rng_between(30, 120);
        uint32_t base = (uint32_t)tmp_b[r];
        for (int i = 0; i < ndirs; i++)
            emit(r, E_IRECV, done, (uint32_t)neighbour[i], (uint16_t)dirs[i], base + (uint32_t)i, COMM_WORLD);
        for (int i = 0; i < ndirs; i++)
            emit(r, E_ISEND_COMPLETE, done, 0, 0, base + (uint32_t)(ndirs + i), COMM_WORLD);
        leave(r, done, R_WAITALL);
        now_t[r] = done;
    }
    n_messages += (uint64_t)P * (uint64_t)ndirs;
}

/* Binomial tree rooted at 0: parent(v) clears v's lowest set bit. */
static void iterate_tree(void)
{
    /* MPI_Reduce to 0: a node forwards once its own entry and all its
     * children's contributions are in. */
    for (int r = 0; r < P; r++) {
        uint64_t t = now_t[r] + compute();
        enter(r, t, R_REDUCE);
        emit(r, E_COLL_BEGIN, t, 0, 0, 0, COMM_WORLD);
        tmp_a[r] = t;
        tmp_b[r] = 0;   /* latest child contribution arrival */
    }
    for (int v = P - 1; v >= 0; v--) {
        uint64_t ready = tmp_a[v] + overhead();
        if (tmp_b[v] > ready)
            ready = tmp_b[v];
        ready += rng_between(30, 120);
        tmp_c[v] = ready;
        if (v > 0) {
            int parent = v & (v - 1);
            uint64_t arrival = ready + latency();
            if (arrival > tmp_b[parent])
                tmp_b[parent] = arrival;
        }
    }
    for (int r = 0; r < P; r++) {
        uint64_t t = tmp_c[r];
        coll_end(r, t, OTF2_COLLECTIVE_OP_REDUCE, 0);
        leave(r, t, R_REDUCE);
        t += gap();
        enter(r, t, R_BCAST);
        emit(r, E_COLL_BEGIN, t, 0, 0, 0, COMM_WORLD);
        tmp_a[r] = t;
    }
    /* MPI_Bcast from 0: a node has the data once it entered and its parent
     * had it, plus a latency. */
    for (int v = 0; v < P; v++) {
        uint64_t have = tmp_a[v] + overhead();
        if (v > 0) {
            uint64_t arrival = tmp_c[v & (v - 1)] + latency();
            if (arrival > have)
                have = arrival;
        }
        tmp_c[v] = have + rng_between(30, 120);
    }
    for (int r = 0; r < P; r++) {
        coll_end(r, tmp_c[r], OTF2_COLLECTIVE_OP_BCAST, 0);
        leave(r, tmp_c[r], R_BCAST);
        now_t[r] = tmp_c[r];
    }
    n_collectives += 2;
}

static void iterate_alltoall(void)
{
    for (int r = 0; r < P; r++) {
        uint64_t t = now_t[r] + compute();
        enter(r, t, R_ALLTOALL);
        emit(r, E_COLL_BEGIN, t, 0, 0, 0, COMM_WORLD);
        tmp_a[r] = t;
    }
    all_to_all(tmp_a, tmp_b, 5);
    for (int r = 0; r < P; r++) {
        coll_end(r, tmp_b[r], OTF2_COLLECTIVE_OP_ALLTOALL, OTF2_UNDEFINED_UINT32);
        leave(r, tmp_b[r], R_ALLTOALL);
        now_t[r] = tmp_b[r];
    }
    n_collectives++;
}

/* A periodic round, inside a world MPI_Barrier as the tracer runs it. */
static void middle_round(void)
{
    for (int r = 0; r < P; r++) {
        uint64_t t = now_t[r] + gap();
        enter(r, t, R_BARRIER);
        emit(r, E_COLL_BEGIN, t, 0, 0, 0, COMM_WORLD);
        tmp_a[r] = t;
    }
    all_to_all(tmp_a, tmp_b, 0);
    for (int r = 0; r < P; r++) {
        coll_end(r, tmp_b[r], OTF2_COLLECTIVE_OP_BARRIER, OTF2_UNDEFINED_UINT32);
        tmp_a[r] = tmp_b[r] + rng_between(200, 2000);   /* rank 0's decision, broadcast */
    }
    sync_round(tmp_a, tmp_c, dom_cur);
    for (int r = 0; r < P; r++) {
        uint64_t t = is_participant(r) ? tmp_c[r] + gap() : tmp_b[r];
        leave(r, t, R_BARRIER);
        now_t[r] = t;
    }
    n_collectives++;
}

static void simulate(void)
{
    now_t = malloc(sizeof *now_t * (size_t)P);
    tmp_a = malloc(sizeof *tmp_a * (size_t)P);
    tmp_b = malloc(sizeof *tmp_b * (size_t)P);
    tmp_c = malloc(sizeof *tmp_c * (size_t)P);
    dom_cur = malloc(sizeof *dom_cur * (size_t)ndomains());
    perm = malloc(sizeof *perm * (size_t)P);
    sendtime = calloc((size_t)P * 6, sizeof *sendtime);
    epochs = calloc((size_t)C.sync_rounds, sizeof *epochs);
    if (!now_t || !tmp_a || !tmp_b || !tmp_c || !dom_cur || !perm || !sendtime || !epochs)
        die(1, "out of memory");
    for (int e = 0; e < C.sync_rounds; e++)
        if (!(epochs[e].est = calloc((size_t)ndomains(), sizeof *epochs[e].est)))
            die(1, "out of memory");
    uint64_t st = C.seed ^ 0x73796e6374726163ULL;   /* "synctrac" */
    for (int i = 0; i < 4; i++)
        rng_s[i] = st_splitmix64(&st);

    /* MPI_Init, with the first round inside. */
    for (int r = 0; r < P; r++) {
        now_t[r] = rng_between(1000, 3000);
        enter(r, now_t[r], R_INIT);
        tmp_a[r] = now_t[r] + gap();
    }
    sync_round(tmp_a, tmp_c, dom_cur);
    for (int r = 0; r < P; r++) {
        now_t[r] = is_participant(r) ? tmp_c[r] + gap() : now_t[r] + overhead();
        leave(r, now_t[r], R_INIT);
    }

    int middle = middle_rounds(), next_middle = 1;
    for (uint64_t it = 0;; it++) {
        /* middle round j (1-based) after iteration floor(j * N / (K - 1)) */
        while (next_middle <= middle
               && it == (uint64_t)((double)next_middle * (double)C.iterations / (double)(middle + 1))) {
            middle_round();
            next_middle++;
        }
        if (it == C.iterations)
            break;
        switch (C.pattern) {
        case P_RING:
        case P_RANDOM:
            iterate_p2p_blocking(it);
            break;
        case P_STENCIL2D:
        case P_STENCIL3D:
            iterate_stencil();
            break;
        case P_TREE:
            iterate_tree();
            break;
        case P_ALLTOALL:
            iterate_alltoall();
            break;
        default:
            break;
        }
    }

    /* MPI_Finalize: the last round, then (not recorded) rank 0 gathers the
     * rates and scatters the offsets, so everyone leaves after it. */
    for (int r = 0; r < P; r++) {
        now_t[r] += gap();
        enter(r, now_t[r], R_FINALIZE);
        tmp_a[r] = now_t[r] + gap();
        tmp_c[r] = tmp_a[r];
    }
    if (C.sync_rounds >= 2)
        sync_round(tmp_a, tmp_c, dom_cur);
    for (int r = 0; r < P; r++) {
        uint64_t own = (is_participant(r) ? tmp_c[r] : now_t[r]) + overhead();
        uint64_t after0 = tmp_c[0] + (r ? latency() : 0);
        now_t[r] = (own > after0 ? own : after0) + overhead();
        leave(r, now_t[r], R_FINALIZE);
        if (now_t[r] > true_span)
            true_span = now_t[r];
        if (ev_count[r] != ev_base[r + 1] - ev_base[r])
            die(3, "internal error: rank %d has %" PRIu64 " events, %" PRIu64 " were planned", r, ev_count[r],
                ev_base[r + 1] - ev_base[r]);
    }
}

/* ---------- writing: one archive per rank, as src/writer.c ---------- */

/* OTF2's event chunks: EVT_BUDGET for all archives (otf2_memory.h). */
static struct om_pool chunks = { NULL, 0, EVT_BUDGET, NULL };

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)user; (void)type; (void)loc; (void)caller; (void)final;
    return OTF2_FLUSH;
}

/* No post-flush callback: a flush writes no BufferFlush record (the
 * generator takes no time of its own). */
static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

static char run_id[64];
static uint64_t *world_members;

static void check(OTF2_ErrorCode rc, const char *anchor, const char *what)
{
    if (rc != OTF2_SUCCESS)
        die(1, "%s: %s: %s", anchor, what, OTF2_Error_GetDescription(rc));
}

static void collective_bytes(int r, uint32_t op, uint64_t *sent, uint64_t *received)
{
    uint64_t b = 8, n = (uint64_t)P;
    *sent = *received = 0;
    switch (op) {
    case OTF2_COLLECTIVE_OP_REDUCE:
        *sent = b;
        *received = r == 0 ? b * n : 0;
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
        *sent = r == 0 ? b * n : 0;
        *received = b;
        break;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
        *sent = *received = b * n;
        break;
    default:
        break;
    }
}

static uint64_t message_bytes(int r, const struct ev *e)
{
    int send = e->kind == E_SEND || e->kind == E_ISEND;
    if (e->comm == COMM_SYNC)   /* ping: an int; pong: two uint64 */
        return (r == 0) == send ? 4 : 16;
    return C.pattern == P_STENCIL2D || C.pattern == P_STENCIL3D ? 8192 : 1024;
}

static void write_rank(int r)
{
    char name[32], anchor[4200], value[128];
    snprintf(name, sizeof name, RF_RANK_NAME_FMT, r);
    snprintf(anchor, sizeof anchor, "%s/%s" RF_ANCHOR_SUFFIX, C.out, name);
    int node = node_of(r);
    /* Event chunks as the tracer's (1 MiB); definition chunks of 256 KiB
     * instead of its 4 MiB: the largest record, a group of 10000 members,
     * takes < 100 KB, and OTF2 clears a whole chunk for every archive. */
    OTF2_Archive *ar = OTF2_Archive_Open(C.out, name, OTF2_FILEMODE_WRITE, 1 << 20, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        die(1, "%s: cannot create the OTF2 archive", anchor);
    check(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL), anchor, "flush callbacks");
    check(OTF2_Archive_SetMemoryCallbacks(ar, &om_callbacks, &chunks), anchor, "memory callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(ar), anchor, "collective callbacks");
    check(OTF2_Archive_SetCreator(ar, "synctrace-gen " PACKAGE_VERSION), anchor, "creator");
    check(OTF2_Archive_OpenEvtFiles(ar), anchor, "event files");
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)r);
    OTF2_AttributeList *attrs = OTF2_AttributeList_New();
    if (!w || !attrs)
        die(1, "%s: cannot open the event writer", anchor);

    const struct ev *ev = events + ev_base[r];
    uint64_t n = ev_base[r + 1] - ev_base[r];
    for (uint64_t i = 0; i < n; i++) {
        const struct ev *e = &ev[i];
        uint64_t raw = raw_ticks(e->t), t = recorded_ticks(node, raw);
        OTF2_ErrorCode rc = OTF2_SUCCESS;
        /* a flush between two events, as OTF2 writes it: no attributes,
         * so no true time (the report must not count it) */
        if (C.flush_every && i > 0 && i % C.flush_every == 0) {
            uint64_t before = recorded_ticks(node, raw_ticks(ev[i - 1].t));
            rc = OTF2_EvtWriter_BufferFlush(w, NULL, before, t);
            if (rc != OTF2_SUCCESS)
                check(rc, anchor, "writing a buffer flush");
        }
        if (!C.no_true_time)
            OTF2_AttributeList_AddUint64(attrs, RF_ATTR_TRUE_TIME, raw);
        switch (e->kind) {
        case E_ENTER: rc = OTF2_EvtWriter_Enter(w, attrs, t, e->a); break;
        case E_LEAVE: rc = OTF2_EvtWriter_Leave(w, attrs, t, e->a); break;
        case E_SEND: rc = OTF2_EvtWriter_MpiSend(w, attrs, t, e->a, e->comm, e->tag, message_bytes(r, e)); break;
        case E_RECV: rc = OTF2_EvtWriter_MpiRecv(w, attrs, t, e->a, e->comm, e->tag, message_bytes(r, e)); break;
        case E_ISEND:
            rc = OTF2_EvtWriter_MpiIsend(w, attrs, t, e->a, e->comm, e->tag, message_bytes(r, e), e->req);
            break;
        case E_IRECV:
            rc = OTF2_EvtWriter_MpiIrecv(w, attrs, t, e->a, e->comm, e->tag, message_bytes(r, e), e->req);
            break;
        case E_ISEND_COMPLETE: rc = OTF2_EvtWriter_MpiIsendComplete(w, attrs, t, e->req); break;
        case E_IRECV_REQUEST: rc = OTF2_EvtWriter_MpiIrecvRequest(w, attrs, t, e->req); break;
        case E_COLL_BEGIN: rc = OTF2_EvtWriter_MpiCollectiveBegin(w, attrs, t); break;
        case E_COLL_END: {
            uint64_t sent, received;
            collective_bytes(r, e->a, &sent, &received);
            rc = OTF2_EvtWriter_MpiCollectiveEnd(w, attrs, t, (OTF2_CollectiveOp)e->a, e->comm, e->req, sent,
                                                 received);
            break;
        }
        }
        if (rc != OTF2_SUCCESS)
            check(rc, anchor, "writing an event");
    }
    uint64_t nevents = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &nevents);
    check(OTF2_Archive_CloseEvtWriter(ar, w), anchor, "closing the event writer");
    check(OTF2_Archive_CloseEvtFiles(ar), anchor, "closing the event files");
    OTF2_AttributeList_Delete(attrs);

    /* ClockOffsets, as src/sync.c hands them out: a rank of rank 0's domain
     * gets offset 0 at rank 0's round start, the others their domain
     * representative's estimate at its chosen sample. */
    struct rf_location loc = { (OTF2_LocationRef)r, 0, nevents };
    struct rf_clock_offset *offsets = malloc(sizeof *offsets * (size_t)(nepochs ? nepochs : 1));
    if (!offsets)
        die(1, "out of memory");
    for (int e = 0; e < nepochs; e++) {
        const struct estimate *est = &epochs[e].est[node_of(r)];
        offsets[e] = (struct rf_clock_offset){ est->peer_time, (int64_t)llround(est->offset_ns * C.resolution / 1e9),
                                               est->err_ns * C.resolution / 1e9 };
    }
    if (rf_defs_write_clock_offsets(ar, &loc, 1, offsets, (uint32_t)nepochs) != 0)
        die(1, "%s: cannot write the local definitions", anchor);
    free(offsets);

    /* Global definitions, as the tracer writes them: its two communicators
     * first (MPI_COMM_WORLD, its sync duplicate), regions of its table
     * (a subset, numbered here). */
    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!gd)
        die(1, "%s: cannot open the global definition writer", anchor);
    uint64_t first = recorded_ticks(node, raw_ticks(0));
    uint64_t last = recorded_ticks(node, raw_ticks(ev[n - 1].t + 1000));
    char host[32];
    snprintf(host, sizeof host, "node%d", node);
    struct rf_defs defs = { 0 };
    /* the world and the tracer's duplicate of it share one member list */
    if (rf_defs_add_plain_comm(&defs, RF_COMM_WORLD_NAME, (uint32_t)P, world_members) != COMM_WORLD
        || rf_defs_add_plain_comm(&defs, RF_COMM_SYNC_NAME, (uint32_t)P, world_members) != COMM_SYNC)
        die(1, "out of memory");
    struct rf_region own[R_COUNT];
    for (int i = 0; i < R_COUNT; i++)
        own[i] = (struct rf_region){ regions[i].name, regions[i].role,
                                     i == R_SYNC ? OTF2_PARADIGM_MEASUREMENT_SYSTEM : OTF2_PARADIGM_MPI };
    struct rf_rank_defs rd = {
        .resolution = (uint64_t)C.resolution, .global_offset = first, .trace_length = last - first,
        .rank = r, .world_size = P, .host = host, .locs = &loc, .nlocs = 1,
        .regions = own, .nregions = R_COUNT, .true_time = !C.no_true_time,
    };
    if (rf_defs_write(gd, &defs, &rd) != 0)
        die(1, "%s: cannot write the global definitions", anchor);
    char err[4600];
    if (rf_members_write(C.out, name, &defs, r, P, err, sizeof err) != 0 || rf_members_declare(ar) != 0)
        die(1, "%s", err);
    rf_defs_free(&defs);
    check(OTF2_Archive_CloseGlobalDefWriter(ar, gd), anchor, "closing the global definitions");

    OTF2_Archive_SetProperty(ar, RF_PROP_VERSION, PACKAGE_VERSION, true);
    OTF2_Archive_SetProperty(ar, RF_PROP_RUN_ID, run_id, true);
    snprintf(value, sizeof value, "%d", r);
    OTF2_Archive_SetProperty(ar, RF_PROP_RANK, value, true);
    snprintf(value, sizeof value, "%d", P);
    OTF2_Archive_SetProperty(ar, RF_PROP_WORLD_SIZE, value, true);
    OTF2_Archive_SetProperty(ar, RF_PROP_HOST, host, true);
    OTF2_Archive_SetProperty(ar, RF_PROP_CLOCK, "synthetic", true);
    snprintf(value, sizeof value, "%d", domain_of(r));
    OTF2_Archive_SetProperty(ar, RF_PROP_CLOCK_DOMAIN, value, true);
    snprintf(value, sizeof value, "%.6f", clocks[node].offset_us);
    OTF2_Archive_SetProperty(ar, RF_PROP_SKEW_OFFSET_US, value, true);
    snprintf(value, sizeof value, "%.6f", clocks[node].drift_ppm);
    OTF2_Archive_SetProperty(ar, RF_PROP_SKEW_DRIFT_PPM, value, true);
    check(OTF2_Archive_Close(ar), anchor, "closing the archive");
    if (sum_write_archive(C.out, name, err, sizeof err) != 0)   /* as the tracer closes it */
        die(1, "%s", err);
}

/* DIR/run.meta through the tracer's writer (format/meta_write.h), plus what the
 * generator was asked for. */
static void write_meta(void)
{
    char skew[128];
    snprintf(skew, sizeof skew, "seed=%" PRIu64 ",offset_us=%g,drift_ppm=%g", C.seed, C.offset_us, C.drift_ppm);
    struct rf_meta_head h = {
        .version = PACKAGE_VERSION, .run_id = run_id, .world_size = P, .thread_level = 0, .clock = "synthetic",
        .sync_init = 1, .sync_finalize = C.sync_rounds >= 2, .sync_periodic = C.sync_rounds > 2,
        .interval_config = "fixed", .buffer_bytes = META_BUFFER_BYTES, .skew = skew,
    };
    struct rf_meta m;
    if (rf_meta_begin(&m, C.out, &h) != 0)
        die(1, "%s/" RF_META_TMP_FILE ": %s", C.out, strerror(errno));
    if (C.drift_slope > 0)
        rf_meta_line(&m, "skew.drift_slope_ppm_per_s", "%g", C.drift_slope);
    rf_meta_line(&m, "generator", "synctrace-gen pattern=%s iterations=%" PRIu64 " ranks_per_node=%d latency_ns=%" PRIu64
                 ":%" PRIu64 " compute_us=%g resolution=%.0f sync_rounds=%d",
                 pattern_names[C.pattern], C.iterations, R, C.lat_min, C.lat_mean, C.compute_us, C.resolution,
                 C.sync_rounds);
    rf_meta_line(&m, "generator.true_span_ns", "%" PRIu64, true_span);
    for (int e = 0; e < nepochs; e++) {
        char key[64];
        snprintf(key, sizeof key, "generator.sync_round.%d", e);
        rf_meta_line(&m, key, "true_length_ns=%" PRIu64 " edges=%d edges_true_ns=%" PRIu64, epochs[e].true_length,
                     ndomains() - 1, epochs[e].edge_true_sum);
    }
    for (int e = 0; e < nepochs; e++)
        for (int d = 1; d < ndomains(); d++) {
            const struct estimate *est = &epochs[e].est[d];
            rf_meta_sync_peer(&m, RF_META_KEY_SYNC_EPOCH, e, d * R, st_tree_parent(d) * R, est->rtt_min_ns,
                              est->rtt_median_ns, est->rtt_max_ns, est->offset_ns, est->err_ns);
        }
    double interval = nepochs >= 2 ? (double)(epochs[nepochs - 1].true_start - epochs[0].true_start) / (nepochs - 1) / 1e9
                                   : 0;
    rf_meta_sync_summary(&m, nepochs, SYNC_ROUNDS, ndomains() - 1, st_tree_steps(ndomains()), interval, "fixed");
    int *domains = malloc(sizeof *domains * (size_t)P);
    double *rates = malloc(sizeof *rates * (size_t)P);
    if (!domains || !rates)
        die(1, "out of memory");
    for (int r = 0; r < P; r++) {
        domains[r] = domain_of(r);
        rates[r] = C.resolution;
    }
    rf_meta_domains(&m, P, domains);
    rf_meta_rates(&m, P, rates);
    free(domains);
    free(rates);
    if (rf_meta_end(&m, "complete") != 0)
        die(1, "%s/" RF_META_FILE ": write failed", C.out);
}

/* ---------- arguments ---------- */

static int usage(FILE *to)
{
    fprintf(to,
            "usage: synctrace-gen OUT_DIR --ranks P [--pattern ring|stencil2d|stencil3d|tree|alltoall|random]\n"
            "                     [--iterations N] [--offset-us U] [--drift-ppm D] [--drift-slope S]\n"
            "                     [--latency-ns MIN[:MEAN]]\n"
            "                     [--sync-rounds K] [--seed S] [--ranks-per-node R] [--compute-us C]\n"
            "                     [--resolution HZ] [--no-true-time] [--flush-every N]\n"
            "Write a synthetic raw trace, as libsynctrace.so writes one, for P ranks whose clocks are known;\n"
            "every event carries its true time (the true_time attribute) unless --no-true-time.\n"
            "  --ranks P            1 to %d ranks\n"
            "  --pattern NAME       per iteration: ring (Send/Recv), stencil2d/stencil3d (periodic grid,\n"
            "                       Isend/Irecv/Waitall), tree (Reduce + Bcast), alltoall, random (Send to a\n"
            "                       random peer, Recv from MPI_ANY_SOURCE); default stencil2d\n"
            "  --iterations N       default 100\n"
            "  --offset-us U        clock offsets uniform in +-U us, per node (default 1000)\n"
            "  --drift-ppm D        clock drifts uniform in +-D ppm, per node (default 50)\n"
            "  --drift-slope S      drifts change during the run, uniform in +-S ppm per second, per node\n"
            "                       (default 0: constant)\n"
            "  --latency-ns MIN[:MEAN]  one-way latency MIN + exponential(MEAN - MIN) ns (default 500:2000;\n"
            "                       MEAN defaults to MIN)\n"
            "  --sync-rounds K      clock synchronisation rounds: 1 = at init, 2 = init and finalize (default),\n"
            "                       more: K - 2 spread evenly over the iterations\n"
            "  --seed S             default 1\n"
            "  --ranks-per-node R   ranks sharing a node, hence a clock (default 1)\n"
            "  --compute-us C       mean of the exponential compute time per iteration (default 10)\n"
            "  --resolution HZ      clock ticks per second (default 1e9)\n"
            "  --no-true-time       leave out the true_time attribute, as a run without SYNCTRACE_SKEW does\n"
            "  --flush-every N      a BufferFlush record (without true_time) before every N-th event of a rank\n",
            MAX_RANKS);
    return to == stdout ? 0 : 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!*s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    if (!*s || !((*s >= '0' && *s <= '9') || *s == '.'))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static void bad(const char *opt, const char *want, const char *got)
{
    die(2, "%s takes %s, not '%s'", opt, want, got);
}

static void parse(int argc, char **argv)
{
    memset(&C, 0, sizeof C);
    C.ranks = -1;
    C.ranks_per_node = 1;
    C.sync_rounds = 2;
    C.pattern = P_STENCIL2D;
    C.iterations = 100;
    C.seed = 1;
    C.lat_min = 500;
    C.lat_mean = 2000;
    C.offset_us = 1000;
    C.drift_ppm = 50;
    C.compute_us = 10;
    C.resolution = 1e9;
    uint64_t u;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            exit(usage(stdout));
        if (!strcmp(a, "--no-true-time")) {
            C.no_true_time = 1;
            continue;
        }
        if (a[0] != '-') {
            if (C.out)
                die(2, "unexpected argument '%s' (one OUT_DIR only; see --help)", a);
            C.out = a;
            continue;
        }
        static const char *valued[] = { "--ranks", "--pattern", "--iterations", "--offset-us", "--drift-ppm", "--drift-slope",
                                        "--latency-ns", "--sync-rounds", "--seed", "--ranks-per-node",
                                        "--compute-us", "--resolution", "--flush-every" };
        int known = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            known |= !strcmp(a, valued[k]);
        if (!known)
            die(2, "unknown option '%s' (see --help)", a);
        if (i + 1 >= argc)
            die(2, "%s needs a value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--ranks")) {
            if (parse_u64(v, &u) || u < 1 || u > MAX_RANKS)
                bad(a, "a number of ranks from 1 to 10000", v);
            C.ranks = (int)u;
        } else if (!strcmp(a, "--pattern")) {
            int found = -1;
            for (int p = 0; p < P_COUNT; p++)
                if (!strcmp(v, pattern_names[p]))
                    found = p;
            if (found < 0)
                bad(a, "ring, stencil2d, stencil3d, tree, alltoall or random", v);
            C.pattern = (enum pattern)found;
        } else if (!strcmp(a, "--flush-every")) {
            if (parse_u64(v, &u) || u < 1)
                bad(a, "a number of events from 1", v);
            C.flush_every = u;
        } else if (!strcmp(a, "--iterations")) {
            if (parse_u64(v, &u) || u > 100000000)
                bad(a, "a count from 0 to 100000000", v);
            C.iterations = u;
        } else if (!strcmp(a, "--offset-us")) {
            if (parse_double(v, &C.offset_us) || C.offset_us > MAX_OFFSET_US)
                bad(a, "microseconds from 0 to 1e9", v);
        } else if (!strcmp(a, "--drift-ppm")) {
            if (parse_double(v, &C.drift_ppm) || C.drift_ppm > MAX_DRIFT_PPM)
                bad(a, "ppm from 0 to 100000", v);
        } else if (!strcmp(a, "--drift-slope")) {
            if (parse_double(v, &C.drift_slope) || C.drift_slope > MAX_DRIFT_PPM)
                bad(a, "ppm per second from 0 to 100000", v);
        } else if (!strcmp(a, "--latency-ns")) {
            char buf[64];
            if (strlen(v) >= sizeof buf)
                bad(a, "MIN[:MEAN] in ns", v);
            strcpy(buf, v);
            char *colon = strchr(buf, ':');
            if (colon)
                *colon = '\0';
            uint64_t mn, mean;
            if (parse_u64(buf, &mn) || mn > 1000000000ULL || (colon && parse_u64(colon + 1, &mean)))
                bad(a, "MIN[:MEAN] in ns (integers, MIN <= MEAN <= 1e9)", v);
            if (!colon)
                mean = mn;
            if (mean < mn || mean > 1000000000ULL)
                bad(a, "MIN[:MEAN] in ns (integers, MIN <= MEAN <= 1e9)", v);
            C.lat_min = mn;
            C.lat_mean = mean;
        } else if (!strcmp(a, "--sync-rounds")) {
            if (parse_u64(v, &u) || u < 1 || u > 10000)
                bad(a, "a count from 1 to 10000", v);
            C.sync_rounds = (int)u;
        } else if (!strcmp(a, "--seed")) {
            if (parse_u64(v, &C.seed))
                bad(a, "a non-negative integer", v);
        } else if (!strcmp(a, "--ranks-per-node")) {
            if (parse_u64(v, &u) || u < 1 || u > MAX_RANKS)
                bad(a, "a count from 1 to 10000", v);
            C.ranks_per_node = (int)u;
        } else if (!strcmp(a, "--compute-us")) {
            if (parse_double(v, &C.compute_us) || C.compute_us > 1e9)
                bad(a, "microseconds from 0 to 1e9", v);
        } else if (!strcmp(a, "--resolution")) {
            if (parse_double(v, &C.resolution) || C.resolution < 1e6 || C.resolution > 1e11
                || C.resolution != floor(C.resolution))
                bad(a, "whole ticks per second from 1e6 to 1e11", v);
        }
    }
    if (!C.out)
        die(2, "no OUT_DIR given (see --help)");
    if (C.ranks < 0)
        die(2, "--ranks P is required (see --help)");
}


int main(int argc, char **argv)
{
    parse(argc, argv);
    double t_start = st_now_s();
    P = C.ranks;
    R = C.ranks_per_node;
    nnodes = (P + R - 1) / R;
    latency_extra_mean = C.lat_mean - C.lat_min;

    if (st_mkdir_p(C.out) != 0)
        die(1, "%s: cannot create the directory: %s", C.out, strerror(errno));
    /* Never mix with (or overwrite) another trace: no rank archive nor run.meta may be there. */
    DIR *dir = opendir(C.out);
    if (!dir)
        die(1, "%s: %s", C.out, strerror(errno));
    for (struct dirent *de; (de = readdir(dir)) != NULL;)
        if (strcmp(de->d_name, RF_META_FILE) == 0 || strncmp(de->d_name, RF_RANK_PREFIX, strlen(RF_RANK_PREFIX)) == 0) {
            char name[300];
            snprintf(name, sizeof name, "%s", de->d_name);
            closedir(dir);
            die(1, "%s/%s already exists: refusing to overwrite a trace (choose another OUT_DIR)", C.out, name);
        }
    closedir(dir);

    /* The run id names the parameters, so that archives of different runs never mix unnoticed. */
    uint64_t h = 1469598103934665603ULL;
    uint64_t params[] = { (uint64_t)P, (uint64_t)R, (uint64_t)C.sync_rounds, (uint64_t)C.pattern, C.iterations,
                          C.seed, C.lat_min, C.lat_mean, (uint64_t)(C.offset_us * 1e6), (uint64_t)(C.drift_ppm * 1e6),
                          (uint64_t)(C.compute_us * 1e6), (uint64_t)C.resolution };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        h = (h ^ params[i]) * 1099511628211ULL;
    snprintf(run_id, sizeof run_id, "gen-%016" PRIx64, h);

    setup_clocks();
    setup_grid();
    world_members = malloc(sizeof *world_members * (size_t)P);
    if (!world_members)
        die(1, "out of memory");
    for (int r = 0; r < P; r++)
        world_members[r] = (uint64_t)r;
    plan_storage();
    simulate();
    double t_sim = st_now_s();
    for (int r = 0; r < P; r++) {
        write_rank(r);
        /* the rank's events are written: the kernel may drop their pages */
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        size_t from = (size_t)ev_base[r] * sizeof *events / page * page;
        size_t to = (size_t)ev_base[r + 1] * sizeof *events / page * page;
        if (to > from)
            madvise((char *)events + from, to - from, MADV_DONTNEED);
    }
    write_meta();
    double t_end = st_now_s();
    munmap(events, map_bytes ? map_bytes : 1);
    printf("synctrace-gen: %d ranks (%d clocks), %s x %" PRIu64 ", %" PRIu64 " events, %" PRIu64
           " messages, %" PRIu64 " collectives, %d sync rounds, %.3f ms simulated -> %s (%.2f s: simulate %.2f, write %.2f)\n",
           P, nnodes, pattern_names[C.pattern], C.iterations, total_events, n_messages, n_collectives, nepochs,
           (double)true_span / 1e6, C.out, t_end - t_start, t_sim - t_start, t_end - t_sim);
    om_pool_free(&chunks);
    return 0;
}
