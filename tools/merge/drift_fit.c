/* drift_fit.c — each clock's line moved the least that the messages
 * require (docs/design.md, "Drift from the rounds and the messages").
 *
 * The line model takes a clock's offset and drift from its sync rounds.
 * The messages of the whole run may exclude that line somewhere while a
 * single offset for the whole run would be a poor compromise: a drift off
 * by tens of ppm (two rounds a few ms apart, each off by a fraction of a
 * round trip) tilts the truth against it. So cut every clock into
 * windows, solve with the reference's windows held to one offset, and
 * take each window's bounds as where that clock's offset to the reference
 * may be at the window's middle. Per clock, the line
 *     x(l) = a + b (l - L),   l: local ns,  L: the rounds' weighted mean time,
 * inside every window's bounds (and within the drift bound) that moves
 * least from the target line (the model's own; with more than two rounds
 * the rounds' least-squares line), measured at the clock's first and last
 * event: a tilt costs what it does at MPI_Init's start-up, 0.3 s before
 * the first round, not what it does between rounds a few ms apart. That
 * is a convex quadratic over a polygon in (a, b): its minimum is the
 * unconstrained one, or the minimum on one edge's line, or a corner,
 * whichever is feasible and lowest. Where the target violates nothing it
 * stays. The new lines are kept only if the whole graph is still
 * consistent under them (delta 0). */
#include <config.h>
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Windows per clock: each multiplies the pair table by up to its square
 * over the line model's, while the graph of the line model is freed. */
#define FIT_WINDOWS 4
#define FIT_MAX_ROUNDS 4096

/* One linear constraint lo <= a + b u <= hi. */
struct band {
    double u, lo, hi;
};

struct line_fit {
    double saa, sab, sbb, sa, sb;   /* f(a, b) = saa a^2 + 2 sab a b + sbb b^2 - 2 (sa a + sb b) + const */
    const struct band *bands;
    uint32_t nbands;
    double bmin, bmax;              /* b's physical range */
};

static double f_value(const struct line_fit *q, double a, double b)
{
    return q->saa * a * a + 2 * q->sab * a * b + q->sbb * b * b - 2 * (q->sa * a + q->sb * b);
}

static int feasible(const struct line_fit *q, double a, double b)
{
    if (!(b >= q->bmin - 1e-15 && b <= q->bmax + 1e-15))
        return 0;
    for (uint32_t j = 0; j < q->nbands; j++) {
        double v = a + b * q->bands[j].u, tol = 1e-6 * (1 + fabs(v));
        if (v < q->bands[j].lo - tol || v > q->bands[j].hi + tol)
            return 0;
    }
    return 1;
}

static void consider(const struct line_fit *q, double a, double b, double *best, double *ba, double *bb)
{
    if (!isfinite(a) || !isfinite(b) || !feasible(q, a, b))
        return;
    double v = f_value(q, a, b);
    if (v < *best) {
        *best = v;
        *ba = a;
        *bb = b;
    }
}

/* The minimum of f on the line a = c - b u (a band's edge). */
static void on_band_edge(const struct line_fit *q, double c, double u, double *a, double *b)
{
    /* f(c - b u, b): quadratic in b */
    double k2 = q->saa * u * u - 2 * q->sab * u + q->sbb;
    double k1 = -q->saa * c * u + q->sab * c + q->sa * u - q->sb;   /* half the linear coefficient */
    *b = k2 > 0 ? -k1 / k2 : 0;
    *a = c - *b * u;
}

/* Edge j of the polygon as a line p a + r b = c (k: 2 j lower, 2 j + 1 upper;
 * the last two: b's range). */
static void edge(const struct line_fit *q, uint32_t k, double *p, double *r, double *c)
{
    if (k < 2 * q->nbands) {
        const struct band *bd = &q->bands[k / 2];
        *p = 1;
        *r = bd->u;
        *c = k % 2 ? bd->hi : bd->lo;
    } else {
        *p = 0;
        *r = 1;
        *c = k == 2 * q->nbands ? q->bmin : q->bmax;
    }
}

