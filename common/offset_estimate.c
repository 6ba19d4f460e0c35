/* offset_estimate.c — see offset_estimate.h. */
#include "offset_estimate.h"

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


struct estimate estimate_compose(struct estimate to_mid, struct estimate mid_to_ref)
{
    struct estimate e = to_mid;
    e.offset_ns = to_mid.offset_ns + mid_to_ref.offset_ns;
    e.err_ns = to_mid.err_ns + mid_to_ref.err_ns;
    return e;
}
