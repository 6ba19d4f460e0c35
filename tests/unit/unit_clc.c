/* TAP unit test for tools/clc/clc.c (the controlled logical clock). Output is
 * buffered so the plan ("1..N") comes first; exit status 1 if any test
 * failed.
 *
 * Traces are made in memory: a random run of 2-6 ranks in true time
 * (local work, messages, collectives of every kind on random subsets with
 * shuffled communicator ranks), every happened-before relation true with a
 * latency >= lmin. Each rank's clock gets an offset, a drift and a slow
 * wobble; its ClockOffsets are measured with an error at the start and the
 * end, so the interpolated times (cm_interpolated, what clc_correct reads)
 * are off by microseconds and have tachyons. The checks are written apart
 * from clc.c: an explicit list of every constraint (collectives as all
 * their entry/exit pairs), reachability by breadth-first search.
 *
 * The streaming pass (clc_stream.c) is checked against clc_correct_times
 * bit for bit on the same traces and variants of them (budgets, parameters,
 * domains, matches set aside on disk, odd matches, ties, empty ranks).
 *
 * Build: make tests/unit_clc (it needs libstmerge: clc_stream.c, the
 *        external sort, msgstream.c, collstream.c). */
#include "clc.h"
#include "clc_stream.h"
#include "collstream.h"
#include "msgstream.h"

#include <dirent.h>
#include <math.h>
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "skew.h"

#define MAXR 6

/* ------------------------------------------------------------ utilities */

static uint64_t rng;

static uint64_t rnd(void)
{
    return st_splitmix64(&rng);
}

static double unif(double a, double b)
{
    return a + (b - a) * ((double)(rnd() >> 11) / 9007199254740992.0);
}

static uint32_t rndn(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}


/* ------------------------------------------------------------ traces */

struct tev {
    double T;                 /* true time, ns */
    uint8_t kind;
};

struct trace {
    uint32_t R;
    struct tev *ev[MAXR];
    uint64_t n[MAXR], cap[MAXR];
    struct mg_result m;
    size_t cmsg, ccoll;
};

static uint64_t add_ev(struct trace *tr, uint32_t r, double T, uint8_t kind)
{
    if (tr->n[r] == tr->cap[r]) {
        tr->cap[r] = tr->cap[r] ? tr->cap[r] * 2 : 64;
        tr->ev[r] = realloc(tr->ev[r], sizeof *tr->ev[r] * tr->cap[r]);
        if (!tr->ev[r])
            abort();
    }
    tr->ev[r][tr->n[r]] = (struct tev){ T, kind };
    return tr->n[r]++;
}

static void add_msg(struct trace *tr, struct mg_message msg)
{
    if (tr->m.nmessages == tr->cmsg) {
        tr->cmsg = tr->cmsg ? tr->cmsg * 2 : 64;
        tr->m.messages = realloc(tr->m.messages, sizeof *tr->m.messages * tr->cmsg);
        if (!tr->m.messages)
            abort();
    }
    tr->m.messages[tr->m.nmessages++] = msg;
}

static struct mg_collective *add_coll(struct trace *tr)
{
    if (tr->m.ncollectives == tr->ccoll) {
        tr->ccoll = tr->ccoll ? tr->ccoll * 2 : 16;
        tr->m.collectives = realloc(tr->m.collectives, sizeof *tr->m.collectives * tr->ccoll);
        if (!tr->m.collectives)
            abort();
    }
    struct mg_collective *c = &tr->m.collectives[tr->m.ncollectives++];
    memset(c, 0, sizeof *c);
    return c;
}

static void free_trace(struct trace *tr)
{
    for (uint32_t r = 0; r < MAXR; r++)
        free(tr->ev[r]);
    for (size_t i = 0; i < tr->m.ncollectives; i++)
        free(tr->m.collectives[i].members);
    free(tr->m.messages);
    free(tr->m.collectives);
    memset(tr, 0, sizeof *tr);
}

enum shape { ALL, ONE_TO_ALL, ALL_TO_ONE, SCAN, EXSCAN, NOTHING };

static const struct {
    uint32_t op;
    enum shape sh;
    int neighbor;
} OPS[] = {
    { OTF2_COLLECTIVE_OP_BARRIER, ALL, 0 },       { OTF2_COLLECTIVE_OP_ALLREDUCE, ALL, 0 },
    { OTF2_COLLECTIVE_OP_ALLTOALL, ALL, 0 },      { OTF2_COLLECTIVE_OP_REDUCE_SCATTER, ALL, 0 },
    { OTF2_COLLECTIVE_OP_BCAST, ONE_TO_ALL, 0 },  { OTF2_COLLECTIVE_OP_SCATTERV, ONE_TO_ALL, 0 },
    { OTF2_COLLECTIVE_OP_REDUCE, ALL_TO_ONE, 0 }, { OTF2_COLLECTIVE_OP_GATHER, ALL_TO_ONE, 0 },
    { OTF2_COLLECTIVE_OP_SCAN, SCAN, 0 },         { OTF2_COLLECTIVE_OP_EXSCAN, EXSCAN, 0 },
    { OTF2_COLLECTIVE_OP_ALLGATHER, NOTHING, 1 }, /* neighbourhood: no semantics */
    { 200, NOTHING, 0 },                          /* an operation nobody knows */
};
#define NOPS (sizeof OPS / sizeof OPS[0])

static enum shape shape_of_coll(const struct mg_collective *c)
{
    for (size_t k = 0; k < NOPS; k++)
        if (OPS[k].op == c->op)
            return c->neighbor ? NOTHING : OPS[k].sh;
    return NOTHING;
}

/* A random run in true time. Every cross-rank relation has a latency of at
 * least lmin + slack. */
static void gen(struct trace *tr, uint32_t R, int actions, double lmin, double slack)
{
    memset(tr, 0, sizeof *tr);
    tr->R = R;
    double now[MAXR];
    for (uint32_t r = 0; r < R; r++) {
        now[r] = unif(0, 1000);
        add_ev(tr, r, now[r], RT_ENTER);
    }
    for (int a = 0; a < actions; a++) {
        double x = unif(0, 1);
        if (x < 0.25) {
            uint32_t r = rndn(R);
            now[r] += unif(10, 2000);
            add_ev(tr, r, now[r], RT_ENTER);
            now[r] += unif(10, 500);
            add_ev(tr, r, now[r], RT_LEAVE);
        } else if (x < 0.7) {
            uint32_t s = rndn(R), d = (s + 1 + rndn(R - 1)) % R;
            now[s] += unif(10, 1000);
            uint64_t si = add_ev(tr, s, now[s], RT_SEND);
            double lat = lmin + slack + (rndn(4) == 0 ? 0 : unif(0, 3000));
            now[d] = fmax(now[d] + unif(10, 500), now[s] + lat);
            uint64_t ri = add_ev(tr, d, now[d], RT_RECV);
            add_msg(tr, (struct mg_message){ { s, si, 0 }, { d, ri, 0 }, 0, 0, 8 });
        } else {
            size_t o = rndn(NOPS);
            uint32_t perm[MAXR], k = 2 + rndn(R - 1);
            for (uint32_t r = 0; r < R; r++)
                perm[r] = r;
            for (uint32_t r = R - 1; r > 0; r--) {
                uint32_t q = rndn(r + 1), t = perm[r];
                perm[r] = perm[q];
                perm[q] = t;
            }
            uint32_t rootpos = rndn(k);
            double enter[MAXR];
            uint64_t ei[MAXR], xi[MAXR];
            double maxin = -INFINITY;
            for (uint32_t p = 0; p < k; p++) {
                uint32_t r = perm[p];
                now[r] += unif(10, 1000);
                enter[p] = now[r];
                maxin = fmax(maxin, enter[p]);
                ei[p] = add_ev(tr, r, now[r], RT_COLL_BEGIN);
            }
            for (uint32_t p = 0; p < k; p++) {
                uint32_t r = perm[p];
                double lat = lmin + slack + unif(0, 2000), need = -INFINITY;
                switch (OPS[o].sh) {
                case ALL: need = maxin + lat; break;
                case ONE_TO_ALL: need = p == rootpos ? -INFINITY : enter[rootpos] + lat; break;
                case ALL_TO_ONE: need = p == rootpos ? maxin + lat : -INFINITY; break;
                case SCAN:
                case EXSCAN:
                    for (uint32_t q = 0; q < k; q++)
                        if (q < p || (q == p && OPS[o].sh == SCAN))
                            need = fmax(need, enter[q] + lat);
                    break;
                default: break;
                }
                now[r] = fmax(enter[p] + unif(10, 300), need);
                xi[p] = add_ev(tr, r, now[r], RT_COLL_END);
            }
            struct mg_collective *c = add_coll(tr);
            c->comm = 1 + (uint32_t)tr->m.ncollectives;
            c->op = OPS[o].op;
            c->neighbor = OPS[o].neighbor;
            c->root = (OPS[o].sh == ONE_TO_ALL || OPS[o].sh == ALL_TO_ONE) ? (int)perm[rootpos] : -1;
            c->nmembers = k;
            c->members = malloc(sizeof *c->members * k);
            if (!c->members)
                abort();
            for (uint32_t p = 0; p < k; p++)
                c->members[p] = (struct mg_member){ .enter = { perm[p], ei[p] }, .exit = { perm[p], xi[p] }, .comm_rank = p };
            for (uint32_t p = k - 1; p > 0; p--) {   /* member order is not communicator order */
                uint32_t q = rndn(p + 1);
                struct mg_member t = c->members[p];
                c->members[p] = c->members[q];
                c->members[q] = t;
            }
        }
    }
    for (uint32_t r = 0; r < R; r++)
        add_ev(tr, r, now[r] + unif(10, 1000), RT_LEAVE);
}

/* ------------------------------------------------------------ clocks */

