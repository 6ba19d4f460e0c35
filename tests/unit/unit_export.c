/* unit_export.c — the streaming message pairing of the exports
 * (tools/export/flowmatch.c) against a brute-force matcher, and the raw-view
 * simplification (tools/output/rawview_simplify.c) against its error bound,
 * and the map read back through a file (tools/output/rawview.c) against the
 * same lookup on the whole list, on random input.
 *
 * Pairing: random per-rank streams of blocking and non-blocking sends and
 * receives, receive requests completed in random order (so completion
 * order differs from posting order), some requests cancelled, some never
 * completed. The brute force does what tools/match/match.c does: per key, sends
 * in issue order and receives in posting order, cancelled ones left out;
 * every send and receive must get the same k from both. */
#include "flowmatch.h"
#include "rawview.h"
#include "skew.h"
#include "tap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A random map written as text: ranks of 0 to `most` points (n points
 * of rank r in pts + off[r]; exactly `most` if exact), values in eighths of a ns so that the text's
 * three decimals hold them exactly; some points share an index (a step)
 * or a global time. */
static uint32_t write_map(const char *path, uint64_t *s, uint32_t nranks, uint32_t most, int exact,
                          struct rv_point *pts, uint32_t *off)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "synctrace-rawview 2\nranks %u\n", nranks);
    uint32_t total = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        uint32_t pick = (uint32_t)(st_splitmix64(s) % 8);
        uint32_t n = exact ? most : pick == 0 ? 0 : pick == 1 ? 1 : pick == 2 ? 32 : pick == 3 ? 33
                     : (uint32_t)(st_splitmix64(s) % (most + 1));
        off[r] = total;
        fprintf(f, "rank %u %u\n", r, n);
        uint64_t idx = st_splitmix64(s) % 5;
        double g = (double)(st_splitmix64(s) % 1000), raw = (double)(st_splitmix64(s) % 100000) / 8;
        for (uint32_t k = 0; k < n; k++) {
            struct rv_point *p = &pts[total + k];
            *p = (struct rv_point){ idx, g, raw };
            fprintf(f, "%llu %.3f %.3f\n", (unsigned long long)idx, g, raw);
            uint64_t c = st_splitmix64(s) % 16;
            idx += c == 0 ? 0 : 1 + st_splitmix64(s) % 40;
            g += c == 1 ? 0 : (double)(st_splitmix64(s) % 8000) / 8;
            raw += (double)(st_splitmix64(s) % 9000) / 8 - 40;
        }
        total += n;
    }
    fclose(f);
    return total;
}

/* rv_file_raw on the map read back equals rv_raw on the rank's whole list,
 * bit for bit, at random events (before the first point, between, on and
 * beyond the last), in random rank order so that blocks are read again. */
static void file_lookup(uint64_t seed, uint32_t nranks, uint32_t most, int exact, const char *dir, struct agg *same,
                        struct agg *points)
{
    uint64_t s = seed;
    char path[4200];
    snprintf(path, sizeof path, "%s/map", dir);
    struct rv_point *pts = malloc(sizeof *pts * ((size_t)nranks * most + 1));
    uint32_t *off = malloc(sizeof *off * (nranks + 1));
    write_map(path, &s, nranks, most, exact, pts, off);
    char err[512] = "";
    struct rv_file *m = rv_open(path, nranks, dir, err, sizeof err);
    if (!m) {
        check(same, 0, "seed %llu: %s", (unsigned long long)seed, err);
        free(pts);
        free(off);
        return;
    }
    uint64_t differ = 0, wrong = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        struct rv_point p;
        for (uint32_t k = 0; k < rv_count(m, r); k++)
            wrong += rv_point_at(m, r, k, &p) != 0 || memcmp(&p, &pts[off[r] + k], sizeof p) != 0;
    }
    for (int q = 0; q < 20000; q++) {
        uint32_t r = (uint32_t)(st_splitmix64(&s) % nranks);
        uint32_t n = rv_count(m, r);
        struct rv_rank whole = { &pts[off[r]], n };
        uint64_t top = n ? whole.v[n - 1].index + 50 : 100;
        uint64_t index = st_splitmix64(&s) % (top + 1);
        double g = (double)(st_splitmix64(&s) % 4000000) / 8;
        double a = rv_file_raw(m, r, index, g), b = rv_raw(&whole, index, g);
        differ += memcmp(&a, &b, sizeof a) != 0;
    }
    check(same, differ == 0 && !*rv_file_error(m), "seed %llu: %llu of 20000 lookups differ %s", (unsigned long long)seed,
          (unsigned long long)differ, rv_file_error(m));
    check(points, wrong == 0, "seed %llu: %llu points read back wrong", (unsigned long long)seed,
          (unsigned long long)wrong);
    rv_close(m);
    unlink(path);
    free(pts);
    free(off);
}

/* A map that is not right: NULL, and one line naming the file (and line). */
static void bad_map(const char *dir, const char *text, uint32_t nranks, const char *expect, const char *what)
{
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/bad", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    struct rv_file *m = rv_open(path, nranks, dir, err, sizeof err);
    ok(!m && strstr(err, path) && strstr(err, expect) && !strchr(err, '\n'), "bad map, %s: %s", what, err);
    rv_close(m);
    unlink(path);
}

struct noisy {
    const double *x, *y;
};

