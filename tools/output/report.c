/* report.c — see report.h. */
#include "report.h"
#include "flow.h"
#include "collstream.h"
#include "msgstream.h"
#include "multiselect.h"

#include <math.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

void report_init(struct report *r)
{
    memset(r, 0, sizeof *r);
}

void report_free(struct report *r)
{
    free(r->domains);
    r->domains = NULL;
    free(r->segments);
    r->segments = NULL;
    free(r->losses);
    r->losses = NULL;
    r->nlosses = 0;
}

/* S as a JSON string's contents (paths may hold quotes or backslashes). */
static void json_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
}

/* Event i of rank q's true time in ns, or TS_UNKNOWN: only events the
 * tracer stamped with true_time count in accuracy figures (a record without
 * one, such as a buffer flush OTF2 writes by itself, would read as time 0),
 * and only on ranks whose first event has one. */
static uint64_t true_ns(struct truth_store *truth, uint32_t q, uint64_t i)
{
    return ts_has(truth, q) ? ts_get(truth, q, i) : TS_UNKNOWN;
}

/* mg_flow_violations_at's view of the true times (ctx: the store): 0 where
 * an event has none, as the arrays that held them had it. */
static uint64_t truth_at_event(const void *ctx, const struct mg_event_ref *e)
{
    uint64_t v = true_ns((struct truth_store *)ctx, e->rank, e->index);
    return v == TS_UNKNOWN ? 0 : v;
}

/* The first true time of the run's first rank that has one: errors are
 * measured from there (a constant; it only keeps the numbers small). */
static double truth_origin(const struct rt_location *ranks, uint32_t nranks, struct truth_store *truth)
{
    for (uint32_t q = 0; q < nranks; q++)
    {
        struct ts_cursor tc;
        ts_cursor_init(&tc, truth, q);
        for (uint64_t i = 0, has = ts_has(truth, q); has && i < ranks[q].nevents; i++) {
            uint64_t tv = ts_cursor_get(&tc, i);
            if (tv != TS_UNKNOWN)
                return (double)tv;
        }
    }
    return 0;
}

/* The true offsets of every event that has a true time: where the
 * reference's corrected clock stood at the event's true time, minus the
 * event's corrected time, fed to stream cm_vertex (its clock segment). The
 * reference's clock is read off its own events that have a true time (at
 * least two: first .. last) by interpolation, found in the store as they
 * are needed. Fed one event at a time, in rank and event order, by the
 * walks of fit_residuals. */
struct truth_offsets {
    const struct rt_location *ranks;
    const struct cm_model *m;
    struct truth_store *truth;
    uint32_t ref_rank;
    uint64_t first, last;     /* the reference's first and last events with a true time */
    struct rt_time_reader ref_times;   /* the reference's times, near j */
    struct multiselect ms;
    uint32_t q;               /* the rank being walked, UINT32_MAX before the first */
    uint64_t j, jn;           /* the reference's events around it: j < jn <= last, both with a true time */
    uint64_t tj, tjn;         /* their true times */
};

/* The reference's next event with a true time at or after i (first <= i <= last). */
static uint64_t ref_next(const struct truth_offsets *to, uint64_t i)
{
    while (i < to->last && true_ns(to->truth, to->ref_rank, i) == TS_UNKNOWN)
        i++;
    return i;
}

/* ... and at or before i (first <= i). */
static uint64_t ref_prev(const struct truth_offsets *to, uint64_t i)
{
    while (i > to->first && true_ns(to->truth, to->ref_rank, i) == TS_UNKNOWN)
        i--;
    return i;
}

static void truth_offset_of(void *ctx, uint32_t q, uint64_t i, uint64_t t, uint64_t tt)
{
    struct truth_offsets *to = ctx;
    uint32_t R = to->ref_rank;
    (void)i;
    if (q != to->q) {
        /* a rank's first event with a true time: among the reference's
         * events with one, short of its last, the latest whose true time is
         * at or before it (the first when none is) */
        uint64_t lo = to->first, hi = to->last - 1;   /* event indices; at lo the answer or the first */
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo + 1) / 2;
            if (true_ns(to->truth, R, ref_prev(to, mid)) <= tt)
                lo = mid;
            else
                hi = mid - 1;
        }
        to->q = q;
        to->j = ref_prev(to, lo);
        to->jn = ref_next(to, to->j + 1);
        to->tj = true_ns(to->truth, R, to->j);   /* both have one: found so */
        to->tjn = true_ns(to->truth, R, to->jn);
    }
    while (to->jn < to->last && to->tjn <= tt) {
        to->j = to->jn;
        to->tj = to->tjn;
        to->jn = ref_next(to, to->j + 1);
        to->tjn = true_ns(to->truth, R, to->jn);
    }
    uint32_t vertex = cm_vertex(to->m, q, t);
    if (!msel_wants(&to->ms, vertex))
        return;
    double t0 = (double)to->tj, t1 = (double)to->tjn;
    double c0 = cm_corrected(to->m, R, rt_time_read(&to->ref_times, to->j));
    double c1 = cm_corrected(to->m, R, rt_time_read(&to->ref_times, to->jn));
    double cref = t1 > t0 ? c0 + (c1 - c0) * ((double)tt - t0) / (t1 - t0) : c0;
    msel_feed(&to->ms, vertex, cref - cm_corrected(to->m, q, t));
}

static int truth_offsets_end_pass(void *ctx)
{
    struct truth_offsets *to = ctx;
    to->q = UINT32_MAX;
    return msel_end_pass(&to->ms);
}

/* Another measure that walks the events with true time alongside
 * fit_residuals, sharing its passes over the events (t: event i's raw
 * time). */
struct walker {
    void (*event)(void *ctx, uint32_t q, uint64_t i, uint64_t t, uint64_t tt);
    int (*end_pass)(void *ctx);   /* 1: one more pass wanted */
    void *ctx;
};

/* An event's time as today's tools show it, the ClockOffsets
 * interpolated, in whole ns (mg_flow_violations_at; ctx: the ranks). */
static uint64_t interpolated_ns(const void *ctx, const struct mg_event_ref *e)
{
    const struct rt_location *ranks = ctx;
    double t = cm_interpolated(&ranks[e->rank], e->time);
    return t <= 0 ? 0 : (uint64_t)llround(t);
}

/* A series of times to compare with true time: global times (gtime.h),
 * times[q][i], or with neither the ClockOffsets interpolated as today's
 * tools do. */
struct series {
    const struct gtime_map *g;
    const struct time_source *src;
};

/* Event i of rank q, whose raw time is t, in series s. */
static double series_time(const struct rt_location *ranks, const struct series *s, uint32_t q, uint64_t i, uint64_t t)
{
    if (s->g)
        return (double)gt_with(s->g, q, i, t);
    return s->src ? (double)s->src->at(s->src->ctx, q, i) : cm_interpolated(&ranks[q], t);
}

#define MAX_SERIES 2
/* multiselect.h: the few residual series get wide histograms (3 passes for
 * 10^7 events, 96 KB each); the true offsets, one stream per clock segment,
 * narrow ones (1.5 KB per segment; a segment's values are close together). */
