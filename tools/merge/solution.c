/* solution.c — the constraints and solve stages for one clock model:
 * build its constraint graph (constraints.c) and solve it (solve.c).
 *
 * The minimum one-way latency is one number, --min-latency, 0 by default:
 * round trips bound the sum of the two one-way latencies, not either one.
 * On a loaded machine one direction can take almost all of it (seen here:
 * 375 ns one way where a quarter of the fastest round trip was 986 ns), so
 * no estimate from the sync rounds is a bound the truth cannot violate. */
#include <config.h>
#include "merge_state.h"
#include "collstream.h"
#include "msgstream.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The vertices' arrays for a graph of nv vertices. */
static int size_arrays(struct merge_solution *s, uint32_t nv)
{
    double *x = realloc(s->x, sizeof *x * nv), *lo = x ? realloc(s->lo, sizeof *lo * nv) : NULL,
           *hi = lo ? realloc(s->hi, sizeof *hi * nv) : NULL;
    if (x)
        s->x = x;
    if (lo)
        s->lo = lo;
    if (hi)
        s->hi = hi;
    return x && lo && hi ? 0 : -1;
}

/* Bellman-Ford with the hubs kept beside the graph (hubstore.h): passes
 * over them lower labels, the graph's edges relax the lowered ones, until
 * a pass lowers none (0), or max_passes went by (1), or -1. */
static int settle(struct merge_solution *s, double *const *vec, const int *backward, uint32_t nvec,
                  unsigned max_passes)
{
    uint32_t nv = sv_vertices(s->graph);
    double tol = sv_tolerance(s->graph, s->delta);
    for (unsigned pass = 0;;) {
        int lowered = hs_check(s->hubs, vec, backward, nvec, nv, s->delta, tol, NULL);
        if (lowered < 0) {
            fprintf(stderr, "synctrace merge: %s\n", s->hubs->err);
            return -1;
        }
        if (lowered == 0)
            return 0;
        for (uint32_t k = 0; k < nvec; k++) {
            int r = sv_relax(s->graph, s->delta, backward[k], vec[k]);
            if (r < 0) {
                fprintf(stderr, "synctrace merge: the solver failed: %s\n", strerror(errno));
                return -1;
            }
            if (r)
                return 1;   /* a negative cycle: through groups */
        }
        if (++pass >= max_passes)
            return 1;
    }
}

/* The solve checked against the hubs kept beside the graph: its
 * potentials first (does the relaxation delta hold for the whole graph?
 * If they do not settle, a negative cycle runs through groups: its pairs
 * join the graph and it is solved again, 1), then its distances from and
 * to the reference, settled (0). -1 on failure. */
#define POTENTIAL_PASSES 16
#define CREEP_PASSES 64
#define SETTLE_PASSES 100000   /* Bellman-Ford ends by then without a negative cycle */
static int check_hubs(struct merge_solution *s, double alpha)
{
    uint32_t nv = sv_vertices(s->graph);
    double *p = malloc(sizeof *p * nv), *f = malloc(sizeof *f * nv), *b = malloc(sizeof *b * nv);
    int rc = -1;
    if (!p || !f || !b) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto done;
    }
    int pot = sv_potential(s->graph, s->delta, p);
    unsigned creep = 0;
    if (pot < 0) {
        fprintf(stderr, "synctrace merge: the solver failed: %s\n", strerror(errno));
        goto done;
    }
    /* (a negative cycle the relaxation left away from the reference, only
     * through rounding: the potentials say nothing, the distances do) */
    int backward[2] = { 0, 1 };
    double *pv[1] = { p };
    int settled = pot ? 0 : settle(s, pv, backward, 1, POTENTIAL_PASSES);
    while (settled > 0) {
        /* pairs where the groups still lower the potentials: a negative
         * cycle through groups, for Howard's delta on the next graph */
        size_t made = 0;
        int lowered = hs_check(s->hubs, pv, backward, 1, nv, s->delta, sv_tolerance(s->graph, s->delta), &made);
        if (lowered < 0) {
            fprintf(stderr, "synctrace merge: %s\n", s->hubs->err);
            goto done;
        }
        if (made > 0) {
            struct sv_graph *g = hs_regraph(s->hubs, s->graph);
            if (!g) {
                fprintf(stderr, "synctrace merge: out of memory while building the constraint graph\n");
                goto done;
            }
            s->graph = g;
            rc = 1;
            goto done;
        }
        if (lowered == 0)
            break;
        /* lowered through pairs the graph has, by rounding: go on */
        if (++creep > CREEP_PASSES) {
            fprintf(stderr, "synctrace merge: the solver failed: the collectives' constraints do not settle\n");
            goto done;
        }
        settled = settle(s, pv, backward, 1, POTENTIAL_PASSES);
    }
    if (settled < 0)
        goto done;
    for (uint32_t v = 0; v < nv; v++) {
        f[v] = -s->lo[v];   /* lo = -wbar(tau, v) */
        b[v] = s->hi[v];    /* hi = wbar(v, tau) */
    }
    double *fb[2] = { f, b };
    int r = settle(s, fb, backward, 2, SETTLE_PASSES);
    if (r < 0)
        goto done;
    if (r) {
        fprintf(stderr, "synctrace merge: the solver failed: the collectives' constraints do not settle\n");
        goto done;
    }
    sv_offsets(nv, f, b, alpha, s->x, s->lo, s->hi);
    rc = 0;