struct clock {
    double off, drift, amp, period, phase, err0, err1;
};

static double local(const struct clock *c, double T)
{
    return c->off + T * (1 + c->drift) + c->amp * sin(6.283185307179586 * T / c->period + c->phase);
}

/* Raw archives of the trace as the tracer would write them with
 * SYNCTRACE_SKEW: raw ticks (ns) of the distorted clock, true_time, and
 * ClockOffsets (reference - local) measured with an error at the ends.
 * clocks NULL: the raw times are the true times, no ClockOffsets. */
static void make_ranks(const struct trace *tr, const struct clock *clocks, struct rt_location *rk)
{
    double tend = 0;
    for (uint32_t r = 0; r < tr->R; r++)
        tend = fmax(tend, tr->ev[r][tr->n[r] - 1].T + 1000);
    for (uint32_t r = 0; r < tr->R; r++) {
        memset(&rk[r], 0, sizeof rk[r]);
        rk[r].rank = rk[r].domain = (int)r;
        rk[r].world_size = (int)tr->R;
        rk[r].resolution = 1000000000;
        for (uint64_t i = 0; i < tr->n[r]; i++) {
            double T = tr->ev[r][i].T;
            struct rt_event e = { .time = (uint64_t)llround(clocks ? local(&clocks[r], T) : T),
                                  .truth = (uint64_t)llround(T), .has_truth = 1, .kind = tr->ev[r][i].kind };
            if (rt_store_event(&rk[r], &e) != 0)
                abort();
        }
        if (clocks) {
            const struct clock *c = &clocks[r];
            rk[r].noffsets = 2;
            rk[r].offsets = calloc(2, sizeof *rk[r].offsets);
            if (!rk[r].offsets)
                abort();
            rk[r].offsets[0].time = (uint64_t)llround(local(c, 0));
            rk[r].offsets[0].offset = llround(0 - local(c, 0) + c->err0);
            rk[r].offsets[1].time = (uint64_t)llround(local(c, tend));
            rk[r].offsets[1].offset = llround(tend - local(c, tend) + c->err1);
        }
    }
}

static void free_ranks(struct rt_location *rk, uint32_t R)
{
    for (uint32_t r = 0; r < R; r++) {
        rt_store_free(&rk[r]);
        free(rk[r].offsets);
    }
}

/* Clocks whose interpolation leaves microseconds of error (tachyons). */
static void bad_clocks(struct clock *c, uint32_t R)
{
    for (uint32_t r = 0; r < R; r++)
        c[r] = (struct clock){ unif(1e6, 3e6), unif(-50e-6, 50e-6), unif(0, 3000), unif(5e4, 5e5),
                               unif(0, 6.28), unif(-2000, 2000), unif(-2000, 2000) };
}

/* Clocks whose interpolation is off by at most 400 ns: with 2 us of
 * latency slack, no constraint is violated, yet no time is the truth. */
static void mild_clocks(struct clock *c, uint32_t R)
{
    for (uint32_t r = 0; r < R; r++)
        c[r] = (struct clock){ unif(1e6, 3e6), unif(-50e-6, 50e-6), 0, 1, 0, unif(-200, 200), unif(-200, 200) };
}

/* ------------------------------------------------------------ constraints */

struct edge {
    uint32_t ur, vr;
    uint64_t ui, vi;
    double lat;
    int coll;                 /* from a collective (else a message) */
};

/* Every cross-rank constraint, collectives as all their pairs. */
static size_t constraints(const struct trace *tr, double lmin, struct edge **list)
{
    size_t n = 0, cap = 64;
    struct edge *e = malloc(sizeof *e * cap);
#define PUT(a, b, isc)                                                                                   \
    do {                                                                                                 \
        if (n == cap && !(e = realloc(e, sizeof *e * (cap *= 2))))                                       \
            abort();                                                                                     \
        e[n++] = (struct edge){ (a).rank, (b).rank, (a).index, (b).index, (a).rank != (b).rank ? lmin : 0, \
                                isc };                                                                   \
    } while (0)
    for (size_t i = 0; i < tr->m.nmessages; i++)
        PUT(tr->m.messages[i].send, tr->m.messages[i].recv, 0);
    for (size_t i = 0; i < tr->m.ncollectives; i++) {
        const struct mg_collective *c = &tr->m.collectives[i];
        enum shape sh = shape_of_coll(c);
        for (uint32_t p = 0; p < c->nmembers; p++)
            for (uint32_t q = 0; q < c->nmembers; q++) {
                const struct mg_member *a = &c->members[p], *b = &c->members[q];
                int rootp = (int)a->enter.rank == c->root, rootq = (int)b->enter.rank == c->root;
                int yes = sh == ALL || (sh == ONE_TO_ALL && rootp) || (sh == ALL_TO_ONE && rootq)
                          || (sh == SCAN && a->comm_rank <= b->comm_rank)
                          || (sh == EXSCAN && a->comm_rank < b->comm_rank);
                if (yes)
                    PUT(a->enter, b->exit, 1);
            }
    }
#undef PUT
    *list = e;
    return n;
}

static size_t violated(const struct edge *e, size_t n, double *const *t)
{
    size_t v = 0;
    for (size_t k = 0; k < n; k++)
        v += t[e[k].vr][e[k].vi] < t[e[k].ur][e[k].ui] + e[k].lat;
    return v;
}

/* reach[r][i]: event in the happened-before future (inclusive) of the head
 * of a constraint that t violates. */
static void reach_from_violations(const struct trace *tr, const struct edge *e, size_t n, double *const *t,
                                  unsigned char **reach)
{
    for (uint32_t r = 0; r < tr->R; r++)
        memset(reach[r], 0, tr->n[r]);
    for (size_t k = 0; k < n; k++)
        if (t[e[k].vr][e[k].vi] < t[e[k].ur][e[k].ui] + e[k].lat)
            reach[e[k].vr][e[k].vi] = 1;
    /* Fixed point: per-rank order and every constraint edge propagate. */
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t r = 0; r < tr->R; r++)
            for (uint64_t i = 1; i < tr->n[r]; i++)
                if (reach[r][i - 1] && !reach[r][i])
                    reach[r][i] = 1, changed = 1;
        for (size_t k = 0; k < n; k++)
            if (reach[e[k].ur][e[k].ui] && !reach[e[k].vr][e[k].vi])
                reach[e[k].vr][e[k].vi] = 1, changed = 1;
    }
}

/* ------------------------------------------------------------ checks */

struct aggs {
    struct agg runs, mono, tachyon, coll, interval, fwd_cause, untouched;
};

/* Output checks on global times g (and, for intervals, the input t). */
static void check_output(struct aggs *A, const struct trace *tr, const struct edge *e, size_t ne, uint64_t *const *g,
                         double *const *t, double mu, const char *tag)
{
    for (uint32_t r = 0; r < tr->R; r++)
        for (uint64_t i = 1; i < tr->n[r]; i++) {
            check(&A->mono, g[r][i] >= g[r][i - 1], "%s: rank %u event %llu at %llu before %llu", tag, r,
                  (unsigned long long)i, (unsigned long long)g[r][i], (unsigned long long)g[r][i - 1]);
            double dt = t[r][i] - t[r][i - 1];
            check(&A->interval, (double)g[r][i] - (double)g[r][i - 1] >= mu * (dt > 0 ? dt : 0) - 1.0,
                  "%s: rank %u interval %llu shrank from %.1f to %.1f", tag, r, (unsigned long long)i, dt,
                  (double)g[r][i] - (double)g[r][i - 1]);
        }
    for (size_t k = 0; k < ne; k++) {
        uint64_t a = g[e[k].ur][e[k].ui], b = g[e[k].vr][e[k].vi];
        /* never before (tachyon); the latency within 1 ns of rounding */
        int fine = b >= a && (double)b >= (double)a + e[k].lat - 1.0;
        check(e[k].coll ? &A->coll : &A->tachyon, fine, "%s: %s %u:%llu (%llu) -> %u:%llu (%llu), lmin %.0f", tag,
              e[k].coll ? "collective" : "message", e[k].ur, (unsigned long long)e[k].ui, (unsigned long long)a,
              e[k].vr, (unsigned long long)e[k].vi, (unsigned long long)b, e[k].lat);
    }
}

static double **interp(const struct rt_location *rk, uint32_t R)
{
    double **t = calloc(R, sizeof *t);
    for (uint32_t r = 0; r < R; r++) {
        t[r] = malloc(sizeof **t * rk[r].nevents);
        for (uint64_t i = 0; i < rk[r].nevents; i++)
            t[r][i] = cm_interpolated(&rk[r], rk[r].events[i].time);
    }
    return t;
}

static void free_rows(void **rows, uint32_t R)
{
    for (uint32_t r = 0; r < R; r++)
        free(rows[r]);
    free(rows);
}

static double *lmin_matrix(uint32_t R, double lmin)
{
    double *l = malloc(sizeof *l * R * R);
    for (uint32_t k = 0; k < R * R; k++)
        l[k] = lmin;   /* as the merge fills it, diagonal included */
    return l;
}

/* ------------------------------------------------------------ hand-made cases */

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6;
}

/* rank 0: 0, send 1000 (-> rank 1 event 3), 5000
 * rank 1: 0, 200, 400, recv 600 (a tachyon), 1600, 100600;  lmin 50.
 * Forward: recv -> 1050 (jump 450 over B = max(600, 400 + .99*200)),
 * then 1050 + .99*1000 = 2040, then 100600 (caught up).
 * Backward (slope .01): 400 + 450 - .01*200 = 848, 200 + 446 = 646, 444.
 * With send_limit, rank 1 event 2 is a send received by rank 0 at 460:
 * it may move only to 460 - 50 = 410, and the ramp goes on from there. */