#define RESIDUAL_BINS 4096
#define SEGMENT_BINS 64

/* How far tick t of `rank` lies outside the span its clock's sync rounds
 * measured: local ns before the first round (negative) or after the last
 * (positive), 0 inside. */
static double from_rounds(const struct cm_model *m, uint32_t rank, uint64_t t)
{
    const struct cm_domain *d = &m->domains[m->domain_of[rank]];
    double l = cm_local(d, t);
    return l < d->meas_l0 ? l - d->meas_l0 : l > d->meas_l1 ? l - d->meas_l1 : 0;
}

/* Domain d's sync rounds (its first location's ClockOffsets) and the
 * longest span of its run without one: between two rounds, or from its
 * first event to the first round, or from the last round to its end. */
static void rounds_of(const struct rt_location *ranks, uint32_t nranks, const struct cm_model *m, uint32_t d,
                      uint32_t *nrounds, double *longest)
{
    const struct cm_domain *dom = &m->domains[d];
    uint32_t r = dom->rep;
    *nrounds = r < nranks ? ranks[r].noffsets : 0;
    double prev = 0, gap = 0;   /* local ns; the domain starts at 0 */
    for (uint32_t k = 0; k < *nrounds; k++) {
        double at = cm_local(dom, ranks[r].offsets[k].time);
        gap = fmax(gap, at - prev);
        prev = at;
    }
    *longest = fmax(gap, dom->span_ns - prev);
}

struct worst_event {
    uint32_t rank;
    uint64_t index, time;     /* the event's index and raw time */
};

/* Errors of nser series of global times against true time, after removing
 * the common shift and rate (any global clock may run at its own pace): the
 * residuals of a least-squares line. Out: per series the rate (slope, minus
 * 1), the largest residual and the median one (exact, multiselect.h), all 0
 * with fewer than two events that have a true time. Passes over the events
 * instead of arrays of them, so memory does not grow with the events: the
 * means, the slope's sums, then the residuals as often as the medians need
 * them (sums in the same order as the arrays had them: the same figures to
 * the bit). `also` (may be NULL) is fed every event with a true time in the
 * same passes, as long as it wants more. Returns -1 when out of memory
 * (outputs untouched; `also` has seen no pass). */
static int fit_residuals(const struct rt_location *ranks, uint32_t nranks, struct truth_store *truth, int nser,
                         const struct series *times, double *rate, double *max_out, double *median_out,
                         const struct walker *also, struct worst_event *worst)
{
    double origin = truth_origin(ranks, nranks, truth);
    double mx = 0, my[MAX_SERIES] = { 0 }, sxx = 0, sxy[MAX_SERIES] = { 0 }, slope[MAX_SERIES] = { 0 };
    double mxr[MAX_SERIES] = { 0 };
    size_t k = 0;
    struct multiselect ms;
    if (msel_init(&ms, (uint32_t)nser, RESIDUAL_BINS) != 0)
        return -1;
    int fitting = 1, also_more = also != NULL;
    for (int pass = 0; fitting || also_more; pass++) {
        for (uint32_t q = 0; q < nranks; q++) {
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, &ranks[q]);
            struct ts_cursor tc;
            ts_cursor_init(&tc, truth, q);
            for (uint64_t i = 0, has = ts_has(truth, q); has && i < ranks[q].nevents; i++) {
                uint64_t tv = ts_cursor_get(&tc, i);
                if (tv == TS_UNKNOWN)
                    continue;
                uint64_t t = rt_time_read(&tr, i);
                if (also_more)
                    also->event(also->ctx, q, i, t, tv);
                if (!fitting)
                    continue;
                double tt = (double)tv - origin;
                if (pass == 0) {
                    mx += tt;
                    for (int s = 0; s < nser; s++)
                        my[s] += series_time(ranks, &times[s], q, i, t) - tt;
                    k++;
                } else if (pass == 1) {
                    sxx += (tt - mx) * (tt - mx);
                    for (int s = 0; s < nser; s++)
                        sxy[s] += (tt - mx) * (series_time(ranks, &times[s], q, i, t) - tt - my[s]);
                } else {
                    for (int s = 0; s < nser; s++) {
                        double y = fabs(series_time(ranks, &times[s], q, i, t) - tt - (my[s] + slope[s] * (tt - mx)));
                        if (y > mxr[s]) {
                            mxr[s] = y;
                            if (worst)
                                worst[s] = (struct worst_event){ q, i, t };
                        }
                        msel_feed(&ms, (uint32_t)s, y);
                    }
                }
            }
            rt_time_reader_free(&tr);
        }
        if (also_more)
            also_more = also->end_pass(also->ctx);
        if (!fitting)
            continue;
        if (pass == 0 && k <= 1) {
            fitting = 0;   /* figures stay 0 */
        } else if (pass == 0) {
            mx /= (double)k;
            for (int s = 0; s < nser; s++)
                my[s] /= (double)k;
        } else if (pass == 1) {
            for (int s = 0; s < nser; s++)
                slope[s] = sxx > 0 ? sxy[s] / sxx : 0;
        } else {
            fitting = msel_end_pass(&ms);
        }
    }
    for (int s = 0; s < nser; s++) {
        rate[s] = slope[s];
        max_out[s] = mxr[s];
        median_out[s] = k > 1 ? msel_median(&ms, (uint32_t)s) : 0;
    }
    msel_free(&ms);
    return 0;
}

/* The first few unmatched operations, for people to look at. */
static size_t list_unmatched(char *buf, size_t len, size_t used, const char *what, const char *dir,
                             const struct mg_unmatched *u, size_t n)
{
    for (size_t i = 0; i < n && i < 5 && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s rank %u event %llu %s %d tag %u", used ? "; " : "",
                                 what, u[i].event.rank, (unsigned long long)u[i].event.index, dir, (int)u[i].peer,
                                 u[i].tag);
    return used < len ? used : len;
}

/* What the match counted, as it counted it, with the polling the ranks
 * recorded and the first few unmatched operations. */
static void match_counts(struct report *r, const struct rt_location *ranks, uint32_t nranks,
                         const struct mg_result *match)
{
    r->messages = match->nmessages;
    r->collectives = match->ncollectives;
    r->unmatched_sends = match->nunmatched_sends;
    r->unmatched_recvs = match->nunmatched_recvs;
    r->incomplete_collectives = match->incomplete_collectives;
    r->thread_overlapping_collectives = match->thread_overlapping_collectives;
    r->cancelled = match->cancelled;
    r->freed_receives = match->freed_receives;
    r->outside_sends = match->outside_sends;
    r->outside_recvs = match->outside_recvs;
    r->outside_collectives = match->outside_collectives;
    for (uint32_t q = 0; q < nranks; q++) {
        struct rt_facts f;
        rt_facts(&ranks[q], &f);
        r->polling_regions += f.polling_regions;
        r->polling_calls += f.polling_calls;
    }
    size_t used = 0;
    used = list_unmatched(r->unmatched_examples, sizeof r->unmatched_examples, used, "send", "to",
                          match->unmatched_sends, match->nunmatched_sends);
    list_unmatched(r->unmatched_examples, sizeof r->unmatched_examples, used, "receive", "from",
                   match->unmatched_recvs, match->nunmatched_recvs);
}

