/* clockmodel.h — how a rank's raw ticks become corrected local time.
 *
 * Ranks that share a clock form a clock domain. A domain's run is cut into
 * segments at its sync rounds (docs/design.md, "The merge: stages"): segment k spans
 * from round k to round k+1 (the first one from the domain's first event,
 * the last one to its last event), and has its own drift, estimated from
 * the offsets the two rounds measured (Fleury et al., eq. 13–14). Inside a
 * segment, corrected time is local time at the segment's rate:
 *     c(t) = c0_k + (1 + beta_k) * (L(t) - L0_k),  L(t) = (t - origin) / resolution * 1e9,
 * continuous across segments. Each segment is one solver vertex with an
 * offset x of its own; global time is c(t) + x, so intervals inside a
 * segment are preserved up to the drift correction, and the constraint
 * graph ties consecutive segments together (constraints.c). */
#ifndef SYNCTRACE_CLOCKMODEL_H
#define SYNCTRACE_CLOCKMODEL_H

#include <stddef.h>
#include <stdint.h>
#include "rawtrace.h"

struct cm_segment {
    uint64_t start;           /* ticks: where the segment begins (segment 0: the domain's origin) */
    double l0, c0;            /* local and corrected time at start, ns */
    double span_ns;           /* local length, to the next segment or the domain's last event */
    double beta;              /* drift relative to the reference clock */
    double beta_err;          /* bound on the error of beta (from the rounds' midpoint errors) */
    double x_est;             /* offset estimate from the round that opens it (x = ref - c) */
    int drift_rejected;       /* its rounds' estimate was too large or too uncertain: the domain's overall one is used */
};

struct cm_domain {
    int id;                   /* the lowest world rank on this clock */
    uint64_t origin;          /* ticks: the domain's first event */
    double resolution;        /* ticks per second */
    double beta;              /* overall drift, first to last round (what a segment falls back on) */
    double beta_err;
    double span_ns;           /* from the domain's first to its last event */
    int drift_rejected;       /* the overall estimate was beyond max_drift: not physical */
    uint32_t nranks;
    uint32_t rep;             /* its first location: the one whose sync rounds (ClockOffsets) it has */
    double offset_ns;         /* estimate from the ClockOffsets at the first round (ref - local) */
    /* The span the drift was measured over: local ns of the first and the
     * last sync round (-/+INFINITY with fewer than two). Outside it (MPI_Init
     * before its round, MPI_Finalize after) the drift is extrapolated, as
     * OTF2's readers extrapolate the first and last ClockOffsets' slope:
     * holding the offset there instead erred by the whole drift (30 us 0.3 s
     * before the first round at 100 ppm; bench/RESULTS.md, accuracy_shapes). */
    double meas_l0, meas_l1;
    uint32_t nseg;
    struct cm_segment *seg;
    uint32_t first_seg;       /* index of seg[0] among all domains' segments */
};

struct cm_model {
    struct cm_domain *domains;
    uint32_t ndomains;
    uint32_t nsegments;       /* over all domains */
    /* Solver vertices per segment: its local time cut into `windows` equal
     * spans, each with an offset of its own (1 = one offset per segment).
     * Used to measure how offsets move over time, i.e. residual drift. */
    uint32_t windows;
    /* Domain index + 1 whose windows keep one offset (their consecutive
     * vertices tied by 0 instead of the drift bound); 0: none. Pinning the
     * reference makes every other window's bounds offsets to one clock. */
    uint32_t pinned;
    double max_drift;         /* bound on a clock's drift: how far consecutive vertices may move apart */
    uint32_t *domain_of;      /* rank -> index into domains */
    uint32_t nranks;
};

/* Build from the ranks' archives. CM_NO_DRIFT keeps every beta = 0 (the
 * segments stay), CM_LINE makes one segment per clock. A drift
 * estimate whose magnitude (a segment's: or uncertainty) exceeds max_drift (e.g. 200e-6)
 * is not physical, only noise of sync rounds too close together (Fleury et
 * al.: never accept a drift error above the clock's data-sheet value): a
 * segment's falls back on its domain's overall estimate, and an overall one
 * on 0. The reference clock is the time base: one segment, drift 0. */
enum cm_drift_model {
    CM_SEGMENTS,              /* a drift per span between consecutive sync rounds (default) */
    CM_LINE,                  /* one drift per clock, from its first to its last round */
    CM_NO_DRIFT               /* offsets only */
};
int cm_build(const struct rt_location *ranks, uint32_t nranks, uint32_t reference, enum cm_drift_model kind,
             double max_drift, struct cm_model *m);
