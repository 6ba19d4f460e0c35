/* waits_bounds.c — how far each event's merged time may be from its true
 * time, from the merge's clock bounds in OUT/report.json.
 *
 * The merge bounds each clock's offset to the reference, per drift
 * segment: the true offset lies in [lo_ns, hi_ns] (sv_solve's
 * lo[v] = -wbar(tau,v), hi[v] = wbar(v,tau), widened by the drift's error
 * over the segment), where the merge used offset_ns. An event's true time
 * is therefore its merged time plus [lo - offset, hi - offset]. The
 * archive does not say which segment an event fell in, nor how far
 * beyond the clock's sync rounds it lies, so each clock gets one interval
 * for the whole run: the union over its segments, widened by the bound
 * the report gives for events outside the rounds (outside_rounds.bound_ns)
 * and, when the repair moved events, by its largest move. A conservative
 * per-run bound: never narrower than the truth allows.
 *
 * Two ranks on one clock share its error, so their difference is exact
 * but for the rate: merged time runs at the reference clock's, which may
 * differ from true time's by up to the merge's largest drift
 * (report.json's max_drift_ppm), so every interval widens by that much.
 * A domain is named by its lowest world rank: a rank that names a domain
 * is on it; a rank with only one domain named at or below it is on that
 * one; a rank with several candidates gets the union of theirs and is
 * taken to share none. */
#include "waits.h"
#include "waits_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct domain_box {
    double id, clo, chi;
};

/* One domain's interval for the run; -1 when the report's entry is malformed. */
static int domain_interval(const struct wj *d, double extra, struct domain_box *box)
{
    const struct wj *segs = wj_get(d, "segments");
    if (wj_number(d, "domain", &box->id) != 0 || !segs || segs->type != WJ_ARRAY || segs->n == 0)
        return -1;
    box->clo = INFINITY;
    box->chi = -INFINITY;
    for (size_t k = 0; k < segs->n; k++) {
        const struct wj *s = segs->kids[k];
        double off, lo, hi;
        if (wj_number(s, "offset_ns", &off) != 0)
            return -1;
        /* null bounds: this clock is not bounded on that side */
        if (wj_number(s, "lo_ns", &lo) != 0)
            lo = -INFINITY;
        if (wj_number(s, "hi_ns", &hi) != 0)
            hi = INFINITY;
        box->clo = fmin(box->clo, lo - off);
        box->chi = fmax(box->chi, hi - off);
    }
    double outside = 0;
    const struct wj *o = wj_get(d, "outside_rounds");
    if (o && wj_number(o, "bound_ns", &outside) != 0)
        outside = 0;
    box->clo -= outside + extra;
    box->chi += outside + extra;
    return 0;
}

static int unbounded(struct wt_bounds *b, uint32_t nranks)
{
    b->nranks = nranks;
    b->rank = calloc(nranks ? nranks : 1, sizeof *b->rank);
    if (!b->rank)
        return -1;
    for (uint32_t r = 0; r < nranks; r++)
        b->rank[r] = (struct wt_clock){ -INFINITY, INFINITY, -1 };
    b->widest_ns = INFINITY;
    b->have = 0;
    return 0;
}