static void hand_message(int send_limit)
{
    double r0[] = { 0, 1000, 5000 }, r0b[] = { 0, 460, 1000, 5000 };
    double r1[] = { 0, 200, 400, 600, 1600, 100600 };
    double o0[4], o1[6];
    const double *t[2] = { send_limit ? r0b : r0, r1 };
    double *res[2] = { o0, o1 };
    uint64_t n[2] = { send_limit ? 4 : 3, 6 };
    struct mg_message msgs[2] = {
        { { 0, send_limit ? 2 : 1, 0 }, { 1, 3, 0 }, 0, 0, 0 },
        { { 1, 2, 0 }, { 0, 1, 0 }, 0, 0, 0 },
    };
    struct mg_result m = { 0 };
    m.messages = msgs;
    m.nmessages = send_limit ? 2 : 1;
    double lmin[4] = { 50, 50, 50, 50 };
    struct clc_stats st;
    char err[200] = "";
    int rc = clc_correct_times(t, n, 2, &m, NULL, 2, lmin, NULL, res, &st, err, sizeof err);
    double want1a[] = { 444, 646, 848, 1050, 2040, 100600 }, want1b[] = { 6, 208, 410, 1050, 2040, 100600 };
    const double *want1 = send_limit ? want1b : want1a;
    int good = rc == 0 && st.jumps == 1 && near(st.max_jump_ns, 450);
    for (int i = 0; i < 6; i++)
        good &= near(o1[i], want1[i]);
    for (uint64_t i = 0; i < n[0]; i++)
        good &= near(o0[i], t[0][i]);
    if (!good)
        diag("rc %d (%s) jumps %zu max %.3f; rank 1: %.3f %.3f %.3f %.3f %.3f %.3f", rc, err, st.jumps,
             st.max_jump_ns, o1[0], o1[1], o1[2], o1[3], o1[4], o1[5]);
    ok(good, send_limit ? "backward amortization stops a send at its receive minus lmin, the ramp goes on from there"
                        : "a message tachyon: receive to send + lmin, later events amortized at mu, earlier ones "
                          "ramped at gamma");
}

/* A barrier on 3 ranks whose third rank enters late (by its clock): every
 * exit goes to at least the latest entry + lmin; the late rank's own exit
 * needs nothing from itself. */
static void hand_barrier(void)
{
    double a[] = { 100, 500 }, b[] = { 100, 520 }, c[] = { 900, 950 };
    double oa[2], ob[2], oc[2];
    const double *t[3] = { a, b, c };
    double *res[3] = { oa, ob, oc };
    uint64_t n[3] = { 2, 2, 2 };
    struct mg_member mem[3] = {
        { .enter = { 2, 0 }, .exit = { 2, 1 }, .comm_rank = 2 },
        { .enter = { 0, 0 }, .exit = { 0, 1 }, .comm_rank = 0 },
        { .enter = { 1, 0 }, .exit = { 1, 1 }, .comm_rank = 1 },
    };
    struct mg_collective coll = { .comm = 1, .op = OTF2_COLLECTIVE_OP_BARRIER, .root = -1, .nmembers = 3, .members = mem };
    struct mg_result m = { 0 };
    m.collectives = &coll;
    m.ncollectives = 1;
    double lmin[9];
    for (int k = 0; k < 9; k++)
        lmin[k] = 30;
    struct clc_params p;
    clc_default_params(&p);
    p.backward = 0;
    char err[200] = "";
    int rc = clc_correct_times(t, n, 3, &m, NULL, 3, lmin, &p, res, NULL, err, sizeof err);
    ok(rc == 0 && near(oa[1], 930) && near(ob[1], 930) && near(oc[1], 950) && near(oa[0], 100) && near(oc[0], 900),
       "barrier: exits to the latest entry + lmin (got %.1f %.1f %.1f)", oa[1], ob[1], oc[1]);
}

/* Two ranks that each receive before they send what the other receives: a
 * cycle no real run has. It must be broken, not hang. */
static void hand_cycle(void)
{
    double a[] = { 100, 200, 300 }, b[] = { 100, 200, 300 };
    double oa[3], ob[3];
    const double *t[2] = { a, b };
    double *res[2] = { oa, ob };
    uint64_t n[2] = { 3, 3 };
    struct mg_message msgs[2] = { { { 0, 2, 0 }, { 1, 1, 0 }, 0, 0, 0 }, { { 1, 2, 0 }, { 0, 1, 0 }, 0, 0, 0 } };
    struct mg_result m = { 0 };
    m.messages = msgs;
    m.nmessages = 2;
    struct clc_stats st;
    char err[200] = "";
    int rc = clc_correct_times(t, n, 2, &m, NULL, 2, NULL, NULL, res, &st, err, sizeof err);
    int mono = oa[0] <= oa[1] && oa[1] <= oa[2] && ob[0] <= ob[1] && ob[1] <= ob[2];
    ok(rc == 0 && st.cycles_broken >= 1 && mono, "a happened-before cycle (a wrong match) is broken (%zu), times stay "
                                                 "monotonic", st.cycles_broken);
}

static void hand_errors(void)
{
    double a[] = { 1, 2 };
    double oa[2];
    const double *t[1] = { a };
    double *res[1] = { oa };
    uint64_t n[1] = { 2 };
    struct mg_message msg = { { 0, 0, 0 }, { 0, 7, 0 }, 0, 0, 0 };
    struct mg_result m = { 0 };
    m.messages = &msg;
    m.nmessages = 1;
    char err[200] = "";
    int rc = clc_correct_times(t, n, 1, &m, NULL, 1, NULL, NULL, res, NULL, err, sizeof err);
    ok(rc == -1 && strstr(err, "does not exist"), "a match referring to a missing event is an error: %s", err);
}

/* ------------------------------------------------------------ streaming (clc_stream.h) */

/* clc_stream_correct claims clc_correct_times' results to the bit, and the
 * same statistics, on any input whose happened-before graph has no cycle.
 * Each case runs both on the same times and match and compares every
 * event's bits; a group of cases is one TAP line, its first mismatch also a
 * diagnostic. Seed s starts the rng at 0x5eed0000 + s (the long traces at
 * 0xb16b0000 + s), so a failing case can be rerun alone. */

#define NSEEDS 200

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int one_line(const char *err)
{
    return err[0] && !strchr(err, '\n');
}

/* The fill callback: copies from the rows, and checks the order the header
 * promises (rank by rank, each rank's events front to back, each once). */
struct rows {
    double *const *t;
    const uint64_t *n;
    uint32_t R;
    uint32_t r;               /* the rank being filled */
    uint64_t next;            /* its next event */
    int64_t fail_at;          /* filling this rank fails (-1: none) */
    char bad[200];            /* the first call out of order ("": none) */
};

static void rows_init(struct rows *x, double *const *t, const uint64_t *n, uint32_t R)
{
    memset(x, 0, sizeof *x);
    x->t = t;
    x->n = n;
    x->R = R;
    x->fail_at = -1;
}

static int rows_empty(const struct rows *x, uint32_t from, uint32_t to)
{
    for (uint32_t r = from; r < to; r++)
        if (x->n[r])
            return 0;
    return 1;
}

static int fill_rows(void *ctx, uint32_t r, uint64_t first, double *t, size_t n, char *err, size_t errlen)
{
    struct rows *x = ctx;
    if (r >= x->R || first > x->n[r] || n > x->n[r] - first) {
        if (!x->bad[0])
            snprintf(x->bad, sizeof x->bad, "fill(rank %u, first %llu, n %zu): no such events", r,
                     (unsigned long long)first, n);
        snprintf(err, errlen, "fill: rank %u has no events %llu + %zu", r, (unsigned long long)first, n);
        return -1;
    }
    if (x->fail_at >= 0 && r == (uint32_t)x->fail_at) {
        snprintf(err, errlen, "fill: rank %u cannot be read (on purpose)", r);
        return -1;
    }
    int in_order = r == x->r ? first == x->next
                             : r > x->r && x->next == x->n[x->r] && rows_empty(x, x->r + 1, r) && first == 0;
    if (!in_order && !x->bad[0])
        snprintf(x->bad, sizeof x->bad, "fill(rank %u, first %llu, n %zu) after rank %u up to event %llu", r,
                 (unsigned long long)first, n, x->r, (unsigned long long)x->next);
    x->r = r;
    x->next = first + n;
    memcpy(t, x->t[r] + first, sizeof *t * n);
    return 0;
}

/* After a successful run: every event was filled. */
static int rows_complete(const struct rows *x)
{
    return x->R == 0 || (x->next == x->n[x->r] && rows_empty(x, x->r + 1, x->R));
}

struct scase {
    const char *tag;          /* seed and variant, for the messages */
    uint32_t R;
    const uint64_t *n;
    double *const *t;
    const struct mg_result *held;   /* what the reference reads */
    const struct mg_result *m;      /* what the stream reads: the same, maybe set aside */
    const uint32_t *dom;
    uint32_t nd;
    const double *lm;
    const struct clc_params *p;
    struct clc_stream_config cfg;
    int reverse_reads;        /* read the result back to front, ranks interleaved */
    int no_usage;             /* usage NULL */
    struct clc_stream_usage *keep;  /* where to keep the usage (NULL: nowhere) */
    int fill_fails;           /* filling the last rank fails */
};

struct group {
    struct agg same;          /* both run, every event's bits, the statistics */
    long traces, events, jumps, messages, collectives;
};

/* across all groups */
static struct agg fill_order, usage_sane;

/* *out before a run: the stream must set it (NULL on failure) */
static double not_set;
#define NOT_SET ((struct clc_times *)&not_set)

static int got(const struct clc_times *ct)
{
    return ct && ct != NOT_SET;
}

static void times_free(struct clc_times *ct)
{
    if (got(ct))
        clc_times_free(ct);
}

