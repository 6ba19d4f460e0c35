/* solve.c — the clock-offset constraint solver; see solve.h.
 *
 * Layout: graph construction (edge list -> CSR, parallel edges merged);
 * SPFA with Tarjan's subtree disassembly (single source, or a virtual source
 * joined to every vertex by 0-weight edges); Tarjan's SCC; Howard's policy
 * iteration for the minimum cycle mean (two passes, see sv_min_mean_cycle);
 * the sv_solve pipeline; all-pairs (Floyd-Warshall or Johnson/Dijkstra).
 */
#include "solve.h"

#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

struct sv_graph {
    uint32_t n;
    int finished;
    /* edge list, until sv_finish */
    size_t m, cap;
    uint32_t *es, *et;
    double *ew;
    /* CSR, after sv_finish: out-edges of s are fo[s] .. fo[s+1]-1 (target ft,
     * weight fw); in-edges of t are ro[t] .. ro[t+1]-1 (source rt, weight rw) */
    size_t ne;
    size_t *fo, *ro;
    uint32_t *ft, *rt;
    double *fw, *rw;
    double wmax; /* max |w| */
    double wcount; /* |w| of edges kept beside the graph, counted in wmax */
    double tol_abs, tol_rel;
};

/* One direction of the adjacency, as seen by the traversals. */
struct adj {
    const size_t *off;
    const uint32_t *to;
    const double *w;
};