/* Messages and RMA orderings that run backwards (tachyons), as today's
 * tools show them (the ClockOffsets interpolated) and in global time, and
 * messages between two clocks that arrive sooner than the least latency
 * lmin: what the merge is for, before and after. */
static void tachyon_counts(struct report *r, const struct rt_location *ranks, const struct mg_result *match,
                           const struct cm_model *m, double lmin, const struct gtime_map *gtime)
{
    struct mg_msg_reader it;   /* a read that fails is the caller's to say (mg_msgs_error) */
    mg_msgs_begin(match, &it);
    for (const struct mg_message *msg; (msg = mg_msgs_next(&it));) {
        const struct rt_location *s = &ranks[msg->send.rank], *v = &ranks[msg->recv.rank];
        double raw_s = cm_interpolated(s, msg->send.time);
        double raw_r = cm_interpolated(v, msg->recv.time);
        if (raw_r < raw_s)
            r->tachyons_raw++;
        uint64_t gs = gt_of(gtime, &msg->send);
        uint64_t gr = gt_of(gtime, &msg->recv);
        if (gr < gs)
            r->tachyons_after++;
        uint32_t du = m->domain_of[msg->send.rank], dv = m->domain_of[msg->recv.rank];
        if (du != dv && (double)gr < (double)gs + lmin)
            r->latency_violations_after++;
    }
    r->rma_flows = match->nrma_flows;
    for (size_t i = 0; i < match->nrma_flows; i++) {
        const struct mg_message *f = &match->rma_flows[i];
        const struct rt_location *s = &ranks[f->send.rank], *v = &ranks[f->recv.rank];
        r->rma_violations_raw += cm_interpolated(v, f->recv.time) < cm_interpolated(s, f->send.time);
        r->rma_violations_after += gt_of(gtime, &f->recv) < gt_of(gtime, &f->send);
    }
}

/* An event's time with its rank's ClockOffsets interpolated (today's
 * tools' view), whole ns. */
static uint64_t interpolated_at(const void *ctx, const struct mg_event_ref *e)
{
    const struct rt_location *ranks = ctx;
    double v = cm_interpolated(&ranks[e->rank], e->time);
    return v > 0 ? (uint64_t)llround(v) : 0;
}

/* The other orders global time must keep: the collectives' and neighbour
 * collectives' data flow, and each rank's events one after the other. */
static void order_counts(struct report *r, const struct rt_location *ranks, uint32_t nranks,
                         const struct mg_result *match, const struct gtime_map *gtime)
{
    /* the data-flow rule (flow.h), as the constraints use it; and as
     * interpolation shows it (whether its timeline is consistent at all) */
    r->collective_violations_after = mg_flow_violations_at(match, gt_of_cb, gtime, 0);
    r->collective_violations_raw = mg_flow_violations_at(match, interpolated_at, ranks, 0);
    r->neighbour_violations_after = mg_flow_violations_at(match, gt_of_cb, gtime, 1);
    int any_neighbour = 0;
    struct mg_coll_reader colls;
    mg_colls_begin(match, &colls);
    for (const struct mg_collective *c; !any_neighbour && (c = mg_colls_next(&colls));)
        any_neighbour = c->neighbor;
    mg_colls_end(&colls);
    if (any_neighbour)   /* as today's tools show them: the ClockOffsets interpolated */
        r->neighbour_violations_raw = mg_flow_violations_at(match, interpolated_ns, ranks, 1);
    for (uint32_t q = 0; q < nranks; q++) {
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, &ranks[q]);
        for (uint64_t i = 0, prev = 0; i < ranks[q].nevents; i++) {
            uint64_t v = gt_read(gtime, q, &tr, i);
            r->nonmonotonic_after += i > 0 && v < prev;
            prev = v;
        }
        rt_time_reader_free(&tr);
    }
}

/* With true times, check the inputs themselves: a matched message or a
 * collective whose true times break its constraint means a wrong match
 * or wrong semantics, not imprecision. */
static void truth_violations(struct report *r, const struct mg_result *match, struct truth_store *truth)
{
    struct mg_msg_reader it;
    mg_msgs_begin(match, &it);
    for (const struct mg_message *msg; (msg = mg_msgs_next(&it));) {
        uint64_t tr = true_ns(truth, msg->recv.rank, msg->recv.index);
        uint64_t ts = true_ns(truth, msg->send.rank, msg->send.index);
        r->truth_violating_messages += tr != TS_UNKNOWN && ts != TS_UNKNOWN && tr < ts;
    }
    r->truth_violating_collectives = mg_flow_violations_at(match, truth_at_event, truth, 0);
    r->neighbour_violations_truth = mg_flow_violations_at(match, truth_at_event, truth, 1);
}

/* The reference clock's location (domain tau's first; nranks when it has
 * none) and its events that have a true time, which the true offsets are
 * read against: how many, the first and the last. */
static uint32_t ref_truth_span(const struct rt_location *ranks, uint32_t nranks, const struct cm_model *m,
                               uint32_t tau, struct truth_store *truth, uint64_t *nref, uint64_t *first,
                               uint64_t *last)
{
    uint32_t ref_rank = 0;
    while (ref_rank < nranks && m->domain_of[ref_rank] != tau)
        ref_rank++;
    const struct rt_location *rr = ref_rank < nranks ? &ranks[ref_rank] : NULL;
    uint64_t n = 0, f = 0, l = 0;
    struct ts_cursor rc;
    ts_cursor_init(&rc, truth, ref_rank);
    for (uint64_t i = 0; rr && ts_has(truth, ref_rank) && i < rr->nevents; i++)
        if (ts_cursor_get(&rc, i) != TS_UNKNOWN) {
            f = n++ ? f : i;
            l = i;
        }
    *nref = n;
    *first = f;
    *last = l;
    return ref_rank;
}

/* The true offsets in passes of their own, for when fit_residuals could
 * not carry them (out of memory before its first pass). */
static void truth_offsets_alone(struct truth_offsets *to, uint32_t nranks)
{
    int more;
    do {
        for (uint32_t q = 0; q < nranks; q++) {
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, &to->ranks[q]);
            struct ts_cursor tc;
            ts_cursor_init(&tc, to->truth, q);
            for (uint64_t i = 0, has = ts_has(to->truth, q); has && i < to->ranks[q].nevents; i++) {
                uint64_t tv = ts_cursor_get(&tc, i);
                if (tv != TS_UNKNOWN)
                    truth_offset_of(to, q, i, rt_time_read(&tr, i), tv);
            }
            rt_time_reader_free(&tr);
        }
        more = truth_offsets_end_pass(to);
    } while (more);
}

/* How much intervals inside a rank changed (consecutive events with a
 * true time), in global time and with the ClockOffsets interpolated, each
 * measured in its own rate like the errors (rate, raw_rate: their common
 * rates against true time, minus 1, from fit_residuals). */
