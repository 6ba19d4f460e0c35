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

/* What cs_build's steps share: the model, where the edges go (the table of
 * the tightest bound per pair, the hubs) and their counts, and what one
 * collective instance needs: its data flow, each clock vertex's latest
 * entry and earliest exit in a group, scratch arrays grown as needed. All
 * freed in one place (building_free). */
struct building {
    const struct rt_location *ranks;
    const struct cm_model *m;
    struct hub_store *hubs;
    struct cs_stats *stats;
    struct pair_min pairs;
    struct side *sides, *exits;   /* per clock vertex */
    struct mg_flow flow;
    uint32_t *su, *sv;            /* a group's distinct source and sink vertices */
    size_t csu, csv;
    double *wa, *wb;              /* their weights (a group's hub, a chain) */
    uint32_t *xv;                 /* a chain's exits */
    size_t cwa, cwb, cxv;
};

static void building_free(struct building *b)
{
    pmin_free(&b->pairs);
    free(b->sides);
    free(b->exits);
    mg_flow_free(&b->flow);
    free(b->su);
    free(b->sv);
    free(b->wa);
    free(b->wb);
    free(b->xv);
}

/* Messages, then the one-sided orderings, which are the same kind of
 * fact: one event precedes another on another clock. */
static int message_edges(struct building *b, const struct mg_result *match, double lmin)
{
    const struct cm_model *m = b->m;
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
            b->stats->skipped_same_clock++;   /* one offset: nothing to learn about offsets */
            continue;
        }
        /* one clock's segments: its own ticks order the two, no latency assumed */
        double l = du == dv ? 0 : lmin;
        double w = corrected(m, msg->recv) - corrected(m, msg->send) - l
                   - ROUNDING_MARGIN_NS;
        if (pmin_put(&b->pairs, u, v, w) < 0)
            return -1;
        b->stats->message_edges++;
    }
    return mg_msgs_error(match) ? -1 : 0;   /* the caller says why */
}

/* Scan or exscan with few members: each exit after the entries of the
 * positions up to its own (scan) or before it (exscan), direct. */
static int prefix_edges(struct building *b, const struct mg_collective *c)
{
    const struct cm_model *m = b->m;
    const struct mg_flow *flow = &b->flow;
    int inclusive = flow->prefix == MG_SCAN;
    for (uint32_t k = 0; k < flow->n; k++) {
        const struct mg_member *mk = &c->members[flow->order[k]];
        uint32_t dv = vertex(m, mk->exit);
        double out = corrected(m, mk->exit);
        for (uint32_t j = 0; j < k + (uint32_t)inclusive; j++) {
            const struct mg_member *mj = &c->members[flow->order[j]];
            uint32_t du = vertex(m, mj->enter);
            if (du == dv)
                continue;   /* one clock: its ticks order them */
            if (pmin_put(&b->pairs, du, dv, out - corrected(m, mj->enter) - ROUNDING_MARGIN_NS) < 0)
                return -1;
            b->stats->collective_edges++;
        }
    }
    return 0;
}

/* Scan or exscan with many members: prefix hubs in communicator rank
 * order (hubstore.c makes their edges): entry k into hub k, hub k-1 into
 * hub k, hub k into the exit it bounds. */
static int prefix_chain(struct building *b, const struct mg_collective *c)
{
    const struct cm_model *m = b->m;
    const struct mg_flow *flow = &b->flow;
    enum mg_shape sh = flow->prefix;
    if (ensure_scratch(&b->su, &b->csu, flow->n) || ensure_scratch(&b->xv, &b->cxv, flow->n)
        || ensure_weights(&b->wa, &b->cwa, flow->n) || ensure_weights(&b->wb, &b->cwb, flow->n))
        return -1;
    for (uint32_t k = 0; k < flow->n; k++) {
        const struct mg_member *mk = &c->members[flow->order[k]];
        b->su[k] = vertex(m, mk->enter);
        b->wa[k] = -corrected(m, mk->enter);
        const struct mg_member *bound = sh == MG_SCAN ? mk
                                        : k + 1 < flow->n ? &c->members[flow->order[k + 1]] : NULL;
        b->xv[k] = bound ? vertex(m, bound->exit) : UINT32_MAX;
        b->wb[k] = bound ? corrected(m, bound->exit) - ROUNDING_MARGIN_NS : 0;
    }
    if (hs_add_chain(b->hubs, flow->n, b->su, b->wa, b->xv, b->wb) != 0)
        return -1;
    b->stats->hubs += flow->n;
    b->stats->collective_edges += 3 * (size_t)flow->n;
    return 0;
}

/* Group x reduced to each clock vertex's latest entry (sides) and earliest
 * exit (exits): a call's entry and exit can lie in different vertices (a
 * periodic sync round inside a world collective opens a new segment).
 * Out: the distinct vertices on each side, su[0 .. nu) and sv[0 .. nv),
 * their entries marked seen = 2 until group_edges clears them. */
