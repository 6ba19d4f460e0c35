/* clockmodel.c — see clockmodel.h. */
#include "clockmodel.h"
#include "eventspill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Corrected time at each segment's start, so that c() is continuous. */
static void chain(struct cm_domain *d)
{
    for (uint32_t k = 1; k < d->nseg; k++) {
        struct cm_segment *p = &d->seg[k - 1], *s = &d->seg[k];
        s->c0 = p->c0 + (1 + p->beta) * (s->l0 - p->l0);
    }
}

/* Cut domain d at the interior sync rounds of its representative rank (the
 * rounds at init and finalize bound the run; the ones between are where a
 * new drift estimate begins), or with `whole` not at all. Returns 0 or -1. */
static int cut_segments(struct cm_domain *d, const struct rt_location *rep, uint64_t last, int whole)
{
    uint32_t rounds = whole ? 0 : rep->noffsets;   /* whole: one segment */
    uint32_t cap = rounds > 2 ? rounds - 1 : 1;
    d->seg = calloc(cap, sizeof *d->seg);
    if (!d->seg)
        return -1;
    d->seg[0].start = d->origin;
    d->nseg = 1;
    for (uint32_t k = 1; k + 1 < rounds; k++) {
        uint64_t t = rep->offsets[k].time;
        if ((int64_t)(t - d->seg[d->nseg - 1].start) <= 0 || (int64_t)(t - last) >= 0)
            continue;   /* not inside the events: nothing to separate */
        d->seg[d->nseg++].start = t;
    }
    for (uint32_t k = 0; k < d->nseg; k++) {
        d->seg[k].l0 = cm_local(d, d->seg[k].start);
        double end = k + 1 < d->nseg ? cm_local(d, d->seg[k + 1].start) : cm_local(d, last);
        d->seg[k].span_ns = end > d->seg[k].l0 ? end - d->seg[k].l0 : 0;
    }
    return 0;
}

/* The round of `rep` at or before tick t (its offsets are in time order). */
static const struct rt_offset *round_before(const struct rt_location *rep, uint64_t t)
{
    uint32_t k = 0;
    while (k + 1 < rep->noffsets && (int64_t)(rep->offsets[k + 1].time - t) <= 0)
        k++;
    return &rep->offsets[k];
}

/* A drift and its uncertainty from two rounds a, b (offsets are ref - local,
 * in local ticks). Returns 0 when b is not after a. */
static int drift_between(const struct rt_offset *a, const struct rt_offset *b, double *beta, double *err)
{
    if (b->time <= a->time)
        return 0;
    *beta = (double)(b->offset - a->offset) / (double)(b->time - a->time);
    *err = (a->stddev + b->stddev) / (double)(b->time - a->time);
    return 1;
}

/* Each rank's clock domain (ranks that share a clock share one), numbered
 * in order of first appearance: its origin (its ranks' earliest first
 * event), its representative (its first rank), and in last[d] its ranks'
 * latest last event. */
static void group_domains(const struct rt_location *ranks, uint32_t nranks, struct cm_model *m, uint64_t *last)
{
    for (uint32_t r = 0; r < nranks; r++) {
        int id = ranks[r].domain;
        uint32_t d = 0;
        while (d < m->ndomains && m->domains[d].id != id)
            d++;
        struct cm_domain *dom = &m->domains[d];
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, &ranks[r]);
        uint64_t first = ranks[r].nevents ? rt_time_read(&tr, 0) : ranks[r].global_offset;
        uint64_t end = ranks[r].nevents ? rt_time_read(&tr, ranks[r].nevents - 1) : first;
        rt_time_reader_free(&tr);
        if (d == m->ndomains) {
            m->ndomains++;
            dom->id = id;
            dom->origin = first;
            dom->resolution = ranks[r].resolution ? (double)ranks[r].resolution : 1e9;
            dom->rep = r;
            last[d] = end;
        } else {
            if (first < dom->origin)
                dom->origin = first;
            if (end > last[d])
                last[d] = end;
        }
        dom->nranks++;
        m->domain_of[r] = d;
    }
}

/* Each segment's own drift, from the rounds around it (the one that opens
 * it and the next), where the domain was cut; one the rounds do not give
 * within max_drift keeps the domain's and is marked rejected. */
