/* constraints.c — see constraints.h.
 *
 * A message sent at corrected time s on domain u and received at r on v
 * gives  s + x_u + lmin <= r + x_v,  i.e. x_u - x_v <= r - s - lmin.
 * Only the tightest bound per ordered pair of domains matters, so message
 * edges are reduced to one per pair before the solver sees them.
 * Collectives, by their data flow (tools/match/flow.h, the one rule): each
 *   group of sources and sinks as direct edges (into the pairs' table, the
 *   tightest per pair) when one side is a single clock vertex or the group
 *   has few vertices (SMALL_GROUP), else through a hub h with
 *     x_v - x_h <= -max entry on v,  x_h - x_w <= min exit on w;
 *   scan/exscan: the entries of ranks <= r (< r) before the exit of r,
 *     direct for few members, else through a chain of prefix hubs.
 * Every bound keeps a margin of ROUNDING_MARGIN_NS, so that rounding the
 * global times to whole nanoseconds (monotone) can never turn a bound met
 * within the solver's tolerance into a 1 ns tachyon: a >= b + 1 implies
 * round(a) >= round(b).
 *   neighbourhood collectives: each member's exit after the entries of the
 *     in-neighbours it received bytes from, as the tracer recorded the
 *     topology (a group per member).
 * Leaving a constraint out (an operation whose semantics the trace does not
 * tell) never makes a result wrong, only less precise. */
#include "constraints.h"
#include "collstream.h"
#include "eventspill.h"
#include "flow.h"
#include "hubstore.h"
#include "pairmin.h"
#include "msgstream.h"

#include <math.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDING_MARGIN_NS 1.0

/* A group of nu source and nv sink vertices (both > 1) is nu x nv direct
 * constraints, or a hub vertex and nu + nv edges. The direct ones go into
 * the table of the tightest constraint per pair of vertices, which does
 * not grow with the instances: a hub per instance does (a vertex and its
 * edges, some 80 bytes per member). So direct edges while they are at
 * most SMALL_GROUP times the hub's (up to 8 x 8 vertices): a trace of few
 * clocks and many collectives (2 to 8 ranks, an allreduce in a loop)
 * then adds nothing per instance; the bounds are the same (a path through
 * the hub is the sum of the two edges the direct one adds). */
#define SMALL_GROUP 4

/* An event's corrected time and clock vertex, from the raw time the match
 * took with it. */
static double corrected(const struct cm_model *m, struct mg_event_ref e)
{
    return cm_corrected(m, e.rank, e.time);
}

static uint32_t vertex(const struct cm_model *m, struct mg_event_ref e)
{
    return cm_vertex(m, e.rank, e.time);
}

/* Per-domain extreme entry and exit of one collective instance. */
struct side {
    double max_enter, min_exit;
    int seen;
};


/* p, or where realloc moved it, with room for n elements of `size` bytes
 * (capacity *cap); NULL if that failed (p is then unchanged). */
static void *room_for(void *p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap)
        return p;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < n)
        c *= 2;
    void *np = realloc(p, size * c);
    if (np)
        *cap = c;
    return np;
}

static int ensure_scratch(uint32_t **v, size_t *cap, size_t n)
{
    uint32_t *nv = room_for(*v, cap, n, sizeof **v);
    return nv ? (*v = nv, 0) : -1;
}

static int ensure_weights(double **w, size_t *cap, size_t n)
{
    double *nw = room_for(*w, cap, n, sizeof **w);
    return nw ? (*w = nw, 0) : -1;
}

