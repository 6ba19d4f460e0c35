/* TAP unit test for tools/clock/hubstore.c (hubs kept beside the graph)
 * and the solver's warm relaxation it relies on (sv_relax).
 *
 * Random systems of a few clocks, direct edges and groups (a hub each:
 * sources s -> h weighing a_s, h -> sinks t weighing b_t), integer
 * weights, so that path sums are exact. The reference is Floyd-Warshall
 * on the dense matrix of the graph with every hub a vertex, written here.
 * The store is compiled with 256 bytes of memory (HS_MEMORY, Makefile.am),
 * so its records go to a file and are read back through it.
 *   1-2. distances from and to every clock, one vector at a time: labels
 *        from the graph without the groups, then hub passes and sv_relax
 *        until a pass lowers none, equal the reference's;
 *   3.   the same with every clock's vector in one pass (side by side);
 *   4.   potentials: they settle exactly when the graph with the hubs has
 *        no negative cycle, and where it has one the pair vertices bring
 *        it into the graph (sv_potential then finds it) within a few
 *        rounds;
 *   5.   the store's counts and the whole graph's sizes. */
#include "hubstore.h"
#include "solve.h"
#include "tap.h"
#include "skew.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x51ab5eedULL;
static int irand(int lo, int hi)
{
    return lo + (int)(st_splitmix64(&rng) % (uint64_t)(hi - lo + 1));
}

/* Fisher-Yates, from the seeded generator */
static void shuffle(int *perm, int n)
{
    for (int v = n - 1; v > 0; v--) {
        int j = irand(0, v), x = perm[v];
        perm[v] = perm[j];
        perm[j] = x;
    }
}

#define MAXC 20
#define MAXG 8
#define MAXV (MAXC + MAXG)

struct sys {
    int nc, ng;
    int ne, es[200], et[200];
    double ew[200];
    int ns[MAXG], nd[MAXG], src[MAXG][MAXC], dst[MAXG][MAXC];
    double sw[MAXG][MAXC], dw[MAXG][MAXC];
};

/* consistent: weights from hidden offsets plus slack >= 0; else arbitrary */
static void gen(struct sys *y, int consistent)
{
    memset(y, 0, sizeof *y);
    y->nc = irand(3, MAXC);
    y->ng = irand(1, MAXG);
    int truth[MAXV];
    for (int v = 0; v < MAXV; v++)
        truth[v] = irand(-1000, 1000);
    y->ne = irand(0, 3 * y->nc);
    for (int e = 0; e < y->ne; e++) {
        int s = irand(0, y->nc - 1), t = irand(0, y->nc - 1);
        y->es[e] = s;
        y->et[e] = t;
        y->ew[e] = consistent ? truth[s] - truth[t] + irand(0, 50) : irand(-60, 400);
    }
    for (int g = 0; g < y->ng; g++) {
        int h = y->nc + g;
        /* distinct vertices each side, at least 2 */
        int perm[MAXC];
        for (int v = 0; v < y->nc; v++)
            perm[v] = v;
        shuffle(perm, y->nc);
        y->ns[g] = irand(2, y->nc);
        for (int k = 0; k < y->ns[g]; k++) {
            int s = perm[k];
            y->src[g][k] = s;
            y->sw[g][k] = consistent ? truth[s] - truth[h] + irand(0, 50) : irand(-200, 300);
        }
        shuffle(perm, y->nc);
        y->nd[g] = irand(2, y->nc);
        for (int k = 0; k < y->nd[g]; k++) {
            int t = perm[k];
            y->dst[g][k] = t;
            y->dw[g][k] = consistent ? truth[h] - truth[t] + irand(0, 50) : irand(-200, 300);
        }
    }
}

/* Floyd-Warshall over clocks and hubs; 1 if a negative cycle */
static int ref_fw(const struct sys *y, double D[MAXV][MAXV])
{
    int n = y->nc + y->ng;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            D[a][b] = a == b ? 0 : INFINITY;
    for (int e = 0; e < y->ne; e++)
        if (y->ew[e] < D[y->es[e]][y->et[e]])
            D[y->es[e]][y->et[e]] = y->ew[e];
    for (int g = 0; g < y->ng; g++) {
        int h = y->nc + g;
        for (int k = 0; k < y->ns[g]; k++)
            if (y->sw[g][k] < D[y->src[g][k]][h])
                D[y->src[g][k]][h] = y->sw[g][k];
        for (int k = 0; k < y->nd[g]; k++)
            if (y->dw[g][k] < D[h][y->dst[g][k]])
                D[h][y->dst[g][k]] = y->dw[g][k];
    }
    for (int k = 0; k < n; k++)
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                if (D[a][k] + D[k][b] < D[a][b])
                    D[a][b] = D[a][k] + D[k][b];
    for (int a = 0; a < n; a++)
        if (D[a][a] < 0)
            return 1;
    return 0;
}

