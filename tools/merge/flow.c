/* flow.c — see flow.h. */
#include "flow.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static int pool_push(struct mg_flow *f, uint32_t v)
{
    if (f->npool == f->cpool) {
        size_t c = f->cpool ? f->cpool * 2 : 256;
        uint32_t *nv = realloc(f->pool, sizeof *nv * c);
        if (!nv)
            return -1;
        f->pool = nv;
        f->cpool = c;
    }
    f->pool[f->npool++] = v;
    return 0;
}

/* Groups are built as [sources][sinks] runs in the pool. */
static int group_open(struct mg_flow *f)
{
    if (f->ngroups == f->cgroups) {
        uint32_t c = f->cgroups ? f->cgroups * 2 : 8;
        struct mg_flow_group *nv = realloc(f->groups, sizeof *nv * c);
        if (!nv)
            return -1;
        f->groups = nv;
        f->cgroups = c;
    }
    struct mg_flow_group *g = &f->groups[f->ngroups];
    memset(g, 0, sizeof *g);
    g->src_at = f->npool;
    return 0;
}

static void group_sinks(struct mg_flow *f)
{
    struct mg_flow_group *g = &f->groups[f->ngroups];
    g->nsrc = (uint32_t)(f->npool - g->src_at);
    g->dst_at = f->npool;
}

/* A group without sources or sinks says nothing: dropped. */
static void group_close(struct mg_flow *f)
{
    struct mg_flow_group *g = &f->groups[f->ngroups];
    g->ndst = (uint32_t)(f->npool - g->dst_at);
    if (g->nsrc && g->ndst)
        f->ngroups++;
    else
        f->npool = g->src_at;
}

void mg_flow_reset(struct mg_flow *f)
{
    f->n = 0;
    f->ngroups = 0;
    f->npool = 0;
    f->prefix = MG_SKIP;
    free(f->order);
    f->order = NULL;
}

void mg_flow_free(struct mg_flow *f)
{
    free(f->groups);
    free(f->pool);
    free(f->order);
    free(f->member_of);
    free(f->side);
    memset(f, 0, sizeof *f);
}

static const struct rt_event *exit_event(const struct rt_rank *ranks, const struct mg_member *m)
{
    return &ranks[m->exit.rank].events[m->exit.index];
}

static uint32_t world_of(const struct rt_rank *ranks, const struct mg_member *m)
{
    return (uint32_t)ranks[m->exit.rank].rank;
}

/* The communicator definition the member's exit names (its own view: the
 * remote group on an intercommunicator), or NULL. */
static const struct rt_comm *comm_of(const struct rt_rank *ranks, const struct mg_member *m)
{
    const struct rt_rank *r = &ranks[m->exit.rank];
    uint32_t ref = exit_event(ranks, m)->ref;
    return ref < r->ncomms ? &r->comms[ref] : NULL;
}

static uint32_t member_at(const struct mg_flow *f, uint64_t world)
{
    return world < f->nmember_of ? f->member_of[world] : NONE;
}

/* (communicator rank, member) pairs */
static int by_comm_rank(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

static int set_prefix(struct mg_flow *f, const struct mg_collective *c, enum mg_shape shape)
{
    uint64_t *pairs = malloc(sizeof *pairs * 2 * (c->nmembers ? c->nmembers : 1));
    f->order = malloc(sizeof *f->order * (c->nmembers ? c->nmembers : 1));
    if (!pairs || !f->order) {
        free(pairs);
        return -1;
    }
    for (uint32_t k = 0; k < c->nmembers; k++) {
        pairs[2 * k] = c->members[k].comm_rank;
        pairs[2 * k + 1] = k;
    }
    qsort(pairs, c->nmembers, 2 * sizeof *pairs, by_comm_rank);
    for (uint32_t k = 0; k < c->nmembers; k++)
        f->order[k] = (uint32_t)pairs[2 * k + 1];
    free(pairs);
    f->prefix = shape;
    return 0;
}

/* Per receiver k with recorded sources: the members in those slots that
 * sent bytes (slots name world ranks through `slot_world`). */
static int sparse_group(struct mg_flow *f, const struct rt_rank *ranks, const struct mg_collective *c, uint32_t k,
                        const uint64_t *bits, uint32_t nslots, const uint64_t *slot_world, uint32_t nworld)
{
    if (group_open(f))
        return -1;
    for (uint32_t s = 0; s < nslots && s < nworld; s++) {
        if (bits && !(bits[s / 64] >> (s % 64) & 1))
            continue;
        uint32_t i = member_at(f, slot_world[s]);
        if (i == NONE || i == k || exit_event(ranks, &c->members[i])->bytes == 0)
            continue;
        if (pool_push(f, i))
            return -1;
    }
    group_sinks(f);
    if (pool_push(f, k))
        return -1;
    group_close(f);
    return 0;
}

static int is_all_kind(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return 1;
    default:
        return 0;
    }
}

