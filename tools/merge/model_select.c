/* model_select.c — the clock-model stage: which drift model the events
 * contradict least, and its solved offsets.
 *
 * One drift per clock first: over the whole run its estimate is the most
 * precise, and one offset per clock uses every constraint at once. Only
 * when the events still contradict it after the refinements below (drift
 * that changes during the run) are the clocks cut into segments at their
 * sync rounds, each with its own drift and offset, kept if they contradict
 * the events less: on a loaded machine, rounds a fraction of a second apart
 * misjudge a drift by several ppm, which segments would otherwise trust. */
#include <config.h>
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Time windows per clock when measuring residual drift from the events. */
#define REFINE_WINDOWS 4

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (reorders v). */
static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

/* Solve with `beta` as the clocks' drifts; when that contradicts the events
 * less than `best` (smaller delta), it becomes `best` and the model takes
 * the drifts. Returns 1 if adopted, 0 if not, -1 on failure. */
static int try_drifts(const struct rt_location *ranks, const struct mg_result *match, double lmin, uint32_t tau,
                      double alpha, struct cm_model *model, const double *beta, int replace,
                      struct merge_solution *best)
{
    struct cm_model trial;
    if (cm_copy(model, &trial) != 0)
        return -1;
    for (uint32_t d = 0; d < model->ndomains; d++)
        cm_set_drift(&trial, d, beta[d], replace);
    struct merge_solution s = { 0 };
    if (merge_solve_model(ranks, &trial, match, lmin, tau, alpha, &s) != 0) {
        merge_solution_free(&s);
        cm_free(&trial);
        return -1;
    }
    if (s.delta < best->delta) {
        merge_solution_free(best);
        *best = s;
        cm_free(model);
        *model = trial;
        return 1;
    }
    merge_solution_free(&s);
    cm_free(&trial);
    return 0;
}

/* Residual drift from the events themselves: cut every segment into
 * `windows` spans with an offset each, solve, and fit a line through each
 * clock's window offsets relative to the reference's at the same time. Two
 * sync rounds close together on a loaded machine can misjudge a drift by
 * hundreds of ppm; thousands of messages over the whole run do not. Returns
 * 0 and the drift corrections (to add to every segment's) in beta, or -1. */
static int residual_drift(const struct rt_location *ranks, const struct cm_model *model, const struct mg_result *match,
                          double lmin, uint32_t tau, double alpha, uint32_t windows, double *beta)
{
    struct cm_model w = *model;
    w.windows = windows;
    struct merge_solution s = { 0 };
    double *st = calloc(model->ndomains, sizeof *st), *so = calloc(model->ndomains, sizeof *so);
    double *stt = calloc(model->ndomains, sizeof *stt), *sto = calloc(model->ndomains, sizeof *sto);
    uint32_t *cnt = calloc(model->ndomains, sizeof *cnt);
    int rc = -1;
    if (!st || !so || !stt || !sto || !cnt || merge_solve_model(ranks, &w, match, lmin, tau, alpha, &s) != 0)
        goto done;
    const double *x = s.x;
    /* the reference is one segment: its window offsets, by window middle */
    uint32_t t0 = cm_domain_vertex(&w, tau);
    double rb0, rwhole;
    cm_window_base(&model->domains[tau], &model->domains[tau].seg[0], &rb0, &rwhole);
    double rlen = rwhole / windows;
    for (uint32_t v = 0; v < cm_nvertices(&w); v++) {
        uint32_t d;
        double l0, len;
        cm_vertex_span(&w, v, &d, &l0, &len);
        if (d == tau || !isfinite(x[v]))
            continue;   /* a window no constraint reaches */
        double t = l0 + len / 2, f = rlen > 0 ? (t - rb0) / rlen - 0.5 : 0;
        int64_t k = (int64_t)floor(f);
        if (k < 0) k = 0;
        if (k > (int64_t)windows - 2) k = windows >= 2 ? windows - 2 : 0;
        double a = x[t0 + k], b = windows >= 2 ? x[t0 + k + 1] : a, frac = f - (double)k;
        if (!isfinite(a) || !isfinite(b))
            continue;
        double o = x[v] - (a + (b - a) * frac);
        st[d] += t; so[d] += o; stt[d] += t * t; sto[d] += t * o;
        cnt[d]++;
    }
    for (uint32_t d = 0; d < model->ndomains; d++) {
        double n = cnt[d], den = n * stt[d] - st[d] * st[d];
        beta[d] = cnt[d] >= 2 && den > 0 ? (n * sto[d] - st[d] * so[d]) / den : 0;
    }
    rc = 0;
done:
    merge_solution_free(&s);
    free(st);
    free(so);
    free(stt);
    free(sto);
    free(cnt);
    return rc;
}

/* The clock model of the given kind, with --timebase median applied:
 * Fleury et al., eq. 3, time follows the median clock; folding its rate
 * into every clock's drift keeps every constraint exact. */