static int reduce_group(struct building *b, const struct mg_collective *c, const struct mg_flow_group *x,
                        uint32_t *nu_out, uint32_t *nv_out)
{
    const struct cm_model *m = b->m;
    struct side *sides = b->sides, *exits = b->exits;
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
            if (ensure_scratch(&b->su, &b->csu, nu + 1))
                return -1;
            b->su[nu++] = d;
        }
    }
    for (uint32_t a = 0; a < x->ndst; a++) {
        uint32_t d = vertex(m, c->members[x->dst[a]].exit);
        if (exits[d].seen == 1) {
            exits[d].seen = 2;
            if (ensure_scratch(&b->sv, &b->csv, nv + 1))
                return -1;
            b->sv[nv++] = d;
        }
    }
    *nu_out = nu;
    *nv_out = nv;
    return 0;
}

/* A reduced group as direct edges into the pairs' table, one per pair of
 * its distinct vertices (neighbour: a neighbourhood collective's). */
static int group_direct(struct building *b, int neighbour, uint32_t nu, uint32_t nv)
{
    for (uint32_t a = 0; a < nu; a++)
        for (uint32_t k = 0; k < nv; k++) {
            if (b->su[a] == b->sv[k])
                continue;   /* one clock: its ticks order them */
            double w = b->exits[b->sv[k]].min_exit - b->sides[b->su[a]].max_enter - ROUNDING_MARGIN_NS;
            if (pmin_put(&b->pairs, b->su[a], b->sv[k], w) < 0)
                return -1;
            b->stats->collective_edges++;
            if (neighbour)
                b->stats->neighbour_edges++;
        }
    return 0;
}

/* A reduced group through a hub (hubstore.c: in the graph, or kept beside
 * it): x_v - x_h <= -max entry on v,  x_h - x_w <= min exit on w. */
static int group_hub(struct building *b, uint32_t nu, uint32_t nv)
{
    if (ensure_weights(&b->wa, &b->cwa, nu) || ensure_weights(&b->wb, &b->cwb, nv))
        return -1;
    for (uint32_t a = 0; a < nu; a++)
        b->wa[a] = -b->sides[b->su[a]].max_enter;
    for (uint32_t k = 0; k < nv; k++)
        b->wb[k] = b->exits[b->sv[k]].min_exit - ROUNDING_MARGIN_NS;
    if (hs_add_group(b->hubs, nu, b->su, b->wa, nv, b->sv, b->wb) != 0)
        return -1;
    b->stats->hubs++;
    b->stats->collective_edges += (size_t)nu + nv;
    return 0;
}

/* One group of a collective: every source's entry before every sink's
 * exit, through each side's extreme per clock vertex; one source or one
 * sink, or few vertices (SMALL_GROUP): direct edges, else a hub. */
static int group_edges(struct building *b, const struct mg_collective *c, const struct mg_flow_group *x)
{
    uint32_t nu, nv;
    if (reduce_group(b, c, x, &nu, &nv) != 0)
        return -1;
    int direct = nu == 1 || nv == 1 || (uint64_t)nu * nv <= SMALL_GROUP * ((uint64_t)nu + nv);
    if ((direct ? group_direct(b, c->neighbor, nu, nv) : group_hub(b, nu, nv)) != 0)
        return -1;
    /* clear for the next group */
    for (uint32_t a = 0; a < nu; a++)
        b->sides[b->su[a]].seen = 0;
    for (uint32_t k = 0; k < nv; k++)
        b->exits[b->sv[k]].seen = 0;
    return 0;
}

/* The collectives, read in order with colls, by their data flow (flow.h):
 * a scan's or exscan's prefix order, then each group of sources and
 * sinks. Members of a neighbourhood collective whose topology the trace
 * does not hold are counted (their groups are what flow.h could tell). */
static int collective_edges(struct building *b, const struct mg_result *match, struct mg_coll_reader *colls)
{
    struct mg_flow *flow = &b->flow;
    for (const struct mg_collective *c; (c = mg_colls_next(colls));) {
        if (mg_flow_of(match, c, flow) != 0)
            return -1;
        if (c->neighbor)
            for (uint32_t k = 0; k < c->nmembers; k++) {
                uint32_t nin;
                if (!mg_in_neighbours(b->ranks, &c->members[k], &nin))
                    b->stats->skipped_neighbor++;
            }
        int rc = 0;
        if (flow->order && (uint64_t)flow->n * (flow->n + 1) / 2 <= SMALL_GROUP * 3 * (uint64_t)flow->n)
            rc = prefix_edges(b, c);
        else if (flow->order)
            rc = prefix_chain(b, c);
        for (uint32_t g = 0; rc == 0 && g < flow->ngroups; g++)
            rc = group_edges(b, c, &flow->groups[g]);
        if (rc != 0)
            return -1;
    }
    return mg_colls_error(match) ? -1 : 0;   /* the caller says why */
}