static void *alloc_arr(size_t count, size_t size)
{
    if (count == 0)
        count = 1;
    if (count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = malloc(count * size);
    if (!p)
        errno = ENOMEM;
    return p;
}

static void *calloc_arr(size_t count, size_t size)
{
    if (count == 0)
        count = 1;
    void *p = calloc(count, size);
    if (!p)
        errno = ENOMEM;
    return p;
}

/* ------------------------------------------------------------------ graph */

struct sv_graph *sv_graph_new(uint32_t nvertices, size_t nedges_hint)
{
    if (nvertices == UINT32_MAX) { /* UINT32_MAX is the "none"/virtual-root index */
        errno = EINVAL;
        return NULL;
    }
    struct sv_graph *g = calloc(1, sizeof *g);
    if (!g) {
        errno = ENOMEM;
        return NULL;
    }
    g->n = nvertices;
    g->tol_abs = SV_TOL_ABS;
    g->tol_rel = SV_TOL_REL;
    if (nedges_hint > 0) {
        g->es = alloc_arr(nedges_hint, sizeof *g->es);
        g->et = alloc_arr(nedges_hint, sizeof *g->et);
        g->ew = alloc_arr(nedges_hint, sizeof *g->ew);
        if (!g->es || !g->et || !g->ew) {
            sv_graph_free(g);
            errno = ENOMEM;
            return NULL;
        }
        g->cap = nedges_hint;
    }
    return g;
}

void sv_graph_free(struct sv_graph *g)
{
    if (!g)
        return;
    free(g->es);
    free(g->et);
    free(g->ew);
    free(g->fo);
    free(g->ft);
    free(g->fw);
    free(g->ro);
    free(g->rt);
    free(g->rw);
    free(g);
}

struct sv_graph *sv_graph_grow(const struct sv_graph *g, uint32_t more, size_t nedges_hint)
{
    if (!g || !g->finished || more > UINT32_MAX - 1 - g->n) {
        errno = EINVAL;
        return NULL;
    }
    struct sv_graph *ng = sv_graph_new(g->n + more, g->ne + nedges_hint);
    if (!ng)
        return NULL;
    ng->tol_abs = g->tol_abs;
    ng->tol_rel = g->tol_rel;
    ng->wcount = g->wcount;
    for (uint32_t s = 0; s < g->n; s++)
        for (size_t e = g->fo[s]; e < g->fo[s + 1]; e++)
            if (sv_add_edge(ng, s, g->ft[e], g->fw[e]) != 0) {
                sv_graph_free(ng);
                return NULL;
            }
    return ng;
}

void sv_count_weight(struct sv_graph *g, double w)
{
    if (g && !g->finished && fabs(w) > g->wcount)
        g->wcount = fabs(w);
}

uint32_t sv_vertices(const struct sv_graph *g)
{
    return g ? g->n : 0;
}

size_t sv_edges(const struct sv_graph *g)
{
    return g && g->finished ? g->ne : 0;
}

double sv_tolerance(const struct sv_graph *g, double delta)
{
    return g->tol_abs + g->tol_rel * (g->wmax + fabs(delta));
}

void sv_set_tolerance(struct sv_graph *g, double abs_ns, double rel)
{
    if (g && abs_ns >= 0 && rel >= 0 && isfinite(abs_ns) && isfinite(rel)) {
        g->tol_abs = abs_ns;
        g->tol_rel = rel;
    }
}

static int grow(void **p, size_t newcap, size_t size)
{
    if (newcap > SIZE_MAX / size)
        return -1;
    void *q = realloc(*p, newcap * size);
    if (!q)
        return -1;
    *p = q;
    return 0;
}

int sv_add_edge(struct sv_graph *g, uint32_t s, uint32_t t, double w)
{
    if (!g || g->finished || s >= g->n || t >= g->n || isnan(w) || w == -INFINITY) {
        errno = EINVAL;
        return -1;
    }
    if (w == INFINITY)
        return 0;
    if (g->m == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 1024;
        if (nc < g->cap || grow((void **)&g->es, nc, sizeof *g->es) || grow((void **)&g->et, nc, sizeof *g->et) ||
            grow((void **)&g->ew, nc, sizeof *g->ew)) {
            errno = ENOMEM;
            return -1;
        }
        g->cap = nc;
    }
    g->es[g->m] = s;
    g->et[g->m] = t;
    g->ew[g->m] = w;
    g->m++;
    return 0;
}

int sv_finish(struct sv_graph *g)
{
    if (!g || g->finished) {
        errno = EINVAL;
        return -1;
    }
    size_t n = g->n, m = g->m;
    /* Made in turns, each array once the one before it is no longer
     * needed: a graph of many collectives' hub edges peaks here. */
    size_t *cnt = calloc_arr(n + 1, sizeof *cnt);
    size_t *p1 = alloc_arr(m, sizeof *p1), *p2 = NULL;
    size_t *fo = NULL, *ro = NULL;
    uint32_t *ft = NULL, *rt = NULL;
    double *fw = NULL, *rw = NULL;
    if (!cnt || !p1)
        goto oom;
    /* Two stable counting sorts: by target, then by source -> sorted by (s,t). */
    for (size_t i = 0; i < m; i++)
        cnt[g->et[i] + 1]++;
    for (size_t v = 0; v < n; v++)
        cnt[v + 1] += cnt[v];
    for (size_t i = 0; i < m; i++)
        p1[cnt[g->et[i]]++] = i;
    if (!(p2 = alloc_arr(m, sizeof *p2)))
        goto oom;
    memset(cnt, 0, (n + 1) * sizeof *cnt);
    for (size_t i = 0; i < m; i++)
        cnt[g->es[i] + 1]++;
    for (size_t v = 0; v < n; v++)
        cnt[v + 1] += cnt[v];
    for (size_t k = 0; k < m; k++) {
        size_t i = p1[k];
        p2[cnt[g->es[i]]++] = i;
    }
    free(p1);
    p1 = NULL;
    fo = calloc_arr(n + 1, sizeof *fo);
    ro = calloc_arr(n + 1, sizeof *ro);
    ft = alloc_arr(m, sizeof *ft);
    fw = alloc_arr(m, sizeof *fw);
    if (!fo || !ro || !ft || !fw)
        goto oom;
    /* Forward CSR, keeping the smallest weight of each (s,t). */
    size_t ne = 0;
    uint32_t ls = NONE, lt = NONE;
    double wmax = 0;
    for (size_t k = 0; k < m; k++) {
        size_t i = p2[k];
        uint32_t s = g->es[i], t = g->et[i];
        double w = g->ew[i];
        if (ne > 0 && s == ls && t == lt) {
            if (w < fw[ne - 1])
                fw[ne - 1] = w;
            continue;
        }
        ft[ne] = t;
        fw[ne] = w;
        fo[s + 1]++;
        ne++;
        ls = s;
        lt = t;
    }
    free(p2);
    p2 = NULL;
    rt = alloc_arr(ne ? ne : 1, sizeof *rt);
    rw = alloc_arr(ne ? ne : 1, sizeof *rw);
    if (!rt || !rw)
        goto oom;
    for (size_t v = 0; v < n; v++)
        fo[v + 1] += fo[v];
    /* Reverse CSR (in-edges), sources in increasing order. */
    for (size_t e = 0; e < ne; e++) {
        ro[ft[e] + 1]++;
        if (fabs(fw[e]) > wmax)
            wmax = fabs(fw[e]);
    }
    for (size_t v = 0; v < n; v++)
        ro[v + 1] += ro[v];
    memcpy(cnt, ro, (n + 1) * sizeof *cnt);
    for (size_t s = 0; s < n; s++)
        for (size_t e = fo[s]; e < fo[s + 1]; e++) {
            size_t p = cnt[ft[e]]++;
            rt[p] = (uint32_t)s;
            rw[p] = fw[e];
        }
    free(cnt);
    free(g->es);
    free(g->et);
    free(g->ew);
    g->es = g->et = NULL;
    g->ew = NULL;
    g->m = g->cap = 0;
    g->ne = ne;
    g->fo = fo;
    g->ft = ft;
    g->fw = fw;
    g->ro = ro;
    g->rt = rt;
    g->rw = rw;
    g->wmax = wmax > g->wcount ? wmax : g->wcount;
    g->finished = 1;
    return 0;
oom:
    free(cnt);
    free(p1);
    free(p2);
    free(fo);
    free(ro);
    free(ft);
    free(rt);
    free(fw);
    free(rw);
    errno = ENOMEM;
    return -1;
}

static struct adj fwd_adj(const struct sv_graph *g)
{
    struct adj a = {g->fo, g->ft, g->fw};
    return a;
}

static struct adj rev_adj(const struct sv_graph *g)
{
    struct adj a = {g->ro, g->rt, g->rw};
    return a;
}

/* ------------------------------------------------------------------- SPFA */

#define F_TREE 1u
#define F_QUEUE 2u

/* Label-correcting shortest paths over `a` (edge weights + delta), FIFO
 * order, with Tarjan's subtree disassembly.  The shortest-path tree is kept
 * as a preorder thread (next/prev) with depths, so the subtree of v is the run
 * of vertices after v that are deeper than v.  When v is relabeled through
 * u, v's subtree leaves the tree (those labels are stale and the vertices are
 * not scanned until relabeled); finding u in it means the tree path v..u
 * plus (u,v) is a cycle of weight d[u] + w - d[v] < -eps: negative.
 *
 * A vertex is relabeled only if its label drops by more than eps, which
 * bounds the work on zero-weight cycles computed as slightly negative.
 *
 * multi = 0: single source src, unreachable vertices stay +INFINITY.
 * multi = 1: virtual root (index n) with 0-weight edges to every vertex:
 *            d = feasible potentials (d[v] <= d[u] + w + delta + eps).
 * multi = 2: the same root, its edges weighing the labels d has (warm:
 *            d lowered from there; INFINITY ones are not linked).
 * `back` is the opposite direction; it is used only in the rare repair step
 * after the queue empties (see below).
 * Returns 0, 1 (negative cycle), -1 (ENOMEM). */
static int spfa(uint32_t n, struct adj a, struct adj back, int multi, uint32_t src, double delta, double eps,
                double *d)
{
    size_t nn = (size_t)n + 1;
    uint32_t *next = alloc_arr(nn, sizeof *next), *prev = alloc_arr(nn, sizeof *prev);
    uint32_t *depth = alloc_arr(nn, sizeof *depth), *queue = alloc_arr(nn, sizeof *queue);
    unsigned char *flag = calloc_arr(nn, 1);
    int rc = -1;
    if (!next || !prev || !depth || !queue || !flag)
        goto out;
    size_t qh = 0, qt = 0; /* circular; at most n vertices are queued at once */
#define PUSH(v)                                                                                                        \
    do {                                                                                                               \
        queue[qt] = (v);                                                                                               \
        qt = qt + 1 == nn ? 0 : qt + 1;                                                                                \
        flag[(v)] |= F_QUEUE;                                                                                          \
    } while (0)

    uint32_t root;
    if (multi) {
        /* 1: every label 0; 2 (warm): the labels given, each a real path
         * weight (or INFINITY, left out until relabeled) */
        root = n;
        depth[root] = 0;
        flag[root] = F_TREE;
        uint32_t last = root;
        for (uint32_t v = 0; v < n; v++) {
            if (multi == 1)
                d[v] = 0;
            else if (d[v] == INFINITY)
                continue;
            depth[v] = 1;
            flag[v] = F_TREE;
            next[last] = v;
            prev[v] = last;
            last = v;
            PUSH(v);
        }
        next[last] = root;
        prev[root] = last;
    } else {
        for (uint32_t v = 0; v < n; v++)
            d[v] = INFINITY;
        root = src;
        d[src] = 0;
        depth[src] = 0;
        next[src] = prev[src] = src;
        flag[src] = F_TREE;
        PUSH(src);
    }

    for (unsigned repairs = 0;; repairs++) {
        while (qh != qt) {
            uint32_t u = queue[qh];
            qh = qh + 1 == nn ? 0 : qh + 1;
            flag[u] &= (unsigned char)~F_QUEUE;
            if (!(flag[u] & F_TREE))
                continue; /* disassembled: label stale, will be relabeled */
            double du = d[u];
            for (size_t e = a.off[u], e1 = a.off[u + 1]; e < e1; e++) {
                uint32_t v = a.to[e];
                double nd = du + (a.w[e] + delta);
                if (!(nd < d[v] - eps))
                    continue;
                if (v == u) {
                    rc = 1; /* negative self-loop */
                    goto out;
                }
                if (flag[v] & F_TREE) {
                    uint32_t dv = depth[v], x = next[v];
                    while (depth[x] > dv) { /* stops at the root (depth 0) at the latest */
                        if (x == u) {
                            rc = 1;
                            goto out;
                        }
                        flag[x] &= (unsigned char)~F_TREE;
                        x = next[x];
                    }
                    uint32_t p = prev[v];
                    next[p] = x;
                    prev[x] = p;
                }
                d[v] = nd;
                depth[v] = depth[u] + 1;
                uint32_t y = next[u];
                next[u] = v;
                prev[v] = u;
                next[v] = y;
                prev[y] = v;
                flag[v] |= F_TREE;
                if (!(flag[v] & F_QUEUE))
                    PUSH(v);
            }
        }
        /* In exact arithmetic every disassembled vertex is relabeled again
         * later.  With rounding, a relabel that improved an ancestor by just
         * over eps may reach a descendant as an improvement of just under
         * eps, stranding it outside the tree with a label that was never
         * scanned.  Repair such (rare) vertices and resume. */
        int stuck = 0;
        for (uint32_t v = 0; v < n; v++) {
            if ((flag[v] & F_TREE) || d[v] == INFINITY)
                continue;
            stuck = 1;
            if (multi) {
                /* Hang it under the virtual root with its current label (a
                 * real path weight); the root lies on no cycle, so the tree
                 * edge need not be tight for cycle detection. */
                uint32_t y = next[root];
                next[root] = v;
                prev[v] = root;
                next[v] = y;
                prev[y] = v;
                depth[v] = 1;
                flag[v] |= F_TREE;
                if (!(flag[v] & F_QUEUE))
                    PUSH(v);
            } else {
                /* Forget the label; in-tree predecessors relabel it. */
                d[v] = INFINITY;
                for (size_t e = back.off[v], e1 = back.off[v + 1]; e < e1; e++) {
                    uint32_t u = back.to[e];
                    if ((flag[u] & F_TREE) && !(flag[u] & F_QUEUE))
                        PUSH(u);
                }
            }
        }
        if (!stuck)
            break;
        if (repairs >= 1000) { /* cannot certify: treat as a negative cycle */
            rc = 1;
            goto out;
        }
    }
#undef PUSH
    rc = 0;
out:
    free(next);
    free(prev);
    free(depth);
    free(queue);
    free(flag);
    return rc;
}

int sv_dist_from(const struct sv_graph *g, uint32_t src, double delta, double *dist)
{
    if (!g || !g->finished || src >= g->n || !isfinite(delta) || !dist) {
        errno = EINVAL;
        return -1;
    }
    return spfa(g->n, fwd_adj(g), rev_adj(g), 0, src, delta, sv_tolerance(g, delta), dist);
}

int sv_relax(const struct sv_graph *g, double delta, int backward, double *d)
{
    if (!g || !g->finished || !isfinite(delta) || !d) {
        errno = EINVAL;
        return -1;
    }
    for (uint32_t v = 0; v < g->n; v++)
        if (isnan(d[v]) || d[v] == -INFINITY) {
            errno = EINVAL;
            return -1;
        }
    return backward ? spfa(g->n, rev_adj(g), fwd_adj(g), 2, 0, delta, sv_tolerance(g, delta), d)
                    : spfa(g->n, fwd_adj(g), rev_adj(g), 2, 0, delta, sv_tolerance(g, delta), d);
}

int sv_potential(const struct sv_graph *g, double delta, double *p)
{
    if (!g || !g->finished || !isfinite(delta) || !p) {
        errno = EINVAL;
        return -1;
    }
    return spfa(g->n, fwd_adj(g), rev_adj(g), 1, 0, delta, sv_tolerance(g, delta), p);
}

int sv_dist_to(const struct sv_graph *g, uint32_t dst, double delta, double *dist)
{
    if (!g || !g->finished || dst >= g->n || !isfinite(delta) || !dist) {
        errno = EINVAL;
        return -1;
    }
    return spfa(g->n, rev_adj(g), fwd_adj(g), 0, dst, delta, sv_tolerance(g, delta), dist);
}

/* -------------------------------------------------------------------- SCC */

/* Tarjan's strongly connected components, iterative.  comp[v] in 0..*ncomp-1. */
static int scc(uint32_t n, struct adj a, uint32_t *comp, uint32_t *ncomp)
{
    uint32_t *index = alloc_arr(n, sizeof *index), *low = alloc_arr(n, sizeof *low);
    uint32_t *stk = alloc_arr(n, sizeof *stk), *cv = alloc_arr(n, sizeof *cv);
    size_t *ce = alloc_arr(n, sizeof *ce);
    int rc = -1;
    if (!index || !low || !stk || !cv || !ce)
        goto out;
    for (uint32_t v = 0; v < n; v++) {
        index[v] = NONE;
        comp[v] = NONE;
    }
    uint32_t idx = 0, sp = 0, nc = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (index[r] != NONE)
            continue;
        uint32_t cs = 0;
        index[r] = low[r] = idx++;
        stk[sp++] = r;
        cv[cs] = r;
        ce[cs] = a.off[r];
        cs++;
        while (cs > 0) {
            uint32_t v = cv[cs - 1];
            if (ce[cs - 1] < a.off[v + 1]) {
                uint32_t w = a.to[ce[cs - 1]++];
                if (index[w] == NONE) {
                    index[w] = low[w] = idx++;
                    stk[sp++] = w;
                    cv[cs] = w;
                    ce[cs] = a.off[w];
                    cs++;
                } else if (comp[w] == NONE && index[w] < low[v]) {
                    low[v] = index[w]; /* w is on the stack */
                }
            } else {
                if (low[v] == index[v]) {
                    uint32_t x;
                    do {
                        x = stk[--sp];
                        comp[x] = nc;
                    } while (x != v);
                    nc++;
                }
                cs--;
                if (cs > 0 && low[v] < low[cv[cs - 1]])
                    low[cv[cs - 1]] = low[v];
            }
        }
    }
    *ncomp = nc;
    rc = 0;
out:
    free(index);
    free(low);
    free(stk);
    free(cv);
    free(ce);
    return rc;
}