/* A deep copy (for trial solves with other drifts); 0 or -1. */
int cm_copy(const struct cm_model *src, struct cm_model *dst);
/* The model in one block of bytes (malloc'd), for the parallel merge's
 * processes (the same program: memory's layout), and back: 0, or -1 (out
 * of memory, or bytes that are no model). */
int cm_pack(const struct cm_model *m, void **buf, size_t *len);
int cm_unpack(const void *buf, size_t len, struct cm_model *m);
void cm_free(struct cm_model *m);

/* Set (replace = 1) or add to (replace = 0) every segment drift of domain d. */
void cm_set_drift(struct cm_model *m, uint32_t d, double beta, int replace);
/* Divide every clock's rate by (1 + rate): global time then runs at that
 * rate (Fleury et al., eq. 3, --timebase median). */
void cm_rebase(struct cm_model *m, double rate);
/* A domain's drift averaged over its run (its segments weighted by length). */
double cm_mean_drift(const struct cm_domain *d);

static inline uint32_t cm_nvertices(const struct cm_model *m)
{
    return m->nsegments * (m->windows ? m->windows : 1);
}

/* The first solver vertex of domain d (its first segment's first window). */
static inline uint32_t cm_domain_vertex(const struct cm_model *m, uint32_t d)
{
    return m->domains[d].first_seg * (m->windows ? m->windows : 1);
}

static inline double cm_local(const struct cm_domain *d, uint64_t t)
{
    return ((double)(int64_t)(t - d->origin)) / d->resolution * 1e9;
}

/* The segment tick t falls in: segments are few, a linear scan from the end. */
static inline uint32_t cm_segment_of(const struct cm_domain *d, uint64_t t)
{
    uint32_t k = d->nseg - 1;
    while (k > 0 && (int64_t)(t - d->seg[k].start) < 0)
        k--;
    return k;
}

static inline double cm_corrected(const struct cm_model *m, uint32_t rank, uint64_t t)
{
    const struct cm_domain *d = &m->domains[m->domain_of[rank]];
    const struct cm_segment *s = &d->seg[cm_segment_of(d, t)];
    double l = cm_local(d, t);
    return s->c0 + (1 + s->beta) * (l - s->l0);
}

/* Where a segment's windows lie: its part of the measured span (local ns
 * from *b0, *len long; events before and after fall in the first and last
 * window), so that they cut the run where its messages are, not MPI_Init's
 * start-up; the whole segment if it has no such part. */
static inline void cm_window_base(const struct cm_domain *d, const struct cm_segment *s, double *b0, double *len)
{
    double a = s->l0, b = s->l0 + s->span_ns;
    double ma = a > d->meas_l0 ? a : d->meas_l0, mb = b < d->meas_l1 ? b : d->meas_l1;
    if (mb > ma) {
        a = ma;
        b = mb;
    }
    *b0 = a;
    *len = b - a;
}

/* The solver vertex of an event: its domain's segment, and the window its
 * time falls in. */
static inline uint32_t cm_vertex(const struct cm_model *m, uint32_t rank, uint64_t t)
{
    const struct cm_domain *d = &m->domains[m->domain_of[rank]];
    uint32_t k = cm_segment_of(d, t);
    if (m->windows <= 1)
        return d->first_seg + k;
    const struct cm_segment *s = &d->seg[k];
    double b0, whole;
    cm_window_base(d, s, &b0, &whole);
    double len = whole > 0 ? whole / m->windows : 1;
    int64_t w = (int64_t)((cm_local(d, t) - b0) / len);
    if (w < 0) w = 0;
    if (w >= (int64_t)m->windows) w = m->windows - 1;
    return (d->first_seg + k) * m->windows + (uint32_t)w;
}

/* Domain d's sync rounds in its model's frame: for each round k (at most
 * max), its local time t[k] (ns from the domain's origin), the offset
 * e[k] = reference time - corrected time that it measured (what x should
 * be there), and its error bound err[k] (ns; 0: unknown). Valid only when
 * every round was measured against the reference clock itself (its own
 * ClockOffsets all 0: the sync root). Returns how many rounds. */
uint32_t cm_round_offsets(const struct rt_location *ranks, const struct cm_model *m, uint32_t ref_domain, uint32_t d,
                          double *t, double *e, double *err, uint32_t max);

/* Where vertex v's span of local time begins and how long it is (ns), and
 * its domain. */
void cm_vertex_span(const struct cm_model *m, uint32_t v, uint32_t *domain, double *l0, double *len);

/* Today's tools: local time plus the ClockOffsets interpolated linearly,
 * extrapolated beyond the first and last (what an OTF2 reader shows), in ns
 * of the reference clock. */
double cm_interpolated(const struct rt_location *r, uint64_t t);

#endif