static void interval_distortions(struct report *r, const struct rt_location *ranks, uint32_t nranks,
                                 const struct gtime_map *gtime, struct truth_store *truth, double rate,
                                 double raw_rate)
{
    for (uint32_t q = 0; q < nranks; q++) {
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, &ranks[q]);
        uint64_t p = UINT64_MAX, pt = 0;   /* the previous event with a true time, its raw time */
        uint64_t ptt = 0;   /* ... and its true time */
        struct ts_cursor tc;
        ts_cursor_init(&tc, truth, q);
        for (uint64_t i = 0, has = ts_has(truth, q); has && i < ranks[q].nevents; i++) {
            uint64_t tt = ts_cursor_get(&tc, i);
            if (tt == TS_UNKNOWN)
                continue;
            uint64_t t = rt_time_read(&tr, i);
            if (p != UINT64_MAX) {
                double ours = (double)gt_with(gtime, q, i, t) - (double)gt_with(gtime, q, p, pt);
                double real = ((double)tt - (double)ptt) * (1 + rate);
                if (fabs(ours - real) > r->interval_distortion_max_ns)
                    r->interval_distortion_max_ns = fabs(ours - real);
                double interp = cm_interpolated(&ranks[q], t) - cm_interpolated(&ranks[q], pt);
                real = ((double)tt - (double)ptt) * (1 + raw_rate);
                if (fabs(interp - real) > r->raw_interval_distortion_max_ns)
                    r->raw_interval_distortion_max_ns = fabs(interp - real);
            }
            p = i;
            pt = t;
            ptt = tt;
        }
        rt_time_reader_free(&tr);
    }
}

/* Global time against true time (have_truth): the errors of ours and of
 * the interpolated ClockOffsets, where our largest lies, the intervals'
 * distortion, and the true x_v - x_tau of each segment v (truth_x[v],
 * where has[v]): the median over the segment's events of truth_offset_of's
 * values, fed in fit_residuals' passes over the events (memory per
 * segment, not per event). */
static void truth_comparison(struct report *r, const struct rt_location *ranks, uint32_t nranks,
                             const struct cm_model *m, uint32_t tau, const struct gtime_map *gtime,
                             struct truth_store *truth, double *truth_x, int *has)
{
    uint32_t nv = r->nsegments;
    uint64_t nref, first, last;
    uint32_t ref_rank = ref_truth_span(ranks, nranks, m, tau, truth, &nref, &first, &last);
    struct truth_offsets to = { .ranks = ranks, .m = m, .truth = truth, .ref_rank = ref_rank, .first = first,
                                .last = last, .q = UINT32_MAX };
    if (ref_rank < nranks)
        rt_time_reader_init(&to.ref_times, &ranks[ref_rank]);
    int offsets = nref >= 2 && msel_init(&to.ms, nv, SEGMENT_BINS) == 0;
    struct walker also = { truth_offset_of, truth_offsets_end_pass, &to };
    /* Errors of global time against true time: ours and today's. */
    const struct series series[MAX_SERIES] = { { gtime, NULL }, { NULL, NULL } };
    double rates[MAX_SERIES], maxes[MAX_SERIES], medians[MAX_SERIES];
    struct worst_event worst[MAX_SERIES] = { { 0 } };
    int fitted = fit_residuals(ranks, nranks, truth, 2, series, rates, maxes, medians, offsets ? &also : NULL,
                               worst);
    if (offsets && fitted != 0)   /* out of memory before any pass: the offsets alone */
        truth_offsets_alone(&to, nranks);
    for (uint32_t k = 0; offsets && k < nv; k++)
        if (msel_count(&to.ms, k)) {
            truth_x[k] = msel_median(&to.ms, k);
            has[k] = 1;
        }
    if (offsets)
        msel_free(&to.ms);
    rt_time_reader_free(&to.ref_times);
    if (fitted != 0)
        return;
    r->true_err_max_ns = maxes[0];
    r->true_err_max_rank = worst[0].rank;
    r->true_err_max_index = worst[0].index;
    r->true_err_max_from_rounds_ns = from_rounds(m, worst[0].rank, worst[0].time);
    r->true_err_median_ns = medians[0];
    r->raw_err_max_ns = maxes[1];
    r->raw_err_median_ns = medians[1];
    /* rates[0]: global time's common rate against true time, minus 1;
     * rates[1]: the same for the interpolated ClockOffsets */
    interval_distortions(r, ranks, nranks, gtime, truth, rates[0], rates[1]);
}

/* Each clock's row and its segments': offset to the reference tau and the
 * solver's bounds (x, lo, hi; lo and hi may be NULL), drift, what was done
 * beyond its sync rounds, and where the true offset is known (truth_x[v]
 * where has[v]) whether it lies inside the bounds. */
static void domain_rows(struct report *r, const struct rt_location *ranks, uint32_t nranks, const struct cm_model *m,
                        const double *x, const double *lo, const double *hi, uint32_t tau, const double *truth_x,
                        const int *has)
{
    uint32_t tv = cm_domain_vertex(m, tau);
    for (uint32_t d = 0; d < m->ndomains; d++) {
        const struct cm_domain *dom = &m->domains[d];
        struct report_domain *rd = &r->domains[d];
        r->max_drift_ppm = m->max_drift * 1e6;
        rd->drift_rejected = dom->drift_rejected;
        rd->id = dom->id;
        rd->drift_ppm = cm_mean_drift(dom) * 1e6;
        rd->is_time_base = d == tau;
        rd->before_rounds_ns = isfinite(dom->meas_l0) && dom->meas_l0 > 0 ? dom->meas_l0 : 0;
        rd->after_rounds_ns = isfinite(dom->meas_l1) && dom->span_ns > dom->meas_l1 ? dom->span_ns - dom->meas_l1 : 0;
        /* off by up to the drift's error, and no more than a physical
         * drift (|true| <= max_drift) allows; an error the rounds did not
         * give (Score-P records no deviation) is only that */
        double phys = fabs(cm_mean_drift(dom)) + m->max_drift;
        rd->outside_bound_ns = (d == tau ? 0 : dom->beta_err > 0 ? fmin(dom->beta_err, phys) : phys)
                               * fmax(rd->before_rounds_ns, rd->after_rounds_ns);
        rounds_of(ranks, nranks, m, d, &rd->sync_rounds, &rd->longest_without_round_ns);
        rd->nsegments = dom->nseg;
        rd->first_segment = dom->first_seg;
        rd->inside = 1;
        for (uint32_t k = 0; k < dom->nseg; k++) {
            uint32_t sv = dom->first_seg + k;
            const struct cm_segment *seg = &dom->seg[k];
            struct report_segment *rs = &r->segments[sv];
            rs->start_ns = seg->l0;
            rs->offset_ns = x[sv] - x[tv];
            rs->drift_ppm = seg->beta * 1e6;
            rs->drift_rejected = seg->drift_rejected;
            /* The solver's bounds hold for the drift model; a drift estimate
             * off by beta_err moves the true offset by up to beta_err x the
             * segment's length. */
            double drift_u = (seg->beta_err + m->domains[tau].seg[0].beta_err) * seg->span_ns;
            rs->lo_ns = lo ? lo[sv] - drift_u : -INFINITY;
            rs->hi_ns = hi ? hi[sv] + drift_u : INFINITY;
            if (has[sv] && has[tv]) {
                rs->has_truth = 1;
                rs->true_offset_ns = truth_x[sv] - truth_x[tv];
                /* Exact: the bounds already hold on the graph relaxed by
                 * delta, and a clock without a bound is not inside one. */
                rs->inside = isfinite(rs->lo_ns) && isfinite(rs->hi_ns) && rs->true_offset_ns >= rs->lo_ns
                             && rs->true_offset_ns <= rs->hi_ns;
                rd->has_truth = 1;
                rd->inside &= rs->inside;
            }
        }
        /* the domain's row: its first segment, where the run begins */
        const struct report_segment *s0 = &r->segments[dom->first_seg];
        rd->offset_ns = s0->offset_ns;
        rd->lo_ns = s0->lo_ns;
        rd->hi_ns = s0->hi_ns;
        rd->true_offset_ns = s0->true_offset_ns;
        if (rd->has_truth)
            r->domains_inside += (uint32_t)rd->inside;
    }
}