/* Consecutive vertices of one clock (segments, or windows inside them):
 * the offset may move by at most the drift bound times the distance
 * between their middles (docs/design.md, segment continuity) ... */
static int drift_step_edges(struct building *b)
{
    const struct cm_model *m = b->m;
    uint32_t nclk = cm_nvertices(m);
    for (uint32_t a = 0; a + 1 < nclk; a++) {
        uint32_t da, db;
        double la, lena, lb, lenb;
        cm_vertex_span(m, a, &da, &la, &lena);
        cm_vertex_span(m, a + 1, &db, &lb, &lenb);
        if (da != db)
            continue;
        double step = m->pinned == da + 1 ? 0 : m->max_drift * ((lb + lenb / 2) - (la + lena / 2));
        if (pmin_put(&b->pairs, a, a + 1, step) < 0 || pmin_put(&b->pairs, a + 1, a, step) < 0)
            return -1;
    }
    return 0;
}

/* ... and never so much that a rank's events reorder: where consecutive
 * events of a rank lie in different vertices a < b, the later one stays
 * at or after the earlier one: x_a - x_b <= c(later) - c(earlier). Only
 * where some clock has more than one vertex. */
static int rank_order_edges(struct building *b)
{
    const struct cm_model *m = b->m;
    if (cm_nvertices(m) <= m->ndomains)
        return 0;
    for (uint32_t r = 0; r < m->nranks; r++) {
        const struct rt_location *rk = &b->ranks[r];
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, rk);
        uint32_t prev_v = UINT32_MAX;
        double prev_c = 0;
        for (uint64_t i = 0; i < rk->nevents; i++) {
            uint64_t t = rt_time_read(&tr, i);
            uint32_t v = cm_vertex(m, r, t);
            double c = cm_corrected(m, r, t);
            if (prev_v != UINT32_MAX && v != prev_v && pmin_put(&b->pairs, prev_v, v, c - prev_c) < 0) {
                rt_time_reader_free(&tr);
                return -1;
            }
            b->stats->continuity_edges += prev_v != UINT32_MAX && v != prev_v;
            prev_v = v;
            prev_c = c;
        }
        rt_time_reader_free(&tr);
    }
    return 0;
}

/* The graph of it all: the pairs' table and the hubs' edges, the hubs'
 * vertices after the clocks'. The table's memory goes before the graph's
 * CSR is made. NULL when out of memory or too large (stats->too_large). */
static struct sv_graph *graph_of(struct building *b)
{
    uint32_t nvert = cm_nvertices(b->m);
    if (hs_plan(b->hubs, nvert, hs_explicit_edges(), &nvert) != 0) {
        b->stats->too_large = 1;
        return NULL;
    }
    struct hub_store *hubs = b->hubs;
    struct sv_graph *g = sv_graph_new(nvert, b->pairs.n + (hubs->lazy ? 0 : (size_t)hubs->group_edges)
                                                 + 3 * hubs->chain_hubs);
    if (!g)
        return NULL;
    for (size_t i = 0; i < b->pairs.n; i++)
        if (sv_add_edge(g, b->pairs.u[i], b->pairs.v[i], b->pairs.w[i]) != 0)
            goto fail;
    if (hs_add_edges(hubs, g, cm_nvertices(b->m)) != 0)
        goto fail;
    pmin_free(&b->pairs);   /* the graph has them */
    if (sv_finish(g) != 0)
        goto fail;
    hubs->base_edges = sv_edges(g);
    return g;
fail:
    sv_graph_free(g);
    return NULL;
}

struct sv_graph *cs_build(const struct rt_location *ranks, const struct cm_model *m, const struct mg_result *match,
                          double lmin, struct hub_store *hubs, struct cs_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    uint32_t nclock = cm_nvertices(m);   /* clock vertices: (domain, segment, window) */
    struct building b = { .ranks = ranks, .m = m, .hubs = hubs, .stats = stats };
    b.sides = calloc(nclock ? nclock : 1, sizeof *b.sides);
    b.exits = calloc(nclock ? nclock : 1, sizeof *b.exits);
    struct sv_graph *g = NULL;
    struct mg_coll_reader colls;   /* the instances, in order, held or set aside */
    mg_colls_begin(match, &colls);
    if (b.sides && b.exits && message_edges(&b, match, lmin) == 0 && collective_edges(&b, match, &colls) == 0
        && drift_step_edges(&b) == 0 && rank_order_edges(&b) == 0)
        g = graph_of(&b);
    mg_colls_end(&colls);
    building_free(&b);
    return g;
}
