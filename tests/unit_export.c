/* unit_export.c — the streaming message pairing of the exports
 * (tools/export/flowmatch.c) against a brute-force matcher, and the raw-view
 * simplification (tools/merge/rawview.c) against its error bound, on random
 * input.
 *
 * Pairing: random per-rank streams of blocking and non-blocking sends and
 * receives, receive requests completed in random order (so completion
 * order differs from posting order), some requests cancelled, some never
 * completed. The brute force does what tools/merge/match.c does: per key, sends
 * in issue order and receives in posting order, cancelled ones left out;
 * every send and receive must get the same k from both. */
#include "flowmatch.h"
#include "rawview.h"
#include "skew.h"
#include "tap.h"

#include <math.h>
#include <string.h>

#define RANKS 4
#define OPS 400

struct end {                  /* one send or receive, as the brute force sees it */
    int is_send, cancelled, resolved;
    struct fm_key key;
    uint64_t order;           /* issue or posting position on its rank */
    uint64_t id;              /* unique: given to fm as the time */
    uint64_t k_brute, k_fm;
    int seen_fm;
};

static struct end ends[RANKS * OPS * 2];
static size_t nends;

static void on_end(void *user, int is_send, const struct fm_key *key, uint64_t k, uint32_t rank, uint64_t time,
                   uint64_t cookie)
{
    (void)user; (void)key; (void)rank; (void)cookie;
    struct end *e = &ends[time];
    e->k_fm = k;
    e->seen_fm += 1 + (e->is_send != is_send) * 100;   /* a wrong side counts as a failure */
}

static int same_key(const struct fm_key *a, const struct fm_key *b)
{
    return a->comm == b->comm && a->src == b->src && a->dst == b->dst && a->tag == b->tag;
}

/* k of each end: the number of ends before it (by order, same rank) with
 * the same key and side that count. Quadratic, obviously right. */
static void brute(void)
{
    for (size_t i = 0; i < nends; i++) {
        struct end *e = &ends[i];
        e->k_brute = 0;
        for (size_t j = 0; j < nends; j++) {
            const struct end *o = &ends[j];
            if (o->is_send == e->is_send && same_key(&o->key, &e->key) && !o->cancelled && o->resolved
                && o->order < e->order && (e->is_send ? o->key.src == e->key.src : o->key.dst == e->key.dst))
                e->k_brute++;
        }
    }
}

static void pairing(uint64_t seed, struct agg *a)
{
    uint64_t s = seed;
    nends = 0;
    struct fm_matcher *m = fm_new(RANKS, on_end, NULL);
    check(a, m != NULL, "fm_new");
    if (!m)
        return;
    /* open requests per rank: index into ends */
    size_t open[RANKS][OPS];
    int nopen[RANKS] = { 0 };
    uint64_t pos[RANKS] = { 0 };
    for (int step = 0; step < RANKS * OPS; step++) {
        uint32_t r = (uint32_t)(st_splitmix64(&s) % RANKS);
        uint64_t p = pos[r]++;
        int what = (int)(st_splitmix64(&s) % 6);
        struct fm_key key = { 0, r, (uint32_t)(st_splitmix64(&s) % RANKS), (uint32_t)(st_splitmix64(&s) % 2) };
        if (what <= 1) {          /* send: blocking, or an Isend to complete or cancel later */
            struct end *e = &ends[nends];
            *e = (struct end){ 1, 0, 1, key, p, nends, 0, 0, 0 };
            int has_req = what == 1;
            if (fm_send(m, r, has_req, nends, &key, nends, 0) != 0)
                check(a, 0, "fm_send failed");
            if (has_req)
                open[r][nopen[r]++] = nends;
            nends++;
        } else if (what <= 3) {   /* receive: blocking (resolved now), or posted */
            struct fm_key rk = { 0, (uint32_t)(st_splitmix64(&s) % RANKS), r, (uint32_t)(st_splitmix64(&s) % 2) };
            struct end *e = &ends[nends];
            *e = (struct end){ 0, 0, what == 2, rk, p, nends, 0, 0, 0 };
            if (what == 2)
                fm_recv(m, r, 0, 0, &rk, nends, 0);
            else {
                fm_post(m, r, nends);
                open[r][nopen[r]++] = nends;
            }
            nends++;
        } else if (nopen[r]) {    /* complete or cancel a random open request */
            int i = (int)(st_splitmix64(&s) % (uint64_t)nopen[r]);
            struct end *e = &ends[open[r][i]];
            open[r][i] = open[r][--nopen[r]];
            if (what == 5 && st_splitmix64(&s) % 3 == 0) {
                e->cancelled = 1;
                fm_cancel(m, r, e->id);
            } else if (e->is_send) {
                fm_send_complete(m, r, e->id);
            } else {
                e->resolved = 1;   /* the source and tag were drawn at posting; now they are known */
                fm_recv(m, r, 1, e->id, &e->key, e->id, 0);
            }
        }
    }
    /* what stays open: Isends never completed still count, receives never
     * resolved do not */
    fm_finish(m);
    fm_free(m);
    brute();
    for (size_t i = 0; i < nends; i++) {
        const struct end *e = &ends[i];
        int counts = !e->cancelled && e->resolved;
        if (counts)
            check(a, e->seen_fm == 1 && e->k_fm == e->k_brute, "seed %llu: %s %zu (rank %u, key %u>%u tag %u): "
                  "k %llu, brute force %llu (seen %d)", (unsigned long long)seed, e->is_send ? "send" : "receive", i,
                  e->is_send ? e->key.src : e->key.dst, e->key.src, e->key.dst, e->key.tag,
                  (unsigned long long)e->k_fm, (unsigned long long)e->k_brute, e->seen_fm);
        else
            check(a, e->seen_fm == 0, "seed %llu: %s %zu was cancelled or never resolved, yet counted",
                  (unsigned long long)seed, e->is_send ? "send" : "receive", i);
    }
}