void report_fill(struct report *r, const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                 const struct cm_model *m, const double *x, const double *lo, const double *hi, uint32_t tau,
                 double lmin, const struct gtime_map *gtime, struct truth_store *truth)
{
    match_counts(r, ranks, nranks, match);
    tachyon_counts(r, ranks, match, m, lmin, gtime);
    order_counts(r, ranks, nranks, match, gtime);
    if (nranks && ts_has(truth, 0))
        truth_violations(r, match, truth);

    /* per domain and segment: offset, drift, bounds, and with true_time the truth */
    uint32_t nd = m->ndomains, nv = cm_nvertices(m);
    r->ndomains = nd;
    r->domains = calloc(nd ? nd : 1, sizeof *r->domains);
    r->nsegments = nv;
    r->segments = calloc(nv ? nv : 1, sizeof *r->segments);
    double *truth_x = calloc(nv ? nv : 1, sizeof *truth_x);
    int *has = calloc(nv ? nv : 1, sizeof *has);
    r->have_truth = nranks > 0 && ts_has(truth, 0);
    if (r->domains && r->segments && truth_x && has && r->have_truth)
        truth_comparison(r, ranks, nranks, m, tau, gtime, truth, truth_x, has);
    if (r->domains && r->segments)
        domain_rows(r, ranks, nranks, m, x, lo, hi, tau, truth_x, has);
    free(truth_x);
    free(has);
}

/* mg_flow_violations_at's view of a time source */
static uint64_t source_at_event(const void *ctx, const struct mg_event_ref *e)
{
    const struct time_source *src = ctx;
    return src->at(src->ctx, e->rank, e->index);
}

void report_fill_clc(struct report *r, const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                     const struct time_source *ctime, struct truth_store *truth, const struct clc_stats *st,
                     double seconds)
{
    if (!nranks || !ts_has(truth, 0))
        return;
    r->clc_tachyons_after = 0;
    struct mg_msg_reader it;
    mg_msgs_begin(match, &it);
    for (const struct mg_message *msg; (msg = mg_msgs_next(&it));) {
        if (source_at_event(ctime, &msg->recv) < source_at_event(ctime, &msg->send))
            r->clc_tachyons_after++;
    }
    r->clc_collective_violations_after = mg_flow_violations_at(match, source_at_event, ctime, 0);
    /* errors and interval distortion, measured as ours are in report_fill:
     * residuals of a least-squares line against true time, intervals in
     * the fitted rate */
    const struct series series[1] = { { NULL, ctime } };
    double rate = 0;
    if (fit_residuals(ranks, nranks, truth, 1, series, &rate, &r->clc_err_max_ns, &r->clc_err_median_ns, NULL, NULL)
        == 0) {
        r->clc_interval_distortion_max_ns = 0;
        for (uint32_t q = 0; q < nranks; q++) {
            uint64_t p = UINT64_MAX, ptt = 0;
            struct ts_cursor tc;
            ts_cursor_init(&tc, truth, q);
            for (uint64_t i = 0, has = ts_has(truth, q); has && i < ranks[q].nevents; i++) {
                uint64_t tt = ts_cursor_get(&tc, i);
                if (tt == TS_UNKNOWN)
                    continue;
                if (p != UINT64_MAX) {
                    double clc = (double)ctime->at(ctime->ctx, q, i) - (double)ctime->at(ctime->ctx, q, p);
                    double real = ((double)tt - (double)ptt) * (1 + rate);
                    if (fabs(clc - real) > r->clc_interval_distortion_max_ns)
                        r->clc_interval_distortion_max_ns = fabs(clc - real);
                }
                p = i;
                ptt = tt;
            }
        }
        r->have_clc = 1;
        if (st)
            r->clc = *st;
        r->seconds_clc = seconds;
    }
}

static void json_number(FILE *f, const char *key, double v, int last)
{
    if (isfinite(v))
        fprintf(f, "  \"%s\": %.3f%s\n", key, v, last ? "" : ",");
    else
        fprintf(f, "  \"%s\": null%s\n", key, last ? "" : ",");
}

/* The run: its ranks, threads and events, and what each rank of a job
 * that died lost, and why. */
static void json_run(FILE *f, const struct report *r)
{
    fprintf(f, "{\n  \"format\": 1,\n  \"ranks\": %u,\n  \"threads\": %u,\n  \"incomplete_ranks\": %u,\n  \"events\": %llu,\n",
            r->ranks, r->threads, r->incomplete_ranks, (unsigned long long)r->events);
    fprintf(f, "  \"incomplete\": [");
    for (uint32_t i = 0; i < r->nlosses; i++) {
        fprintf(f, "%s{\"rank\": %d, \"why\": \"", i ? ", " : "", r->losses[i].rank);
        json_escaped(f, r->losses[i].why);
        fprintf(f, "\"}");
    }
    fprintf(f, "],\n");
}

/* What the match paired and what it could not, and the operations with
 * processes outside the trace. */
static void json_match(FILE *f, const struct report *r)
{
    fprintf(f, "  \"messages\": %zu,\n  \"collectives\": %zu,\n  \"unmatched_sends\": %zu,\n  \"unmatched_receives\": %zu,\n",
            r->messages, r->collectives, r->unmatched_sends, r->unmatched_recvs);
    fprintf(f, "  \"unmatched_examples\": \"%s\",\n", r->unmatched_examples);
    fprintf(f, "  \"incomplete_collectives\": %zu,\n  \"cancelled\": %zu,\n", r->incomplete_collectives, r->cancelled);
    fprintf(f, "  \"thread_overlapping_collectives\": %zu,\n", r->thread_overlapping_collectives);
    fprintf(f, "  \"freed_receives\": %zu,\n", r->freed_receives);
    fprintf(f, "  \"outside\": { \"processes\": %u, \"sends\": %zu, \"receives\": %zu, \"collectives\": %zu },\n",
            r->outside_processes, r->outside_sends, r->outside_recvs, r->outside_collectives);
    fprintf(f, "  \"spawned_jobs\": { \"merged\": %d, \"not_linked\": %d },\n", r->spawned_jobs,
            r->spawned_jobs_skipped);
    /* runs of unsuccessful polling calls, each recorded as one region (src/polling.h) */
    fprintf(f, "  \"polling\": {\"regions\": %llu, \"calls\": %llu},\n", (unsigned long long)r->polling_regions,
            (unsigned long long)r->polling_calls);
}