static void segment_drifts(struct cm_domain *dom, const struct rt_location *rk, int no_drift, double max_drift)
{
    for (uint32_t k = 0; k < dom->nseg; k++) {
        struct cm_segment *s = &dom->seg[k];
        s->beta = dom->beta;
        s->beta_err = dom->beta_err;
        if (no_drift || dom->nseg == 1 || rk->noffsets < 2)
            continue;
        /* the rounds around the segment: the one that opens it and the next */
        const struct rt_offset *a = round_before(rk, s->start), *b = a + 1;
        if (b >= rk->offsets + rk->noffsets)
            b = a, a = a - 1;
        double beta, err;
        if (a >= rk->offsets && drift_between(a, b, &beta, &err) && fabs(beta) <= max_drift && err <= max_drift) {
            s->beta = beta;
            s->beta_err = err;
        } else {
            s->drift_rejected = 1;
        }
    }
}

/* Domain d as its representative rk's sync rounds measured it (against
 * rank 0's clock, whose rounds every domain's are): its span up to its
 * last event, its segments (one for the time base, is_ref, or a line),
 * its first offset and its drifts, and the span its rounds measured.
 * Returns 0, or -1 when out of memory. */
static int measure_domain(struct cm_model *m, const struct rt_location *rk, uint32_t d, uint64_t last, int is_ref,
                          enum cm_drift_model kind)
{
    struct cm_domain *dom = &m->domains[d];
    int no_drift = kind == CM_NO_DRIFT;
    double max_drift = m->max_drift;
    dom->span_ns = cm_local(dom, last);
    /* the time base, or a line: one segment */
    if (cut_segments(dom, rk, last, is_ref || kind == CM_LINE) != 0)
        return -1;
    if (rk->noffsets >= 1)
        dom->offset_ns = (double)rk->offsets[0].offset / dom->resolution * 1e9;
    /* Overall drift: first to last round. Relative to rank 0's clock for
     * now (every domain's rounds measure against it). */
    if (!no_drift && rk->noffsets >= 2)
        drift_between(&rk->offsets[0], &rk->offsets[rk->noffsets - 1], &dom->beta, &dom->beta_err);
    else if (!no_drift && !is_ref)
        dom->beta_err = max_drift;   /* one round: the drift is unknown, only physical */
    /* Only an unphysical magnitude rejects the whole run's estimate: its
     * uncertainty from the rounds' spread (beta_err) is that of single
     * samples, far above the error of their median (seen here: a
     * "200 ppm uncertain" estimate put events within 30 ns), and it
     * widens the bounds instead. */
    if (fabs(dom->beta) > max_drift) {
        dom->beta = 0;
        dom->beta_err = max_drift;   /* unknown, but physical */
        dom->drift_rejected = 1;
    }
    /* the span the rounds measured; beyond it the drift is extrapolated */
    dom->meas_l0 = -INFINITY;
    dom->meas_l1 = INFINITY;
    if (rk->noffsets >= 2) {
        dom->meas_l0 = cm_local(dom, rk->offsets[0].time);
        dom->meas_l1 = cm_local(dom, rk->offsets[rk->noffsets - 1].time);
    }
    segment_drifts(dom, rk, no_drift, max_drift);
    return 0;
}

/* The reference clock's drift over the rounds that open segment s of a
 * domain whose representative rk has as many rounds as the reference's
 * (rref), so that both were cut at the same rounds; else, or where those
 * rounds give none within max_drift, its whole run's (ref_beta). */
static double ref_drift_at(const struct rt_location *rref, const struct rt_location *rk, const struct cm_segment *s,
                           double ref_beta, int no_drift, double max_drift)
{
    double rb = ref_beta, rerr;
    if (!no_drift && rref->noffsets == rk->noffsets && rk->noffsets >= 2) {
        const struct rt_offset *a = round_before(rk, s->start);
        uint32_t i = (uint32_t)(a - rk->offsets);
        if (i + 1 >= rref->noffsets)
            i--;
        double b;
        if (drift_between(&rref->offsets[i], &rref->offsets[i + 1], &b, &rerr) && fabs(b) <= max_drift
            && rerr <= max_drift)
            rb = b;
    }
    return rb;
}