static int stream_run(const struct scase *c, struct rows *x, struct clc_times **ct, struct clc_stats *st,
                      struct clc_stream_usage *use, char *err, size_t errlen)
{
    rows_init(x, c->t, c->n, c->R);
    x->fail_at = c->fill_fails ? (int64_t)c->R - 1 : -1;
    *ct = NOT_SET;
    memset(st, 0xa5, sizeof *st);   /* what the stream does not set shows */
    memset(use, 0, sizeof *use);
    return clc_stream_correct(c->R, c->n, fill_rows, x, c->m, c->dom, c->nd, c->lm, c->p, &c->cfg, ct, st,
                              c->no_usage ? NULL : use, err, errlen);
}

static double **alloc_rows(uint32_t R, const uint64_t *n)
{
    double **o = calloc(R ? R : 1, sizeof *o);
    if (!o)
        abort();
    for (uint32_t r = 0; r < R; r++)
        if (!(o[r] = malloc(sizeof **o * (n[r] ? n[r] : 1))))
            abort();
    return o;
}

static void check_stats(struct agg *a, const char *tag, const struct clc_stats *s, const struct clc_stats *r)
{
    check(a,
          s->jumps == r->jumps && same_bits(s->max_jump_ns, r->max_jump_ns) && s->backward_moved == r->backward_moved
              && s->cycles_broken == r->cycles_broken && s->skipped_collectives == r->skipped_collectives,
          "%s: stats: stream jumps %zu max %.17g moved %zu cycles %zu skipped %zu; clc_correct_times %zu %.17g %zu "
          "%zu %zu",
          tag, s->jumps, s->max_jump_ns, s->backward_moved, s->cycles_broken, s->skipped_collectives, r->jumps,
          r->max_jump_ns, r->backward_moved, r->cycles_broken, r->skipped_collectives);
}

/* Both on one case, compared. Returns the reference's jumps (0 if it failed). */
static size_t run_case(struct group *G, const struct scase *c)
{
    char err[300] = "", serr[300] = "";
    double **ref = alloc_rows(c->R, c->n);
    struct clc_stats rst, sst;
    int rrc = clc_correct_times((const double *const *)c->t, c->n, c->R, c->held, c->dom, c->nd, c->lm, c->p, ref,
                                &rst, err, sizeof err);
    struct rows x;
    struct clc_times *ct = NULL;
    struct clc_stream_usage use;
    int src = stream_run(c, &x, &ct, &sst, &use, serr, sizeof serr);
    G->traces++;
    check(&G->same, rrc == 0 && src == 0 && got(ct), "%s: clc_correct_times rc %d (%s), clc_stream_correct rc %d (%s)",
          c->tag, rrc, err, src, serr);
    if (rrc == 0 && src == 0 && got(ct)) {
        uint64_t total = 0, maxn = 0;
        for (uint32_t r = 0; r < c->R; r++) {
            total += c->n[r];
            maxn = c->n[r] > maxn ? c->n[r] : maxn;
        }
        int bad = 0;   /* one mismatch per case is enough to tell */
        for (uint64_t k = 0; k < maxn && !bad; k++)
            for (uint32_t r = 0; r < c->R && !bad; r++) {
                uint64_t i = c->reverse_reads ? maxn - 1 - k : k;
                if (i >= c->n[r])
                    continue;
                double v = clc_times_get(ct, r, i);
                bad = !same_bits(v, ref[r][i]);
                check(&G->same, !bad, "%s: rank %u event %llu: stream %.17g (%a), clc_correct_times %.17g (%a)", c->tag,
                      r, (unsigned long long)i, v, v, ref[r][i], ref[r][i]);
            }
        const char *why = clc_times_error(ct);
        check(&G->same, !why, "%s: clc_times_error: %s", c->tag, why ? why : "");
        check_stats(&G->same, c->tag, &sst, &rst);
        check(&fill_order, !x.bad[0] && rows_complete(&x), "%s: %s", c->tag,
              x.bad[0] ? x.bad : "not every event was filled");
        if (c->keep)
            *c->keep = use;
        if (!c->no_usage)
            check(&usage_sane,
                  use.max_messages_in_flight <= c->m->nmessages && use.max_open_instances <= c->m->ncollectives
                      && use.disk_bytes >= 8 * total,
                  "%s: %llu messages in flight of %zu, %llu instances open of %zu, %llu bytes on disk for %llu events",
                  c->tag, (unsigned long long)use.max_messages_in_flight, c->m->nmessages,
                  (unsigned long long)use.max_open_instances, c->m->ncollectives, (unsigned long long)use.disk_bytes,
                  (unsigned long long)total);
        G->events += (long)total;
        G->jumps += (long)rst.jumps;
        G->messages += (long)c->m->nmessages;
        G->collectives += (long)c->m->ncollectives;
    }
    times_free(ct);
    free_rows((void **)ref, c->R);
    return rrc == 0 ? rst.jumps : 0;
}

static void report_group(struct group *G, const char *what)
{
    char d[400];
    snprintf(d, sizeof d, "stream == clc_correct_times to the bit, stats too: %s: %ld traces, %ld events (%ld jumps), "
             "%ld messages, %ld collectives", what, G->traces, G->events, G->jumps, G->messages, G->collectives);
    report(&G->same, d);
    if (G->same.fails)
        diag("first mismatch: %s", G->same.first);
}

/* ---- variants of a generated trace */

static int no_role_kind(uint8_t k)
{
    return k == RT_ENTER || k == RT_LEAVE || k == RT_SEND;
}

/* A random event of rank r strictly before (after = 0) or after true time T
 * (of a kind that has no role in the match, if free_only); UINT64_MAX: none. */
static uint64_t pick_event(const struct trace *tr, uint32_t r, double T, int after, int free_only)
{
    uint64_t cnt = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t want = pass ? rnd() % cnt : 0, k = 0;
        for (uint64_t i = 0; i < tr->n[r]; i++) {
            const struct tev *e = &tr->ev[r][i];
            if ((after ? e->T > T : e->T < T) && (!free_only || no_role_kind(e->kind))) {
                if (pass && k == want)
                    return i;
                k++;
            }
        }
        if (!(cnt = k))
            return UINT64_MAX;
    }
    return UINT64_MAX;
}

static double T_of(const struct trace *tr, struct mg_event_ref e)
{
    return tr->ev[e.rank][e.index].T;
}

static void insert_msg(struct mg_result *m, size_t *cap, struct mg_message msg)
{
    if (m->nmessages == *cap && !(m->messages = realloc(m->messages, sizeof *m->messages * (*cap = *cap * 2 + 8))))
        abort();
    size_t at = rndn((uint32_t)m->nmessages + 1);
    memmove(&m->messages[at + 1], &m->messages[at], sizeof *m->messages * (m->nmessages - at));
    m->messages[at] = msg;
    m->nmessages++;
}

/* Matches no correct run gives, yet no cycle (every added message goes
 * forward in true time), at random places in the array: a second message
 * into a receive (the first in the array holds it), one sent from a
 * collective's event, two from one send, one into a collective's event (the
 * instance is then left out), one within a rank. Shares the collectives. */
static void odd_matches(const struct trace *tr, struct mg_result *out)
{
    const struct mg_result *m = &tr->m;
    *out = *m;
    size_t cap = m->nmessages + 8;
    if (!(out->messages = malloc(sizeof *out->messages * cap)))
        abort();
    memcpy(out->messages, m->messages, sizeof *m->messages * m->nmessages);
    for (int k = 0, added = 0; k < 40 && added < 4; k++) {
        struct mg_event_ref from = { 0, 0, 0 }, to = { 0, 0, 0 };
        uint32_t other;
        uint64_t i = UINT64_MAX;
        uint32_t kind = rndn(5);
        switch (kind) {
        case 0:
            if (!m->nmessages)
                break;
            to = m->messages[rndn((uint32_t)m->nmessages)].recv;
            other = (to.rank + 1 + rndn(tr->R - 1)) % tr->R;
            if ((i = pick_event(tr, other, T_of(tr, to), 0, 0)) != UINT64_MAX)
                from = (struct mg_event_ref){ other, i, 0 };
            break;
        case 1:
        case 3: {
            if (!m->ncollectives)
                break;
            const struct mg_collective *c = &m->collectives[rndn((uint32_t)m->ncollectives)];
            const struct mg_member *w = &c->members[rndn(c->nmembers)];
            struct mg_event_ref e = rndn(2) ? w->enter : w->exit;
            other = (e.rank + 1 + rndn(tr->R - 1)) % tr->R;
            if (kind == 1 && (i = pick_event(tr, other, T_of(tr, e), 1, 1)) != UINT64_MAX) {
                from = e;
                to = (struct mg_event_ref){ other, i, 0 };
            } else if (kind == 3 && (i = pick_event(tr, other, T_of(tr, e), 0, 0)) != UINT64_MAX) {
                from = (struct mg_event_ref){ other, i, 0 };
                to = e;
            }
            break;
        }
        case 2:
            if (!m->nmessages)
                break;
            from = m->messages[rndn((uint32_t)m->nmessages)].send;
            other = (from.rank + 1 + rndn(tr->R - 1)) % tr->R;
            if ((i = pick_event(tr, other, T_of(tr, from), 1, 1)) != UINT64_MAX)
                to = (struct mg_event_ref){ other, i, 0 };
            break;
        default: {
            uint32_t r = rndn(tr->R);
            from = (struct mg_event_ref){ r, rnd() % (tr->n[r] - 1), 0 };
            if ((i = pick_event(tr, r, T_of(tr, from), 1, 1)) != UINT64_MAX)
                to = (struct mg_event_ref){ r, i, 0 };
            break;
        }
        }
        if (i == UINT64_MAX)
            continue;
        insert_msg(out, &cap, (struct mg_message){ from, to, 0, 0, 8 });
        added++;
    }
}