/* The feasible (a, b) nearest the rounds; 0, or -1 when none is feasible. */
static int solve_line(const struct line_fit *q, double *a, double *b)
{
    double best = INFINITY, ba = NAN, bb = NAN;
    double det = q->saa * q->sbb - q->sab * q->sab;
    if (det > 0)
        consider(q, (q->sa * q->sbb - q->sb * q->sab) / det, (q->saa * q->sb - q->sab * q->sa) / det, &best, &ba, &bb);
    uint32_t ne = 2 * q->nbands + 2;
    for (uint32_t k = 0; k < ne; k++) {
        double p, r, c, ea, eb;
        edge(q, k, &p, &r, &c);
        if (p != 0) {
            on_band_edge(q, c, r, &ea, &eb);
        } else {   /* b fixed: minimise over a */
            eb = c;
            ea = q->saa > 0 ? (q->sa - q->sab * eb) / q->saa : 0;
        }
        consider(q, ea, eb, &best, &ba, &bb);
        for (uint32_t k2 = k + 1; k2 < ne; k2++) {
            double p2, r2, c2;
            edge(q, k2, &p2, &r2, &c2);
            double dd = p * r2 - p2 * r;
            if (dd != 0)
                consider(q, (c * r2 - c2 * r) / dd, (p * c2 - p2 * c) / dd, &best, &ba, &bb);
        }
    }
    if (!isfinite(best))
        return -1;
    *a = ba;
    *b = bb;
    return 0;
}

/* Domain d's windows that the messages bound, as bands at their middles'
 * local time (L = 0 for now); how many. */
static uint32_t window_bands(const struct cm_model *w, const struct merge_solution *sw, uint32_t d, struct band *bands)
{
    uint32_t n = 0, v0 = cm_domain_vertex(w, d);
    for (uint32_t j = 0; j < w->windows; j++) {
        uint32_t v = v0 + j, dv;
        double l0, len;
        cm_vertex_span(w, v, &dv, &l0, &len);
        if (isfinite(sw->lo[v]) && isfinite(sw->hi[v]) && !isnan(sw->x[v]))
            bands[n++] = (struct band){ .u = l0 + len / 2, .lo = sw->lo[v], .hi = sw->hi[v] };
    }
    return n;
}

/* Domain d's rounds and window bands as a line fit around its rounds'
 * mean time *L (the bands' times made relative to it); 0 when it has no
 * rounds. */
static int build_fit(const struct merge_state *st, uint32_t d, int rounds_drift, double *t, double *e, double *err,
                     struct band *bands, uint32_t nbands, struct line_fit *q, double *L)
{
    const struct cm_model *m = &st->model;
    uint32_t n = cm_round_offsets(st->locs, m, st->tau, d, t, e, err, FIT_MAX_ROUNDS);
    if (n == 0)
        return 0;
    double sw0 = 0, swt = 0;
    for (uint32_t k = 0; k < n; k++) {
        double wk = 1 / fmax(err[k], 1.0) / fmax(err[k], 1.0);
        sw0 += wk;
        swt += wk * t[k];
    }
    *L = swt / sw0;
    *q = (struct line_fit){ .bands = bands };
    for (uint32_t k = 0; k < n; k++) {
        double wk = 1 / fmax(err[k], 1.0) / fmax(err[k], 1.0), s = t[k] - *L;
        q->saa += wk;
        q->sab += wk * s;
        q->sbb += wk * s * s;
        q->sa += wk * e[k];
        q->sb += wk * s * e[k];
    }
    /* a faint pull of b towards 0: one round alone leaves it free */
    q->sbb += 1e-9 * (q->sbb > 0 ? q->sbb : q->saa * 1e12);
    /* The target: the model's own line (its drift from the first and the
     * last round, or chosen from the events, or 0 where the rounds' was
     * unphysical); with more rounds, their least-squares line where the
     * model's drift is theirs. Then "the least move": the line's displacement from the
     * target at the clock's first and last event, squared and summed, so
     * that a tilt costs what it does at MPI_Init's start-up, 0.3 s before
     * the first round, not what it does at the rounds a few ms apart. */
    double det = q->saa * q->sbb - q->sab * q->sab, ta, tb;
    if (rounds_drift && n > 2 && !m->domains[d].drift_rejected && det > 0) {
        ta = (q->sa * q->sbb - q->sb * q->sab) / det;
        tb = (q->saa * q->sb - q->sab * q->sa) / det;
    } else {
        ta = m->domains[d].seg[0].x_est;
        tb = 0;
    }
    double ends[2] = { -*L, m->domains[d].span_ns - *L };
    if (!(ends[1] > ends[0]))
        ends[1] = ends[0] + 1;
    *q = (struct line_fit){ .bands = bands };
    for (int k = 0; k < 2; k++) {
        double target = ta + tb * ends[k];
        q->saa += 1;
        q->sab += ends[k];
        q->sbb += ends[k] * ends[k];
        q->sa += target;
        q->sb += ends[k] * target;
    }
    const struct cm_domain *dom = &m->domains[d];
    double beta = dom->seg[0].beta;
    q->bmin = -m->max_drift - beta;
    q->bmax = m->max_drift - beta;
    for (uint32_t k = 0; k < nbands; k++)
        bands[k].u -= *L;
    q->nbands = nbands;
    return q->nbands > 0;
}