/* Re-express drifts and first offsets against the reference clock,
 * segment by segment where both were cut at the same rounds; the
 * reference's own become 0. */
static void against_reference(const struct rt_location *ranks, struct cm_model *m, uint32_t ref_domain, int no_drift)
{
    const struct cm_domain *ref = &m->domains[ref_domain];
    const struct rt_location *rref = &ranks[m->domains[ref_domain].rep];
    double ref_beta = ref->beta, ref_off = ref->offset_ns;
    for (uint32_t d = 0; d < m->ndomains; d++) {
        struct cm_domain *dom = &m->domains[d];
        const struct rt_location *rk = &ranks[m->domains[d].rep];
        if (d == ref_domain)
            continue;
        for (uint32_t k = 0; k < dom->nseg; k++)
            dom->seg[k].beta -= ref_drift_at(rref, rk, &dom->seg[k], ref_beta, no_drift, m->max_drift);
        dom->beta -= ref_beta;
        dom->offset_ns -= ref_off;
    }
    m->domains[ref_domain].beta = 0;
    m->domains[ref_domain].seg[0].beta = 0;
    m->domains[ref_domain].offset_ns = 0;
}

/* The reference time at round o of domain dom's representative, less the
 * corrected time there on segment s's line (x = ref - c, before the
 * reference's own y). */
static double round_y(const struct cm_domain *dom, const struct cm_segment *s, const struct rt_offset *o)
{
    double c = s->c0 + (1 + s->beta) * (cm_local(dom, o->time) - s->l0);
    return ((double)o->time + (double)o->offset) / dom->resolution * 1e9 - c;
}

/* Offset estimates (x = ref - c) from the round that opens each segment:
 * relative to rank 0's absolute ns first, then to the reference's (whose
 * first segment is done first, for y_ref). Each domain's segments are
 * chained first, so that its corrected time is continuous. */
static void offset_estimates(const struct rt_location *ranks, struct cm_model *m, uint32_t ref_domain)
{
    double y_ref = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t d = 0; d < m->ndomains; d++) {
            struct cm_domain *dom = &m->domains[d];
            const struct rt_location *rk = &ranks[m->domains[d].rep];
            if ((pass == 0) != (d == ref_domain))
                continue;
            chain(dom);
            for (uint32_t k = 0; k < dom->nseg; k++) {
                struct cm_segment *s = &dom->seg[k];
                double y = rk->noffsets ? round_y(dom, s, round_before(rk, s->start)) : 0;
                /* a drift the rounds gave beyond physics is held at 0: the
                 * line then fits every round alike (their mean), not only
                 * the first, whose error it would carry over the whole run */
                if (dom->drift_rejected && dom->nseg == 1 && rk->noffsets > 1) {
                    y = 0;
                    for (uint32_t i = 0; i < rk->noffsets; i++)
                        y += round_y(dom, s, &rk->offsets[i]);
                    y /= rk->noffsets;
                }
                if (pass == 0 && k == 0)
                    y_ref = y;
                s->x_est = y - y_ref;
            }
        }
}

uint32_t cm_round_offsets(const struct rt_location *ranks, const struct cm_model *m, uint32_t ref_domain, uint32_t d,
                          double *t, double *e, double *err, uint32_t max)
{
    const struct cm_domain *ref = &m->domains[ref_domain], *dom = &m->domains[d];
    const struct rt_location *rr = &ranks[ref->rep], *rk = &ranks[dom->rep];
    if (!rr->noffsets)
        return 0;
    for (uint32_t k = 0; k < rr->noffsets; k++)
        if (rr->offsets[k].offset != 0)
            return 0;
    double y_ref = round_y(ref, &ref->seg[0], &rr->offsets[0]);
    uint32_t n = 0;
    for (uint32_t k = 0; k < rk->noffsets && n < max; k++, n++) {
        const struct rt_offset *o = &rk->offsets[k];
        t[n] = cm_local(dom, o->time);
        e[n] = round_y(dom, &dom->seg[cm_segment_of(dom, o->time)], o) - y_ref;
        err[n] = o->stddev > 0 ? o->stddev / dom->resolution * 1e9 : 0;
    }
    return n;
}