/* A copy of m (messages and collectives its own) with an empty rank put
 * at position `at` (UINT32_MAX: none), and, if flows, members that moved
 * nothing one way and instances on intercommunicators (random sides). */
static void copy_match(const struct mg_result *m, uint32_t at, int flows, struct mg_result *out)
{
    memset(out, 0, sizeof *out);
    out->nmessages = m->nmessages;
    out->ncollectives = m->ncollectives;
    out->messages = malloc(sizeof *out->messages * (m->nmessages ? m->nmessages : 1));
    out->collectives = calloc(m->ncollectives ? m->ncollectives : 1, sizeof *out->collectives);
    if (!out->messages || !out->collectives)
        abort();
#define SHIFT(e) ((e).rank += at != UINT32_MAX && (e).rank >= at)
    for (size_t k = 0; k < m->nmessages; k++) {
        out->messages[k] = m->messages[k];
        SHIFT(out->messages[k].send);
        SHIFT(out->messages[k].recv);
    }
    for (size_t k = 0; k < m->ncollectives; k++) {
        struct mg_collective *c = &out->collectives[k];
        *c = m->collectives[k];
        if (!(c->members = malloc(sizeof *c->members * c->nmembers)))
            abort();
        memcpy(c->members, m->collectives[k].members, sizeof *c->members * c->nmembers);
        if (at != UINT32_MAX && c->root >= 0 && (uint32_t)c->root >= at)
            c->root++;
        int inter = flows && !c->neighbor && rndn(3) == 0;
        c->inter = inter;
        for (uint32_t q = 0; q < c->nmembers; q++) {
            SHIFT(c->members[q].enter);
            SHIFT(c->members[q].exit);
            if (flows && rndn(4) == 0)
                c->members[q].quiet = (uint8_t)(1 + rndn(3));
            if (inter)
                c->members[q].side = (uint8_t)rndn(2);
        }
    }
#undef SHIFT
}

static void free_match_copy(struct mg_result *m)
{
    for (size_t k = 0; k < m->ncollectives; k++)
        free(m->collectives[k].members);
    free(m->collectives);
    free(m->messages);
}

/* m's messages (which & 1) and collectives (which & 2) in files, as
 * match.c leaves them when they outgrow its budget: the arrays NULL, the
 * counts kept. */
static int set_aside(const struct mg_result *m, const char *dir, int which, struct mg_result *out, char *err,
                     size_t errlen)
{
    *out = *m;
    out->message_file = NULL;
    out->coll_file = NULL;
    out->spill_dir = dir;
    if (which & 1) {
        if (!(out->message_file = ms_file_new(dir, err, errlen)))
            return -1;
        for (size_t k = 0; k < m->nmessages; k++)
            if (ms_file_append(out->message_file, &m->messages[k]) != 0)
                goto failed;
        if (ms_file_flush(out->message_file) != 0)
            goto failed;
        out->messages = NULL;
    }
    if (which & 2) {
        if (!(out->coll_file = mc_file_new(dir, err, errlen)))
            return -1;
        for (size_t k = 0; k < m->ncollectives; k++)
            if (mc_file_append(out->coll_file, &m->collectives[k]) != 0)
                goto failed;
        if (mc_file_flush(out->coll_file) != 0)
            goto failed;
        out->collectives = NULL;
    }
    return 0;
failed:
    snprintf(err, errlen, "%s%s", ms_file_error(out->message_file), out->coll_file ? mc_file_error(out->coll_file) : "");
    return -1;
}

static void free_aside(struct mg_result *a)
{
    ms_file_free(a->message_file);
    mc_file_free(a->coll_file);
    a->message_file = NULL;
    a->coll_file = NULL;
}

/* ---- cycles: only monotonic output and a count of cycles broken */

static void check_cycle(struct agg *a, const struct scase *c)
{
    struct rows x;
    struct clc_times *ct = NULL;
    struct clc_stats st;
    struct clc_stream_usage use;
    char err[300] = "";
    int rc = stream_run(c, &x, &ct, &st, &use, err, sizeof err);
    check(a, rc == 0 && got(ct), "%s: rc %d (%s)", c->tag, rc, err);
    if (rc != 0 || !got(ct))
        return;
    check(a, st.cycles_broken > 0, "%s: no cycle broken", c->tag);
    for (uint32_t r = 0; r < c->R; r++) {
        double prev = -INFINITY;
        for (uint64_t i = 0; i < c->n[r]; i++) {
            double v = clc_times_get(ct, r, i);
            check(a, v >= prev, "%s: rank %u event %llu at %.17g before %.17g", c->tag, r, (unsigned long long)i, v,
                  prev);
            prev = v;
        }
    }
    check(a, !clc_times_error(ct), "%s: clc_times_error: %s", c->tag, clc_times_error(ct) ? clc_times_error(ct) : "");
    clc_times_free(ct);
}

/* A message back from the last event of a receiving rank to the first of
 * its sender (kind 0), or from a barrier-like exit to an event before
 * another member's entry (kind 1): a cycle no real run has. */
static int add_cycle(const struct trace *tr, int kind, struct mg_result *out, size_t *cap)
{
    if (kind == 0 && tr->m.nmessages) {
        const struct mg_message *msg = &tr->m.messages[rndn((uint32_t)tr->m.nmessages)];
        struct mg_event_ref from = { msg->recv.rank, tr->n[msg->recv.rank] - 1, 0 }, to = { msg->send.rank, 0, 0 };
        insert_msg(out, cap, (struct mg_message){ from, to, 0, 0, 8 });
        return 1;
    }
    for (size_t k = 0; k < tr->m.ncollectives; k++) {
        const struct mg_collective *c = &tr->m.collectives[k];
        if (shape_of_coll(c) != ALL)
            continue;
        struct mg_event_ref from = c->members[0].exit, to = { c->members[1].enter.rank, 0, 0 };
        insert_msg(out, cap, (struct mg_message){ from, to, 0, 0, 8 });
        return 1;
    }
    return 0;
}

static void stream_hand_cycle(void)
{
    double a[] = { 100, 200, 300 }, b[] = { 100, 200, 300 };
    double *t[2] = { a, b };
    uint64_t n[2] = { 3, 3 };
    struct mg_message msgs[2] = { { { 0, 2, 0 }, { 1, 1, 0 }, 0, 0, 0 }, { { 1, 2, 0 }, { 0, 1, 0 }, 0, 0, 0 } };
    struct mg_result m = { 0 };
    m.messages = msgs;
    m.nmessages = 2;
    struct scase c = { "hand-made cycle", 2, n, t, &m, &m, NULL, 2, NULL, NULL, { NULL, 1 }, 0, 0, NULL, 0 };
    struct agg res = { 0 };
    check_cycle(&res, &c);
    report(&res, "stream: a happened-before cycle (hand_cycle's) is broken and counted, times stay monotonic");
}

/* ---- the random traces */