static int build_model(const struct rt_location *ranks, uint32_t n, const struct merge_options *o,
                       enum cm_drift_model kind, struct cm_model *model, double *median_rate)
{
    if (cm_build(ranks, n, (uint32_t)o->reference, kind, o->max_drift, model) != 0)
        return -1;
    if (o->median) {
        double *b = malloc(sizeof *b * model->ndomains);
        if (!b) {
            cm_free(model);
            return -1;
        }
        for (uint32_t d = 0; d < model->ndomains; d++)
            b[d] = cm_mean_drift(&model->domains[d]);
        *median_rate = median(b, model->ndomains);
        free(b);
        cm_rebase(model, *median_rate);
    }
    return 0;
}

/* Contradictions under the drift model may be the drift's fault (sync
 * rounds close together on a loaded machine): solve once more without it
 * and keep the more consistent result. Returns 0 or -1. */
static int try_without_drift(struct merge_state *st)
{
    struct cm_model *model = &st->model;
    int any_drift = 0;
    for (uint32_t d = 0; d < model->ndomains; d++)
        for (uint32_t k = 0; k < model->domains[d].nseg; k++)
            any_drift |= model->domains[d].seg[k].beta != 0;
    if (!(st->sol.delta > 0 && any_drift))
        return 0;
    double *zero = calloc(model->ndomains, sizeof *zero);
    if (!zero) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    st->rep.drift_dropped = try_drifts(st->locs, &st->match, st->opt.min_latency, st->tau, st->opt.alpha, model, zero,
                                       1, &st->sol) == 1;
    free(zero);
    return 0;
}

/* When the events contradict the drift model (delta > 0), refine the
 * drifts from the events themselves (twice: the second pass sees the first
 * one's correction), keeping each pass that contradicts them less. Without
 * contradiction nothing says the model is wrong, and the sync rounds'
 * estimate stands. */
static void refine_drifts(struct merge_state *st)
{
    struct cm_model *model = &st->model;
    double lmin = st->opt.min_latency, alpha = st->opt.alpha;
    for (int pass = 0; pass < 2 && st->sol.delta > 0 && model->ndomains > 1 && !st->opt.no_drift; pass++) {
        double *beta = malloc(sizeof *beta * model->ndomains);
        int adopted = beta
                      && residual_drift(st->locs, model, &st->match, lmin, st->tau, alpha, REFINE_WINDOWS, beta) == 0
                      && try_drifts(st->locs, &st->match, lmin, st->tau, alpha, model, beta, 0, &st->sol) == 1;
        free(beta);
        if (!adopted)
            break;
        st->rep.drift_refined = pass + 1;
    }
}

/* Solves the drift search may spend, and the clocks it searches at most:
 * each step is one solve of the whole constraint graph. */
#define DRIFT_SEARCH_SOLVES 64
#define DRIFT_SEARCH_DOMAINS 16

/* Still contradicted: move the drifts the least that makes the events
 * consistent. delta, the uniform relaxation the constraints need, is a
 * convex function of the drifts (the constraints are linear in offsets and
 * drifts together), so a pattern search from the rounds' drifts goes
 * downhill and stops at the first drifts with delta = 0 it reaches, near
 * the rounds': a step of +-h on one clock's drift kept when delta falls, h
 * halved when no step helps. The first h moves an offset by delta over the
 * run. Runs of more than DRIFT_SEARCH_DOMAINS clocks are not searched (one
 * solve per step would cost too much there). Skew
 * injected with one drift per clock (bench/accuracy_shapes.sh's clients)
 * had delta > 0 under the rounds' drifts where the true times violate
 * nothing. Returns 0 or -1. */
static int search_drifts(struct merge_state *st)
{
    struct cm_model *model = &st->model;
    uint32_t nd = model->ndomains;
    if (!(st->sol.delta > 0) || nd < 2 || nd > DRIFT_SEARCH_DOMAINS || st->opt.no_drift)
        return 0;
    double span = 0;
    for (uint32_t d = 0; d < nd; d++)
        span = fmax(span, model->domains[d].span_ns);
    double *step = calloc(nd, sizeof *step);
    if (!step) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    double h = span > 0 ? 2 * st->sol.delta / span : 0, floor_h = 1e-9;   /* 0.001 ppm */
    int solves = 0, moves = 0, rc = 0;
    while (h >= floor_h && st->sol.delta > 0 && solves < DRIFT_SEARCH_SOLVES) {
        int moved = 0;
        for (uint32_t d = 0; d < nd && st->sol.delta > 0 && solves < DRIFT_SEARCH_SOLVES; d++) {
            if (d == st->tau)
                continue;
            for (int sign = -1; sign <= 1; sign += 2) {
                step[d] = sign * h;
                int r = try_drifts(st->locs, &st->match, st->opt.min_latency, st->tau, st->opt.alpha, model, step, 0,
                                   &st->sol);
                solves++;
                step[d] = 0;
                if (r < 0) {
                    rc = -1;
                    goto out;
                }
                if (r == 1) {
                    moved = 1;
                    moves++;
                    break;
                }
            }
        }
        if (!moved)
            h /= 2;
    }
    st->rep.drift_searched = solves;
    st->rep.drift_search_moves = moves;
    if (moves)
        st->rep.drift_dropped = 0;   /* the drifts are the search's now */
out:
    free(step);
    return rc;
}