/* The store with the groups and the graph of the direct edges only. */
static struct sv_graph *lazy(const struct sys *y, struct hub_store *h)
{
    hs_init(h, getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    for (int g = 0; g < y->ng; g++) {
        uint32_t s[MAXC], t[MAXC];
        for (int k = 0; k < y->ns[g]; k++)
            s[k] = (uint32_t)y->src[g][k];
        for (int k = 0; k < y->nd[g]; k++)
            t[k] = (uint32_t)y->dst[g][k];
        if (hs_add_group(h, (uint32_t)y->ns[g], s, y->sw[g], (uint32_t)y->nd[g], t, y->dw[g]) != 0)
            return NULL;
    }
    uint32_t nv;
    if (hs_plan(h, (uint32_t)y->nc, 0, &nv) != 0 || !h->lazy || nv != (uint32_t)y->nc)
        return NULL;
    struct sv_graph *gr = sv_graph_new(nv, (size_t)y->ne);
    for (int e = 0; gr && e < y->ne; e++)
        sv_add_edge(gr, (uint32_t)y->es[e], (uint32_t)y->et[e], y->ew[e]);
    if (!gr || hs_add_edges(h, gr, nv) != 0 || sv_finish(gr) != 0) {
        sv_graph_free(gr);
        return NULL;
    }
    h->base_edges = sv_edges(gr);
    return gr;
}

/* Hub passes and warm relaxation until a pass lowers none: 0, 1 (did not
 * settle: a negative cycle), -1. */
static int settle(struct hub_store *h, struct sv_graph *g, double **vec, const int *bw, uint32_t nvec, int max)
{
    double tol = sv_tolerance(g, 0);
    for (int pass = 0; pass < max; pass++) {
        int lowered = hs_check(h, vec, bw, nvec, sv_vertices(g), 0, tol, NULL);
        if (lowered <= 0)
            return lowered;
        for (uint32_t k = 0; k < nvec; k++) {
            int r = sv_relax(g, 0, bw[k], vec[k]);
            if (r)
                return r;
        }
    }
    return 1;
}

static int same(double a, double b)
{
    return a == b || fabs(a - b) <= 1e-6;
}

int main(void)
{
    int systems = 300;
    int spilled = 0, fail_dist[2] = { 0, 0 }, fail_lanes = 0, fail_pot = 0, fail_counts = 0, neg = 0, pos = 0, pair_rounds_max = 0;
    char why[5][200] = { "", "", "", "", "" };
    for (int it = 0; it < systems; it++) {
        struct sys y;
        gen(&y, it % 2 == 0);
        double D[MAXV][MAXV];
        int has_neg = ref_fw(&y, D);
        struct hub_store h;
        struct sv_graph *g = lazy(&y, &h);
        if (!g) {
            fail_counts++;
            snprintf(why[4], sizeof why[4], "system %d: the store or graph could not be made: %.120s", it, h.err);
            hs_free(&h);
            continue;
        }
        uint32_t nv = sv_vertices(g);
        spilled += h.spilled;
        /* 5. counts */
        uint64_t edges = 0;
        for (int gi = 0; gi < y.ng; gi++)
            edges += (uint64_t)y.ns[gi] + (uint64_t)y.nd[gi];
        if (h.groups != (uint64_t)y.ng || h.group_edges != edges
            || hs_full_vertices(&h, nv) != (uint32_t)(y.nc + y.ng)
            || hs_full_edges(&h, sv_edges(g)) != sv_edges(g) + edges) {
            fail_counts++;
            snprintf(why[4], sizeof why[4], "system %d: counts %llu groups %llu edges", it,
                     (unsigned long long)h.groups, (unsigned long long)h.group_edges);
        }
        if (!has_neg) {
            pos++;
            /* 1-2. one vector at a time */
            for (int dir = 0; dir < 2; dir++)
                for (int c = 0; c < y.nc; c++) {
                    double *d = malloc(sizeof *d * nv);
                    int r = dir ? sv_dist_to(g, (uint32_t)c, 0, d) : sv_dist_from(g, (uint32_t)c, 0, d);
                    int bw[1] = { dir };
                    if (r == 0)
                        r = settle(&h, g, &d, bw, 1, 1000);
                    for (int v = 0; r == 0 && v < y.nc; v++)
                        if (!same(d[v], dir ? D[v][c] : D[c][v])) {
                            r = 2;
                            snprintf(why[dir], sizeof why[dir], "system %d clock %d vertex %d: %g, reference %g", it,
                                     c, v, d[v], dir ? D[v][c] : D[c][v]);
                        }
                    if (r) {
                        fail_dist[dir]++;
                        if (!why[dir][0])
                            snprintf(why[dir], sizeof why[dir], "system %d clock %d: settle %d", it, c, r);
                    }
                    free(d);
                }
            /* 3. every clock's vectors from and to at once, side by side */
            uint32_t nvec = (uint32_t)(2 * y.nc);
            double *vec[2 * MAXC];
            int bw[2 * MAXC];
            int r = 0;
            for (uint32_t k = 0; k < nvec; k++) {
                vec[k] = malloc(sizeof *vec[k] * nv);
                bw[k] = (int)(k % 2);
                uint32_t c = k / 2;
                r |= bw[k] ? sv_dist_to(g, c, 0, vec[k]) : sv_dist_from(g, c, 0, vec[k]);
            }
            if (r == 0)
                r = settle(&h, g, vec, bw, nvec, 1000);
            for (uint32_t k = 0; r == 0 && k < nvec; k++)
                for (int v = 0; v < y.nc; v++) {
                    int c = (int)(k / 2);
                    double ref = bw[k] ? D[v][c] : D[c][v];
                    if (!same(vec[k][v], ref) && !why[2][0])
                        snprintf(why[2], sizeof why[2], "system %d vector %u vertex %d: %g, reference %g", it, k, v,
                                 vec[k][v], ref);
                    r |= !same(vec[k][v], ref);
                }
            fail_lanes += r != 0;
            for (uint32_t k = 0; k < nvec; k++)
                free(vec[k]);
        } else {
            neg++;
        }
        /* 4. potentials: settle iff no negative cycle; pairs bring one in */
        double *p = malloc(sizeof *p * nv);
        int rounds = 0, outcome = -1;
        for (; rounds < 40; rounds++) {
            p = realloc(p, sizeof *p * sv_vertices(g));
            int pot = sv_potential(g, 0, p);
            if (pot) {
                outcome = 1;   /* the graph itself shows the cycle */
                break;
            }
            int bw[1] = { 0 };
            int st = settle(&h, g, &p, bw, 1, 16);
            if (st == 0) {
                outcome = 0;
                break;
            }
            size_t made = 0;
            if (hs_check(&h, &p, bw, 1, sv_vertices(g), 0, sv_tolerance(g, 0), &made) < 0)
                break;
            if (made == 0)
                continue;   /* the graph has the pairs: sv_potential sees the cycle next */
            struct sv_graph *ng = hs_regraph(&h, g);
            if (!ng)
                break;
            g = ng;
        }
        if (rounds > pair_rounds_max)
            pair_rounds_max = rounds;
        if (outcome != has_neg) {
            fail_pot++;
            if (!why[3][0])
                snprintf(why[3], sizeof why[3], "system %d: outcome %d after %d rounds, negative cycle %d", it,
                         outcome, rounds, has_neg);
        }
        free(p);
        sv_graph_free(g);
        hs_free(&h);
    }
    ok(fail_dist[0] == 0, "distances from every clock, one vector a pass: the reference's in %d consistent systems%s%s",
       pos, why[0][0] ? ": " : "", why[0]);
    ok(fail_dist[1] == 0, "distances to every clock, one vector a pass: the reference's%s%s", why[1][0] ? ": " : "",
       why[1]);
    ok(fail_lanes == 0, "every clock's vectors from and to in one pass, side by side: the reference's%s%s",
       why[2][0] ? ": " : "", why[2]);
    ok(fail_pot == 0,
       "potentials settle exactly when the hubs make no negative cycle (%d systems with one, %d without); pair "
       "vertices bring a cycle into the graph within %d rounds%s%s",
       neg, pos, pair_rounds_max, why[3][0] ? ": " : "", why[3]);
    ok(fail_counts == 0 && spilled > systems / 2,
       "the store's counts, the whole graph's vertices and edges; the records through a file in %d systems%s%s",
       spilled, why[4][0] ? ": " : "", why[4]);
    return tap_finish();
}