static int build(struct mg_flow *f, const struct rt_rank *ranks, const struct mg_collective *c)
{
    uint32_t n = c->nmembers;
    enum mg_shape shape = mg_shape_of(c->op);
    if (n < 2)
        return 0;
    if (c->neighbor) {
        for (uint32_t k = 0; k < n; k++) {
            if (exit_event(ranks, &c->members[k])->received == 0)
                continue;
            uint32_t nin, nslots;
            const uint64_t *in = mg_in_neighbours(ranks, &c->members[k], &nin);
            const uint64_t *bits = rt_sources_of(&ranks[c->members[k].exit.rank], c->members[k].exit.index, &nslots);
            if (!in || nslots == RT_SOURCES_UNKNOWN)
                continue;   /* the trace does not say whom it received from */
            if (sparse_group(f, ranks, c, k, bits, nin, in, nin))
                return -1;
        }
        return 0;
    }
    if (shape == MG_SCAN || shape == MG_EXSCAN) {
        for (uint32_t k = 0; k < n; k++)
            if (exit_event(ranks, &c->members[k])->bytes || exit_event(ranks, &c->members[k])->received)
                return set_prefix(f, c, shape);
        return 0;   /* a zero count */
    }
    if (shape == MG_ONE_TO_ALL || shape == MG_ALL_TO_ONE) {
        uint32_t root = c->root >= 0 ? member_at(f, (uint64_t)c->root) : NONE;
        if (root == NONE)
            return 0;   /* the root's events are missing (crashed rank) */
        const struct rt_event *re = exit_event(ranks, &c->members[root]);
        if (shape == MG_ONE_TO_ALL ? re->bytes == 0 : re->received == 0)
            return 0;
        if (group_open(f))
            return -1;
        if (shape == MG_ONE_TO_ALL && pool_push(f, root))
            return -1;
        for (uint32_t k = 0; shape == MG_ALL_TO_ONE && k < n; k++)
            if (k != root && exit_event(ranks, &c->members[k])->bytes && pool_push(f, k))
                return -1;
        group_sinks(f);
        if (shape == MG_ALL_TO_ONE && pool_push(f, root))
            return -1;
        for (uint32_t k = 0; shape == MG_ONE_TO_ALL && k < n; k++)
            if (k != root && exit_event(ranks, &c->members[k])->received && pool_push(f, k))
                return -1;
        group_close(f);
        return 0;
    }
    int barrier = c->op == OTF2_COLLECTIVE_OP_BARRIER;
    if (!barrier && !is_all_kind(c->op))
        return 0;
    /* Two groups on an intercommunicator: a member's definition lists the
     * remote group, so member 0 is not in its own list. */
    if (f->cside < n) {
        uint8_t *ns = realloc(f->side, n);
        if (!ns)
            return -1;
        f->side = ns;
        f->cside = n;
    }
    memset(f->side, 0, n);
    int inter = 0;
    const struct rt_comm *c0 = comm_of(ranks, &c->members[0]);
    if (c0) {
        uint32_t w0 = world_of(ranks, &c->members[0]);
        inter = 1;
        for (uint32_t s = 0; s < c0->nmembers && inter; s++)
            inter = c0->members[s] != w0;
        for (uint32_t s = 0; inter && s < c0->nmembers; s++) {
            uint32_t k = member_at(f, c0->members[s]);
            if (k != NONE)
                f->side[k] = 1;
        }
    }
    /* Receivers that recorded sparse sources get a group each; the rest
     * (every source or none) share the dense groups. */
    uint8_t *dense = calloc(n, 1);
    if (!dense)
        return -1;
    int rc = 0;
    for (uint32_t k = 0; k < n && !rc; k++) {
        const struct rt_event *e = exit_event(ranks, &c->members[k]);
        if (!barrier && e->received == 0)
            continue;
        uint32_t nslots = 0;
        const uint64_t *bits = barrier ? NULL : rt_sources_of(&ranks[c->members[k].exit.rank], c->members[k].exit.index,
                                                              &nslots);
        if (!nslots) {
            dense[k] = 1;
        } else if (bits) {
            const struct rt_comm *ck = comm_of(ranks, &c->members[k]);
            if (ck)
                rc = sparse_group(f, ranks, c, k, bits, nslots, ck->members, ck->nmembers);
        }   /* RT_SOURCES_UNKNOWN: nothing known, nothing forced */
    }
    for (int s = 0; s <= inter && !rc; s++) {
        /* intra: everybody to everybody; inter: side s to side 1 - s */
        rc = group_open(f);
        for (uint32_t k = 0; k < n && !rc; k++)
            if ((!inter || f->side[k] == s) && (barrier || exit_event(ranks, &c->members[k])->bytes))
                rc = pool_push(f, k);
        if (rc)
            break;
        group_sinks(f);
        for (uint32_t k = 0; k < n && !rc; k++)
            if ((!inter || f->side[k] != s) && dense[k])
                rc = pool_push(f, k);
        if (!rc)
            group_close(f);
    }
    free(dense);
    return rc;
}