static void stream_random(const char *dir)
{
    struct group g_min = { 0 }, g_def = { 0 }, g_fwd = { 0 }, g_par = { 0 }, g_dom = { 0 }, g_null = { 0 },
                 g_aside = { 0 }, g_odd = { 0 }, g_flows = { 0 }, g_ties = { 0 }, g_back = { 0 }, g_empty = { 0 },
                 g_none = { 0 }, g_big = { 0 };
    struct agg none_ident = { 0 }, cycles = { 0 }, ref_cycles = { 0 };
    long jumped = 0, ncycles = 0, ntraces = 0;
    static const struct {
        double mu, gamma;
    } PAR[] = { { 0.9, 0.1 }, { 0.5, 0.5 }, { 1, 0 }, { 0, 0.01 }, { 0.999, 2 } };
    const size_t npar = sizeof PAR / sizeof PAR[0];
    char tag[200];

    for (int seed = 0; seed < NSEEDS; seed++) {
        rng = 0x5eed0000u + (uint64_t)seed;
        uint32_t R = 2 + rndn(5);
        double lmin = rndn(3) == 0 ? 0 : (double)(rndn(4) * 100);
        struct trace tr;
        gen(&tr, R, 20 + (int)rndn(180), lmin, 0);
        struct clock clocks[MAXR];
        bad_clocks(clocks, R);
        struct rt_location rk[MAXR];
        make_ranks(&tr, clocks, rk);
        double **t = interp(rk, R);
        double *lm = lmin_matrix(R, lmin);
        uint32_t dom[MAXR + 1];
        for (uint32_t r = 0; r <= R; r++)
            dom[r] = r;
        struct clc_params def, fwd, par;
        clc_default_params(&def);
        fwd = par = def;
        fwd.backward = 0;
        par.mu = PAR[(size_t)seed % npar].mu;
        par.gamma_back = PAR[(size_t)seed % npar].gamma;
        struct scase c = { tag, R, tr.n, t, &tr.m, &tr.m, dom, R, lm, &def, { NULL, 1 }, 0, 0, NULL, 0 };
        ntraces++;

        /* the smallest budget (1 byte: raised to the minimum), spill_dir NULL */
        snprintf(tag, sizeof tag, "seed %d (%u ranks, lmin %.0f), memory 1, spill_dir NULL", seed, R, lmin);
        jumped += run_case(&g_min, &c) > 0;
        /* the default budget in a directory of our own, read back to front
         * (a quarter of the seeds: 64 MiB is slow to map under ASan) */
        snprintf(tag, sizeof tag, "seed %d, memory 0, spill_dir %s, reads back to front", seed, dir);
        c.cfg = (struct clc_stream_config){ dir, 0 };
        c.reverse_reads = c.no_usage = 1;
        if (seed % 4 == 0)
            run_case(&g_def, &c);
        c.cfg = (struct clc_stream_config){ NULL, 1 };
        c.reverse_reads = c.no_usage = 0;
        /* forward only (even seeds), other mu and gamma_back (odd seeds) */
        if (seed % 2 == 0) {
            snprintf(tag, sizeof tag, "seed %d, memory 1, backward 0", seed);
            c.p = &fwd;
            run_case(&g_fwd, &c);
        } else {
            snprintf(tag, sizeof tag, "seed %d, memory 1, mu %g gamma_back %g", seed, par.mu, par.gamma_back);
            c.p = &par;
            run_case(&g_par, &c);
        }
        c.p = &def;

        /* clock domains shared by ranks, an lmin that differs by direction
         * (even seeds); or NULL for them all (odd seeds). Variants run on
         * half the seeds each, to keep the test fast under ASan. */
        uint32_t nd = 1 + rndn(R), dom2[MAXR];
        for (uint32_t r = 0; r < R; r++)
            dom2[r] = rndn(nd);
        double *lm2 = malloc(sizeof *lm2 * nd * nd);
        for (uint32_t k = 0; k < nd * nd; k++)
            lm2[k] = (double)(rndn(4) * 100);
        snprintf(tag, sizeof tag, "seed %d, memory 1, %u ranks in %u clock domains", seed, R, nd);
        c.dom = dom2;
        c.nd = nd;
        c.lm = lm2;
        if (seed % 2 == 0)
            run_case(&g_dom, &c);
        /* NULL: every rank its own domain, no latency, default parameters */
        snprintf(tag, sizeof tag, "seed %d, memory 1, domain_of, lmin and params NULL", seed);
        c.dom = NULL;
        c.nd = R;
        c.lm = NULL;
        c.p = NULL;
        if (seed % 2)
            run_case(&g_null, &c);
        free(lm2);
        c.dom = dom;
        c.lm = lm;
        c.p = &def;

        /* the matches set aside on disk: both, the messages only, the
         * collectives only; the reference reads the held ones */
        struct mg_result aside;
        char err[300] = "";
        int which = 1 + seed % 3;
        if (set_aside(&tr.m, dir, which, &aside, err, sizeof err) != 0) {
            fail(&g_aside.same, "seed %d: setting the matches aside: %s", seed, err);
        } else {
            c.m = &aside;
            c.cfg.memory = seed % 4 == 1 ? 0 : 1;
            snprintf(tag, sizeof tag, "seed %d, memory %zu, %s set aside", seed, c.cfg.memory,
                     which == 3 ? "messages and collectives" : which == 1 ? "messages" : "collectives");
            run_case(&g_aside, &c);
            c.cfg.memory = 1;
            c.m = &tr.m;
        }
        free_aside(&aside);

        /* matches no correct run gives, but without a cycle (even seeds) */
        if (seed % 2 == 0) {
            struct mg_result odd;
            odd_matches(&tr, &odd);
            snprintf(tag, sizeof tag, "seed %d, memory 1, %zu odd messages added", seed,
                     odd.nmessages - tr.m.nmessages);
            c.held = c.m = &odd;
            run_case(&g_odd, &c);
            free(odd.messages);
        } else {
            /* members that moved nothing one way, intercommunicators */
            struct mg_result flows;
            copy_match(&tr.m, UINT32_MAX, 1, &flows);
            snprintf(tag, sizeof tag, "seed %d, memory 1, quiet members, intercommunicators", seed);
            c.held = c.m = &flows;
            run_case(&g_flows, &c);
            free_match_copy(&flows);
        }
        c.held = c.m = &tr.m;

        /* times on a 1 us grid: ties within and across ranks (even seeds);
         * a clock that steps back now and then (odd seeds) */
        double **t2 = alloc_rows(R, tr.n);
        for (uint32_t r = 0; r < R; r++)
            for (uint64_t i = 0; i < tr.n[r]; i++)
                t2[r][i] = seed % 2 ? t[r][i] - (rndn(5) == 0 ? unif(0, 5000) : 0) : floor(t[r][i] / 1000) * 1000;
        snprintf(tag, sizeof tag, "seed %d, memory 1, %s", seed, seed % 2 ? "times that step back" : "times rounded to 1 us");
        c.t = t2;
        run_case(seed % 2 ? &g_back : &g_ties, &c);
        free_rows((void **)t2, R);
        c.t = t;

        if (seed % 5 == 0) {
            /* a rank with no events, anywhere */
            uint32_t at = rndn(R + 1);
            struct mg_result em;
            copy_match(&tr.m, at, 0, &em);
            double *te[MAXR + 1], none = 0;
            uint64_t ne[MAXR + 1];
            for (uint32_t r = 0, s = 0; r <= R; r++) {
                te[r] = r == at ? &none : t[s];
                ne[r] = r == at ? 0 : tr.n[s++];
            }
            double *lme = lmin_matrix(R + 1, lmin);
            struct scase e = { tag, R + 1, ne, te, &em, &em, dom, R + 1, lme, &def, { NULL, 1 }, 0, 0, NULL, 0 };
            snprintf(tag, sizeof tag, "seed %d, memory 1, rank %u of %u has no events", seed, at, R + 1);
            run_case(&g_empty, &e);
            free(lme);
            free_match_copy(&em);
        }
        if (seed % 10 == 1) {
            /* no messages, no collectives: nothing moves */
            struct mg_result none = { 0 };
            c.held = c.m = &none;
            c.cfg.memory = seed % 20 == 1 ? 1 : 0;
            snprintf(tag, sizeof tag, "seed %d, memory %zu, no matches", seed, c.cfg.memory);
            run_case(&g_none, &c);
            struct rows x;
            struct clc_times *ct = NULL;
            struct clc_stats st;
            struct clc_stream_usage use;
            int rc = stream_run(&c, &x, &ct, &st, &use, err, sizeof err);
            check(&none_ident, rc == 0 && got(ct) && st.jumps == 0 && st.backward_moved == 0 && st.max_jump_ns == 0,
                  "%s: rc %d (%s), %zu jumps, %zu moved back", tag, rc, err, st.jumps, st.backward_moved);
            for (uint32_t r = 0; r < R && rc == 0 && got(ct); r++)
                for (uint64_t i = 0; i < tr.n[r]; i++) {
                    double v = clc_times_get(ct, r, i);
                    check(&none_ident, same_bits(v, t[r][i]), "%s: rank %u event %llu: %.17g from %.17g", tag, r,
                          (unsigned long long)i, v, t[r][i]);
                }
            times_free(ct);
            c.held = c.m = &tr.m;
            c.cfg.memory = 1;
        }
        if (seed % 4 == 2) {
            /* a cycle: through messages, or through a collective */
            struct mg_result cyc = tr.m;
            size_t cap = tr.m.nmessages + 1;
            if (!(cyc.messages = malloc(sizeof *cyc.messages * cap)))
                abort();
            memcpy(cyc.messages, tr.m.messages, sizeof *tr.m.messages * tr.m.nmessages);
            int kind = (seed / 4) % 2;
            if (add_cycle(&tr, kind, &cyc, &cap)) {
                ncycles++;
                snprintf(tag, sizeof tag, "seed %d, memory 1, a cycle through %s", seed,
                         kind ? "a collective" : "messages");
                c.held = c.m = &cyc;
                check_cycle(&cycles, &c);
                /* the input has a cycle indeed: the reference breaks one too */
                struct clc_stats rst;
                double **ref = alloc_rows(R, tr.n);
                int rc = clc_correct_times((const double *const *)t, tr.n, R, &cyc, dom, R, lm, &def, ref, &rst, err,
                                           sizeof err);
                check(&ref_cycles, rc == 0 && rst.cycles_broken > 0, "%s: clc_correct_times broke %zu", tag,
                      rst.cycles_broken);
                free_rows((void **)ref, R);
                c.held = c.m = &tr.m;
            }
            free(cyc.messages);
        }

        free_rows((void **)t, R);
        free_ranks(rk, R);
        free(lm);
        free_trace(&tr);
    }

    /* two long traces, so the sorts spill and the result spans many blocks */
    struct clc_stream_usage used[2][3];
    static const size_t budget[3] = { 1, 1 << 16, 0 };
    for (int seed = 0; seed < 2; seed++) {
        rng = 0xb16b0000u + (uint64_t)seed;
        struct trace tr;
        gen(&tr, MAXR, 10000, 100, 0);
        struct clock clocks[MAXR];
        bad_clocks(clocks, MAXR);
        struct rt_location rk[MAXR];
        make_ranks(&tr, clocks, rk);
        double **t = interp(rk, MAXR);
        double *lm = lmin_matrix(MAXR, 100);
        uint32_t dom[MAXR];
        for (uint32_t r = 0; r < MAXR; r++)
            dom[r] = r;
        struct scase c = { tag, MAXR, tr.n, t, &tr.m, &tr.m, dom, MAXR, lm, NULL, { NULL, 1 }, 0, 0, NULL, 0 };
        for (int mem = 0; mem < 3; mem++) {
            c.cfg.memory = budget[mem];
            snprintf(tag, sizeof tag, "long seed %d, memory %zu", seed, c.cfg.memory);
            c.keep = &used[seed][mem];
            run_case(&g_big, &c);
        }
        free_rows((void **)t, MAXR);
        free_ranks(rk, MAXR);
        free(lm);
        free_trace(&tr);
    }

    report_group(&g_min, "memory 1 (the minimum), spill_dir NULL");
    report_group(&g_def, "memory 0 (64 MiB), a spill_dir, result read back to front, usage NULL");
    report_group(&g_fwd, "backward 0 (forward only)");
    report_group(&g_par, "mu and gamma_back other than the defaults (0.9/0.1, 0.5/0.5, 1/0, 0/0.01, 0.999/2)");
    report_group(&g_dom, "clock domains shared by ranks, lmin differing by direction");
    report_group(&g_null, "domain_of, lmin and params NULL");
    report_group(&g_aside, "matches set aside on disk (ms_file, mc_file), the reference on the held ones");
    report_group(&g_odd, "odd matches without a cycle: double receives, sends from collective events, one send "
                         "twice, receives into collectives, within a rank");
    report_group(&g_flows, "members that moved nothing one way, intercommunicator sides");
    report_group(&g_ties, "times on a 1 us grid (ties)");
    report_group(&g_back, "times that step back on a rank");
    report_group(&g_empty, "a rank with no events at a random position");
    report_group(&g_none, "no messages, no collectives");
    report_group(&g_big, "6 ranks, 10000 actions, memory 1, 64 KiB and 0");
    for (int seed = 0; seed < 2; seed++)
        diag("long seed %d: bytes on disk with memory 1: %llu, 64 KiB: %llu, 0: %llu; at most %llu messages in "
             "flight, %llu instances open", seed, (unsigned long long)used[seed][0].disk_bytes,
             (unsigned long long)used[seed][1].disk_bytes, (unsigned long long)used[seed][2].disk_bytes,
             (unsigned long long)used[seed][0].max_messages_in_flight,
             (unsigned long long)used[seed][0].max_open_instances);
    ok(jumped * 10 >= ntraces * 9, "stream: the skewed traces make the clock jump in %ld of %ld", jumped, ntraces);
    report(&none_ident, "stream: no messages, no collectives: every time comes back bit for bit, no jump");
    report(&fill_order, "stream: fill is called rank by rank, events front to back, each event once");
    report(&usage_sane, "stream: usage: in flight <= messages, open <= instances, >= 8 bytes an event on disk");
    report(&cycles, "stream: random happened-before cycles are broken and counted, times stay monotonic");
    if (cycles.fails)
        diag("first failure: %s", cycles.first);
    report(&ref_cycles, "... and clc_correct_times breaks a cycle in each of them too (the inputs are cycles)");
    ok(ncycles >= NSEEDS / 5, "stream: %ld traces with a cycle", ncycles);
}