/* The orders the merge is for, as recorded and after it: messages, the
 * collectives' data flow, each rank's events, RMA, neighbour collectives. */
static void json_violations(FILE *f, const struct report *r)
{
    fprintf(f, "  \"tachyons_raw\": %zu,\n  \"tachyons_after\": %zu,\n  \"latency_violations_after\": %zu,\n",
            r->tachyons_raw, r->tachyons_after, r->latency_violations_after);
    fprintf(f, "  \"collective_order_violations_raw\": %zu,\n  \"collective_order_violations_after\": %zu,\n"
               "  \"nonmonotonic_after\": %zu,\n",
            r->collective_violations_raw, r->collective_violations_after, r->nonmonotonic_after);
    fprintf(f, "  \"rma_orderings\": { \"count\": %zu, \"violated_raw\": %zu, \"violated_after\": %zu },\n",
            r->rma_flows, r->rma_violations_raw, r->rma_violations_after);
    fprintf(f, "  \"neighbour_order_violations\": { \"raw\": %zu, \"after\": %zu%s",
            r->neighbour_violations_raw, r->neighbour_violations_after, r->have_truth ? "" : " },\n");
    if (r->have_truth)
        fprintf(f, ", \"by_truth\": %zu },\n", r->neighbour_violations_truth);
}

/* How the clocks were solved: the graph, the events' imprecision, the
 * repair of what stayed out of causal order, the drift model. */
static void json_solver(FILE *f, const struct report *r)
{
    fprintf(f, "  \"solver\": { \"vertices\": %u, \"edges\": %zu, \"hubs\": %u, \"neighbour_edges\": %zu, "
               "\"unbounded_domains\": %u },\n",
            r->vertices, r->edges, r->hubs, r->neighbour_edges, r->unbounded);
    if (r->hub_groups_beside)
        fprintf(f, "  \"hubs_beside_graph\": { \"groups\": %llu, \"passes\": %llu, \"pair_vertices\": %llu },\n",
                (unsigned long long)r->hub_groups_beside, (unsigned long long)r->hub_passes,
                (unsigned long long)r->hub_pairs);
    json_number(f, "delta_ns", r->delta_ns, 0);
    fprintf(f, "  \"repair\": { \"applied\": %s, \"events_moved\": %zu, \"max_move_ns\": %.3f, "
               "\"backward_moved\": %zu, \"disk_bytes\": %llu, \"max_sends_in_flight\": %llu, "
               "\"max_open_collectives\": %llu },\n",
            r->repair_done ? "true" : "false", r->repair_jumps, r->repair_max_jump_ns, r->repair_backward_moved,
            (unsigned long long)r->repair_disk_bytes, (unsigned long long)r->repair_max_in_flight,
            (unsigned long long)r->repair_max_open_instances);
    fprintf(f, "  \"drift_model\": \"%s\",\n  \"drift_refinement_passes\": %d,\n  \"drift_search\": { \"solves\": %d, \"steps_kept\": %d },\n"
               "  \"drift_fitted_clocks\": %u,\n  \"max_drift_ppm\": %.3f,\n",
            r->drift_dropped ? "dropped (contradicted the events)"
            : r->drift_search_moves && !r->segments_used ? "line, the rounds' drifts moved the least the events need"
            : r->segments_used ? "segments (a drift and an offset per span between sync rounds)"
            : r->drift_fitted ? "line (one drift per clock, fitted to its sync rounds inside the messages' bounds)"
                               : "line (one drift per clock, first to last sync round)",
            r->drift_refined, r->drift_searched, r->drift_search_moves, r->drift_fitted, r->max_drift_ppm);
    if (r->placed_estimates)
        fprintf(f, "  \"placement\": { \"method\": \"estimates\", \"clocks_moved_by_messages\": %u },\n",
                r->placed_moved);
    else
        fprintf(f, "  \"placement\": { \"method\": \"alpha\", \"alpha\": %.6g },\n", r->placed_alpha);
}

/* How well each pair of clocks is known, and which pairs the two figures
 * cover (precision.c); nothing when they were not measured. */
static void json_pairs(FILE *f, const struct report *r)
{
    if (!r->have_pairs)
        return;
    json_number(f, "pair_uncertainty_max_ns", r->pair_max_ns, 0);
    json_number(f, "pair_uncertainty_mean_ns", r->pair_mean_ns, 0);
    if (r->pairs_sampled)
        fprintf(f, "  \"pair_uncertainty_pairs\": { \"method\": \"sampled\", \"domains\": %u, \"pairs\": %llu, "
                   "\"sources\": %u, \"seed\": %llu, \"widest\": [%d, %d], \"how\": \"the reference clock, "
                   "then clocks in a splitmix64-seeded Fisher-Yates order, each paired with every other clock\", "
                   "\"seconds\": %.6f },\n",
                r->pair_domains, (unsigned long long)r->pairs_measured, r->pair_sources,
                (unsigned long long)r->pair_seed, r->pair_worst[0], r->pair_worst[1], r->seconds_precision);
    else
        fprintf(f, "  \"pair_uncertainty_pairs\": { \"method\": \"all\", \"domains\": %u, \"pairs\": %llu, "
                   "\"seconds\": %.6f },\n",
                r->pair_domains, (unsigned long long)r->pairs_measured, r->seconds_precision);
}

/* Domain x's segments between sync rounds: their own offset, drift and
 * bounds (lo_ns and hi_ns left out where it has none). */
static void json_segments(FILE *f, const struct report *r, const struct report_domain *x)
{
    fprintf(f, ",\n      \"segments\": [");
    for (uint32_t k = 0; r->segments && k < x->nsegments; k++) {
        const struct report_segment *g = &r->segments[x->first_segment + k];
        fprintf(f, "%s{ \"start_ns\": %.3f, \"offset_ns\": %.3f, \"drift_ppm\": %.6f, \"drift_rejected\": %s",
                k ? ", " : "", g->start_ns, g->offset_ns, g->drift_ppm, g->drift_rejected ? "true" : "false");
        if (isfinite(g->lo_ns) && isfinite(g->hi_ns))
            fprintf(f, ", \"lo_ns\": %.3f, \"hi_ns\": %.3f", g->lo_ns, g->hi_ns);
        if (g->has_truth)
            fprintf(f, ", \"true_offset_ns\": %.3f, \"true_inside_bounds\": %s", g->true_offset_ns,
                    g->inside ? "true" : "false");
        fprintf(f, " }");
    }
    fprintf(f, "]");
}

/* Each clock: its offset to the reference, bounds (null: unbounded),
 * drift, what was done beyond its sync rounds, and its segments. */