int mg_flow_of(const struct rt_rank *ranks, uint32_t nranks, const struct mg_collective *c, struct mg_flow *f)
{
    mg_flow_reset(f);
    f->n = c->nmembers;
    if (f->nmember_of < nranks) {
        uint32_t *nv = realloc(f->member_of, sizeof *nv * (nranks ? nranks : 1));
        if (!nv)
            return -1;
        for (uint32_t w = f->nmember_of; w < nranks; w++)
            nv[w] = NONE;
        f->member_of = nv;
        f->nmember_of = nranks;
    }
    for (uint32_t k = 0; k < c->nmembers; k++) {
        uint32_t w = world_of(ranks, &c->members[k]);
        if (w < f->nmember_of && f->member_of[w] == NONE)
            f->member_of[w] = k;
    }
    int rc = build(f, ranks, c);
    for (uint32_t k = 0; k < c->nmembers; k++) {
        uint32_t w = world_of(ranks, &c->members[k]);
        if (w < f->nmember_of)
            f->member_of[w] = NONE;
    }
    if (rc) {
        mg_flow_reset(f);
        return -1;
    }
    for (uint32_t g = 0; g < f->ngroups; g++) {
        f->groups[g].src = f->pool + f->groups[g].src_at;
        f->groups[g].dst = f->pool + f->groups[g].dst_at;
    }
    return 0;
}

int mg_flow_pair(const struct mg_flow *f, uint32_t i, uint32_t j)
{
    if (i == j)
        return 0;
    for (uint32_t g = 0; g < f->ngroups; g++) {
        const struct mg_flow_group *x = &f->groups[g];
        int s = 0, d = 0;
        for (uint32_t a = 0; a < x->nsrc && !s; a++)
            s = x->src[a] == i;
        for (uint32_t a = 0; s && a < x->ndst && !d; a++)
            d = x->dst[a] == j;
        if (s && d)
            return 1;
    }
    if (f->order) {
        uint32_t pi = 0, pj = 0;
        for (uint32_t p = 0; p < f->n; p++) {
            if (f->order[p] == i)
                pi = p;
            if (f->order[p] == j)
                pj = p;
        }
        return f->prefix == MG_SCAN ? pi <= pj : pi < pj;
    }
    return 0;
}

size_t mg_flow_violations(const struct rt_rank *ranks, uint32_t nranks, const struct mg_result *match,
                          uint64_t *const *times, int neighbour)
{
    struct mg_flow f = { 0 };
    size_t bad = 0;
    for (size_t i = 0; i < match->ncollectives; i++) {
        const struct mg_collective *c = &match->collectives[i];
        if (!c->neighbor != !neighbour)
            continue;
        if (mg_flow_of(ranks, nranks, c, &f) != 0)
            break;
        size_t here = 0;
#define ENTRY(k) times[c->members[k].enter.rank][c->members[k].enter.index]
#define EXIT(k) times[c->members[k].exit.rank][c->members[k].exit.index]
        for (uint32_t g = 0; g < f.ngroups; g++) {
            const struct mg_flow_group *x = &f.groups[g];
            if (neighbour) {   /* pairs: a neighbourhood group has one sink */
                for (uint32_t d = 0; d < x->ndst; d++)
                    for (uint32_t s = 0; s < x->nsrc; s++)
                        here += EXIT(x->dst[d]) < ENTRY(x->src[s]);
                continue;
            }
            uint64_t max_in = 0, min_out = UINT64_MAX;
            for (uint32_t s = 0; s < x->nsrc; s++)
                if (ENTRY(x->src[s]) > max_in)
                    max_in = ENTRY(x->src[s]);
            for (uint32_t d = 0; d < x->ndst; d++)
                if (EXIT(x->dst[d]) < min_out)
                    min_out = EXIT(x->dst[d]);
            here += min_out < max_in;
        }
        if (f.order) {
            uint64_t max_in = 0;
            for (uint32_t p = 0; p < f.n; p++) {
                uint32_t k = f.order[p];
                if (f.prefix == MG_SCAN && ENTRY(k) > max_in)
                    max_in = ENTRY(k);
                here += p > 0 && EXIT(k) < max_in;
                if (ENTRY(k) > max_in)
                    max_in = ENTRY(k);
            }
        }
#undef ENTRY
#undef EXIT
        bad += neighbour ? here : here > 0;
    }
    mg_flow_free(&f);
    return bad;
}