/* ---- errors and edges */

/* An edge case, tried in a child first: a crash there is a failing line,
 * not the end of the TAP stream; then here, for the leak check. -2 (err
 * says how the child ended) if it did not come back. */
static int edge_run(const struct scase *c, struct clc_times **ct, struct clc_stats *st, char *err, size_t errlen)
{
    struct rows x;
    struct clc_stream_usage use;
    err[0] = 0;
    pid_t pid = fork();
    if (pid == 0) {
        stream_run(c, &x, ct, st, &use, err, errlen);
        _exit(0);
    }
    int status = 0;
    if (pid > 0 && (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        *ct = NULL;
        if (WIFSIGNALED(status))
            snprintf(err, errlen, "CRASHED (signal %d)", WTERMSIG(status));
        else
            snprintf(err, errlen, "the run ended the process, status %d (a sanitizer's report on stderr?)",
                     WEXITSTATUS(status));
        return -2;
    }
    return stream_run(c, &x, ct, st, &use, err, errlen);
}

static void stream_edges(const char *dir)
{
    double a[] = { 1, 2, 3 }, b[] = { 2, 3, 4 }, z = 0;
    double *t[2] = { a, b };
    uint64_t n[2] = { 3, 3 };
    struct mg_message msg = { { 0, 0, 0 }, { 1, 1, 0 }, 0, 0, 0 };
    struct mg_member mem[2] = { { .enter = { 0, 1, 0 }, .exit = { 0, 2, 0 }, .comm_rank = 0 },
                                { .enter = { 1, 0, 0 }, .exit = { 1, 2, 0 }, .comm_rank = 1 } };
    struct mg_collective coll = { .comm = 1, .op = OTF2_COLLECTIVE_OP_BARRIER, .root = -1, .nmembers = 2, .members = mem };
    struct mg_result m = { 0 };
    m.messages = &msg;
    m.nmessages = 1;
    m.collectives = &coll;
    m.ncollectives = 1;
    struct scase c = { "edge", 2, n, t, &m, &m, NULL, 2, NULL, NULL, { NULL, 1 }, 0, 0, NULL, 0 };
    struct clc_times *ct;
    struct clc_stats st;
    char err[300];
    int rc;

    /* references to events that do not exist: an error, not a crash */
    struct agg refs = { 0 };
    static const char *what[] = { "receive index 3 of 3", "send rank 2 of 2", "collective exit index 9",
                                  "collective entry rank 5", "receive index UINT64_MAX" };
    for (int k = 0; k < 5; k++) {
        struct mg_message bm = msg;
        struct mg_member bmem[2] = { mem[0], mem[1] };
        if (k == 0)
            bm.recv.index = 3;
        if (k == 1)
            bm.send.rank = 2;
        if (k == 2)
            bmem[1].exit.index = 9;
        if (k == 3)
            bmem[0].enter.rank = 5;
        if (k == 4)
            bm.recv.index = UINT64_MAX;
        struct mg_collective bc = coll;
        bc.members = bmem;
        struct mg_result bmr = m;
        bmr.messages = &bm;
        bmr.collectives = &bc;
        c.m = &bmr;
        rc = edge_run(&c, &ct, &st, err, sizeof err);
        check(&refs, rc == -1 && one_line(err) && !ct, "%s: rc %d, out %s, err \"%s\"", what[k], rc,
              ct ? "not NULL" : "NULL", err);
        if (rc == -1)
            diag("%s: %s", what[k], err);
        times_free(ct);
    }
    c.m = &m;
    report(&refs, "stream: match references to events that do not exist give -1, a one-line message, out NULL");

    /* parameters and domains the reference refuses */
    struct clc_params bad;
    clc_default_params(&bad);
    bad.mu = 1.5;
    c.p = &bad;
    rc = edge_run(&c, &ct, &st, err, sizeof err);
    ok(rc == -1 && one_line(err) && !ct, "stream: mu 1.5 is refused: %s", err);
    times_free(ct);
    c.p = NULL;
    uint32_t dom[2] = { 0, 2 };
    c.dom = dom;
    rc = edge_run(&c, &ct, &st, err, sizeof err);
    ok(rc == -1 && one_line(err) && !ct, "stream: clock domain 2 of 2 is refused: %s", err);
    times_free(ct);
    c.dom = NULL;

    /* fill fails */
    c.fill_fails = 1;
    rc = edge_run(&c, &ct, &st, err, sizeof err);
    ok(rc == -1 && one_line(err) && !ct, "stream: a fill that fails gives -1: %s", err);
    times_free(ct);
    c.fill_fails = 0;

    /* a spill directory that is not there, given or from $TMPDIR */
    char gone[440];
    snprintf(gone, sizeof gone, "%s/not-there", dir);
    c.cfg.spill_dir = gone;
    rc = edge_run(&c, &ct, &st, err, sizeof err);
    ok(rc == -1 && one_line(err) && strstr(err, gone) && !ct, "stream: a spill_dir that does not exist is named: %s",
       err);
    times_free(ct);
    c.cfg.spill_dir = NULL;
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", gone, 1);
    rc = edge_run(&c, &ct, &st, err, sizeof err);
    ok(rc == -1 && one_line(err) && strstr(err, gone) && !ct, "stream: spill_dir NULL goes to $TMPDIR: %s", err);
    times_free(ct);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);

    /* every rank empty; no rank at all (the reference takes both) */
    struct mg_result none = { 0 };
    uint64_t n0[2] = { 0, 0 };
    double *t0[2] = { &z, &z };
    struct scase e = { "two ranks, no events", 2, n0, t0, &none, &none, NULL, 2, NULL, NULL, { NULL, 1 }, 0, 0, NULL, 0 };
    rc = edge_run(&e, &ct, &st, err, sizeof err);
    ok(rc == 0 && got(ct) && st.jumps == 0 && st.cycles_broken == 0, "stream: ranks without events: rc %d %s", rc, err);
    times_free(ct);
    e.R = 0;
    e.tag = "no ranks";
    rc = edge_run(&e, &ct, &st, err, sizeof err);
    double *out0[1] = { NULL };
    char rerr[300] = "";
    int rrc = clc_correct_times((const double *const *)t0, n0, 0, &none, NULL, 0, NULL, NULL, out0, NULL, rerr,
                                sizeof rerr);
    ok(rc == rrc && (rc == 0 ? got(ct) && st.jumps == 0 : one_line(err)),
       "stream: nlocs 0 as clc_correct_times: rc %d (%s), reference rc %d (%s)", rc, err, rrc, rerr);
    times_free(ct);
}

static void stream_tests(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[400];
    snprintf(dir, sizeof dir, "%s/unit_clc.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        ok(0, "stream: a directory of our own in %s", tmp && *tmp ? tmp : "/tmp");
        return;
    }
    stream_hand_cycle();
    stream_random(dir);
    stream_edges(dir);
    /* nameless files: nothing is left behind (what is, is counted and removed) */
    int left = 0;
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        char path[700];
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        left += unlink(path) == 0 || rmdir(path) == 0;
    }
    if (d)
        closedir(d);
    ok(rmdir(dir) == 0 && left == 0, "stream: the spill directory is left empty (%d files in %s)", left, dir);
}

/* ------------------------------------------------------------ main */