/* Piecewise-linear (global, raw) with rounding noise: the map must stay
 * within tol of every point, with a few breakpoints per piece (mostly one:
 * pieces + 1 in all). */
static void simplify(uint64_t seed, struct agg *within, struct agg *short_map)
{
    enum { N = 5000 };
    static double x[N], y[N];
    static struct rv_point out[N + 1];
    uint64_t s = seed;
    int pieces = 1 + (int)(st_splitmix64(&s) % 4);
    double g = 0, raw = (double)(st_splitmix64(&s) % 100000), slope = 1 + ((double)(st_splitmix64(&s) % 200) - 100) * 1e-6;
    for (int i = 0; i < N; i++) {
        if (i && i % (N / pieces) == 0)
            slope = 1 + ((double)(st_splitmix64(&s) % 200) - 100) * 1e-6;   /* a new drift segment */
        double step = (double)(st_splitmix64(&s) % 20000);
        g += step;
        raw += step * slope;
        x[i] = round(g);                                             /* global times are whole ns */
        y[i] = raw + ((double)(st_splitmix64(&s) % 1000) / 1000 - 0.5) * 0.2;
        if (st_splitmix64(&s) % 50 == 0 && i + 1 < N) {                 /* two events at the same ns */
            x[i + 1] = x[i];
            y[i + 1] = y[i] + 0.05;
            i++;
        }
    }
    uint32_t k = rv_simplify(x, y, N, 0.9, out);
    struct rv_rank r = { out, k };
    double worst = 0;
    for (int i = 0; i < N; i++)
        worst = fmax(worst, fabs(rv_raw(&r, (uint64_t)i, x[i]) - y[i]));
    check(within, worst <= 0.9 + 1e-6, "seed %llu: %.3f ns off", (unsigned long long)seed, worst);
    /* greedy, not minimal: a noisy point can start a short extra segment */
    check(short_map, k <= 6 * (uint32_t)pieces + 2, "seed %llu: %u breakpoints for %d pieces", (unsigned long long)seed,
          k, pieces);
}

int main(void)
{
    struct agg pairs = { 0 }, within = { 0 }, short_map = { 0 };
    for (uint64_t seed = 1; seed <= 300; seed++)
        pairing(seed, &pairs);
    report(&pairs, "streaming pairing gives every send and receive the k of a brute-force matcher (300 random "
                   "traces: completion order != posting order, cancelled and never-completed requests)");
    for (uint64_t seed = 1; seed <= 200; seed++)
        simplify(seed, &within, &short_map);
    report(&within, "raw-view map within its tolerance of every point (200 random piecewise-linear runs)");
    report(&short_map, "raw-view map: at most 6 breakpoints per linear piece of 5000 noisy points");
    struct rv_point one[2];
    double x1 = 5, y1 = 7;
    uint32_t k = rv_simplify(&x1, &y1, 1, 0.9, one);
    struct rv_rank r1 = { one, k };
    ok(k == 1 && rv_raw(&r1, 0, 5) == 7 && rv_raw(&r1, 0, 15) == 17, "a single event: one breakpoint, slope 1 beyond it");
    /* A clock cut into drift segments can give the last event of one and
     * the first of the next the same global time, 80 ns apart in raw time:
     * the map steps there, and the event index picks the side. */
    double sx[8] = { 0, 1000, 2000, 3000, 3000, 4000, 5000, 6000 };
    double sy[8] = { 0, 1000, 2000, 3000, 3080, 4080, 5080, 6080 };
    struct rv_point sp[9];
    uint32_t sk = rv_simplify(sx, sy, 8, 0.9, sp);
    struct rv_rank sr = { sp, sk };
    double sw = 0;
    for (uint64_t i = 0; i < 8; i++)
        sw = fmax(sw, fabs(rv_raw(&sr, i, sx[i]) - sy[i]));
    ok(sw <= 0.9 && sk <= 4, "a step at one global time: every event on its own side (%.3f ns off, %u breakpoints)",
       sw, sk);
    ok(rv_simplify(NULL, NULL, 0, 0.9, one) == 0, "no events: no breakpoints");
    return tap_finish();
}