/* ----------------------------------------------------------------- Howard */

/* Compensated (Neumaier) summation. */
struct ksum {
    double s, c;
};

static void ksum_add(struct ksum *k, double v)
{
    double t = k->s + v;
    if (fabs(k->s) >= fabs(v))
        k->c += (k->s - t) + v;
    else
        k->c += (v - t) + k->s;
    k->s = t;
}

static double two_sum(double a, double b, double *err)
{
    double s = a + b;
    double bb = s - a;
    *err = (a - (s - bb)) + (b - bb);
    return s;
}

struct howard {
    const size_t *off; /* the graph restricted to edges inside non-trivial SCCs */
    const uint32_t *to;
    const double *w;     /* the weights iterated on */
    const double *worig; /* original weights, for the exact mean of each policy cycle */
    const uint32_t *act; /* vertices with an out-edge (= in a non-trivial SCC) */
    uint32_t nact;
    size_t *pol; /* policy: chosen out-edge of each vertex */
    double *eta, *x;
    uint32_t *stk;
    unsigned char *color;
    double best; /* smallest exact mean of any policy cycle seen */
    unsigned iterations;
};

#define HOWARD_MAXITER 2000
#define HOWARD_EPS_X 1.4551915228366852e-11   /* 2^-36, times the value scale */
#define HOWARD_EPS_ETA 5.6843418860808015e-14 /* 2^-44, times the value scale */

