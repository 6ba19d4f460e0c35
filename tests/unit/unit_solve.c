/* TAP unit test for tools/clock/solve.c.  Output is buffered so the plan ("1..N")
 * comes first; exit status 1 if any test failed.
 *
 * The references below (Floyd-Warshall on a dense matrix, Karp's minimum
 * mean cycle, enumeration of all simple cycles, reachability) are written
 * independently of solve.c.  Random systems come in four kinds:
 *   consistent  hidden true offsets, w = true_s - true_t + positive slack:
 *               must give delta = 0, feasible offsets, truth inside [lo,hi];
 *   near        consistent, plus a few edges tightened beyond their slack;
 *   integer     arbitrary integer weights (many zero-weight cycles, exact
 *               cycle means), often with negative cycles;
 *   real        arbitrary real weights, often with negative cycles.
 * Each numbered test aggregates all systems and reports the first failure.
 */
#include "solve.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ TAP */

#include "tap.h"
#include "skew.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------ RNG */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    return st_splitmix64(&rng_state);
}

static double unif(void) /* [0,1) */
{
    return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static int irand(int lo, int hi) /* [lo,hi] */
{
    return lo + (int)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ------------------------------------------------------- test systems */

struct edge {
    int s, t;
    double w;
};

struct sys {
    int n;
    int ne;
    struct edge *e;
    double *truth; /* consistent systems only, else NULL */
    int kind;
};

enum { K_CONSISTENT, K_NEAR, K_INTEGER, K_REAL, K_KINDS };
static const char *kind_name[] = {"consistent", "near", "integer", "real"};

static void sys_free(struct sys *s)
{
    free(s->e);
    free(s->truth);
}

static void add(struct sys *y, int *cap, int s, int t, double w)
{
    if (y->ne == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        struct edge *ne = realloc(y->e, (size_t)*cap * sizeof *ne);
        if (!ne)
            exit(1);
        y->e = ne;
    }
    y->e[y->ne].s = s;
    y->e[y->ne].t = t;
    y->e[y->ne].w = w;
    y->ne++;
}

static double slack(double base)
{
    /* >= base, heavier tail */
    double u = unif();
    return base + 500.0 * u * u + unif();
}

/* scale: magnitude of the hidden offsets (consistent/near kinds). */
static struct sys gen(int n, int kind, double scale)
{
    struct sys y = {n, 0, NULL, NULL, kind};
    int cap = 0;
    double p = 0.05 + 0.9 * unif();
    if (kind == K_CONSISTENT || kind == K_NEAR) {
        y.truth = xmalloc((size_t)n * sizeof *y.truth);
        for (int v = 0; v < n; v++)
            y.truth[v] = (2 * unif() - 1) * scale;
    }
    int ilo = -irand(1, 20), ihi = irand(5, 60);
    double rlo = -50 * unif(), rhi = 20 + 100 * unif();
    for (int s = 0; s < n; s++)
        for (int t = 0; t < n; t++) {
            if (s == t ? unif() >= 0.05 : unif() >= p)
                continue;
            int copies = unif() < 0.1 ? irand(2, 3) : 1;
            for (int c = 0; c < copies; c++) {
                double w;
                switch (kind) {
                case K_CONSISTENT:
                case K_NEAR:
                    w = (y.truth[s] - y.truth[t]) + slack(s == t ? 0 : 300);
                    break;
                case K_INTEGER:
                    w = irand(s == t ? 0 : ilo, ihi);
                    if (s == t && unif() < 0.5)
                        w = irand(ilo, 0);
                    break;
                default:
                    w = rlo + (rhi - rlo) * unif();
                    break;
                }
                add(&y, &cap, s, t, w);
            }
        }
    if (kind == K_NEAR && y.ne > 0) {
        int k = irand(1, 3);
        for (int i = 0; i < k; i++) {
            struct edge *e = &y.e[irand(0, y.ne - 1)];
            e->w -= 300 + 400 * unif();
        }
    }
    return y;
}

static struct sv_graph *build(const struct sys *y)
{
    struct sv_graph *g = sv_graph_new((uint32_t)y->n, (size_t)y->ne);
    if (!g)
        exit(1);
    for (int i = 0; i < y->ne; i++)
        if (sv_add_edge(g, (uint32_t)y->e[i].s, (uint32_t)y->e[i].t, y->e[i].w) != 0) {
            fprintf(stderr, "sv_add_edge failed\n");
            exit(1);
        }
    if (sv_finish(g) != 0)
        exit(1);
    return g;
}

/* ------------------------------------------------------------ references */

/* Dense matrix of the smallest weight per (s,t) including self-loops,
 * INFINITY where there is no edge. */
static double *min_matrix(const struct sys *y)
{
    int n = y->n;
    double *m = xmalloc((size_t)n * n * sizeof *m);
    for (int i = 0; i < n * n; i++)
        m[i] = INFINITY;
    for (int i = 0; i < y->ne; i++) {
        double *c = &m[y->e[i].s * n + y->e[i].t];
        if (y->e[i].w < *c)
            *c = y->e[i].w;
    }
    return m;
}

/* Floyd-Warshall, weights + delta.  Returns 1 if some D[i][i] < -thr. */
static int ref_fw(const struct sys *y, double delta, double thr, double *D)
{
    int n = y->n;
    double *m = min_matrix(y);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double w = m[i * n + j] + delta;
            D[i * n + j] = i == j ? (w < 0 ? w : 0) : w;
        }
    free(m);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (D[i * n + k] + D[k * n + j] < D[i * n + j])
                    D[i * n + j] = D[i * n + k] + D[k * n + j];
    int neg = 0;
    for (int i = 0; i < n; i++)
        if (D[i * n + i] < -thr)
            neg = 1;
    return neg;
}

/* Reachability closure: R[s][t] = t reachable from s (R[s][s] = 1). */
static void ref_reach(const struct sys *y, unsigned char *R)
{
    int n = y->n;
    memset(R, 0, (size_t)n * n);
    for (int i = 0; i < n; i++)
        R[i * n + i] = 1;
    for (int i = 0; i < y->ne; i++)
        R[y->e[i].s * n + y->e[i].t] = 1;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (R[i * n + k])
                for (int j = 0; j < n; j++)
                    if (R[k * n + j])
                        R[i * n + j] = 1;
}

/* Karp's minimum mean cycle: D_0(v) = 0, D_k(v) = min_u D_{k-1}(u) + w(u,v);
 * lambda = min_v max_k (D_n(v) - D_k(v)) / (n - k). */
static double ref_karp(const struct sys *y)
{
    int n = y->n;
    if (n == 0)
        return INFINITY;
    double *m = min_matrix(y);
    double *D = xmalloc((size_t)(n + 1) * n * sizeof *D);
    for (int v = 0; v < n; v++)
        D[v] = 0;
    for (int k = 1; k <= n; k++)
        for (int v = 0; v < n; v++) {
            double b = INFINITY;
            for (int u = 0; u < n; u++)
                if (D[(k - 1) * n + u] + m[u * n + v] < b)
                    b = D[(k - 1) * n + u] + m[u * n + v];
            D[k * n + v] = b;
        }
    double lam = INFINITY;
    for (int v = 0; v < n; v++) {
        if (D[n * n + v] == INFINITY)
            continue;
        double mx = -INFINITY;
        for (int k = 0; k < n; k++)
            if (D[k * n + v] < INFINITY) {
                double q = (D[n * n + v] - D[k * n + v]) / (n - k);
                if (q > mx)
                    mx = q;
            }
        if (mx < lam)
            lam = mx;
    }
    free(m);
    free(D);
    return lam;
}

/* Enumeration of all simple cycles (each once: its smallest vertex first);
 * cycle weights summed with Neumaier's compensated summation. */
static double enum_best;
static double enum_w[16];

static double csum(const double *v, int k)
{
    double s = 0, c = 0;
    for (int i = 0; i < k; i++) {
        double t = s + v[i];
        if (fabs(s) >= fabs(v[i]))
            c += (s - t) + v[i];
        else
            c += (v[i] - t) + s;
        s = t;
    }
    return s + c;
}

static void enum_dfs(const double *m, int n, int start, int v, int depth, unsigned used)
{
    for (int t = start; t < n; t++) {
        double w = m[v * n + t];
        if (w == INFINITY)
            continue;
        enum_w[depth] = w;
        if (t == start) {
            double mean = csum(enum_w, depth + 1) / (depth + 1);
            if (mean < enum_best)
                enum_best = mean;
        } else if (!(used & (1u << t))) {
            enum_dfs(m, n, start, t, depth + 1, used | (1u << t));
        }
    }
}

static double ref_enum(const struct sys *y)
{
    double *m = min_matrix(y);
    enum_best = INFINITY;
    for (int s = 0; s < y->n; s++)
        enum_dfs(m, y->n, s, s, 0, 1u << s);
    free(m);
    return enum_best;
}

static int close_to(double a, double b, double abs_tol, double rel_tol)
{
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs(a - b) <= abs_tol + rel_tol * fmax(fabs(a), fabs(b));
}

/* ------------------------------------------------------------ hand cases */

static struct sv_graph *graph_of(int n, const struct edge *e, int ne)
{
    struct sys y = {n, ne, (struct edge *)e, NULL, 0};
    return build(&y);
}

static int offsets_feasible(const struct edge *e, int ne, const double *g, double delta, double tol)
{
    for (int i = 0; i < ne; i++) {
        double a = g[e[i].s], b = g[e[i].t];
        if (isnan(a) || isnan(b))
            continue;
        if (a - b > e[i].w + delta + tol + 1e-12 * (fabs(a) + fabs(b) + fabs(e[i].w)))
            return 0;
    }
    return 1;
}

static void hand_cases(void)
{
    double gv[8], lo[8], hi[8], delta, dist[8];
    uint32_t unb;

    {
        struct edge e[] = {{0, 1, -1}, {1, 2, -1}, {2, 0, -1}};
        struct sv_graph *g = graph_of(3, e, 3);
        double lam = sv_min_mean_cycle(g);
        ok(lam == -1, "3-cycle of weights -1,-1,-1: lambda* = -1 (got %g)", lam);
        int rc = sv_solve(g, 0, 0.5, gv, &delta, lo, hi, &unb);
        ok(rc == 0 && delta == 1 && unb == 0 && offsets_feasible(e, 3, gv, delta, sv_tolerance(g, delta)),
           "3-cycle: sv_solve gives delta = 1 (got %g) and feasible offsets", delta);
        ok(sv_dist_from(g, 0, 0, dist) == 1 && sv_dist_to(g, 2, 0.5, dist) == 1 && sv_dist_from(g, 1, 1, dist) == 0 &&
               dist[1] == 0 && dist[2] == 0 && dist[0] == 0,
           "3-cycle: negative cycle reported below delta, zero cycle at delta accepted");
        sv_graph_free(g);
    }
    {
        /* mean -1 on {0,1}, mean -2 on {2,3,4}, joined by a one-way edge */
        struct edge e[] = {{0, 1, 1}, {1, 0, -3}, {2, 3, -3}, {3, 4, -3}, {4, 2, 0}, {1, 2, 10}};
        struct sv_graph *g = graph_of(5, e, 6);
        double lam = sv_min_mean_cycle(g);
        int rc = sv_solve(g, 2, 0.5, gv, &delta, lo, hi, &unb);
        ok(lam == -2 && rc == 0 && delta == 2 && unb == 2 && isnan(gv[0]) && isnan(gv[1]) && gv[2] == 0,
           "two disjoint cycles: lambda* = -2 (got %g), delta = 2 (got %g), 2 unbounded", lam, delta);
        ok(offsets_feasible(e, 6, gv, delta, sv_tolerance(g, delta)), "two disjoint cycles: offsets feasible");
        sv_graph_free(g);
    }
    {
        struct edge e[] = {{0, 0, -5}, {0, 1, 1}, {1, 0, -3}};
        struct sv_graph *g = graph_of(2, e, 3);
        double lam = sv_min_mean_cycle(g);
        int rc = sv_solve(g, 0, 0.5, gv, &delta, NULL, NULL, &unb);
        struct edge e2[] = {{0, 0, 3}, {0, 1, 1}};
        struct sv_graph *g2 = graph_of(2, e2, 2);
        double lam2 = sv_min_mean_cycle(g2);
        int rc2 = sv_dist_from(g2, 0, 0, dist);
        ok(lam == -5 && rc == 0 && delta == 5 && lam2 == 3 && rc2 == 0 && dist[1] == 1 && dist[0] == 0,
           "self-loops: -5 loop gives lambda* = -5 (got %g), delta 5; lone +3 loop gives lambda* = 3 (got %g)", lam,
           lam2);
        sv_graph_free(g);
        sv_graph_free(g2);
    }
    {
        struct edge e[] = {{0, 1, 5}, {0, 1, 2}, {0, 1, 7}, {1, 0, -1}, {1, 0, 4}};
        struct sv_graph *g = graph_of(2, e, 5);
        double lam = sv_min_mean_cycle(g);
        int rc = sv_dist_from(g, 0, 0, dist);
        ok(lam == 0.5 && rc == 0 && dist[1] == 2 && sv_edges(g) == 2,
           "parallel edges: minimum kept, lambda* = 0.5 (got %g), wbar(0,1) = 2, 2 distinct edges", lam);
        sv_graph_free(g);
    }
    {
        /* 0 <-> 1 bounded; 0 -> 2 only (2 cannot reach 0); 3 isolated */
        struct edge e[] = {{0, 1, 10}, {1, 0, 5}, {0, 2, 4}};
        struct sv_graph *g = graph_of(4, e, 3);
        int rc = sv_solve(g, 0, 0.5, gv, &delta, lo, hi, &unb);
        ok(rc == 0 && unb == 2 && !isnan(gv[0]) && !isnan(gv[1]) && isnan(gv[2]) && isnan(gv[3]) && lo[2] == -4 &&
               hi[2] == INFINITY && lo[3] == -INFINITY && hi[3] == INFINITY && lo[1] == -10 && hi[1] == 5 &&
               gv[1] == 0.5 * 5 - 0.5 * 10,
           "unreachable vertices: g = NAN, counted (%u), lo/hi infinite on the unbounded side", unb);
        double lam = sv_min_mean_cycle(g);
        ok(lam == 7.5, "min mean of a single 2-cycle = 7.5 (got %g)", lam);
        sv_graph_free(g);
    }
    {
        struct sv_graph *g = graph_of(1, NULL, 0);
        double lam = sv_min_mean_cycle(g);
        int rc = sv_solve(g, 0, 0.3, gv, &delta, lo, hi, &unb);
        double m1[1];
        int ra = sv_all_pairs(g, 0, 10, m1);
        ok(lam == INFINITY && rc == 0 && gv[0] == 0 && delta == 0 && unb == 0 && ra == 0 && m1[0] == 0,
           "single vertex, no edges: lambda* = INFINITY, g = 0, delta = 0");
        sv_graph_free(g);
        struct edge e[] = {{0, 1, 1}, {1, 2, -1}};
        g = graph_of(3, e, 2);
        lam = sv_min_mean_cycle(g);
        ok(lam == INFINITY, "acyclic graph: lambda* = INFINITY");
        sv_graph_free(g);
    }
    {
        struct sv_graph *g = sv_graph_new(3, 0);
        int r1 = sv_add_edge(g, 0, 3, 1), r2 = sv_add_edge(g, 3, 0, 1), r3 = sv_add_edge(g, 0, 1, NAN);
        int r4 = sv_add_edge(g, 0, 1, -INFINITY), r5 = sv_add_edge(g, 0, 1, INFINITY);
        int r6 = sv_dist_from(g, 0, 0, dist); /* not finished */
        sv_add_edge(g, 0, 1, 1);
        sv_add_edge(g, 1, 0, 1);
        sv_finish(g);
        int r7 = sv_add_edge(g, 0, 1, 1), r8 = sv_finish(g);
        int r9 = sv_solve(g, 3, 0.5, gv, NULL, NULL, NULL, NULL), r10 = sv_solve(g, 0, 1.5, gv, NULL, NULL, NULL, NULL);
        int r11 = sv_solve(g, 0, NAN, gv, NULL, NULL, NULL, NULL), r12 = sv_dist_from(g, 5, 0, dist);
        int r13 = sv_dist_to(g, 0, NAN, dist);
        double m9[9];
        int r14 = sv_all_pairs(g, 0, 2, m9);
        ok(r1 == -1 && r2 == -1 && r3 == -1 && r4 == -1 && r5 == 0 && r6 == -1 && r7 == -1 && r8 == -1 && r9 == -1 &&
               r10 == -1 && r11 == -1 && r12 == -1 && r13 == -1 && r14 == -1 && sv_edges(g) == 2,
           "bad arguments rejected with -1 (+INFINITY weight ignored), all_pairs refuses n > max_n");
        sv_graph_free(g);
        sv_graph_free(NULL);
    }
    {
        /* Rounding strands a vertex outside the SPFA tree: with tolerance
         * 1, a (1) is labeled 2^53 from 0, labels c (3) with
         * fl(2^53 + 2^53+2) = 2^54 (tie to even), then is relabeled 2^53-2
         * via b (2) (improvement 2 > 1), which disassembles c before c is
         * scanned; the new candidate for c is 2^54 again (improvement 0).
         * Without the repair step y (4), reachable only via c, stays
         * unreached. */
        const double p53 = 9007199254740992.0;
        struct edge e[] = {{0, 1, p53}, {0, 2, 0}, {2, 1, p53 - 2}, {1, 3, p53 + 2}, {3, 4, 0}};
        struct sv_graph *g = graph_of(5, e, 5);
        sv_set_tolerance(g, 1.0, 0);
        int rc = sv_dist_from(g, 0, 0, dist);
        ok(rc == 0 && dist[1] == p53 - 2 && dist[3] == 2 * p53 && dist[4] == 2 * p53,
           "SPFA repairs a vertex stranded by rounding (rc %d, dist %.17g %.17g %.17g)", rc, dist[1], dist[3], dist[4]);
        sv_graph_free(g);
    }
    {
        /* uncertainty: 0<->1 (1+2), 0<->2 (via 1: 1+4 and 3+2) */
        double m[9] = {0, 1, 5, 2, 0, 4, 5, 3, 0};
        double mx, mean;
        sv_pair_uncertainty(m, 3, &mx, &mean);
        double m2[4] = {0, 1, INFINITY, 0};
        double mx2, mean2;
        sv_pair_uncertainty(m2, 2, &mx2, &mean2);
        ok(mx == 10 && fabs(mean - 20.0 / 3) < 1e-12 && mx2 == INFINITY && isnan(mean2),
           "pair uncertainty: max 10, mean 20/3 (got %g, %g); unbounded pair gives max INFINITY", mx, mean);
    }
}

/* ------------------------------------------------------ random systems */

struct rstats {
    struct agg dist, distneg, karp, enm, delta, feas, least, tight, bounds, consistent, allp;
    long per_kind[K_KINDS], negative;
};

static void random_system(struct rstats *st, const struct sys *y)
{
    int n = y->n;
    struct sv_graph *g = build(y);
    double *D = xmalloc((size_t)n * n * sizeof *D), *D0 = xmalloc((size_t)n * n * sizeof *D0);
    unsigned char *R = xmalloc((size_t)n * n);
    double *dist = xmalloc((size_t)n * sizeof *dist), *gv = xmalloc((size_t)n * sizeof *gv);
    double *lo = xmalloc((size_t)n * sizeof *lo), *hi = xmalloc((size_t)n * sizeof *hi);
    double *g1 = xmalloc((size_t)n * sizeof *g1);
    const char *kn = kind_name[y->kind];
    ref_reach(y, R);

    /* minimum mean cycle */
    double lam = sv_min_mean_cycle(g), lk = ref_karp(y);
    check(&st->karp, close_to(lam, lk, 1e-6, 1e-9), "%s n=%d: lambda* %.17g, Karp %.17g", kn, n, lam, lk);
    if (n <= 7) {
        double le = ref_enum(y);
        check(&st->enm, close_to(lam, le, 1e-6, 1e-9), "%s n=%d: lambda* %.17g, enumeration %.17g", kn, n, lam, le);
    }
    double dref = lk < 0 ? -lk : 0;
    if (dref > 0)
        st->negative++;

    /* sv_solve */
    uint32_t tau = (uint32_t)irand(0, n - 1), unb = 0;
    double alpha = unif() < 0.2 ? (double)irand(0, 1) : unif();
    double delta = -1;
    int rc = sv_solve(g, tau, alpha, gv, &delta, lo, hi, &unb);
    double tol = sv_tolerance(g, delta);
    check(&st->delta, rc == 0 && close_to(delta, dref, 1e-6, 1e-9), "%s n=%d: rc %d delta %.17g, reference %.17g", kn,
          n, rc, delta, dref);
    if (rc != 0)
        goto done;

    /* feasibility of the offsets after relaxation */
    for (int i = 0; i < y->ne; i++) {
        double a = gv[y->e[i].s], b = gv[y->e[i].t];
        if (isnan(a) || isnan(b))
            continue;
        double lim = y->e[i].w + delta + 2 * tol + 1e-12 * (fabs(a) + fabs(b) + fabs(y->e[i].w));
        check(&st->feas, a - b <= lim, "%s n=%d: edge %d->%d w %.17g: g_s - g_t = %.17g > w + delta (%.17g)", kn, n,
              y->e[i].s, y->e[i].t, y->e[i].w, a - b, delta);
    }

    /* references on the relaxed graph */
    ref_fw(y, delta, 1e-9, D);
    double dtol_abs = (double)n * tol, dtol_rel = 1e-12;

    /* bounds, unbounded set, Lemma 4 */
    uint32_t unb_ref = 0;
    for (int v = 0; v < n; v++) {
        int bounded = R[tau * n + v] && R[v * n + tau];
        unb_ref += !bounded;
        check(&st->bounds, bounded ? !isnan(gv[v]) : isnan(gv[v]), "%s n=%d: v %d bounded %d but g %g", kn, n, v,
              bounded, gv[v]);
        check(&st->bounds, close_to(lo[v], -D[tau * n + v], dtol_abs, dtol_rel), "%s n=%d: lo[%d] %.17g, ref %.17g",
              kn, n, v, lo[v], -D[tau * n + v]);
        check(&st->bounds, close_to(hi[v], D[v * n + tau], dtol_abs, dtol_rel), "%s n=%d: hi[%d] %.17g, ref %.17g", kn,
              n, v, hi[v], D[v * n + tau]);
        if (bounded) {
            double want = alpha * hi[v] - (1 - alpha) * (-lo[v]);
            check(&st->bounds, close_to(gv[v], want, 1e-12, 1e-14), "%s: g[%d] %.17g != formula %.17g", kn, v, gv[v],
                  want);
        }
    }
    check(&st->bounds, unb == unb_ref, "%s n=%d: unbounded %u, reference %u", kn, n, unb, unb_ref);
    check(&st->bounds, gv[tau] == 0, "g[tau] = %g", gv[tau]);
    {
        double d1;
        uint32_t u1;
        if (sv_solve(g, tau, 1.0, g1, &d1, NULL, NULL, &u1) != 0)
            fail(&st->tight, "sv_solve alpha=1 failed");
        for (int v = 0; v < n; v++)
            if (!isnan(g1[v]))
                check(&st->tight, g1[v] - g1[tau] == hi[v] && close_to(g1[v] - g1[tau], D[v * n + tau], dtol_abs, dtol_rel),
                      "%s n=%d: alpha=1: g_%d - g_tau = %.17g, wbar(%d,tau) = %.17g", kn, n, v, g1[v] - g1[tau], v,
                      D[v * n + tau]);
    }

    /* distances on the relaxed graph (which has zero-weight cycles when
     * delta > 0), from every source and to every destination */
    for (int s = 0; s < n; s++) {
        int r1 = sv_dist_from(g, (uint32_t)s, delta, dist);
        check(&st->dist, r1 == 0, "%s n=%d: dist_from(%d, delta=%.17g) rc %d", kn, n, s, delta, r1);
        if (r1 == 0)
            for (int v = 0; v < n; v++)
                check(&st->dist, close_to(dist[v], D[s * n + v], dtol_abs, dtol_rel),
                      "%s n=%d: wbar(%d,%d) %.17g, FW %.17g", kn, n, s, v, dist[v], D[s * n + v]);
        int r2 = sv_dist_to(g, (uint32_t)s, delta, dist);
        check(&st->dist, r2 == 0, "%s n=%d: dist_to(%d) rc %d", kn, n, s, r2);
        if (r2 == 0)
            for (int v = 0; v < n; v++)
                check(&st->dist, close_to(dist[v], D[v * n + s], dtol_abs, dtol_rel),
                      "%s n=%d: wbar(%d,%d) %.17g, FW %.17g", kn, n, v, s, dist[v], D[v * n + s]);
    }

    /* unrelaxed: negative cycle reported iff one is reachable (from src /
     * reaching dst); otherwise distances match */
    {
        int neg0 = ref_fw(y, 0, 1e-7, D0);
        for (int s = 0; s < n; s++) {
            int from_neg = 0, to_neg = 0;
            for (int v = 0; v < n; v++)
                if (D0[v * n + v] < -1e-7) {
                    from_neg |= R[s * n + v];
                    to_neg |= R[v * n + s];
                }
            int r1 = sv_dist_from(g, (uint32_t)s, 0, dist);
            check(&st->distneg, r1 == from_neg, "%s n=%d: dist_from(%d, 0) rc %d, reference %d", kn, n, s, r1, from_neg);
            if (r1 == 0 && !from_neg)
                for (int v = 0; v < n; v++)
                    check(&st->distneg, close_to(dist[v], D0[s * n + v], dtol_abs, dtol_rel),
                          "%s n=%d: unrelaxed wbar(%d,%d) %.17g, FW %.17g", kn, n, s, v, dist[v], D0[s * n + v]);
            int r2 = sv_dist_to(g, (uint32_t)s, 0, dist);
            check(&st->distneg, r2 == to_neg, "%s n=%d: dist_to(%d, 0) rc %d, reference %d", kn, n, s, r2, to_neg);
        }
        check(&st->distneg, neg0 == (dref > 0), "%s n=%d: FW negative %d but Karp %.17g", kn, n, neg0, lk);
    }

    /* delta is least: a bit less leaves a negative cycle somewhere, a bit
     * more leaves none */
    if (delta > 0) {
        double eps = 1e-6 * (1 + delta) + 2 * tol;
        int found = 0, any_more = 0;
        for (int s = 0; s < n; s++) {
            found |= sv_dist_from(g, (uint32_t)s, delta - eps, dist) == 1;
            any_more |= sv_dist_from(g, (uint32_t)s, delta + eps, dist) != 0;
        }
        check(&st->least, found && !any_more, "%s n=%d: delta %.17g: at -eps negative %d, at +eps negative %d", kn, n,
              delta, found, any_more);
    }

    /* consistent systems: delta 0, the hidden truth within the bounds */
    if (y->kind == K_CONSISTENT) {
        check(&st->consistent, delta == 0 && lam >= 0, "consistent n=%d: delta %g lambda %g", n, delta, lam);
        for (int v = 0; v < n; v++) {
            double rel = y->truth[v] - y->truth[tau];
            double slop = 2 * tol + 1e-12 * fabs(rel);
            check(&st->consistent, lo[v] - slop <= rel && rel <= hi[v] + slop,
                  "consistent n=%d: truth %.17g outside [%.17g, %.17g]", n, rel, lo[v], hi[v]);
        }
    }

    /* all pairs */
    {
        double *A = xmalloc((size_t)n * n * sizeof *A);
        int ra = sv_all_pairs(g, delta, 64, A);
        check(&st->allp, ra == 0, "%s n=%d: all_pairs rc %d", kn, n, ra);
        if (ra == 0) {
            for (int i = 0; i < n * n; i++)
                check(&st->allp, close_to(A[i], i % (n + 1) == 0 ? 0 : D[i], dtol_abs, dtol_rel),
                      "%s n=%d: all_pairs[%d] %.17g, FW %.17g", kn, n, i, A[i], D[i]);
            double mx, mean, rmx = 0, rsum = 0;
            long cnt = 0;
            for (int s = 0; s < n; s++)
                for (int t = s + 1; t < n; t++) {
                    double u = D[s * n + t] + D[t * n + s];
                    if (isinf(u)) {
                        rmx = INFINITY;
                        continue;
                    }
                    rmx = fmax(rmx, u);
                    rsum += u;
                    cnt++;
                }
            sv_pair_uncertainty(A, (uint32_t)n, &mx, &mean);
            double rmean = n < 2 ? 0 : cnt ? rsum / cnt : NAN;
            check(&st->allp, close_to(mx, rmx, 2 * dtol_abs, 1e-9) && (isnan(rmean) ? isnan(mean) : close_to(mean, rmean, 2 * dtol_abs, 1e-9)),
                  "%s n=%d: uncertainty max %g mean %g, reference %g %g", kn, n, mx, mean, rmx, rmean);
        }
        free(A);
    }
done:
    st->per_kind[y->kind]++;
    sv_graph_free(g);
    free(D);
    free(D0);
    free(R);
    free(dist);
    free(gv);
    free(lo);
    free(hi);
    free(g1);
}

static void random_small(void)
{
    struct rstats st;
    memset(&st, 0, sizeof st);
    const int N = 4000;
    for (int i = 0; i < N; i++) {
        int n = irand(1, 12), kind = i % K_KINDS;
        double scale = (i / K_KINDS) % 3 == 0 ? 1e6 : (i / K_KINDS) % 3 == 1 ? 1e3 : 1e9;
        struct sys y = gen(n, kind, scale);
        random_system(&st, &y);
        sys_free(&y);
    }
    diag("%d random systems (n = 1..12): %ld consistent, %ld near, %ld integer, %ld real; %ld with negative cycles", N,
         st.per_kind[0], st.per_kind[1], st.per_kind[2], st.per_kind[3], st.negative);
    report(&st.karp, "random: min mean cycle matches Karp's algorithm");
    report(&st.enm, "random (n <= 7): min mean cycle matches enumeration of all simple cycles");
    report(&st.delta, "random: sv_solve delta = max(0, -lambda*)");
    report(&st.feas, "random: offsets satisfy every constraint after relaxation by delta");
    report(&st.least, "random: delta is least (delta - eps leaves a negative cycle, delta + eps none)");
    report(&st.tight, "random: Lemma 4 tightness, alpha = 1 gives g_t - g_tau = wbar(t,tau)");
    report(&st.bounds, "random: lo/hi match Floyd-Warshall, g formula, unbounded = outside tau's SCC");
    report(&st.dist, "random: dist_from/dist_to on the relaxed graph match Floyd-Warshall");
    report(&st.distneg, "random: unrelaxed dist_from/dist_to report exactly the reachable negative cycles");
    report(&st.consistent, "random consistent systems: delta = 0, hidden truth inside [lo, hi]");
    report(&st.allp, "random: all_pairs matches Floyd-Warshall, pair uncertainty matches");
}

/* Medium sparse graphs: Howard with many iterations and several SCCs,
 * Johnson's all-pairs path, SPFA on longer paths. */
static void random_medium(void)
{
    struct agg karp = {0}, allp = {0}, dist = {0}, rowp = {0};
    for (int i = 0; i < 24; i++) {
        int n = irand(100, 220), kind = i % K_KINDS;
        double deg = 1.2 + 2.0 * unif();
        struct sys y = {n, 0, NULL, NULL, kind};
        int cap = 0;
        double *truth = xmalloc((size_t)n * sizeof *truth);
        for (int v = 0; v < n; v++)
            truth[v] = (2 * unif() - 1) * 1e6;
        int blocks = irand(1, 4); /* edges mostly inside blocks -> several SCCs */
        for (int s = 0; s < n; s++)
            for (int k = 0; k < (int)deg + (unif() < deg - (int)deg); k++) {
                int t = irand(0, n - 1);
                if (unif() < 0.9 && blocks > 1) {
                    int b = s * blocks / n, lo = b * n / blocks, hi = (b + 1) * n / blocks - 1;
                    t = irand(lo, hi);
                }
                double w = kind == K_INTEGER ? irand(-10, 40)
                           : kind == K_REAL  ? -30 + 100 * unif()
                                             : truth[s] - truth[t] + slack(300) - (kind == K_NEAR && unif() < 0.01 ? 900 : 0);
                add(&y, &cap, s, t, w);
            }
        free(truth);
        struct sv_graph *g = build(&y);
        double lam = sv_min_mean_cycle(g), lk = ref_karp(&y);
        check(&karp, close_to(lam, lk, 1e-6, 1e-9), "medium %s n=%d: lambda* %.17g, Karp %.17g", kind_name[kind], n, lam,
              lk);
        double delta = lk < 0 ? -lk : 0;
        double *D = xmalloc((size_t)n * n * sizeof *D), *A = xmalloc((size_t)n * n * sizeof *A);
        double *d = xmalloc((size_t)n * sizeof *d);
        ref_fw(&y, delta, 1e-9, D);
        double dt = n * sv_tolerance(g, delta);
        int ra = sv_all_pairs(g, delta, 1000, A);
        check(&allp, ra == 0, "medium n=%d: all_pairs rc %d", n, ra);
        for (int k = 0; ra == 0 && k < n * n; k++)
            check(&allp, close_to(A[k], k % (n + 1) == 0 ? 0 : D[k], dt, 1e-12), "medium n=%d: all_pairs[%d] %.17g, FW %.17g",
                  n, k, A[k], D[k]);
        /* some rows only (the precision's clocks among hub vertices): every 5th vertex, backwards */
        uint32_t rows[64], nrows = 0;
        for (int s = n - 1; s >= 0 && nrows < 64; s -= 5)
            rows[nrows++] = (uint32_t)s;
        double *R = xmalloc((size_t)nrows * n * sizeof *R);
        int rr = sv_rows_pairs(g, delta, rows, nrows, R);
        check(&rowp, rr == 0, "medium n=%d: rows_pairs rc %d", n, rr);
        for (uint32_t k = 0; rr == 0 && k < nrows; k++)
            for (int t = 0; t < n; t++)
                check(&rowp, close_to(R[(size_t)k * n + t], (int)rows[k] == t ? 0 : D[rows[k] * n + t], dt, 1e-12),
                      "medium n=%d: rows_pairs[%u][%d] %.17g, FW %.17g", n, rows[k], t, R[(size_t)k * n + t],
                      D[rows[k] * n + t]);
        free(R);
        for (int s = 0; s < n; s += 7) {
            int r = sv_dist_from(g, (uint32_t)s, delta, d);
            check(&dist, r == 0, "medium n=%d: dist_from rc %d", n, r);
            for (int v = 0; r == 0 && v < n; v++)
                check(&dist, close_to(d[v], D[s * n + v], dt, 1e-12), "medium n=%d: wbar(%d,%d) %.17g, FW %.17g", n, s,
                      v, d[v], D[s * n + v]);
        }
        free(D);
        free(A);
        free(d);
        sv_graph_free(g);
        sys_free(&y);
    }
    report(&karp, "medium sparse graphs (n 100..220, several SCCs): min mean cycle matches Karp");
    report(&allp, "medium sparse graphs: all_pairs (Johnson path) matches Floyd-Warshall");
    report(&rowp, "medium sparse graphs: rows_pairs (some sources' rows) matches Floyd-Warshall");
    report(&dist, "medium sparse graphs: dist_from matches Floyd-Warshall");
}

/* Offsets of 1e11..1e12 ns: precision of the tolerance and of Howard's
 * refinement (reference: enumeration with compensated sums). */
static void large_magnitude(void)
{
    struct agg cons = {0}, lam = {0};
    for (int i = 0; i < 300; i++) {
        int n = irand(2, 7);
        struct sys y = gen(n, i % 2 ? K_NEAR : K_CONSISTENT, i % 3 ? 1e12 : 1e11);
        struct sv_graph *g = build(&y);
        double l = sv_min_mean_cycle(g), le = ref_enum(&y);
        check(&lam, close_to(l, le, 1e-6, 1e-9), "large n=%d: lambda* %.17g, enumeration %.17g", n, l, le);
        if (y.kind == K_CONSISTENT) {
            double gv[8], lo[8], hi[8], delta;
            uint32_t unb;
            uint32_t tau = (uint32_t)irand(0, n - 1);
            int rc = sv_solve(g, tau, 0.5, gv, &delta, lo, hi, &unb);
            double tol = sv_tolerance(g, delta);
            check(&cons, rc == 0 && delta == 0, "large consistent: rc %d delta %g", rc, delta);
            check(&cons, offsets_feasible(y.e, y.ne, gv, delta, 2 * tol), "large consistent: offsets infeasible");
            for (int v = 0; v < n; v++) {
                double rel = y.truth[v] - y.truth[tau];
                check(&cons, lo[v] - 2 * tol - 1e-12 * fabs(rel) <= rel && rel <= hi[v] + 2 * tol + 1e-12 * fabs(rel),
                      "large consistent: truth %.17g outside [%.17g, %.17g]", rel, lo[v], hi[v]);
            }
        }
        sv_graph_free(g);
        sys_free(&y);
    }
    report(&lam, "offsets ~1e12 ns: min mean cycle within 1e-6 ns of compensated enumeration");
    report(&cons, "offsets ~1e12 ns, consistent: delta = 0, feasible, truth inside [lo, hi]");
}

int main(void)
{
    hand_cases();
    random_small();
    random_medium();
    large_magnitude();
    return tap_finish();
}
