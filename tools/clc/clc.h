/* clc.h — the controlled logical clock (CLC): the repair of interpolated
 * timestamps that Scalasca applies (Rabenseifner 1997; Becker, Rabenseifner,
 * Wolf, Linford, Parallel Computing 35(12), 2009), reimplemented here: the
 * merge's repair when the events contradict every clock model (delta > 0;
 * streamed there, clc_stream.h, with this pass as its reference) and a
 * baseline the accuracy report compares our constraint solver against.
 * This pass holds every event's times in memory.
 *
 * Input: per event a timestamp t (ns; for clc_correct the ClockOffsets
 * interpolated linearly, cm_interpolated()), the matched messages and
 * collectives, and minimum latencies. Output: corrected times C that keep
 * every happened-before relation the matching knows of.
 *
 * Happened-before: per-rank order; send -> receive of a matched message;
 * collectives by their data flow, the rule the constraints use
 * (tools/match/flow.h, mg_flow_of): an entry precedes an exit only where
 * bytes flow between them; zero counts add nothing.
 *
 * Forward amortization (events in a happened-before-consistent order: a
 * Kahn-style traversal over the ranks), for event e_i on a rank, e_{i-1}
 * its predecessor there:
 *     B(e_i) = max( t(e_i), C(e_{i-1}) + mu * max(0, t(e_i) - t(e_{i-1})) )
 *     C(e_i) = max( B(e_i), C(s) + l(s, e_i) for every s -> e_i across ranks )
 * Jump J(e_i) = C(e_i) - B(e_i) >= 0. With mu < 1 a rank pushed ahead by a
 * jump converges back to its own clock at slope gamma = 1 - mu; intervals
 * shrink by at most that fraction and are never lengthened by it.
 *
 * Backward amortization (per rank, last event to first): spreads each jump
 * over the time before it, linearly with slope gamma_back, so the interval
 * just before a jumped receive is not stretched by the whole jump:
 *     d'   = (C(e_{k+1}) - J(e_{k+1})) - C(e_k)        (>= 0)
 *     u_k  = s_{k+1} + J(e_{k+1}) - gamma_back * d'
 *     s_k  = clamp(u_k, 0, L(e_k) - C(e_k)),   s_{last} = 0
 * where L(e) = min over cross-rank successors f of e (its receive; for a
 * collective entry the exits it precedes) of C(f) - l(e, f): a send is
 * never moved past what its receive allows. The result C + s keeps every
 * constraint (successors only move later) and per-rank order (u_k <=
 * s_{k+1} + C(e_{k+1}) - C(e_k)); an interval before a jump grows by at most
 * gamma_back of its length. Backward shifts do not propagate to other ranks.
 *
 * Latency l: lmin[du * ndomains + dv] for a message between different clock
 * domains, 0 within one domain (one clock: never a tachyon there). For
 * collectives one value, the smallest off-diagonal lmin (conservative: a
 * smaller latency bound is never violated by the truth), again 0 within a
 * domain. lmin may be NULL (all 0).
 *
 * Properties: on input that already meets every constraint, C = t exactly
 * (no event moves); the output is non-decreasing per rank and tachyon-free.
 * A happened-before cycle (only possible with a wrong match) cannot be
 * ordered: it is broken at the blocked event with the smallest t, whose
 * unmet constraint is then ignored, and counted in clc_stats.cycles_broken. */
#ifndef SYNCTRACE_CLC_H
#define SYNCTRACE_CLC_H

#include <stddef.h>
#include <stdint.h>
#include "clockmodel.h"
#include "match.h"
#include "rawtrace.h"

struct clc_params {
    double mu;                /* forward: local intervals kept to this fraction at least (default 0.99) */
    double gamma_back;        /* backward: slope of the ramp before a jump (default 0.01 = 1 - mu) */
    int backward;             /* 1: backward amortization (default), 0: forward only */
};

struct clc_stats {
    size_t jumps;             /* events moved by a constraint (J > 0) */
    double max_jump_ns;
    size_t backward_moved;    /* events moved by backward amortization */
    size_t cycles_broken;     /* happened-before cycles broken (wrong matches) */
    size_t skipped_collectives;   /* neighbourhood, unknown op, root missing, < 2 members */
};

void clc_default_params(struct clc_params *p);

/* The algorithm on plain times. t[r][i]: input time (ns) of event i of rank
 * r, nevents[r] events; domain_of[r] < ndomains: the rank's clock domain
 * (NULL: every rank its own); lmin as above (NULL: 0); p NULL: defaults.
 * out[r] must hold nevents[r] doubles: the corrected times (out may be t
 * itself: the input is copied first). stats may be NULL. Returns 0, or -1
 * with a one-line message (bad event reference in the match, bad
 * parameters, out of memory). */
int clc_correct_times(const double *const *t, const uint64_t *nevents, uint32_t nranks, const struct mg_result *match,
                      const uint32_t *domain_of, uint32_t ndomains, const double *lmin, const struct clc_params *p,
                      double *const *out, struct clc_stats *stats, char *err, size_t errlen);

/* The merge's view: t = cm_interpolated() of every event (ns of the
 * reference clock, what today's tools show), domains from m (only
 * m->domain_of and m->ndomains are used), lmin as the merge's
 * (lmin[d1 * ndomains + d2]). out_times: an array of nranks pointers that
 * is filled with malloc'd arrays of ranks[r].nevents global times (ns,
 * rounded, the earliest event 0); free them with clc_free_times. Returns 0,
 * or -1 with a message (out_times then all NULL). */
int clc_correct(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match, const double *lmin,
                const struct cm_model *m, const struct clc_params *p, uint64_t **out_times, struct clc_stats *stats,
                char *err, size_t errlen);
void clc_free_times(uint64_t **times, uint32_t nranks);

#endif
