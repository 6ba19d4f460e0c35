/* clockmodel.h — how a rank's raw ticks become corrected local time.
 *
 * Ranks that share a clock form a clock domain: one solver variable. Local
 * time is ns since the domain's first event; corrected time applies the
 * domain's drift relative to the reference clock, estimated from the first
 * and last sync rounds (Fleury et al., eq. 13–14):
 *     c(t) = L(t) + beta * L(t),   L(t) = (t - origin) / resolution * 1e9.
 * Global time is c(t) + x_domain, x from the solver, so intervals inside a
 * rank are preserved up to the drift correction. */
#ifndef SYNCTRACE_CLOCKMODEL_H
#define SYNCTRACE_CLOCKMODEL_H

#include <stdint.h>
#include "rawtrace.h"

struct cm_domain {
    int id;                   /* the lowest world rank on this clock */
    uint64_t origin;          /* ticks: the domain's first event */
    double resolution;        /* ticks per second */
    double beta;              /* drift relative to the reference clock */
    double beta_err;          /* bound on the error of beta (from the rounds' midpoint errors) */
    double span_ns;           /* from the domain's first to its last event */
    int drift_rejected;       /* the sync rounds' estimate was too uncertain to use */
    uint32_t nranks;
    double offset_ns;         /* estimate from the ClockOffsets at the first round (ref - local) */
};

struct cm_model {
    struct cm_domain *domains;
    uint32_t ndomains;
    /* Solver vertices per domain: its local time cut into `windows` equal
     * spans, each with an offset of its own (1 = one offset per domain).
     * Used to measure how offsets move over time, i.e. residual drift. */
    uint32_t windows;
    double max_drift;         /* bound on a clock's drift: how far consecutive windows may move apart */
    uint32_t *domain_of;      /* rank -> index into domains */
    uint32_t nranks;
};

/* Build from the ranks' archives. `no_drift` keeps beta = 0. A drift
 * estimate whose magnitude or uncertainty exceeds max_drift (e.g. 200e-6)
 * is not physical, only noise of sync rounds too close together: it is
 * dropped (Fleury et al.: never accept a drift error above the clock's
 * data-sheet value); cm_domain.drift_rejected says so. */
int cm_build(const struct rt_rank *ranks, uint32_t nranks, uint32_t reference, int no_drift, double max_drift,
             struct cm_model *m);
void cm_free(struct cm_model *m);

static inline double cm_corrected(const struct cm_model *m, uint32_t rank, uint64_t t)
{
    const struct cm_domain *d = &m->domains[m->domain_of[rank]];
    double l = ((double)(int64_t)(t - d->origin)) / d->resolution * 1e9;
    return l + d->beta * l;
}

/* The solver vertex of an event: its domain, and the window its time falls in. */
static inline uint32_t cm_vertex(const struct cm_model *m, uint32_t rank, uint64_t t)
{
    uint32_t d = m->domain_of[rank];
    if (m->windows <= 1)
        return d;
    const struct cm_domain *dom = &m->domains[d];
    double l = ((double)(int64_t)(t - dom->origin)) / dom->resolution * 1e9;
    double len = dom->span_ns > 0 ? dom->span_ns / m->windows : 1;
    int64_t w = (int64_t)(l / len);
    if (w < 0) w = 0;
    if (w >= (int64_t)m->windows) w = m->windows - 1;
    return d * m->windows + (uint32_t)w;
}

/* Today's tools: local time plus the ClockOffsets interpolated linearly
 * (what an OTF2 reader shows), in ns of the reference clock. */
double cm_interpolated(const struct rt_rank *r, uint64_t t);

#endif