/* Policy iteration for the minimum cycle mean (Cochet-Terrasson, Cohen,
 * Gaubert, McGettrick, Quadrat 1998; Dasdan 2004).  Value determination
 * walks the functional graph of the policy: each walk ends on a cycle (new:
 * eta = its mean, x fixed at the cycle's smallest vertex, which keeps its old
 * value so values only move where the policy changed) or on a vertex done
 * earlier; then x(v) = w(v,pi v) - eta + x(pi v) back along the walk.
 * Improvement: first to a successor of smaller eta, else to an edge that
 * lowers w - eta + x(v) by more than the rounding scale. */
static void howard_run(struct howard *h)
{
    const size_t *off = h->off;
    const uint32_t *to = h->to;
    const double *w = h->w;
    for (unsigned it = 0; it < HOWARD_MAXITER; it++) {
        h->iterations++;
        for (uint32_t i = 0; i < h->nact; i++)
            h->color[h->act[i]] = 0;
        for (uint32_t i = 0; i < h->nact; i++) {
            uint32_t s = h->act[i];
            if (h->color[s])
                continue;
            uint32_t sp = 0, v = s;
            while (!h->color[v]) {
                h->color[v] = 1;
                h->stk[sp++] = v;
                v = to[h->pol[v]];
            }
            if (h->color[v] == 1) {
                /* a new cycle: the top k stack entries, in policy order */
                uint32_t k = 0, c = v;
                do {
                    k++;
                    c = to[h->pol[c]];
                } while (c != v);
                uint32_t *cyc = h->stk + (sp - k);
                struct ksum sw = {0, 0}, so = {0, 0};
                uint32_t ri = 0;
                for (uint32_t j = 0; j < k; j++) {
                    ksum_add(&sw, w[h->pol[cyc[j]]]);
                    ksum_add(&so, h->worig[h->pol[cyc[j]]]);
                    if (cyc[j] < cyc[ri])
                        ri = j;
                }
                double mean = (sw.s + sw.c) / k, exact = (so.s + so.c) / k;
                if (exact < h->best)
                    h->best = exact;
                for (uint32_t j = 1; j < k; j++) {
                    uint32_t i2 = (ri + k - j) % k;
                    uint32_t u = cyc[i2], nx = cyc[(i2 + 1) % k];
                    h->x[u] = w[h->pol[u]] - mean + h->x[nx];
                }
                for (uint32_t j = 0; j < k; j++) {
                    h->eta[cyc[j]] = mean;
                    h->color[cyc[j]] = 2;
                }
                sp -= k;
            }
            while (sp > 0) {
                uint32_t u = h->stk[--sp], p = to[h->pol[u]];
                h->eta[u] = h->eta[p];
                h->x[u] = w[h->pol[u]] - h->eta[p] + h->x[p];
                h->color[u] = 2;
            }
        }
        double xs = 0, ws = 0, es = 0;
        for (uint32_t i = 0; i < h->nact; i++) {
            uint32_t u = h->act[i];
            xs = fmax(xs, fabs(h->x[u]));
            ws = fmax(ws, fabs(w[h->pol[u]]));
            es = fmax(es, fabs(h->eta[u]));
        }
        double scale = xs + ws + es;
        double eps_x = HOWARD_EPS_X * scale, eps_e = HOWARD_EPS_ETA * scale;

        int changed = 0;
        for (uint32_t i = 0; i < h->nact; i++) {
            uint32_t u = h->act[i];
            double be = h->eta[u];
            size_t bi = SIZE_MAX;
            for (size_t e = off[u]; e < off[u + 1]; e++)
                if (h->eta[to[e]] < be - eps_e) {
                    be = h->eta[to[e]];
                    bi = e;
                }
            if (bi != SIZE_MAX) {
                h->pol[u] = bi;
                changed = 1;
            }
        }
        if (changed)
            continue;
        for (uint32_t i = 0; i < h->nact; i++) {
            uint32_t u = h->act[i];
            double eu = h->eta[u], bx = h->x[u];
            size_t bi = SIZE_MAX;
            for (size_t e = off[u]; e < off[u + 1]; e++) {
                uint32_t v = to[e];
                if (h->eta[v] > eu + eps_e)
                    continue;
                double val = w[e] - eu + h->x[v];
                if (val < bx - eps_x) {
                    bx = val;
                    bi = e;
                }
            }
            if (bi != SIZE_MAX) {
                h->pol[u] = bi;
                changed = 1;
            }
        }
        if (!changed)
            return;
    }
}