static void json_domains(FILE *f, const struct report *r)
{
    fprintf(f, "  \"domains\": [\n");
    for (uint32_t d = 0; d < r->ndomains; d++) {
        const struct report_domain *x = &r->domains[d];
        fprintf(f, "    { \"domain\": %d, \"offset_ns\": %.3f, \"drift_ppm\": %.6f, \"drift_rejected\": %s, ", x->id,
                x->offset_ns, x->drift_ppm, x->drift_rejected ? "true" : "false");
        if (isfinite(x->lo_ns) && isfinite(x->hi_ns))
            fprintf(f, "\"lo_ns\": %.3f, \"hi_ns\": %.3f", x->lo_ns, x->hi_ns);
        else
            fprintf(f, "\"lo_ns\": null, \"hi_ns\": null");
        if (x->has_truth)
            fprintf(f, ", \"true_offset_ns\": %.3f, \"true_inside_bounds\": %s", x->true_offset_ns,
                    x->inside ? "true" : "false");
        fprintf(f, ",\n      \"outside_rounds\": { \"before_ns\": %.3f, \"after_ns\": %.3f, \"extrapolation\": \"%s\", "
                   "\"bound_ns\": %.3f },\n      \"sync_rounds\": %u, \"longest_without_round_ns\": %.3f",
                x->before_rounds_ns, x->after_rounds_ns,
                x->is_time_base ? "reference" : "drift", x->outside_bound_ns,
                x->sync_rounds, x->longest_without_round_ns);
        json_segments(f, r, x);
        fprintf(f, " }%s\n", d + 1 < r->ndomains ? "," : "");
    }
    fprintf(f, "  ],\n");
}

/* Accuracy against true time: with true times (have_truth), global
 * time's; with the controlled logical clock's repair (have_clc), its
 * figures beside ours. */
static void json_accuracy(FILE *f, const struct report *r)
{
    if (r->have_truth) {
        fprintf(f, "  \"truth\": { \"error_max_ns\": %.3f, \"error_median_ns\": %.3f, "
                   "\"interpolated_error_max_ns\": %.3f, \"interpolated_error_median_ns\": %.3f, "
                   "\"interval_distortion_max_ns\": %.3f, \"interpolated_interval_distortion_max_ns\": %.3f, "
                   "\"domains_inside_bounds\": %u, "
                   "\"messages_violated_by_truth\": %zu, \"collectives_violated_by_truth\": %zu, "
                   "\"error_max_at\": \"%u:%llu\", \"error_max_outside_rounds_ns\": %.3f },\n",
                r->true_err_max_ns, r->true_err_median_ns, r->raw_err_max_ns, r->raw_err_median_ns,
                r->interval_distortion_max_ns, r->raw_interval_distortion_max_ns, r->domains_inside,
                r->truth_violating_messages, r->truth_violating_collectives, r->true_err_max_rank,
                (unsigned long long)r->true_err_max_index, r->true_err_max_from_rounds_ns);
    }
    if (r->have_clc) {
        fprintf(f, "  \"clc\": { \"tachyons_after\": %zu, \"collective_order_violations_after\": %zu, "
                   "\"error_max_ns\": %.3f, \"error_median_ns\": %.3f, \"interval_distortion_max_ns\": %.3f, "
                   "\"jumps\": %zu, \"max_jump_ns\": %.3f, \"backward_moved\": %zu, \"cycles_broken\": %zu, "
                   "\"seconds\": %.6f },\n",
                r->clc_tachyons_after, r->clc_collective_violations_after, r->clc_err_max_ns, r->clc_err_median_ns,
                r->clc_interval_distortion_max_ns, r->clc.jumps, r->clc.max_jump_ns, r->clc.backward_moved,
                r->clc.cycles_broken, r->seconds_clc);
    }
}

/* How the merge ran rather than what it found: what went to disk (one
 * line, which bench/merge_same.sh leaves out) and the stages' seconds. */
static void json_costs(FILE *f, const struct report *r)
{
    fprintf(f, "  \"match_sorts\": { \"memory_bytes\": %llu, \"runs_spilled\": %u, \"spilled_bytes\": %llu }, "
            "\"events_set_aside_bytes\": %llu, \"messages_set_aside_bytes\": %llu, "
            "\"collectives_set_aside_bytes\": %llu,\n",
            (unsigned long long)r->sort_memory, r->sort_runs, (unsigned long long)r->sort_spilled_bytes,
            (unsigned long long)r->events_set_aside_bytes, (unsigned long long)r->messages_set_aside_bytes,
            (unsigned long long)r->collectives_set_aside_bytes);
    fprintf(f, "  \"seconds\": { \"read\": %.6f, \"match\": %.6f, \"solve\": %.6f, \"apply\": %.6f, "
               "\"write\": %.6f, \"total\": %.6f }\n}\n",
            r->seconds_read, r->seconds_match, r->seconds_solve, r->seconds_apply, r->seconds_write,
            r->seconds_total);
}

/* report.json, section by section in the order readers know. */
static void report_json(FILE *f, const struct report *r)
{
    json_run(f, r);
    json_match(f, r);
    json_violations(f, r);
    json_solver(f, r);
    json_pairs(f, r);
    json_domains(f, r);
    json_accuracy(f, r);
    causal_report_json(f, r->causal);
    json_costs(f, r);
}

/* report.txt: the summary, then the causal index's lines. */
static void report_text(FILE *f, const struct report *r)
{
    report_print_summary(r, f);
    causal_report_text(f, r->causal);
}

/* dir/name, written by `contents`; 0, or -1 with err saying which file and
 * whether it could not be opened or not be written. */
static int write_file(const struct report *r, const char *dir, const char *name,
                      void (*contents)(FILE *f, const struct report *r), char *err, size_t errlen)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write", path);
        return -1;
    }
    contents(f, r);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

int report_write(const struct report *r, const char *dir, char *err, size_t errlen)
{
    if (write_file(r, dir, "report.json", report_json, err, errlen) != 0)
        return -1;
    return write_file(r, dir, "report.txt", report_text, err, errlen);
}

/* A duration for people: 3 significant digits in the unit that fits. */
static const char *human_ns(char *buf, size_t len, double ns)
{
    if (ns == 0)
        ns = 0;   /* no "-0 ns" */
    double a = fabs(ns);
    if (!isfinite(ns))
        snprintf(buf, len, "unbounded");
    else if (a >= 1e9)
        snprintf(buf, len, "%.3g s", ns / 1e9);
    else if (a >= 1e6)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else if (a >= 1e3)
        snprintf(buf, len, "%.3g us", ns / 1e3);
    else
        snprintf(buf, len, "%.0f ns", ns);
    return buf;
}

/* The longest stretch of a run without a sync round, said where it is over
 * half a second: the drift is only measured across it, so a change of
 * drift inside it (a node warming up) goes unseen, and what that may cost
 * grows with the span: per ppm of change, up to a quarter of it (the
 * interpolated line against one that bends in its middle). */
