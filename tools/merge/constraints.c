/* constraints.c — see constraints.h.
 *
 * A message sent at corrected time s on domain u and received at r on v
 * gives  s + x_u + lmin <= r + x_v,  i.e. x_u - x_v <= r - s - lmin.
 * Only the tightest bound per ordered pair of domains matters, so message
 * edges are reduced to one per pair before the solver sees them.
 * Collectives, per their semantics:
 *   all-to-all kinds: every entry before every exit — a hub h with
 *     x_v - x_h <= -max entry on v,  x_h - x_w <= min exit on w;
 *   one-to-all (bcast, scatter): the root's entry before every exit;
 *   all-to-one (reduce, gather): every entry before the root's exit;
 *   scan/exscan: the entries of ranks <= r (< r) before the exit of r,
 *     through a chain of prefix hubs.
 * Every bound keeps a margin of ROUNDING_MARGIN_NS, so that rounding the
 * global times to whole nanoseconds (monotone) can never turn a bound met
 * within the solver's tolerance into a 1 ns tachyon: a >= b + 1 implies
 * round(a) >= round(b).
 *   neighbourhood collectives: each member's exit after the entries of its
 *     in-neighbours, as the tracer recorded the topology (one edge each).
 * Leaving a constraint out (an operation whose semantics the trace does not
 * tell) never makes a result wrong, only less precise. */
#include "constraints.h"

#include <math.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDING_MARGIN_NS 1.0

struct pair_min {
    uint64_t *keys;      /* (u << 32 | v) + 1, 0 = empty */
    double *w;
    size_t cap, n;
};