double sv_min_mean_cycle(const struct sv_graph *g)
{
    if (!g || !g->finished) {
        errno = EINVAL;
        return NAN;
    }
    uint32_t n = g->n;
    double result = NAN;
    uint32_t *comp = alloc_arr(n, sizeof *comp), *act = NULL, *hto = NULL, *stk = NULL;
    size_t *hoff = NULL, *pol = NULL;
    double *hw = NULL, *r = NULL, *eta = NULL, *x = NULL, *etas = NULL;
    unsigned char *color = NULL;
    uint32_t nc = 0;
    if (!comp || scc(n, fwd_adj(g), comp, &nc) < 0)
        goto out;

    /* Restrict to edges inside a component: every vertex of a non-trivial
     * component keeps an out-edge, trivial ones keep only a self-loop. */
    hoff = calloc_arr((size_t)n + 1, sizeof *hoff);
    act = alloc_arr(n, sizeof *act);
    if (!hoff || !act)
        goto out;
    uint32_t nact = 0;
    size_t hne = 0;
    for (uint32_t v = 0; v < n; v++) {
        size_t c = 0;
        for (size_t e = g->fo[v]; e < g->fo[v + 1]; e++)
            c += comp[g->ft[e]] == comp[v];
        hne += c;
        hoff[v + 1] = hne;
        if (c)
            act[nact++] = v;
    }
    if (nact == 0) {
        result = INFINITY;
        goto out;
    }
    hto = alloc_arr(hne, sizeof *hto);
    hw = alloc_arr(hne, sizeof *hw);
    r = alloc_arr(hne, sizeof *r);
    pol = alloc_arr(n, sizeof *pol);
    eta = alloc_arr(n, sizeof *eta);
    x = alloc_arr(n, sizeof *x);
    stk = alloc_arr(n, sizeof *stk);
    color = calloc_arr(n, 1);
    etas = alloc_arr(nc, sizeof *etas);
    if (!hto || !hw || !r || !pol || !eta || !x || !stk || !color || !etas)
        goto out;
    for (uint32_t v = 0, k = 0; v < n; v++)
        for (size_t e = g->fo[v]; e < g->fo[v + 1]; e++)
            if (comp[g->ft[e]] == comp[v]) {
                hto[k] = g->ft[e];
                hw[k] = g->fw[e];
                k++;
            }
    for (uint32_t i = 0; i < nact; i++) {
        uint32_t v = act[i];
        size_t b = hoff[v];
        for (size_t e = hoff[v] + 1; e < hoff[v + 1]; e++)
            if (hw[e] < hw[b])
                b = e;
        pol[v] = b;
        x[v] = 0;
    }
    struct howard h = {hoff, hto, hw, hw, act, nact, pol, eta, x, stk, color, INFINITY, 0};
    howard_run(&h);

    /* Pass 2: reduced costs r = w - eta_C + x(t) - x(s), with one eta per
     * component so that every cycle sum of r equals (cycle weight - k eta_C)
     * exactly; computed with error-free additions, so r is correct to its
     * own (small) last bit, unlike w - eta + x(t) - x(s) in plain doubles
     * whose error is that of the large x.  Howard on r, warm-started from
     * the pass-1 policy, removes pass 1's rounding error. */
    for (uint32_t c = 0; c < nc; c++)
        etas[c] = INFINITY;
    for (uint32_t i = 0; i < nact; i++) {
        uint32_t v = act[i];
        if (eta[v] < etas[comp[v]])
            etas[comp[v]] = eta[v];
    }
    for (uint32_t i = 0; i < nact; i++) {
        uint32_t u = act[i];
        double eu = etas[comp[u]];
        for (size_t e = hoff[u]; e < hoff[u + 1]; e++) {
            double e1, e2, e3;
            double s1 = two_sum(hw[e], -eu, &e1);
            double s2 = two_sum(s1, x[hto[e]], &e2);
            double s3 = two_sum(s2, -x[u], &e3);
            r[e] = s3 + (e1 + e2 + e3);
        }
    }
    for (uint32_t i = 0; i < nact; i++)
        x[act[i]] = 0;
    h.w = r;
    howard_run(&h);
    result = h.best;
out:
    if (isnan(result))
        errno = ENOMEM;
    free(comp);
    free(act);
    free(hto);
    free(stk);
    free(hoff);
    free(pol);
    free(hw);
    free(r);
    free(eta);
    free(x);
    free(etas);
    free(color);
    return result;
}

