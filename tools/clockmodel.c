/* clockmodel.c — see clockmodel.h. */
#include "clockmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cm_build(const struct rt_rank *ranks, uint32_t nranks, uint32_t reference, int no_drift, double max_drift,
             struct cm_model *m)
{
    memset(m, 0, sizeof *m);
    m->nranks = nranks;
    m->windows = 1;
    m->max_drift = max_drift;
    m->domain_of = malloc(sizeof *m->domain_of * (nranks ? nranks : 1));
    m->domains = calloc(nranks ? nranks : 1, sizeof *m->domains);
    if (!m->domain_of || !m->domains) {
        cm_free(m);
        return -1;
    }
    for (uint32_t r = 0; r < nranks; r++) {
        int id = ranks[r].domain;
        uint32_t d = 0;
        while (d < m->ndomains && m->domains[d].id != id)
            d++;
        struct cm_domain *dom = &m->domains[d];
        uint64_t first = ranks[r].nevents ? ranks[r].events[0].time : ranks[r].global_offset;
        if (d == m->ndomains) {
            m->ndomains++;
            dom->id = id;
            dom->origin = first;
            dom->resolution = ranks[r].resolution ? (double)ranks[r].resolution : 1e9;
        } else if (first < dom->origin) {
            dom->origin = first;
        }
        dom->nranks++;
        m->domain_of[r] = d;
        if (ranks[r].nevents) {
            double span = (double)(ranks[r].events[ranks[r].nevents - 1].time - dom->origin) / dom->resolution * 1e9;
            if (span > dom->span_ns)
                dom->span_ns = span;
        }
    }
    /* Drift and first offset from the domain's own ClockOffsets (every rank of a
     * domain has the same ones): offsets are ref - local in local ticks. */
    uint32_t ref_domain = reference < nranks ? m->domain_of[reference] : 0;
    for (uint32_t r = 0; r < nranks; r++) {
        struct cm_domain *dom = &m->domains[m->domain_of[r]];
        const struct rt_rank *rk = &ranks[r];
        if (rk->noffsets >= 1)
            dom->offset_ns = (double)rk->offsets[0].offset / dom->resolution * 1e9;
        if (!no_drift && rk->noffsets >= 2 && m->domain_of[r] != ref_domain) {
            const struct rt_offset *a = &rk->offsets[0], *b = &rk->offsets[rk->noffsets - 1];
            if (b->time > a->time) {
                dom->beta = (double)(b->offset - a->offset) / (double)(b->time - a->time);
                dom->beta_err = (a->stddev + b->stddev) / (double)(b->time - a->time);
            }
        }
    }
    for (uint32_t d = 0; d < m->ndomains; d++) {
        struct cm_domain *dom = &m->domains[d];
        if (fabs(dom->beta) > max_drift || dom->beta_err > max_drift) {
            dom->beta = 0;
            dom->beta_err = max_drift;   /* unknown, but physical */
            dom->drift_rejected = 1;
        }
    }
    /* Offsets are relative to rank 0's clock; re-express against the reference. */
    double ref_beta = m->domains[ref_domain].beta, ref_off = m->domains[ref_domain].offset_ns;
    for (uint32_t d = 0; d < m->ndomains; d++) {
        m->domains[d].beta -= ref_beta;
        m->domains[d].offset_ns -= ref_off;
    }
    return 0;
}

void cm_free(struct cm_model *m)
{
    free(m->domains);
    free(m->domain_of);
    memset(m, 0, sizeof *m);
}

double cm_interpolated(const struct rt_rank *r, uint64_t t)
{
    double res = r->resolution ? (double)r->resolution : 1e9;
    double off = 0;
    if (r->noffsets == 1) {
        off = (double)r->offsets[0].offset;
    } else if (r->noffsets >= 2) {
        /* OTF2 readers interpolate between neighbouring offsets and hold the ends. */
        uint32_t k = 0;
        while (k + 2 < r->noffsets && t >= r->offsets[k + 1].time)
            k++;
        const struct rt_offset *a = &r->offsets[k], *b = &r->offsets[k + 1];
        if (t <= a->time || b->time <= a->time)
            off = (double)a->offset;
        else if (t >= b->time)
            off = (double)b->offset;
        else
            off = (double)a->offset + (double)(b->offset - a->offset) * (double)(t - a->time) / (double)(b->time - a->time);
    }
    return ((double)t + off) / res * 1e9;
}