int cm_build(const struct rt_location *ranks, uint32_t nranks, uint32_t reference, enum cm_drift_model kind,
             double max_drift, struct cm_model *m)
{
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    m->windows = 1;
    m->max_drift = max_drift;
    m->domain_of = malloc(sizeof *m->domain_of * (nranks ? nranks : 1));
    m->domains = calloc(nranks ? nranks : 1, sizeof *m->domains);
    uint64_t *last = calloc(nranks ? nranks : 1, sizeof *last);  /* domain -> its last event */
    if (!m->domain_of || !m->domains || !last)
        goto fail;
    group_domains(ranks, nranks, m, last);
    uint32_t ref_domain = reference < nranks ? m->domain_of[reference] : 0;
    for (uint32_t d = 0; d < m->ndomains; d++)
        if (measure_domain(m, &ranks[m->domains[d].rep], d, last[d], d == ref_domain, kind) != 0)
            goto fail;
    against_reference(ranks, m, ref_domain, kind == CM_NO_DRIFT);
    offset_estimates(ranks, m, ref_domain);
    m->nsegments = 0;
    for (uint32_t d = 0; d < m->ndomains; d++) {
        m->domains[d].first_seg = m->nsegments;
        m->nsegments += m->domains[d].nseg;
    }
    free(last);
    return 0;
fail:
    free(last);
    cm_free(m);
    return -1;
}

int cm_copy(const struct cm_model *src, struct cm_model *dst)
{
    *dst = *src;
    dst->domains = malloc(sizeof *dst->domains * (src->ndomains ? src->ndomains : 1));
    dst->domain_of = malloc(sizeof *dst->domain_of * (src->nranks ? src->nranks : 1));
    if (!dst->domains || !dst->domain_of) {
        free(dst->domains);
        free(dst->domain_of);
        memset(dst, 0, sizeof *dst);
        return -1;
    }
    memcpy(dst->domain_of, src->domain_of, sizeof *dst->domain_of * src->nranks);
    for (uint32_t d = 0; d < src->ndomains; d++) {
        dst->domains[d] = src->domains[d];
        dst->domains[d].seg = malloc(sizeof *dst->domains[d].seg * src->domains[d].nseg);
        if (!dst->domains[d].seg) {
            dst->ndomains = d;
            cm_free(dst);
            return -1;
        }
        memcpy(dst->domains[d].seg, src->domains[d].seg, sizeof *dst->domains[d].seg * src->domains[d].nseg);
    }
    return 0;
}

int cm_pack(const struct cm_model *m, void **buf, size_t *len)
{
    size_t n = sizeof *m + sizeof *m->domain_of * m->nranks + sizeof *m->domains * m->ndomains;
    for (uint32_t d = 0; d < m->ndomains; d++)
        n += sizeof *m->domains[d].seg * m->domains[d].nseg;
    char *p = malloc(n);
    if (!p)
        return -1;
    size_t at = 0;
#define PUT(src, bytes) do { memcpy(p + at, (src), (bytes)); at += (bytes); } while (0)
    PUT(m, sizeof *m);
    PUT(m->domain_of, sizeof *m->domain_of * m->nranks);
    PUT(m->domains, sizeof *m->domains * m->ndomains);
    for (uint32_t d = 0; d < m->ndomains; d++)
        PUT(m->domains[d].seg, sizeof *m->domains[d].seg * m->domains[d].nseg);
#undef PUT
    *buf = p;
    *len = n;
    return 0;
}