struct sv_graph *cs_build(const struct rt_location *ranks, const struct cm_model *m, const struct mg_result *match,
                          double lmin, struct hub_store *hubs, struct cs_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    uint32_t nd = m->ndomains;
    uint32_t nclock = cm_nvertices(m);   /* clock vertices: (domain, segment, window) */
    struct pair_min pairs = { 0 };
    uint32_t nvert = nclock;
    struct side *sides = calloc(nclock ? nclock : 1, sizeof *sides);
    struct side *exits = calloc(nclock ? nclock : 1, sizeof *exits);
    struct sv_graph *g = NULL;
    struct mg_flow flow = { 0 };
    struct mg_coll_reader colls;   /* the instances, in order, held or set aside */
    mg_colls_begin(match, &colls);
    uint32_t *su = NULL, *sv = NULL;   /* a group's distinct source and sink vertices */
    size_t csu = 0, csv = 0;
    double *wa = NULL, *wb = NULL;     /* their weights (a group's hub, a chain) */
    uint32_t *xv = NULL;               /* a chain's exits */
    size_t cwa = 0, cwb = 0, cxv = 0;
    if (!sides || !exits)
        goto fail;


    /* messages, then the one-sided orderings, which are the same kind of
     * fact: one event precedes another on another clock */
    struct mg_msg_reader it;
    mg_msgs_begin(match, &it);
    for (size_t nflows = 0;;) {
        const struct mg_message *msg = mg_msgs_next(&it);
        if (!msg && nflows == match->nrma_flows)
            break;
        if (!msg)
            msg = &match->rma_flows[nflows++];
        uint32_t du = m->domain_of[msg->send.rank], dv = m->domain_of[msg->recv.rank];
        uint32_t u = vertex(m, msg->send), v = vertex(m, msg->recv);
        if (u == v) {
            stats->skipped_same_clock++;   /* one offset: nothing to learn about offsets */
            continue;
        }
        /* one clock's segments: its own ticks order the two, no latency assumed */
        double l = du == dv ? 0 : lmin;
        double w = corrected(m, msg->recv) - corrected(m, msg->send) - l
                   - ROUNDING_MARGIN_NS;
        if (pmin_put(&pairs, u, v, w) < 0)
            goto fail;
        stats->message_edges++;
    }
    if (mg_msgs_error(match))
        goto fail;   /* the caller says why */

    for (const struct mg_collective *c; (c = mg_colls_next(&colls));) {
        if (mg_flow_of(match, c, &flow) != 0)
            goto fail;
        if (c->neighbor)
            for (uint32_t k = 0; k < c->nmembers; k++) {
                uint32_t nin;
                if (!mg_in_neighbours(ranks, &c->members[k], &nin))
                    stats->skipped_neighbor++;
            }
        if (flow.order && (uint64_t)flow.n * (flow.n + 1) / 2 <= SMALL_GROUP * 3 * (uint64_t)flow.n) {
            /* few members: each exit after the entries of the positions up
             * to its own (scan) or before it (exscan), direct */
            int inclusive = flow.prefix == MG_SCAN;
            for (uint32_t k = 0; k < flow.n; k++) {
                const struct mg_member *mk = &c->members[flow.order[k]];
                uint32_t dv = vertex(m, mk->exit);
                double out = corrected(m, mk->exit);
                for (uint32_t j = 0; j < k + (uint32_t)inclusive; j++) {
                    const struct mg_member *mj = &c->members[flow.order[j]];
                    uint32_t du = vertex(m, mj->enter);
                    if (du == dv)
                        continue;   /* one clock: its ticks order them */
                    if (pmin_put(&pairs, du, dv, out - corrected(m, mj->enter) - ROUNDING_MARGIN_NS) < 0)
                        goto fail;
                    stats->collective_edges++;
                }
            }
        } else if (flow.order) {
            /* prefix hubs in communicator rank order (hubstore.c makes
             * their edges): entry k into hub k, hub k-1 into hub k, hub k
             * into the exit it bounds */
            enum mg_shape sh = flow.prefix;
            if (ensure_scratch(&su, &csu, flow.n) || ensure_scratch(&xv, &cxv, flow.n)
                || ensure_weights(&wa, &cwa, flow.n) || ensure_weights(&wb, &cwb, flow.n))
                goto fail;
            for (uint32_t k = 0; k < flow.n; k++) {
                const struct mg_member *mk = &c->members[flow.order[k]];
                su[k] = vertex(m, mk->enter);
                wa[k] = -corrected(m, mk->enter);
                const struct mg_member *bound = sh == MG_SCAN ? mk
                                                : k + 1 < flow.n ? &c->members[flow.order[k + 1]] : NULL;
                xv[k] = bound ? vertex(m, bound->exit) : UINT32_MAX;
                wb[k] = bound ? corrected(m, bound->exit) - ROUNDING_MARGIN_NS : 0;
            }
            if (hs_add_chain(hubs, flow.n, su, wa, xv, wb) != 0)
                goto fail;
            stats->hubs += flow.n;
            stats->collective_edges += 3 * (size_t)flow.n;
        }
        /* Each group: every source's entry before every sink's exit. Reduce
         * it to each clock vertex's latest entry and earliest exit (a
         * call's entry and exit can lie in different vertices: a periodic
         * sync round inside a world collective opens a new segment); one
         * source or one sink: direct edges, else a hub h with
         * x_v - x_h <= -max entry on v,  x_h - x_w <= min exit on w. */
        for (uint32_t g = 0; g < flow.ngroups; g++) {
            const struct mg_flow_group *x = &flow.groups[g];
            for (uint32_t a = 0; a < x->nsrc; a++) {
                struct mg_event_ref e = c->members[x->src[a]].enter;
                struct side *sd = &sides[vertex(m, e)];
                double in = corrected(m, e);
                sd->max_enter = sd->seen ? fmax(sd->max_enter, in) : in;
                sd->seen = 1;
            }
            for (uint32_t a = 0; a < x->ndst; a++) {
                struct mg_event_ref e = c->members[x->dst[a]].exit;
                struct side *ex = &exits[vertex(m, e)];
                double out = corrected(m, e);
                ex->min_exit = ex->seen ? fmin(ex->min_exit, out) : out;
                ex->seen = 1;
            }
            /* the distinct vertices on each side, listed in place */
            uint32_t nu = 0, nv = 0;
            for (uint32_t a = 0; a < x->nsrc; a++) {
                uint32_t d = vertex(m, c->members[x->src[a]].enter);
                if (sides[d].seen == 1) {
                    sides[d].seen = 2;
                    if (ensure_scratch(&su, &csu, nu + 1))
                        goto fail;
                    su[nu++] = d;
                }
            }
            for (uint32_t a = 0; a < x->ndst; a++) {
                uint32_t d = vertex(m, c->members[x->dst[a]].exit);
                if (exits[d].seen == 1) {
                    exits[d].seen = 2;
                    if (ensure_scratch(&sv, &csv, nv + 1))
                        goto fail;
                    sv[nv++] = d;
                }
            }
            if (nu == 1 || nv == 1 || (uint64_t)nu * nv <= SMALL_GROUP * ((uint64_t)nu + nv)) {
                for (uint32_t a = 0; a < nu; a++)
                    for (uint32_t b = 0; b < nv; b++) {
                        if (su[a] == sv[b])
                            continue;   /* one clock: its ticks order them */
                        double w = exits[sv[b]].min_exit - sides[su[a]].max_enter - ROUNDING_MARGIN_NS;
                        if (pmin_put(&pairs, su[a], sv[b], w) < 0)
                            goto fail;
                        stats->collective_edges++;
                        if (c->neighbor)
                            stats->neighbour_edges++;
                    }
            } else {
                /* a hub (hubstore.c: in the graph, or kept beside it) */
                if (ensure_weights(&wa, &cwa, nu) || ensure_weights(&wb, &cwb, nv))
                    goto fail;
                for (uint32_t a = 0; a < nu; a++)
                    wa[a] = -sides[su[a]].max_enter;
                for (uint32_t b = 0; b < nv; b++)
                    wb[b] = exits[sv[b]].min_exit - ROUNDING_MARGIN_NS;
                if (hs_add_group(hubs, nu, su, wa, nv, sv, wb) != 0)
                    goto fail;
                stats->hubs++;
                stats->collective_edges += (size_t)nu + nv;
            }
            for (uint32_t a = 0; a < nu; a++)
                sides[su[a]].seen = 0;
            for (uint32_t b = 0; b < nv; b++)
                exits[sv[b]].seen = 0;
        }
    }

    if (mg_colls_error(match))
        goto fail;   /* the caller says why */

    /* Consecutive vertices of one clock (segments, or windows inside them):
     * the offset may move by at most the drift bound times the distance
     * between their middles (docs/design.md, segment continuity) ... */
    uint32_t nclk = cm_nvertices(m);
    for (uint32_t a = 0; a + 1 < nclk; a++) {
        uint32_t da, db;
        double la, lena, lb, lenb;
        cm_vertex_span(m, a, &da, &la, &lena);
        cm_vertex_span(m, a + 1, &db, &lb, &lenb);
        if (da != db)
            continue;
        double step = m->max_drift * ((lb + lenb / 2) - (la + lena / 2));
        if (pmin_put(&pairs, a, a + 1, step) < 0 || pmin_put(&pairs, a + 1, a, step) < 0)
            goto fail;
    }
    /* ... and never so much that a rank's events reorder: where consecutive
     * events of a rank lie in different vertices a < b, the later one stays
     * at or after the earlier one: x_a - x_b <= c(later) - c(earlier). */
    if (nclk > nd)
        for (uint32_t r = 0; r < m->nranks; r++) {
            const struct rt_location *rk = &ranks[r];
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, rk);
            uint32_t prev_v = UINT32_MAX;
            double prev_c = 0;
            for (uint64_t i = 0; i < rk->nevents; i++) {
                uint64_t t = rt_time_read(&tr, i);
                uint32_t v = cm_vertex(m, r, t);
                double c = cm_corrected(m, r, t);
                if (prev_v != UINT32_MAX && v != prev_v && pmin_put(&pairs, prev_v, v, c - prev_c) < 0) {
                    rt_time_reader_free(&tr);
                    goto fail;
                }
                stats->continuity_edges += prev_v != UINT32_MAX && v != prev_v;
                prev_v = v;
                prev_c = c;
            }
            rt_time_reader_free(&tr);
        }
    /* the hubs' vertices follow the clocks' */
    if (hs_plan(hubs, nvert, hs_explicit_edges(), &nvert) != 0) {
        stats->too_large = 1;
        goto fail;
    }
    g = sv_graph_new(nvert, pairs.n + (hubs->lazy ? 0 : (size_t)hubs->group_edges) + 3 * hubs->chain_hubs);
    if (!g)
        goto fail;
    for (size_t i = 0; i < pairs.n; i++)
        if (sv_add_edge(g, pairs.u[i], pairs.v[i], pairs.w[i]) != 0)
            goto fail;
    if (hs_add_edges(hubs, g, cm_nvertices(m)) != 0)
        goto fail;
    /* the graph has them: their memory goes before the graph's CSR is made */
    pmin_free(&pairs);
    if (sv_finish(g) != 0)
        goto fail;
    hubs->base_edges = sv_edges(g);
    goto done;
fail:
    if (g)
        sv_graph_free(g);
    g = NULL;
done:
    mg_colls_end(&colls);
    pmin_free(&pairs);
    free(sides);
    free(exits);
    mg_flow_free(&flow);
    free(su);
    free(sv);
    free(wa);
    free(wb);
    free(xv);
    return g;
}