static int pair_put(struct pair_min *p, uint32_t u, uint32_t v, double w)
{
    if ((p->n + 1) * 2 > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        uint64_t *keys = calloc(cap, sizeof *keys);
        double *ws = malloc(sizeof *ws * cap);
        if (!keys || !ws) {
            free(keys);
            free(ws);
            return -1;
        }
        for (size_t i = 0; i < p->cap; i++) {
            if (!p->keys[i])
                continue;
            size_t s = (size_t)((p->keys[i] * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
            while (keys[s])
                s = (s + 1) & (cap - 1);
            keys[s] = p->keys[i];
            ws[s] = p->w[i];
        }
        free(p->keys);
        free(p->w);
        p->keys = keys;
        p->w = ws;
        p->cap = cap;
    }
    uint64_t key = (((uint64_t)u << 32) | v) + 1;
    size_t s = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (p->cap - 1);
    for (; p->keys[s]; s = (s + 1) & (p->cap - 1))
        if (p->keys[s] == key) {
            if (w < p->w[s])
                p->w[s] = w;
            return 0;
        }
    p->keys[s] = key;
    p->w[s] = w;
    p->n++;
    return 0;
}

static double corrected(const struct rt_rank *ranks, const struct cm_model *m, struct mg_event_ref e)
{
    return cm_corrected(m, e.rank, ranks[e.rank].events[e.index].time);
}

static uint32_t vertex(const struct rt_rank *ranks, const struct cm_model *m, struct mg_event_ref e)
{
    return cm_vertex(m, e.rank, ranks[e.rank].events[e.index].time);
}

/* Per-domain extreme entry and exit of one collective instance. */
struct side {
    double max_enter, min_exit;
    int seen;
};


struct hub_edge {
    uint32_t u, v;
    double w;
};

/* Vertex numbers are uint32_t, and UINT32_MAX means none. */
#define MAX_VERTICES (UINT32_MAX - 1)

struct sv_graph *cs_build(const struct rt_rank *ranks, const struct cm_model *m, const struct mg_result *match,
                          double lmin, struct cs_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    uint32_t nd = m->ndomains;
    uint32_t nclock = cm_nvertices(m);   /* clock vertices: (domain, segment, window) */
    struct pair_min pairs = { 0 };
    struct hub_edge *hub = NULL;
    size_t nhub = 0, chub = 0;
    uint32_t nvert = nclock;
    struct side *sides = calloc(nclock ? nclock : 1, sizeof *sides);
    struct side *exits = calloc(nclock ? nclock : 1, sizeof *exits);
    uint32_t *member_of = malloc(sizeof *member_of * (m->nranks ? m->nranks : 1));   /* world rank -> member */
    struct sv_graph *g = NULL;
    if (!sides || !exits || !member_of)
        goto fail;
    for (uint32_t r = 0; r < m->nranks; r++)
        member_of[r] = UINT32_MAX;

#define HUB_EDGE(a, b, weight)                                                       \
    do {                                                                             \
        if (nhub == chub) {                                                          \
            size_t c_ = chub ? chub * 2 : 1024;                                      \
            struct hub_edge *nv_ = realloc(hub, sizeof *hub * c_);                   \
            if (!nv_) goto fail;                                                     \
            hub = nv_;                                                               \
            chub = c_;                                                               \
        }                                                                            \
        hub[nhub++] = (struct hub_edge){ (a), (b), (weight) };                       \
    } while (0)

    /* messages, then the one-sided orderings, which are the same kind of
     * fact: one event precedes another on another clock */
    for (size_t i = 0; i < match->nmessages + match->nrma_flows; i++) {
        const struct mg_message *msg = i < match->nmessages ? &match->messages[i]
                                                             : &match->rma_flows[i - match->nmessages];
        uint32_t du = m->domain_of[msg->send.rank], dv = m->domain_of[msg->recv.rank];
        uint32_t u = vertex(ranks, m, msg->send), v = vertex(ranks, m, msg->recv);
        if (u == v) {
            stats->skipped_same_clock++;   /* one offset: nothing to learn about offsets */
            continue;
        }
        /* one clock's segments: its own ticks order the two, no latency assumed */
        double l = du == dv ? 0 : lmin;
        double w = corrected(ranks, m, msg->recv) - corrected(ranks, m, msg->send) - l
                   - ROUNDING_MARGIN_NS;
        if (pair_put(&pairs, u, v, w) != 0)
            goto fail;
        stats->message_edges++;
    }

    for (size_t i = 0; i < match->ncollectives; i++) {
        const struct mg_collective *c = &match->collectives[i];
        enum mg_shape sh = mg_shape_of(c->op);
        if (c->neighbor) {
            /* each member's exit follows the entries of its in-neighbours:
             * one edge per (member, in-neighbour), O(P * degree) */
            for (uint32_t k = 0; k < c->nmembers; k++)
                member_of[c->members[k].enter.rank] = k;
            for (uint32_t k = 0; k < c->nmembers; k++) {
                uint32_t nin;
                const uint64_t *in = mg_in_neighbours(ranks, &c->members[k], &nin);
                if (!in)
                    stats->skipped_neighbor++;
                struct mg_event_ref out = c->members[k].exit;
                for (uint32_t j = 0; in && j < nin; j++) {
                    if (in[j] >= m->nranks || member_of[in[j]] == UINT32_MAX)
                        continue;   /* a neighbour that never got there (crashed rank) */
                    struct mg_event_ref src = c->members[member_of[in[j]]].enter;
                    uint32_t u = vertex(ranks, m, src), v = vertex(ranks, m, out);
                    if (u == v)
                        continue;
                    if (pair_put(&pairs, u, v, corrected(ranks, m, out) - corrected(ranks, m, src) - ROUNDING_MARGIN_NS))
                        goto fail;
                    stats->neighbour_edges++;
                }
            }
            for (uint32_t k = 0; k < c->nmembers; k++)
                member_of[c->members[k].enter.rank] = UINT32_MAX;
            continue;
        }
        if (sh == MG_SKIP)
            continue;
        if (c->nmembers < 2)
            continue;
        if (sh == MG_SCAN || sh == MG_EXSCAN) {
            /* prefix hubs in communicator rank order */
            struct mg_member *mem = malloc(sizeof *mem * c->nmembers);
            if (!mem)
                goto fail;
            memcpy(mem, c->members, sizeof *mem * c->nmembers);
            for (uint32_t a = 1; a < c->nmembers; a++)   /* insertion sort by comm rank: small */
                for (uint32_t b = a; b > 0 && mem[b - 1].comm_rank > mem[b].comm_rank; b--) {
                    struct mg_member t = mem[b];
                    mem[b] = mem[b - 1];
                    mem[b - 1] = t;
                }
            if (c->nmembers > MAX_VERTICES - nvert) {   /* a hub vertex per member */
                stats->too_large = 1;
                free(mem);
                goto fail;
            }
            uint32_t first_hub = nvert;
            for (uint32_t k = 0; k < c->nmembers; k++) {
                uint32_t h = first_hub + k, d = vertex(ranks, m, mem[k].enter);
                HUB_EDGE(d, h, -corrected(ranks, m, mem[k].enter));
                if (k > 0)
                    HUB_EDGE(h - 1, h, 0.0);
                if (sh == MG_SCAN)
                    HUB_EDGE(h, vertex(ranks, m, mem[k].exit), corrected(ranks, m, mem[k].exit) - ROUNDING_MARGIN_NS);
                else if (k + 1 < c->nmembers)
                    HUB_EDGE(h, vertex(ranks, m, mem[k + 1].exit),
                             corrected(ranks, m, mem[k + 1].exit) - ROUNDING_MARGIN_NS);
            }
            nvert += c->nmembers;
            stats->hubs += c->nmembers;
            stats->collective_edges += 3 * (size_t)c->nmembers;
            free(mem);
            continue;
        }
        /* Reduce the instance to each clock vertex's latest entry and
         * earliest exit. A call's entry and exit can lie in different
         * vertices (a periodic sync round inside a world collective opens a
         * new segment), so the two are kept apart. */
        const struct mg_member *root = NULL;
        for (uint32_t k = 0; k < c->nmembers; k++) {
            const struct mg_member *x = &c->members[k];
            if (c->root >= 0 && x->enter.rank == (uint32_t)c->root)
                root = x;
            struct side *s = &sides[vertex(ranks, m, x->enter)], *e = &exits[vertex(ranks, m, x->exit)];
            double in = corrected(ranks, m, x->enter), out = corrected(ranks, m, x->exit);
            s->max_enter = s->seen ? fmax(s->max_enter, in) : in;
            s->seen = 1;
            e->min_exit = e->seen ? fmin(e->min_exit, out) : out;
            e->seen = 1;
        }
        if ((sh == MG_ONE_TO_ALL || sh == MG_ALL_TO_ONE) && !root) {
            for (uint32_t k = 0; k < c->nmembers; k++) {
                sides[vertex(ranks, m, c->members[k].enter)].seen = 0;
                exits[vertex(ranks, m, c->members[k].exit)].seen = 0;
            }
            continue;   /* the root's events are missing (crashed rank) */
        }
        if (nvert >= MAX_VERTICES) {   /* room for this instance's hub vertex */
            stats->too_large = 1;
            goto fail;
        }
        uint32_t h = nvert;
        int used_hub = 0;
        for (uint32_t k = 0; k < c->nmembers; k++) {
            uint32_t d = vertex(ranks, m, c->members[k].enter), dx = vertex(ranks, m, c->members[k].exit);
            if (sides[d].seen) {
                sides[d].seen = 0;
                if (sh == MG_ALL_TO_ALL) {
                    HUB_EDGE(d, h, -sides[d].max_enter);
                    used_hub = 1;
                    stats->collective_edges++;
                } else if (sh == MG_ALL_TO_ONE && d != vertex(ranks, m, root->exit)) {
                    /* every entry before the root's exit */
                    double w = corrected(ranks, m, root->exit) - sides[d].max_enter - ROUNDING_MARGIN_NS;
                    if (pair_put(&pairs, d, vertex(ranks, m, root->exit), w))
                        goto fail;
                    stats->collective_edges++;
                }
            }
            if (exits[dx].seen) {
                exits[dx].seen = 0;
                if (sh == MG_ALL_TO_ALL) {
                    HUB_EDGE(h, dx, exits[dx].min_exit - ROUNDING_MARGIN_NS);
                    used_hub = 1;
                    stats->collective_edges++;
                } else if (sh == MG_ONE_TO_ALL && dx != vertex(ranks, m, root->enter)) {
                    /* the root's entry before every exit */
                    double w = exits[dx].min_exit - corrected(ranks, m, root->enter) - ROUNDING_MARGIN_NS;
                    if (pair_put(&pairs, vertex(ranks, m, root->enter), dx, w))
                        goto fail;
                    stats->collective_edges++;
                }
            }
        }
        if (used_hub) {
            nvert++;
            stats->hubs++;
        }
    }

    /* Consecutive vertices of one clock (segments, or windows inside them):
     * the offset may move by at most the drift bound times the distance
     * between their middles (DESIGN.md, segment continuity) ... */
    uint32_t nclk = cm_nvertices(m);
    for (uint32_t a = 0; a + 1 < nclk; a++) {
        uint32_t da, db;
        double la, lena, lb, lenb;
        cm_vertex_span(m, a, &da, &la, &lena);
        cm_vertex_span(m, a + 1, &db, &lb, &lenb);
        if (da != db)
            continue;
        double step = m->max_drift * ((lb + lenb / 2) - (la + lena / 2));
        HUB_EDGE(a, a + 1, step);
        HUB_EDGE(a + 1, a, step);
    }
    /* ... and never so much that a rank's events reorder: where consecutive
     * events of a rank lie in different vertices a < b, the later one stays
     * at or after the earlier one: x_a - x_b <= c(later) - c(earlier). */
    if (nclk > nd)
        for (uint32_t r = 0; r < m->nranks; r++) {
            const struct rt_rank *rk = &ranks[r];
            uint32_t prev_v = UINT32_MAX;
            double prev_c = 0;
            for (uint64_t i = 0; i < rk->nevents; i++) {
                uint32_t v = cm_vertex(m, r, rk->events[i].time);
                double c = cm_corrected(m, r, rk->events[i].time);
                if (prev_v != UINT32_MAX && v != prev_v) {
                    if (pair_put(&pairs, prev_v, v, c - prev_c) != 0)
                        goto fail;
                    stats->continuity_edges++;
                }
                prev_v = v;
                prev_c = c;
            }
        }
    g = sv_graph_new(nvert, pairs.n + nhub);
    if (!g)
        goto fail;
    for (size_t i = 0; i < pairs.cap; i++)
        if (pairs.keys[i]) {
            uint64_t key = pairs.keys[i] - 1;
            if (sv_add_edge(g, (uint32_t)(key >> 32), (uint32_t)key, pairs.w[i]) != 0)
                goto fail;
        }
    for (size_t i = 0; i < nhub; i++)
        if (sv_add_edge(g, hub[i].u, hub[i].v, hub[i].w) != 0)
            goto fail;
    if (sv_finish(g) != 0)
        goto fail;
    free(pairs.keys);
    free(pairs.w);
    free(hub);
    free(sides);
    free(exits);
    free(member_of);
    return g;
fail:
    if (g)
        sv_graph_free(g);
    free(pairs.keys);
    free(pairs.w);
    free(hub);
    free(sides);
    free(exits);
    free(member_of);
    return NULL;
#undef HUB_EDGE
}