/* Still contradicted: cut the clocks at their sync rounds, and keep that
 * if it contradicts the events less. Returns 0 or -1. */
static int try_segments(struct merge_state *st)
{
    struct cm_model seg;
    struct merge_solution s2 = { 0 };
    if (build_model(st->locs, st->nlocs, &st->opt, CM_SEGMENTS, &seg, &st->rep.median_rate) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    if (seg.nsegments > seg.ndomains) {
        if (merge_solve_model(st->locs, &seg, &st->match, st->opt.min_latency, st->tau, st->opt.alpha, &s2) != 0) {
            cm_free(&seg);
            merge_solution_free(&s2);
            return -1;
        }
        if (s2.delta < st->sol.delta) {
            struct cm_model t1 = st->model;
            struct merge_solution t2 = st->sol;
            st->model = seg;
            st->sol = s2;
            seg = t1;
            s2 = t2;
            st->rep.drift_dropped = st->rep.drift_refined = st->rep.drift_search_moves = 0;   /* they were the line's */
        }
    }
    cm_free(&seg);
    merge_solution_free(&s2);
    return 0;
}

/* A domain no constraint ties to the reference keeps the sync-round
 * estimate: the best there is, reported as unbounded. With --timebase
 * median, global time follows the median clock. Returns 0 or -1. */
static int settle_offsets(struct merge_state *st)
{
    const struct cm_model *model = &st->model;
    double *x = st->sol.x;
    for (uint32_t d = 0; d < model->ndomains; d++)
        for (uint32_t k = 0; k < model->domains[d].nseg; k++)
            if (isnan(x[model->domains[d].first_seg + k]))
                x[model->domains[d].first_seg + k] = model->domains[d].seg[k].x_est;
    if (st->opt.median) {
        double *v = malloc(sizeof *v * model->ndomains);
        if (!v) {
            fprintf(stderr, "synctrace merge: out of memory\n");
            return -1;
        }
        for (uint32_t d = 0; d < model->ndomains; d++)
            v[d] = x[cm_domain_vertex(model, d)];
        double shift = median(v, model->ndomains);
        free(v);
        for (uint32_t k = 0, nclk = cm_nvertices(model); k < nclk; k++)
            x[k] -= shift;
    }
    return 0;
}

int merge_choose_model(struct merge_state *st)
{
    const struct merge_options *o = &st->opt;
    enum cm_drift_model kind = o->no_drift ? CM_NO_DRIFT
                               : o->drift_model ? (enum cm_drift_model)(o->drift_model - 1) : CM_LINE;
    /* the reference rank's main location has the rank's index */
    if (build_model(st->locs, st->nlocs, o, kind, &st->model, &st->rep.median_rate) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    st->tau = st->model.domain_of[o->reference];
    if (merge_solve_model(st->locs, &st->model, &st->match, o->min_latency, st->tau, o->alpha, &st->sol) != 0)
        return -1;
    if (!o->rounds_only) {
        if (try_without_drift(st) != 0)
            return -1;
        refine_drifts(st);
        if (search_drifts(st) != 0)
            return -1;
        if (st->sol.delta > 0 && kind == CM_LINE && !o->drift_model && try_segments(st) != 0)
            return -1;
    }
    if (set_aside_error(st))   /* a trial's solve could not read the matches: no choice holds */
        return -1;
    st->rep.segments_used = st->model.nsegments > st->model.ndomains;
    if (!o->rounds_only && merge_fit_drifts(st) != 0)
        return -1;
    uint32_t moved = 0;
    if (o->estimates && merge_place_estimates(st, &moved) != 0)
        return -1;
    st->rep.placed_estimates = o->estimates;
    st->rep.placed_alpha = o->alpha;
    st->rep.placed_moved = moved;
    if (settle_offsets(st) != 0)
        return -1;
    st->rep.delta_ns = st->sol.delta;
    st->rep.unbounded = st->sol.unbounded;
    /* the whole graph's, hubs kept beside it included */
    st->rep.vertices = hs_full_vertices(st->sol.hubs, sv_vertices(st->sol.graph));
    st->rep.edges = hs_full_edges(st->sol.hubs, sv_edges(st->sol.graph));
    st->rep.hubs = st->sol.cs.hubs;
    merge_note_hubs(st);
    st->rep.neighbour_edges = st->sol.cs.neighbour_edges;
    return 0;
}