int wt_bounds_read(const char *outdir, uint32_t nranks, struct wt_bounds *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    char path[4200];
    snprintf(path, sizeof path, "%s/report.json", outdir);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        /* not a merge's output: every wait is reported unbounded */
        if (unbounded(b, nranks) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        return 0;
    }
    char *text = wj_read_file(path, err, errlen);
    if (!text)
        return -1;
    struct wj *root = wj_parse(text);
    free(text);
    const struct wj *domains = wj_get(root, "domains"), *repair = wj_get(root, "repair");
    if (!root || !domains || domains->type != WJ_ARRAY) {
        snprintf(err, errlen, "%s: %s", path, root ? "no \"domains\" list" : "cannot read it as JSON");
        wj_free(root);
        return -1;
    }
    double applied = 0, move = 0, max_drift_ppm = 200;   /* the merge's default, for older reports */
    wj_number(root, "max_drift_ppm", &max_drift_ppm);
    if (repair && wj_number(repair, "applied", &applied) == 0 && applied)
        wj_number(repair, "max_move_ns", &move);
    size_t nd = domains->n;
    struct domain_box *box = malloc((nd ? nd : 1) * sizeof *box);
    if (!box || unbounded(b, nranks) != 0) {
        free(box);
        wj_free(root);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < nd; i++)
        if (domain_interval(domains->kids[i], move, &box[i]) != 0) {
            snprintf(err, errlen, "%s: domain entry %zu has no domain id or segments with offset_ns", path, i);
            free(box);
            wj_free(root);
            wt_bounds_free(b);
            return -1;
        }
    wj_free(root);
    b->have = 1;
    b->repair_ns = move;
    b->rate = max_drift_ppm * 1e-6;
    b->widest_ns = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        struct wt_clock c = { INFINITY, -INFINITY, -1 };
        uint32_t candidates = 0;
        int64_t only = -1;
        for (size_t i = 0; i < nd; i++) {
            if (box[i].id == r) {   /* r names this clock: it is on it */
                c = (struct wt_clock){ box[i].clo, box[i].chi, (int64_t)r };
                candidates = 1;
                break;
            }
            if (box[i].id < r) {
                c.clo = fmin(c.clo, box[i].clo);
                c.chi = fmax(c.chi, box[i].chi);
                candidates++;
                only = (int64_t)box[i].id;
            }
        }
        if (candidates == 0)
            c = (struct wt_clock){ -INFINITY, INFINITY, -1 };
        else if (c.domain < 0 && candidates == 1)
            c.domain = only;
        b->rank[r] = c;
        b->widest_ns = fmax(b->widest_ns, c.chi - c.clo);
    }
    free(box);
    return 0;
}

void wt_bounds_free(struct wt_bounds *b)
{
    free(b->rank);
    b->rank = NULL;
}

struct wt_diff wt_diff_of(const struct wt_bounds *bd, const struct wt_moment *earlier, uint32_t a,
                          const struct wt_moment *later, uint32_t b)
{
    struct wt_diff d;
    d.w = later->g - earlier->g;
    d.t = later->t - earlier->t;
    d.r = later->r - earlier->r;
    if (bd->probe)
        *bd->probe = (struct wt_probe){ earlier->g, a };
    const struct wt_clock *ca = a < bd->nranks ? &bd->rank[a] : NULL, *cb = b < bd->nranks ? &bd->rank[b] : NULL;
    if (a == b || (ca && cb && ca->domain >= 0 && ca->domain == cb->domain)) {
        d.lo = d.hi = d.w;    /* one clock: its error cancels */
    } else if (ca && cb) {
        d.lo = d.w + cb->clo - ca->chi;
        d.hi = d.w + cb->chi - ca->clo;
    } else {
        d.lo = -INFINITY;
        d.hi = INFINITY;
    }
    /* the reference's own rate error: an interval of w merged ns is
     * w (1 +- rate) true ns, on one clock too (a 30 ms wait: +-6 us at
     * 200 ppm; without it a true wait fell 2 us outside) */
    d.lo -= bd->rate * fabs(d.w);
    d.hi += bd->rate * fabs(d.w);
    return d;
}

void wt_diff_max(struct wt_diff *acc, const struct wt_diff *d)
{
    acc->w = fmax(acc->w, d->w);
    acc->lo = fmax(acc->lo, d->lo);
    acc->hi = fmax(acc->hi, d->hi);
    acc->t = isnan(acc->t) || isnan(d->t) ? NAN : fmax(acc->t, d->t);
    acc->r = isnan(acc->r) || isnan(d->r) ? NAN : fmax(acc->r, d->r);
}

void wt_diff_min(struct wt_diff *acc, const struct wt_diff *d)
{
    acc->w = fmin(acc->w, d->w);
    acc->lo = fmin(acc->lo, d->lo);
    acc->hi = fmin(acc->hi, d->hi);
    acc->t = isnan(acc->t) || isnan(d->t) ? NAN : fmin(acc->t, d->t);
    acc->r = isnan(acc->r) || isnan(d->r) ? NAN : fmin(acc->r, d->r);
}
