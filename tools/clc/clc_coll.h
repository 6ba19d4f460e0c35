/* clc_coll.h — a collective instance as the controlled logical clock sees
 * it (clc.h): what its data flow (flow.h) forces, the aggregates of the
 * entries processed so far, when an exit may be processed, the bound the
 * entries put on it, and the limits its exits put back on the entries.
 * Written once for both passes: the in-memory one (clc.c) and the
 * streaming one (clc_stream.c).
 *
 * Shapes: MG_ALL_TO_ALL (the flow's groups: every entry of a group's
 * sources before every exit of its sinks), MG_SCAN / MG_EXSCAN (a prefix in
 * communicator rank order), MG_SKIP (forces nothing: zero counts, < 2
 * members). Values are maxima (top2), so the results do not depend on the
 * order in which the entries arrive, ties included. */
#ifndef SYNCTRACE_CLC_COLL_H
#define SYNCTRACE_CLC_COLL_H

#include <math.h>
#include <stdint.h>
#include "clc.h"
#include "flow.h"
#include "match.h"

/* The largest value, and the largest from a domain other than its own:
 * enough to answer "max over members of v + (other domain ? lat : 0)". */
struct top2 {
    double v1, v2;
    uint32_t d1;
};

#define TOP2_EMPTY ((struct top2){ -INFINITY, -INFINITY, UINT32_MAX })

static inline void top2_add(struct top2 *a, double v, uint32_t d)
{
    if (d == a->d1) {
        if (v > a->v1)
            a->v1 = v;
    } else if (v > a->v1) {
        a->v2 = a->v1;   /* the old maximum is from another domain than d */
        a->v1 = v;
        a->d1 = d;
    } else if (v > a->v2) {
        a->v2 = v;
    }
}

/* max over added (v, dv) of v + (dv != d ? lat : 0) */
static inline double top2_query(const struct top2 *a, uint32_t d, double lat)
{
    if (a->v1 == -INFINITY)
        return -INFINITY;
    if (d != a->d1)
        return a->v1 + lat;
    return fmax(a->v1, a->v2 + lat);
}

struct clc_coll {
    enum mg_shape sh;
    uint32_t n;
    struct mg_flow flow;
    /* all-to-all */
    struct top2 *gagg;        /* per group: over its sources' entries processed */
    uint32_t *gpending;       /* per group: sources not processed yet */
    uint32_t *src_first, *src_of;   /* member k is a source of groups src_of[src_first[k] .. src_first[k + 1]) */
    uint32_t *dst_first, *dst_of;   /* ... and a sink of dst_of[dst_first[k] .. dst_first[k + 1]) */
    /* scan and exscan: members in communicator rank order */
    uint32_t *pos;            /* member -> position */
    double *val;              /* entry value by position */
    uint32_t *dpos;           /* entry's domain by position */
    unsigned char *have;      /* entry processed, by position */
    struct top2 *pre;         /* aggregate of positions [0, k] */
    uint32_t p;               /* positions [0, p) all processed */
};

/* The latency of a message between the clock domains of locations from
 * and to (clc.h: dom NULL: every location its own; lmin NULL: 0). */
static inline double clc_msg_latency(const uint32_t *dom, const double *lmin, uint32_t ndomains, uint32_t from,
                                     uint32_t to)
{
    uint32_t du = dom ? dom[from] : from, dv = dom ? dom[to] : to;
    return du == dv || !lmin ? 0 : lmin[(size_t)du * ndomains + dv];
}

/* The parameters a pass runs with: p, or the defaults (into *def) when
 * NULL; NULL with a one-line message when they are out of range. */
const struct clc_params *clc_params_checked(const struct clc_params *p, struct clc_params *def, char *err,
                                            size_t errlen);

/* The one latency collectives use: the smallest between different
 * domains of lmin (ndomains x ndomains; NULL: 0), conservative (a smaller
 * bound is never violated by the truth). */
double clc_coll_latency(const double *lmin, uint32_t ndomains);

/* What an instance's data flow f (mg_flow_of) forces: MG_ALL_TO_ALL,
 * MG_SCAN / MG_EXSCAN, or MG_SKIP (nothing). */
static inline enum mg_shape clc_coll_shape(const struct mg_flow *f)
{
    return f->order ? f->prefix : f->ngroups ? MG_ALL_TO_ALL : MG_SKIP;
}

/* Set c up for instance mc of m: 0, or -1 (out of memory; c is then to be
 * freed all the same). c->sh == MG_SKIP: the instance forces nothing. */
int clc_coll_init(struct clc_coll *c, const struct mg_result *m, const struct mg_collective *mc);
void clc_coll_free(struct clc_coll *c);

/* Member k's entry is processed, forward value v, clock domain d. Returns
 * whether exits that waited may now be ready. */
int clc_coll_entry(struct clc_coll *c, uint32_t k, double v, uint32_t d);
/* Whether member k's exit has all its predecessors processed. */
int clc_coll_exit_ready(const struct clc_coll *c, uint32_t k);
/* The lower bound the entries processed put on member k's exit, in domain
 * d (lat: the latency between different domains). */
double clc_coll_exit_bound(const struct clc_coll *c, uint32_t k, uint32_t d, double lat);

/* The latest forward time each entry may be moved to so that the exits it
 * precedes stay met: lim[k] = min(lim[k], that) for every member k, from
 * the exits' forward values xc[k] and domains xd[k] and the entries'
 * domains ed[k]. */
void clc_coll_limits(const struct clc_coll *c, const double *xc, const uint32_t *xd, const uint32_t *ed, double lat,
                     double *lim);

/* The per-event arithmetic both passes share, so that they agree to the
 * bit. Forward: the time the rank's own order gives event i (input t,
 * previous event's input tp and forward value cp; first: no previous). */
static inline double clc_forward_base(double t, int first, double tp, double cp, double mu)
{
    double b = t;
    if (!first) {
        double dt = t - tp;
        double keep = cp + mu * (dt > 0 ? dt : 0);
        if (keep > b)
            b = keep;
    }
    return b;
}

/* Backward: event k's output from its forward value ck and limit lk, the
 * next event's forward value ck1, jump jk1 and output ok1; *s: the shift
 * of event k + 1 in, event k's out. */
static inline double clc_backward_step(double *s, double ck, double lk, double ck1, double jk1, double ok1,
                                       double gamma)
{
    double dprime = (ck1 - jk1) - ck;
    if (dprime < 0)
        dprime = 0;
    double u = *s + jk1 - gamma * dprime;
    double room = lk - ck;
    if (u > room)
        u = room;
    if (u < 0)
        u = 0;
    *s = u;
    double v = ck + u;
    if (v > lk)
        v = lk > ck ? lk : ck;   /* the limit itself, never below forward */
    if (v > ok1)
        v = ok1 > ck ? ok1 : ck;   /* floating-point rounding only */
    return v;
}

#endif