int cm_unpack(const void *buf, size_t len, struct cm_model *m)
{
    const char *p = buf;
    size_t at = 0;
    memset(m, 0, sizeof *m);
    struct cm_model h;
    if (len < sizeof h)
        return -1;
    memcpy(&h, p, sizeof h);
    at = sizeof h;
    if (h.nranks > (len - at) / sizeof *h.domain_of)
        return -1;
    size_t ranks_bytes = sizeof *h.domain_of * h.nranks;
    if (h.ndomains > (len - at - ranks_bytes) / sizeof *h.domains)
        return -1;
    *m = h;
    m->domains = calloc(h.ndomains ? h.ndomains : 1, sizeof *m->domains);
    m->domain_of = malloc(ranks_bytes ? ranks_bytes : 1);
    if (!m->domains || !m->domain_of) {
        m->ndomains = 0;
        cm_free(m);
        return -1;
    }
    memcpy(m->domain_of, p + at, ranks_bytes);
    at += ranks_bytes;
    memcpy(m->domains, p + at, sizeof *m->domains * h.ndomains);
    at += sizeof *m->domains * h.ndomains;
    int bad = 0;
    for (uint32_t d = 0; d < h.ndomains; d++) {
        struct cm_domain *dom = &m->domains[d];
        size_t bytes = sizeof *dom->seg * dom->nseg;
        dom->seg = NULL;
        if (bad || !dom->nseg || dom->nseg > (len - at) / sizeof *dom->seg || !(dom->seg = malloc(bytes))) {
            bad = 1;
            continue;
        }
        memcpy(dom->seg, p + at, bytes);
        at += bytes;
    }
    for (uint32_t r = 0; !bad && r < h.nranks; r++)
        bad = m->domain_of[r] >= h.ndomains;
    if (bad || at != len) {
        cm_free(m);
        return -1;
    }
    return 0;
}

void cm_free(struct cm_model *m)
{
    for (uint32_t d = 0; m->domains && d < m->ndomains; d++)
        free(m->domains[d].seg);
    free(m->domains);
    free(m->domain_of);
    memset(m, 0, sizeof *m);
}

void cm_set_drift(struct cm_model *m, uint32_t d, double beta, int replace)
{
    struct cm_domain *dom = &m->domains[d];
    dom->beta = replace ? beta : dom->beta + beta;
    for (uint32_t k = 0; k < dom->nseg; k++)
        dom->seg[k].beta = replace ? beta : dom->seg[k].beta + beta;
    chain(dom);
}

void cm_rebase(struct cm_model *m, double rate)
{
    for (uint32_t d = 0; d < m->ndomains; d++) {
        struct cm_domain *dom = &m->domains[d];
        dom->beta = (1 + dom->beta) / (1 + rate) - 1;
        for (uint32_t k = 0; k < dom->nseg; k++)
            dom->seg[k].beta = (1 + dom->seg[k].beta) / (1 + rate) - 1;
        chain(dom);
    }
}

double cm_mean_drift(const struct cm_domain *d)
{
    double sum = 0, len = 0;
    for (uint32_t k = 0; k < d->nseg; k++) {
        sum += d->seg[k].beta * d->seg[k].span_ns;
        len += d->seg[k].span_ns;
    }
    return len > 0 ? sum / len : d->seg[0].beta;
}

void cm_vertex_span(const struct cm_model *m, uint32_t v, uint32_t *domain, double *l0, double *len)
{
    uint32_t w = m->windows ? m->windows : 1;
    uint32_t s = v / w, d = 0;
    while (d + 1 < m->ndomains && m->domains[d + 1].first_seg <= s)
        d++;
    const struct cm_segment *seg = &m->domains[d].seg[s - m->domains[d].first_seg];
    *domain = d;
    double b0, whole;
    cm_window_base(&m->domains[d], seg, &b0, &whole);
    *len = whole / w;
    *l0 = b0 + (v % w) * *len;
}

double cm_interpolated(const struct rt_location *r, uint64_t t)
{
    double res = r->resolution ? (double)r->resolution : 1e9;
    double off = 0;
    if (r->noffsets == 1) {
        off = (double)r->offsets[0].offset;
    } else if (r->noffsets >= 2) {
        /* As OTF2 3.0's event reader does (otf2_evt_reader_apply_clock_correction):
         * the interval [t_k, t_k+1] that holds t, the first one before the
         * first offset and the last one after the last, its slope applied
         * and rounded to a tick; so times outside the measured span are
         * extrapolated, not held. */
        uint32_t k = 0;
        while (k + 2 < r->noffsets && t > r->offsets[k + 1].time)
            k++;
        const struct rt_offset *a = &r->offsets[k], *b = &r->offsets[k + 1];
        double slope = b->time > a->time ? (double)(b->offset - a->offset) / (double)(b->time - a->time) : 0;
        double diff = t >= a->time ? (double)(t - a->time) : -(double)(a->time - t);
        off = (double)a->offset + rint(slope * diff);
    }
    return ((double)t + off) / res * 1e9;
}