static void noisy_at(const void *ctx, uint64_t i, double *x, double *y)
{
    const struct noisy *a = ctx;
    *x = a->x[i];
    *y = a->y[i];
}

/* rv_simplify_within: at most `limit` breakpoints (2 at least), every
 * point within the tolerance it says it used, and half that tolerance
 * would not have fitted (the doubling stops at the first that fits). */
static void within_limit(uint64_t seed, struct agg *fits)
{
    enum { N = 20000 };
    static double x[N], y[N];
    uint64_t s = seed;
    double g = 0, raw = 0;
    for (int i = 0; i < N; i++) {
        g += (double)(st_splitmix64(&s) % 5000);
        raw += (g - raw) * 0 + (double)(st_splitmix64(&s) % 5000) * (1 + 1e-3 * sin(i / 700.0));
        x[i] = g;
        y[i] = raw + (double)(st_splitmix64(&s) % 100) / 10;
        if (i && st_splitmix64(&s) % 300 == 0)
            x[i] = x[i - 1], y[i] = y[i - 1] + 500;   /* a step */
    }
    const uint32_t limits[] = { 1, 2, 10, 100, 1000, 30000 };
    const struct noisy a = { x, y };
    const struct rv_series sr = { noisy_at, &a };
    for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
        struct rv_points out = { 0 };
        double tol = 0;
        int rc = rv_simplify_within(&sr, N, limits[l], 1.0, &out, &tol);
        struct rv_rank r = { out.v, out.n };
        double worst = 0;
        for (int i = 0; rc == 0 && i < N; i++)
            worst = fmax(worst, fabs(rv_raw(&r, (uint64_t)i, x[i]) - y[i]));
        uint32_t cap = limits[l] < 2 ? 2 : limits[l];
        int tight = 1;
        if (tol > 1.0) {   /* half of it did not fit */
            struct rv_points half = { 0 };
            half.limit = cap;
            rv_simplify_series(&sr, N, tol / 2, &half);
            tight = half.failed == RV_OVER;
            free(half.v);
        }
        check(fits, rc == 0 && out.n <= cap && worst <= tol * (1 + 1e-9) && tight,
              "seed %llu limit %u: %u breakpoints, %.3f ns off at tolerance %.3f, half would fit: %d",
              (unsigned long long)seed, limits[l], out.n, worst, tol, !tight);
        free(out.v);
    }
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

    struct agg fits = { 0 };
    for (uint64_t seed = 1; seed <= 20; seed++)
        within_limit(seed, &fits);
    report(&fits, "thinned for a page: at most the limit, within the tolerance used, the first doubling that fits "
                  "(20 noisy runs of 20000 points with steps, limits 1 to 30000)");

    char dir[] = "/tmp/unit_export.XXXXXX";
    if (!mkdtemp(dir)) {
        ok(0, "a scratch directory");
        return tap_finish();
    }
    struct agg same = { 0 }, points = { 0 };
    for (uint64_t seed = 1; seed <= 40; seed++)
        file_lookup(seed, 1 + (uint32_t)(seed * 7 % 60), 3000, 0, dir, &same, &points);
    /* more blocks than the cache's slots: blocks are read again, by other
     * ranks' and (one rank of 300000 points) by the rank's own */
    file_lookup(41, 40, 14000, 0, dir, &same, &points);
    file_lookup(42, 1, 300000, 1, dir, &same, &points);
    report(&same, "the map read back through its file: every lookup equals the whole list's, bit for bit (42 random "
                  "maps, two with more blocks than the cache holds)");
    report(&points, "the map read back through its file: every point as written");
    bad_map(dir, "synctrace-rawview 2\nranks 3\n", 2, "3 ranks, the archive has 2", "another rank count");
    bad_map(dir, "synctrace-rawview 2\nranks 2\nrank 0 1\n5 1.0 2.0\nrank 1 2\n7 3.0 4.0\n", 2, ":7: expected",
            "cut short");
    bad_map(dir, "synctrace-rawview 2\nranks 1\nrank 0 2\n5 3.0 2.0\n6 1.0 4.0\n", 1, ":5: expected 'event_index",
            "global time going back");
    bad_map(dir, "synctrace-rawview 2\nranks 1\nrank 0 2\n5 1.0 2.0\n4 3.0 4.0\n", 1, ":5: expected 'event_index",
            "event index going back");
    bad_map(dir, "synctrace-rawview 2\nranks 2\nrank 1 0\n", 2, ":3: expected 'rank 0 COUNT'", "ranks out of order");
    bad_map(dir, "synctrace-rawview 1\n", 1, "version 1", "another version");
    char err[512] = "";
    ok(!rv_open("/nonexistent/rawview.map", 1, dir, err, sizeof err) && strstr(err, "/nonexistent/rawview.map: cannot open"),
       "a missing map: %s", err);
    char path[4200];
    snprintf(path, sizeof path, "%s/good", dir);
    FILE *f = fopen(path, "w");
    fputs("synctrace-rawview 2\nranks 1\nrank 0 1\n5 1.0 2.0\n", f);
    fclose(f);
    ok(!rv_open(path, 1, "/nonexistent", err, sizeof err) && strstr(err, "cannot be set aside in /nonexistent"),
       "no directory for the points: %s", err);
    unlink(path);
    rmdir(dir);
    return tap_finish();
}
