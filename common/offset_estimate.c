/* offset_estimate.c — see offset_estimate.h. */
#include "offset_estimate.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct rtt_index {
    double rtt;
    int k;
};

static int cmp_rtt(const void *a, const void *b)
{
    return cmp_double(&((const struct rtt_index *)a)->rtt, &((const struct rtt_index *)b)->rtt);
}

/* Fleury et al.: the midpoint of a round trip estimates the remote reading;
 * the fastest round trips carry the least asymmetry, and the median of
 * their offsets rejects the outliers that remain. */
struct estimate estimate_offset(const struct sample *s, int n, double rate0, double rate_p)
{
    struct estimate est = { 0 };
    struct rtt_index *idx = malloc(sizeof *idx * (size_t)n);
    struct rtt_index *offs = malloc(sizeof *offs * (size_t)n);   /* (offset, sample) */
    if (!idx || !offs || n == 0) {
        free(idx);
        free(offs);
        return est;
    }
    for (int k = 0; k < n; k++) {
        double out = (double)(s[k].t4 - s[k].t1) / rate0 * 1e9;
        double in = (double)(s[k].t3 - s[k].t2) / rate_p * 1e9;
        idx[k] = (struct rtt_index){ out - in, k };
    }
    qsort(idx, (size_t)n, sizeof *idx, cmp_rtt);
    int best = n / 4 < 3 ? (n < 3 ? n : 3) : n / 4;
    for (int i = 0; i < best; i++) {
        const struct sample *x = &s[idx[i].k];
        long double mid0 = ((long double)x->t1 + (long double)x->t4) / 2.0L / rate0 * 1e9L;
        long double midp = ((long double)x->t2 + (long double)x->t3) / 2.0L / rate_p * 1e9L;
        offs[i] = (struct rtt_index){ (double)(mid0 - midp), idx[i].k };
    }
    qsort(offs, (size_t)best, sizeof *offs, cmp_rtt);
    /* The offset and its time come from the same sample: under drift, the
     * offset of one sample at the time of another is off by the drift over
     * the time between them (milliseconds when the round was descheduled),
     * which no round-trip bound covers. */
    const struct sample *c = &s[offs[best / 2].k];
    est.offset_ns = offs[best / 2].rtt;
    est.rtt_min_ns = idx[0].rtt;
    est.rtt_median_ns = idx[n / 2].rtt;
    est.rtt_max_ns = idx[n - 1].rtt;
    est.err_ns = idx[best - 1].rtt / 2;
    for (int i = 0; i < best; i++)
        if (idx[i].k == offs[best / 2].k)
            est.chosen_rtt_ns = idx[i].rtt;
    est.peer_time = c->t2 / 2 + c->t3 / 2;
    free(idx);
    free(offs);
    return est;
}

/* Ticks as ns on a clock, relative to `base` ns (exact in a double). */
static double rel_ns(uint64_t t, double rate, long double base)
{
    return (double)((long double)t / rate * 1e9L - base);
}

struct estimate estimate_offset_bounds(const struct sample *s, int n, double rate0, double rate_p, double max_drift)
{
    struct estimate est = estimate_offset(s, n, rate0, rate_p);
    if (n == 0)
        return est;
    long double base0 = (long double)s[0].t1 / rate0 * 1e9L, basep = (long double)s[0].t2 / rate_p * 1e9L;
    /* The binding ping (largest t1 - t2) and pong (smallest t4 - t3); the
     * round's middle is between them, on the peer's clock. */
    int a = 0, b = 0;
    for (int k = 1; k < n; k++) {
        if (rel_ns(s[k].t1, rate0, base0) - rel_ns(s[k].t2, rate_p, basep)
            > rel_ns(s[a].t1, rate0, base0) - rel_ns(s[a].t2, rate_p, basep))
            a = k;
        if (rel_ns(s[k].t4, rate0, base0) - rel_ns(s[k].t3, rate_p, basep)
            < rel_ns(s[b].t4, rate0, base0) - rel_ns(s[b].t3, rate_p, basep))
            b = k;
    }
    double tc = (rel_ns(s[a].t2, rate_p, basep) + rel_ns(s[b].t3, rate_p, basep)) / 2, lo = -1e300, hi = 1e300;
    for (int k = 0; k < n; k++) {
        double t2 = rel_ns(s[k].t2, rate_p, basep), t3 = rel_ns(s[k].t3, rate_p, basep);
        lo = fmax(lo, rel_ns(s[k].t1, rate0, base0) - t2 - max_drift * fabs(t2 - tc));
        hi = fmin(hi, rel_ns(s[k].t4, rate0, base0) - t3 + max_drift * fabs(t3 - tc));
    }
    if (!(lo <= hi))
        return est;
    est.offset_ns = (double)(base0 - basep) + (lo + hi) / 2;
    est.err_ns = (hi - lo) / 2;
    est.chosen_rtt_ns = hi - lo;
    est.peer_time = s[0].t2 + (uint64_t)llround(tc / 1e9 * rate_p);
    return est;
}

struct estimate estimate_compose(struct estimate to_mid, struct estimate mid_to_ref)
{
    struct estimate e = to_mid;
    e.offset_ns = to_mid.offset_ns + mid_to_ref.offset_ns;
    e.err_ns = to_mid.err_ns + mid_to_ref.err_ns;
    return e;
}
