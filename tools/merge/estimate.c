/* estimate.c — the offsets placed where the sync rounds measured them,
 * moved only as far as the messages require (docs/design.md, "Estimates
 * inside the bounds").
 *
 * The feasible offsets {x : x_s - x_t <= w + delta, x_tau = 0} form a
 * convex set closed under componentwise min and max. For the rounds'
 * estimates e (each first clamped to its own clock's interval,
 * projected_estimate) two of its points are the nearest to e on either side:
 *     below_v = min_u (e_u + wbar(v, u))   the largest feasible point <= e,
 *     above_v = max_u (e_u - wbar(u, v))   the smallest feasible point >= e,
 * each one Bellman-Ford pass from labels e (backward on e, forward on -e).
 * Both equal e wherever e violates nothing; their mean is feasible
 * (convexity), keeps x_tau = 0 (e inside the bounds), and splits what a
 * violated constraint needs between its two ends. Hubs have no estimate:
 * +INFINITY labels, which the passes lower to what the clocks imply. */
#include <config.h>
#include "merge_state.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rounds' estimate of vertex v (a window of a segment of a domain). */
static double vertex_estimate(const struct cm_model *m, uint32_t v)
{
    uint32_t per = m->windows ? m->windows : 1, seg = v / per;
    for (uint32_t d = 0; d < m->ndomains; d++) {
        const struct cm_domain *dom = &m->domains[d];
        if (seg >= dom->first_seg && seg < dom->first_seg + dom->nseg)
            return dom->seg[seg - dom->first_seg].x_est;
    }
    return NAN;
}

/* The rounds' estimate e of one clock, where the messages allow it: the
 * interval [lo, hi] they leave is a hard bound, the round's own error bar
 * a loose one (half its fastest round trip; the midpoint is typically ten
 * times closer), so e stands unless the messages exclude it. Pulling it
 * towards the interval's middle instead made the median error worse than
 * interpolation's on short runs (bench/accuracy_shapes.sh: 386 against
 * 45 ns), where the interval is wide and says nothing. */
static double projected_estimate(double e, double lo, double hi)
{
    return fmin(fmax(e, lo), hi);
}

int merge_place_estimates(struct merge_state *st, uint32_t *moved)
{
    struct merge_solution *s = &st->sol;
    const struct cm_model *m = &st->model;
    uint32_t nv = sv_vertices(s->graph), nclk = cm_nvertices(m), tau = cm_domain_vertex(m, st->tau);
    double *down = malloc(sizeof *down * nv), *up = malloc(sizeof *up * nv);
    int rc = -1;
    *moved = 0;
    if (!down || !up) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto out;
    }
    for (uint32_t v = 0; v < nv; v++) {
        double e = v < nclk && !isnan(s->x[v]) ? vertex_estimate(m, v) : NAN;
        if (isfinite(e) && isfinite(s->lo[v]) && isfinite(s->hi[v])) {
            e = v == tau ? 0 : projected_estimate(e, s->lo[v], s->hi[v]);
            down[v] = e;
            up[v] = -e;
        } else {
            down[v] = up[v] = INFINITY;
        }
    }
    double *vec[2] = { down, up };
    int backward[2] = { 1, 0 };
    for (int k = 0; k < 2; k++) {
        int r = sv_relax(s->graph, s->delta, backward[k], vec[k]);
        if (r < 0) {
            fprintf(stderr, "synctrace merge: the solver failed: %s\n", strerror(errno));
            goto out;
        }
        if (r) {   /* cannot be after sv_solve: the midpoints stay */
            rc = 0;
            goto out;
        }
    }
    if (merge_hubs_settle(s, vec, backward, 2) != 0)
        goto out;
    /* Each mean checked against the clock's bounds (rounding aside they
     * hold by construction); any doubt keeps the interval's midpoints. */
    double tol = 4 * sv_tolerance(s->graph, s->delta);
    for (uint32_t v = 0; v < nclk; v++) {
        if (isnan(s->x[v]))
            continue;
        double x = v == tau ? 0 : 0.5 * (down[v] - up[v]);
        if (!isfinite(x) || x < s->lo[v] - tol || x > s->hi[v] + tol) {
            rc = 0;
            *moved = 0;
            goto out;
        }
    }
    for (uint32_t v = 0; v < nv; v++) {
        if (v < nclk && isnan(s->x[v]))
            continue;
        double x = v == tau ? 0 : 0.5 * (down[v] - up[v]);
        if (isfinite(x)) {
            double e = v < nclk ? vertex_estimate(m, v) : NAN;
            *moved += isfinite(e) && fabs(x - e) > tol;
            s->x[v] = x;
        }
    }
    rc = 0;
out:
    free(down);
    free(up);
    return rc;
}