/* --------------------------------------------------------------- pipeline */

uint32_t sv_offsets(uint32_t n, const double *df, const double *dt, double alpha, double *g_out, double *lo,
                    double *hi)
{
    uint32_t unb = 0;
    for (uint32_t v = 0; v < n; v++) {
        double f = df[v], t = dt[v];
        if (lo)
            lo[v] = -f;
        if (hi)
            hi[v] = t;
        if (f == INFINITY || t == INFINITY) {
            g_out[v] = NAN;
            unb++;
        } else {
            g_out[v] = alpha * t - (1 - alpha) * f;
        }
    }
    return unb;
}

int sv_solve(const struct sv_graph *g, uint32_t tau, double alpha, double *g_out, double *delta_out, double *lo,
             double *hi, uint32_t *unbounded)
{
    if (!g || !g->finished || tau >= g->n || !(alpha >= 0 && alpha <= 1) || !g_out) {
        errno = EINVAL;
        return -1;
    }
    uint32_t n = g->n;
    double *df = alloc_arr(n, sizeof *df), *dt = alloc_arr(n, sizeof *dt);
    int rc = -1;
    if (!df || !dt)
        goto out;
    double delta = 0;
    int neg = spfa(n, fwd_adj(g), rev_adj(g), 1, 0, 0, sv_tolerance(g, 0), df);
    if (neg < 0)
        goto out;
    if (neg) {
        double lam = sv_min_mean_cycle(g);
        if (isnan(lam))
            goto out;
        if (lam < 0)
            delta = -lam;
    }
    double bump = sv_tolerance(g, delta);
    for (int attempt = 0;; attempt++) {
        int r = spfa(n, fwd_adj(g), rev_adj(g), 0, tau, delta, sv_tolerance(g, delta), df);
        if (r == 0)
            r = spfa(n, rev_adj(g), fwd_adj(g), 0, tau, delta, sv_tolerance(g, delta), dt);
        if (r < 0)
            goto out;
        if (r == 0)
            break;
        if (attempt == 64) {
            errno = ERANGE;
            goto out;
        }
        delta += bump;
        bump *= 2;
    }
#ifndef NDEBUG
    /* The relaxed graph has no negative cycle: tau's labels are 0, and
     * through tau and back a clock's two bounds leave it room (each label
     * is a real path's weight, within tol of the shortest per edge). */
    assert(df[tau] == 0 && dt[tau] == 0);
    for (uint32_t v = 0; v < n; v++)
        assert(!(df[v] + dt[v] < -(double)(n + 1) * sv_tolerance(g, delta)));
#endif
    uint32_t unb = sv_offsets(n, df, dt, alpha, g_out, lo, hi);
    if (delta_out)
        *delta_out = delta;
    if (unbounded)
        *unbounded = unb;
    rc = 0;
out:
    free(df);
    free(dt);
    return rc;
}