done:
    free(p);
    free(f);
    free(b);
    return rc;
}

int merge_solve_model(const struct rt_location *locs, const struct cm_model *model, const struct mg_result *match,
                      double lmin, uint32_t tau, double alpha, struct merge_solution *s)
{
    if (!(s->hubs = malloc(sizeof *s->hubs))) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    hs_init(s->hubs, match->spill_dir ? match->spill_dir : mg_default_spill_dir());
    s->graph = cs_build(locs, model, match, lmin, s->hubs, &s->cs);
    if (!s->graph) {
        if (s->cs.too_large)
            fprintf(stderr, "synctrace merge: the constraint graph would have more than 2^32-1 vertices\n");
        else if (mg_msgs_error(match) || mg_colls_error(match))
            ;   /* a read of what the match set aside: the caller says it once (set_aside_unread) */
        else if (s->hubs->failed)
            fprintf(stderr, "synctrace merge: %s\n", s->hubs->err);
        else
            fprintf(stderr, "synctrace merge: out of memory while building the constraint graph\n");
        return -1;
    }
    /* Solved, then checked against the hubs kept beside the graph, and
     * solved again with the pair vertices that found, until none does. */
    for (;;) {
        if (size_arrays(s, sv_vertices(s->graph)) != 0) {
            fprintf(stderr, "synctrace merge: out of memory\n");
            return -1;
        }
        if (sv_solve(s->graph, cm_domain_vertex(model, tau), alpha, s->x, &s->delta, s->lo, s->hi, NULL) != 0) {
            fprintf(stderr, "synctrace merge: the solver failed: %s\n", strerror(errno));
            return -1;
        }
        if (!s->hubs->lazy)
            break;
        int again = check_hubs(s, alpha);
        if (again < 0)
            return -1;
        if (again == 0)
            break;
    }
    /* the clocks left unbounded (report.json's unbounded_domains): not the
     * collectives' hub vertices, which are no clocks */
    s->unbounded = 0;
    for (uint32_t v = 0; v < cm_nvertices(model); v++)
        s->unbounded += isnan(s->x[v]);
    return 0;
}

int merge_hubs_settle(struct merge_solution *s, double *const *vec, const int *backward, uint32_t nvec)
{
    if (!s->hubs || !s->hubs->lazy)
        return 0;
    int r = settle(s, vec, backward, nvec, SETTLE_PASSES);
    if (r > 0)
        fprintf(stderr, "synctrace merge: the solver failed: the collectives' constraints do not settle\n");
    return r ? -1 : 0;
}

void merge_note_hubs(struct merge_state *st)
{
    const struct hub_store *h = st->sol.hubs;
    st->rep.hub_groups_beside = h && h->lazy ? h->groups : 0;
    st->rep.hub_passes = h ? h->passes : 0;
    st->rep.hub_pairs = h ? h->pairs.n : 0;
}

void merge_solution_free(struct merge_solution *s)
{
    if (s->graph)
        sv_graph_free(s->graph);
    if (s->hubs)
        hs_free(s->hubs);
    free(s->hubs);
    free(s->x);
    free(s->lo);
    free(s->hi);
    memset(s, 0, sizeof *s);
}