int main(void)
{
    rng = 20240611;
    hand_message(0);
    hand_message(1);
    hand_barrier();
    hand_cycle();
    hand_errors();

    struct aggs A;
    memset(&A, 0, sizeof A);
    struct agg ident_truth = { 0 }, ident_mild = { 0 }, skipped = { 0 };
    long traces_with_tachyons = 0, traces = 0, mild_consistent = 0;
    double sum_err_interp = 0, sum_err_clc = 0, nerr = 0;
    struct clc_params fwd;
    clc_default_params(&fwd);
    fwd.backward = 0;

    for (int it = 0; it < 600; it++) {
        uint32_t R = 2 + rndn(5);
        double lmin = rndn(3) == 0 ? 0 : (double)(rndn(4) * 100);
        struct trace tr;
        gen(&tr, R, 20 + (int)rndn(180), lmin, 0);
        struct edge *e;
        size_t ne = constraints(&tr, lmin, &e);
        uint32_t dom[MAXR];
        for (uint32_t r = 0; r < R; r++)
            dom[r] = r;
        struct cm_model model = { 0 };
        model.domain_of = dom;
        model.ndomains = R;
        model.nranks = R;
        double *lm = lmin_matrix(R, lmin);

        /* skewed clocks: the real thing */
        struct clock clocks[MAXR];
        bad_clocks(clocks, R);
        struct rt_location rk[MAXR];
        make_ranks(&tr, clocks, rk);
        double **t = interp(rk, R);
        traces++;
        size_t nviol = violated(e, ne, t);
        traces_with_tachyons += nviol > 0;
        uint64_t *g[MAXR];
        struct clc_stats st;
        char err[300] = "";
        int rc = clc_correct(rk, R, &tr.m, lm, &model, NULL, g, &st, err, sizeof err);
        check(&A.runs, rc == 0 && st.cycles_broken == 0, "trace %d: rc %d (%s), %zu cycles", it, rc, err,
              st.cycles_broken);
        if (rc == 0) {
            check_output(&A, &tr, e, ne, g, t, 0.99, "clc");
            /* accuracy against the truth, offset removed by the first event of rank 0 */
            double base_i = t[0][0] - (double)rt_truth(&rk[0], 0), base_c = (double)g[0][0] - (double)rt_truth(&rk[0], 0);
            for (uint32_t r = 0; r < R; r++)
                for (uint64_t i = 0; i < tr.n[r]; i++) {
                    sum_err_interp += fabs(t[r][i] - (double)rt_truth(&rk[r], i) - base_i);
                    sum_err_clc += fabs((double)g[r][i] - (double)rt_truth(&rk[r], i) - base_c);
                    nerr++;
                }
            /* the plain-times interface gives the same, and ranks no violation
             * reaches are untouched by the full algorithm too */
            unsigned char *reach[MAXR];
            double *full[MAXR];
            for (uint32_t r = 0; r < R; r++) {
                reach[r] = malloc(tr.n[r]);
                full[r] = malloc(sizeof **full * tr.n[r]);
            }
            reach_from_violations(&tr, e, ne, t, reach);
            rc = clc_correct_times((const double *const *)t, tr.n, R, &tr.m, dom, R, lm, NULL, full, NULL, err,
                                   sizeof err);
            check(&A.runs, rc == 0, "trace %d plain times: %s", it, err);
            double cmin = INFINITY;
            for (uint32_t r = 0; r < R && rc == 0; r++)
                cmin = fmin(cmin, full[r][0]);
            for (uint32_t r = 0; r < R && rc == 0; r++) {
                int touched = 0;
                for (uint64_t i = 0; i < tr.n[r]; i++) {
                    touched |= reach[r][i];
                    check(&A.runs, g[r][i] == (uint64_t)llround(full[r][i] - cmin),
                          "trace %d rank %u event %llu: clc_correct %llu, clc_correct_times %.3f", it, r,
                          (unsigned long long)i, (unsigned long long)g[r][i], full[r][i] - cmin);
                }
                for (uint64_t i = 0; i < tr.n[r] && !touched; i++)
                    check(&A.untouched, full[r][i] == t[r][i],
                          "trace %d rank %u event %llu moved though no violation reaches its rank", it, r,
                          (unsigned long long)i);
            }
            double tmin = INFINITY;
            for (uint32_t r = 0; r < R; r++)
                tmin = fmin(tmin, t[r][0]);
            /* forward only: an event moves only if a violation reaches it */
            double *c[MAXR];
            for (uint32_t r = 0; r < R; r++)
                c[r] = malloc(sizeof **c * tr.n[r]);
            rc = clc_correct_times((const double *const *)t, tr.n, R, &tr.m, dom, R, lm, &fwd, c, NULL, err,
                                   sizeof err);
            check(&A.runs, rc == 0, "trace %d forward only: %s", it, err);
            for (uint32_t r = 0; r < R && rc == 0; r++)
                for (uint64_t i = 0; i < tr.n[r]; i++)
                    check(&A.fwd_cause, reach[r][i] || c[r][i] == t[r][i],
                          "trace %d rank %u event %llu moved %.3f ns though no violation precedes it", it, r,
                          (unsigned long long)i, c[r][i] - t[r][i]);
            if (rc == 0) {
                uint64_t *gf[MAXR];
                for (uint32_t r = 0; r < R; r++) {
                    gf[r] = malloc(sizeof **gf * tr.n[r]);
                    for (uint64_t i = 0; i < tr.n[r]; i++)
                        gf[r][i] = (uint64_t)llround(c[r][i] - tmin);
                }
                check_output(&A, &tr, e, ne, gf, t, 0.99, "forward only");
                for (uint32_t r = 0; r < R; r++)
                    free(gf[r]);
            }
            for (uint32_t r = 0; r < R; r++) {
                free(reach[r]);
                free(c[r]);
                free(full[r]);
            }
            clc_free_times(g, R);
        }
        free_rows((void **)t, R);
        free_ranks(rk, R);

        /* the truth itself as input: consistent, nothing may move */
        make_ranks(&tr, NULL, rk);
        t = interp(rk, R);
        rc = clc_correct(rk, R, &tr.m, lm, &model, NULL, g, &st, err, sizeof err);
        if (rc == 0) {
            uint64_t t0 = UINT64_MAX;
            for (uint32_t r = 0; r < R; r++)
                t0 = rt_truth(&rk[r], 0) < t0 ? rt_truth(&rk[r], 0) : t0;
            for (uint32_t r = 0; r < R; r++)
                for (uint64_t i = 0; i < tr.n[r]; i++)
                    check(&ident_truth, g[r][i] == rt_truth(&rk[r], i) - t0,
                          "trace %d: true times, rank %u event %llu moved to %llu from %llu", it, r,
                          (unsigned long long)i, (unsigned long long)g[r][i],
                          (unsigned long long)(rt_truth(&rk[r], i) - t0));
            /* cm_interpolated's ns -> s -> ns can leave 1e-11 ns: a jump that small
             * is no move; without it, no jump at all */
            if (violated(e, ne, t) == 0)
                check(&ident_truth, st.jumps == 0 && st.backward_moved == 0, "trace %d: true times, %zu jumps", it,
                      st.jumps);
            else
                check(&ident_truth, st.max_jump_ns < 1e-6, "trace %d: true times, a jump of %g ns", it,
                      st.max_jump_ns);
            clc_free_times(g, R);
        } else {
            check(&ident_truth, 0, "trace %d: %s", it, err);
        }
        /* skipped collectives are the ones with no semantics */
        size_t want_skipped = 0;
        for (size_t i = 0; i < tr.m.ncollectives; i++)
            want_skipped += shape_of_coll(&tr.m.collectives[i]) == NOTHING;
        check(&skipped, rc == 0 && st.skipped_collectives == want_skipped, "trace %d: %zu collectives skipped, %zu expected",
              it, st.skipped_collectives, want_skipped);
        free_rows((void **)t, R);
        free_ranks(rk, R);
        free(e);
        free(lm);
        free_trace(&tr);

        /* mild skew with latency slack: consistent input that is not the truth */
        gen(&tr, R, 20 + (int)rndn(180), lmin, 2000);
        ne = constraints(&tr, lmin, &e);
        lm = lmin_matrix(R, lmin);
        mild_clocks(clocks, R);
        make_ranks(&tr, clocks, rk);
        t = interp(rk, R);
        if (violated(e, ne, t) == 0) {
            mild_consistent++;
            double tmin = INFINITY;
            for (uint32_t r = 0; r < R; r++)
                tmin = fmin(tmin, t[r][0]);
            rc = clc_correct(rk, R, &tr.m, lm, &model, NULL, g, &st, err, sizeof err);
            for (uint32_t r = 0; r < R && rc == 0; r++)
                for (uint64_t i = 0; i < tr.n[r]; i++)
                    check(&ident_mild, g[r][i] == (uint64_t)llround(t[r][i] - tmin),
                          "trace %d: consistent skewed input, rank %u event %llu moved", it, r, (unsigned long long)i);
            check(&ident_mild, rc == 0, "trace %d: %s", it, err);
            if (rc == 0)
                clc_free_times(g, R);
        }
        free_rows((void **)t, R);
        free_ranks(rk, R);
        free(e);
        free(lm);
        free_trace(&tr);
    }
    report(&A.runs, "random traces (2-6 ranks, messages, collectives of every kind): CLC runs, no cycle");
    ok(traces_with_tachyons * 10 >= traces * 9, "the interpolated input violates constraints in %ld of %ld skewed traces",
       traces_with_tachyons, traces);
    report(&A.mono, "times non-decreasing on every rank (full and forward-only)");
    report(&A.tachyon, "no tachyon after CLC; lmin met within 1 ns of rounding (full and forward-only)");
    report(&A.coll, "every collective constraint met: all-to-all, bcast/scatter, reduce/gather, scan, exscan");
    report(&A.interval, "no local interval shrinks by more than 1 - mu (1%), up to 1 ns of rounding");
    report(&A.fwd_cause, "forward amortization moves only events in the causal future of a violated constraint");
    report(&A.untouched, "ranks no violation reaches keep their interpolated times exactly");
    report(&ident_truth, "identity on consistent input: the true times come back unchanged, no jump");
    report(&ident_mild, "identity on skewed input that violates nothing: every event stays where it was");
    ok(mild_consistent >= 100, "enough consistent skewed traces to test (%ld of 600)", mild_consistent);
    report(&skipped, "neighbourhood collectives and unknown operations are left out and counted");
    diag("mean |error| after removing the first event's offset: interpolated %.1f ns, CLC %.1f ns",
         sum_err_interp / nerr, sum_err_clc / nerr);
    stream_tests();
    return tap_finish();
}