/* -------------------------------------------------------------- all pairs */

static int floyd_warshall(const struct sv_graph *g, double delta, double eps, double *m)
{
    size_t n = g->n;
    for (size_t i = 0; i < n * n; i++)
        m[i] = INFINITY;
    for (size_t i = 0; i < n; i++)
        m[i * n + i] = 0;
    for (size_t s = 0; s < n; s++)
        for (size_t e = g->fo[s]; e < g->fo[s + 1]; e++) {
            double w = g->fw[e] + delta;
            size_t t = g->ft[e];
            if (t == s) {
                if (w < -eps)
                    return 1;
                continue;
            }
            if (w < m[s * n + t])
                m[s * n + t] = w;
        }
    for (size_t k = 0; k < n; k++) {
        const double *rk = m + k * n;
        for (size_t i = 0; i < n; i++) {
            double *ri = m + i * n;
            double ik = ri[k];
            if (ik == INFINITY)
                continue;
            for (size_t j = 0; j < n; j++) {
                double v = ik + rk[j];
                if (v < ri[j])
                    ri[j] = v;
            }
        }
        if (m[k * n + k] < -eps)
            return 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (m[i * n + i] < -eps)
            return 1;
        m[i * n + i] = 0;
    }
    return 0;
}

/* Dijkstra from s on non-negative weights rw; row = distances. */
static void dijkstra(const struct sv_graph *g, const double *rw, uint32_t s, double *row, uint32_t *heap,
                     uint32_t *pos)
{
    uint32_t n = g->n, hn = 0;
    const uint32_t DONE = NONE - 1;
    for (uint32_t v = 0; v < n; v++) {
        row[v] = INFINITY;
        pos[v] = NONE;
    }
    row[s] = 0;
    heap[hn] = s;
    pos[s] = hn++;
    while (hn > 0) {
        uint32_t u = heap[0];
        pos[u] = DONE;
        uint32_t last = heap[--hn];
        if (hn > 0) { /* sift last down from the root */
            uint32_t i = 0;
            double lv = row[last];
            for (;;) {
                uint32_t c = 2 * i + 1;
                if (c >= hn)
                    break;
                if (c + 1 < hn && row[heap[c + 1]] < row[heap[c]])
                    c++;
                if (!(row[heap[c]] < lv))
                    break;
                heap[i] = heap[c];
                pos[heap[i]] = i;
                i = c;
            }
            heap[i] = last;
            pos[last] = i;
        }
        double du = row[u];
        for (size_t e = g->fo[u]; e < g->fo[u + 1]; e++) {
            uint32_t v = g->ft[e];
            if (pos[v] == DONE)
                continue;
            double nd = du + rw[e];
            if (!(nd < row[v]))
                continue;
            row[v] = nd;
            uint32_t i = pos[v];
            if (i == NONE)
                i = hn++;
            while (i > 0) { /* sift up */
                uint32_t p = (i - 1) / 2;
                if (!(nd < row[heap[p]]))
                    break;
                heap[i] = heap[p];
                pos[heap[i]] = i;
                i = p;
            }
            heap[i] = v;
            pos[v] = i;
        }
    }
}