static void rounds_line(FILE *to, const struct report *r)
{
    const struct report_domain *w = NULL;
    for (uint32_t d = 0; r->domains && d < r->ndomains; d++)
        if (!w || r->domains[d].longest_without_round_ns > w->longest_without_round_ns)
            w = &r->domains[d];
    if (!w || w->longest_without_round_ns < 5e8)
        return;
    char a[32], b[32];
    fprintf(to, "  sync rounds   %u on rank %d, the longest span without one %s: a drift change of 1 ppm inside it "
                "would cost up to %s there (periodic rounds: SYNCTRACE_SYNC=init,periodic,finalize; each needs an "
                "MPI call on rank 0 when it is due)\n",
            w->sync_rounds, w->id, human_ns(a, sizeof a, w->longest_without_round_ns),
            human_ns(b, sizeof b, w->longest_without_round_ns * 1e-6 / 4));
}

/* The clock whose events lie farthest beyond its sync rounds, and what the
 * merge did there: where a short run's largest error comes from. */
static void outside_rounds_line(FILE *to, const struct report *r)
{
    const struct report_domain *w = NULL;
    for (uint32_t d = 0; r->domains && d < r->ndomains; d++)
        if (r->domains[d].outside_bound_ns > 0 && (!w || r->domains[d].outside_bound_ns > w->outside_bound_ns))
            w = &r->domains[d];
    if (!w)
        return;
    char a[32], b[32];
    int before = w->before_rounds_ns >= w->after_rounds_ns;
    fprintf(to, "  outside sync  rank %d: events up to %s %s its sync rounds, where its drift is extrapolated: "
                "within +-%s there\n", w->id,
            human_ns(a, sizeof a, before ? w->before_rounds_ns : w->after_rounds_ns), before ? "before" : "after",
            human_ns(b, sizeof b, w->outside_bound_ns));
}

/* At most this many clocks are listed; report.json has them all. */
#define SUMMARY_CLOCKS 6

/* Read in ten seconds: what was merged, whether it is now consistent, how
 * precise, and only then the details; a line per topic, short lines. */
void report_print_summary(const struct report *r, FILE *to)
{
    char a[32], b[32], c[32], d[32];
    fprintf(to, "synctrace merge: %u ranks, %llu events, %zu messages, %zu collectives (%.2f s)\n", r->ranks,
            (unsigned long long)r->events, r->messages, r->collectives, r->seconds_total);
    int clean = r->tachyons_after == 0 && r->collective_violations_after == 0 && r->nonmonotonic_after == 0;
    fprintf(to, "  tachyons      %zu as recorded -> %zu after the merge%s\n", r->tachyons_raw, r->tachyons_after,
            clean ? " (causally consistent)" : "  ** CHECK report.json **");
    if (r->have_pairs)
        fprintf(to, "  precision     clock pairs known within %s (mean %s)%s\n",
                human_ns(a, sizeof a, r->pair_max_ns), human_ns(b, sizeof b, r->pair_mean_ns),
                r->pairs_sampled ? ", on a sample of pairs" : "");
    if (r->delta_ns > 0 && r->repair_done)
        fprintf(to, "  imprecision   events contradict by up to %s: %zu moved (at most %s) for causal order\n",
                human_ns(a, sizeof a, r->delta_ns), r->repair_jumps, human_ns(b, sizeof b, r->repair_max_jump_ns));
    else if (r->delta_ns > 0)
        fprintf(to, "  imprecision   the events contradict each other by up to %s (relaxed)\n",
                human_ns(a, sizeof a, r->delta_ns));
    if (r->have_truth)
        fprintf(to, "  vs true time  max %s, median %s (interpolated ClockOffsets: %s, %s)\n",
                human_ns(a, sizeof a, r->true_err_max_ns), human_ns(b, sizeof b, r->true_err_median_ns),
                human_ns(c, sizeof c, r->raw_err_max_ns), human_ns(d, sizeof d, r->raw_err_median_ns));
    if (r->have_truth && r->true_err_max_from_rounds_ns != 0)
        fprintf(to, "                largest at event %u:%llu, %s %s its clock's sync rounds\n", r->true_err_max_rank,
                (unsigned long long)r->true_err_max_index,
                human_ns(a, sizeof a, fabs(r->true_err_max_from_rounds_ns)),
                r->true_err_max_from_rounds_ns < 0 ? "before the first of" : "after the last of");
    outside_rounds_line(to, r);
    rounds_line(to, r);
    if (r->have_clc)
        fprintf(to, "  CLC repair    max %s, median %s, intervals distorted by up to %s\n",
                human_ns(a, sizeof a, r->clc_err_max_ns), human_ns(b, sizeof b, r->clc_err_median_ns),
                human_ns(c, sizeof c, r->clc_interval_distortion_max_ns));
    if (r->unmatched_sends || r->unmatched_recvs || r->incomplete_collectives)
        fprintf(to, "  unmatched     %zu sends, %zu receives, %zu incomplete collectives\n", r->unmatched_sends,
                r->unmatched_recvs, r->incomplete_collectives);
    if (r->thread_overlapping_collectives)
        fprintf(to, "  erroneous     %zu blocking collectives entered while another thread of the rank was in one "
                "on the same communicator (MPI leaves their order undefined: they may be paired as MPI did not)\n",
                r->thread_overlapping_collectives);
    if (r->spawned_jobs || r->spawned_jobs_skipped)
        fprintf(to, "  spawned jobs  %d merged as further ranks%s\n", r->spawned_jobs,
                r->spawned_jobs_skipped ? "; some spawn-N directories name no parent in this trace: not merged" : "");
    if (r->outside_processes)
        fprintf(to, "  outside       %u processes of other jobs (spawned, parents, connected): %zu sends to them, "
                "%zu receives from them, %zu collectives with them\n", r->outside_processes, r->outside_sends,
                r->outside_recvs, r->outside_collectives);
    if (r->incomplete_ranks)
        fprintf(to, "  incomplete    %u ranks ended without MPI_Finalize\n", r->incomplete_ranks);
    if (r->drift_dropped)
        fprintf(to, "  drift         not corrected: the sync rounds' estimate contradicted the events\n");
    if (r->ndomains > 1) {
        fprintf(to, "  clocks        offset to the reference [bounds], drift:\n");
        for (uint32_t k = 0; k < r->ndomains && k < SUMMARY_CLOCKS; k++) {
            const struct report_domain *x = &r->domains[k];
            fprintf(to, "    rank %-5d %10s [%s, %s] %+.3f ppm%s%s\n", x->id, human_ns(a, sizeof a, x->offset_ns),
                    human_ns(b, sizeof b, x->lo_ns), human_ns(c, sizeof c, x->hi_ns), x->drift_ppm,
                    x->drift_rejected ? " (not used)" : "",
                    x->has_truth && !x->inside ? " TRUTH OUTSIDE" : "");
        }
        if (r->ndomains > SUMMARY_CLOCKS)
            fprintf(to, "    ... %u clocks in all (report.json lists them)\n", r->ndomains);
    }
    /* (what the merge waited for the causal index is in report.json: causal_index.seconds) */
    fprintf(to, "  time          read %.3f s, match %.3f, solve %.3f, apply %.3f, write %.3f\n", r->seconds_read,
            r->seconds_match, r->seconds_solve, r->seconds_apply, r->seconds_write);
}