/* The model's own solution again (after a trial that is not kept):
 * solving is deterministic, so it is the one freed. */
static int solve_again(struct merge_state *st)
{
    const struct merge_options *o = &st->opt;
    merge_solution_free(&st->sol);
    return merge_solve_model(st->locs, &st->model, &st->match, o->min_latency, st->tau, o->alpha, &st->sol);
}

int merge_fit_drifts(struct merge_state *st)
{
    struct cm_model *m = &st->model;
    const struct merge_options *o = &st->opt;
    if (o->no_drift || o->median || !(st->sol.delta == 0) || m->ndomains < 2
        || m->nsegments != m->ndomains)
        return 0;
    struct cm_model w, trial;
    if (cm_copy(m, &w) != 0)
        goto oom;
    w.windows = FIT_WINDOWS;
    w.pinned = st->tau + 1;
    struct merge_solution sw = { 0 };
    double *t = malloc(sizeof *t * FIT_MAX_ROUNDS * 3);
    struct band *bands = malloc(sizeof *bands * FIT_WINDOWS * m->ndomains);
    uint32_t *nbands = calloc(m->ndomains, sizeof *nbands);
    double *shift = calloc(m->ndomains, sizeof *shift), *slope = calloc(m->ndomains, sizeof *slope);
    int rc = -1, changed = 0;
    if (!t || !bands || !nbands || !shift || !slope) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto out;
    }
    /* One graph at a time: the line model's is freed for the windows'
     * (peak memory as a single solve's), and solved again if not replaced. */
    merge_solution_free(&st->sol);
    if (merge_solve_model(st->locs, &w, &st->match, o->min_latency, st->tau, o->alpha, &sw) != 0)
        goto out;
    int usable = !(sw.delta > 0);   /* windows cannot be less consistent than one offset each */
    for (uint32_t d = 0; usable && d < m->ndomains; d++)
        nbands[d] = window_bands(&w, &sw, d, bands + (size_t)d * FIT_WINDOWS);
    merge_solution_free(&sw);
    int rounds_drift = !st->rep.drift_dropped && !st->rep.drift_refined && !st->rep.drift_search_moves;
    for (uint32_t d = 0; usable && d < m->ndomains; d++) {
        struct line_fit q;
        double L, a, b;
        if (d == st->tau || !nbands[d]
            || !build_fit(st, d, rounds_drift, t, t + FIT_MAX_ROUNDS, t + 2 * FIT_MAX_ROUNDS,
                          bands + (size_t)d * FIT_WINDOWS, nbands[d], &q, &L)
            || solve_line(&q, &a, &b) != 0)
            continue;
        const struct cm_segment *s = &m->domains[d].seg[0];
        /* c'(l) + x' = c(l) + a + b (l - L), with c'(l) = c(l) + b (l - l0) */
        double x_new = a + b * (s->l0 - L);
        if (fabs(b) < 1e-12 && fabs(x_new - s->x_est) < 1e-3)
            continue;
        slope[d] = b;
        shift[d] = x_new;
        changed++;
    }
    if (!changed) {
        rc = solve_again(st);
        goto out;
    }
    if (cm_copy(m, &trial) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto out;
    }
    for (uint32_t d = 0; d < m->ndomains; d++)
        if (slope[d] != 0 || shift[d] != 0) {
            cm_set_drift(&trial, d, slope[d], 0);
            trial.domains[d].seg[0].x_est = shift[d];
        }
    if (merge_solve_model(st->locs, &trial, &st->match, o->min_latency, st->tau, o->alpha, &st->sol) != 0) {
        cm_free(&trial);
        goto out;
    }
    if (st->sol.delta == 0) {
        cm_free(m);
        *m = trial;
        st->rep.drift_fitted = (uint32_t)changed;
        rc = 0;
    } else {
        cm_free(&trial);
        rc = solve_again(st);
    }
out:
    cm_free(&w);
    free(t);
    free(bands);
    free(nbands);
    free(shift);
    free(slope);
    return rc;
oom:
    fprintf(stderr, "synctrace merge: out of memory\n");
    return -1;
}