static int johnson_rows(const struct sv_graph *g, double delta, double eps, const uint32_t *rows, uint32_t nrows,
                        double *matrix);

int sv_all_pairs(const struct sv_graph *g, double delta, uint32_t max_n, double *matrix)
{
    if (!g || !g->finished || !isfinite(delta) || !matrix) {
        errno = EINVAL;
        return -1;
    }
    uint32_t n = g->n;
    if (n > max_n || (n > 0 && (size_t)n > SIZE_MAX / sizeof(double) / n)) {
        errno = ERANGE;
        return -1;
    }
    if (n == 0)
        return 0;
    double eps = sv_tolerance(g, delta);
    double lg = log2((double)n) + 1;
    double fw_cost = (double)n * n * n, dj_cost = 4.0 * n * ((double)g->ne + n) * lg;
    if (n <= 64 || fw_cost <= dj_cost)
        return floyd_warshall(g, delta, eps, matrix);
    return johnson_rows(g, delta, eps, NULL, n, matrix);
}

int sv_rows_pairs(const struct sv_graph *g, double delta, const uint32_t *rows, uint32_t nrows, double *matrix)
{
    if (!g || !g->finished || !isfinite(delta) || !matrix || (nrows && !rows)) {
        errno = EINVAL;
        return -1;
    }
    for (uint32_t k = 0; k < nrows; k++)
        if (rows[k] >= g->n) {
            errno = EINVAL;
            return -1;
        }
    if (g->n == 0 || nrows == 0)
        return 0;
    return johnson_rows(g, delta, sv_tolerance(g, delta), rows, nrows, matrix);
}

/* Johnson's rows: matrix[k*n + t] = wbar(rows[k], t) (rows NULL: every
 * vertex, k itself): potentials p from a multi-source SPFA (p[t] <= p[s] + w
 * + delta + eps on every edge), reduced weights w + delta + p[s] - p[t] >=
 * -eps, clamped to 0, then one Dijkstra per row. */
static int johnson_rows(const struct sv_graph *g, double delta, double eps, const uint32_t *rows, uint32_t nrows,
                        double *matrix)
{
    uint32_t n = g->n;
    double *p = alloc_arr(n, sizeof *p), *rw = alloc_arr(g->ne, sizeof *rw);
    uint32_t *heap = alloc_arr(n, sizeof *heap), *pos = alloc_arr(n, sizeof *pos);
    int rc = -1;
    if (!p || !rw || !heap || !pos)
        goto out;
    rc = spfa(n, fwd_adj(g), rev_adj(g), 1, 0, delta, eps, p);
    if (rc != 0)
        goto out;
    for (uint32_t s = 0; s < n; s++)
        for (size_t e = g->fo[s]; e < g->fo[s + 1]; e++) {
            double v = p[s] + (g->fw[e] + delta) - p[g->ft[e]];
            rw[e] = v > 0 ? v : 0;
        }
    for (uint32_t k = 0; k < nrows; k++) {
        uint32_t s = rows ? rows[k] : k;
        double *row = matrix + (size_t)k * n;
        dijkstra(g, rw, s, row, heap, pos);
        for (uint32_t t = 0; t < n; t++)
            if (row[t] != INFINITY)
                row[t] = row[t] - p[s] + p[t];
        row[s] = 0;
    }
    rc = 0;
out:
    free(p);
    free(rw);
    free(heap);
    free(pos);
    return rc;
}

void sv_pair_uncertainty(const double *matrix, uint32_t n, double *max_out, double *mean_out)
{
    double mx = 0, sum = 0;
    size_t cnt = 0;
    if (n < 2) {
        if (max_out)
            *max_out = 0;
        if (mean_out)
            *mean_out = 0;
        return;
    }
    for (size_t s = 0; s < n; s++)
        for (size_t t = s + 1; t < n; t++) {
            double u = matrix[s * n + t] + matrix[t * n + s];
            if (!(u < INFINITY)) {
                mx = INFINITY;
                continue;
            }
            if (u > mx)
                mx = u;
            sum += u;
            cnt++;
        }
    if (max_out)
        *max_out = mx;
    if (mean_out)
        *mean_out = cnt ? sum / (double)cnt : NAN;
}
