/* flow.c — see flow.h. */
#include "flow.h"
#include "collstream.h"

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
    memset(f, 0, sizeof *f);
}

/* The communicator definition the member's exit names (its own view: the
 * remote group on an intercommunicator), or NULL. */
static const struct rt_comm *comm_of(const struct rt_location *ranks, const struct mg_member *m)
{
    const struct rt_location *r = &ranks[m->exit.rank];
    return m->comm_ref < r->ncomms ? &r->comms[m->comm_ref] : NULL;
}

static int facts_push(struct mg_facts *x, uint32_t v)
{
    if (x->npool == x->cpool) {
        size_t c = x->cpool ? x->cpool * 2 : 256;
        uint32_t *nv = realloc(x->pool, sizeof *nv * c);
        if (!nv)
            return -1;
        x->pool = nv;
        x->cpool = c;
    }
    x->pool[x->npool++] = v;
    return 0;
}

/* Member k received only from the slots set in bits (all slots when bits
 * is NULL), slot s naming world rank slot_world[s]. */
static int facts_sources(struct mg_facts *x, struct mg_member *mk, uint32_t k, const uint64_t *bits, uint32_t nslots,
                         const uint64_t *slot_world, uint32_t nworld)
{
    mk->sparse = 1;
    mk->src_at = x->npool;
    for (uint32_t s = 0; s < nslots && s < nworld; s++) {
        if (bits && !(bits[s / 64] >> (s % 64) & 1))
            continue;
        uint32_t i = slot_world[s] < x->n ? x->member_of[slot_world[s]] : NONE;
        if (i != NONE && i != k && facts_push(x, i))
            return -1;
    }
    mk->nsrc = (uint32_t)(x->npool - mk->src_at);
    return 0;
}

/* a member's world rank (its thread's location borrows the rank's) */
#define WORLD(k) ((uint32_t)ranks[c->members[k].exit.rank].rank)

int mg_flow_facts_begin(struct mg_facts *x, const struct rt_location *ranks, uint32_t nranks)
{
    memset(x, 0, sizeof *x);
    x->ranks = ranks;
    x->n = nranks;
    if (!(x->member_of = calloc(nranks ? nranks : 1, sizeof *x->member_of)))
        return -1;
    for (uint32_t w = 0; w < nranks; w++)
        x->member_of[w] = NONE;
    return 0;
}

void mg_flow_facts_end(struct mg_facts *x, struct mg_result *out)
{
    free(x->member_of);
    out->sources = x->pool;
    out->nsources = x->npool;
    memset(x, 0, sizeof *x);
}

void mg_flow_facts_abandon(struct mg_facts *x)
{
    free(x->member_of);
    free(x->pool);
    memset(x, 0, sizeof *x);
}

int mg_flow_facts_one(struct mg_facts *x, struct mg_collective *c)
{
    const struct rt_location *ranks = x->ranks;
    uint32_t nranks = x->n;
    int rc = 0;
    {
        for (uint32_t k = 0; k < c->nmembers; k++)
            if (WORLD(k) < nranks)
                x->member_of[WORLD(k)] = k;
        /* Two groups on an intercommunicator: a definition lists one of
         * them (a raw archive the member's remote group), so some member
         * is not in member 0's list; side 1 is the listed group. */
        const struct rt_comm *c0 = c->nmembers ? comm_of(ranks, &c->members[0]) : NULL;
        if (c0 && !c->neighbor) {
            for (uint32_t s = 0; s < c0->nmembers; s++) {
                uint32_t k = c0->members[s] < nranks ? x->member_of[c0->members[s]] : NONE;
                if (k != NONE)
                    c->members[k].side = 1;
            }
            for (uint32_t k = 0; k < c->nmembers && !c->inter; k++)
                c->inter = c->members[k].side == 0;
            for (uint32_t k = 0; !c->inter && k < c->nmembers; k++)
                c->members[k].side = 0;   /* an intracommunicator: one side */
        }
        for (uint32_t k = 0; k < c->nmembers && !rc; k++) {
            struct mg_member *mk = &c->members[k];
            uint32_t nslots;
            const uint64_t *bits = rt_sources_of(&ranks[mk->exit.rank], mk->exit.index, &nslots);
            if (c->neighbor) {
                uint32_t nin;
                const uint64_t *in = mg_in_neighbours(ranks, mk, &nin);
                if (!in || nslots == RT_SOURCES_UNKNOWN)
                    mk->sparse = 1;   /* whom it received from is not known: nothing */
                else
                    rc = facts_sources(x, mk, k, bits, nin, in, nin);
            } else if (nslots == RT_SOURCES_UNKNOWN) {
                mk->sparse = 1;
            } else if (bits) {
                /* slot s is the rank s its peers name: on an intercommunicator, of the other group */
                const struct rt_comm *ck = comm_of(ranks, mk);
                uint32_t npeers = 0;
                const uint64_t *peers = ck ? rt_peer_group(&ranks[mk->exit.rank], ck, &npeers) : NULL;
                if (ck)
                    rc = facts_sources(x, mk, k, bits, nslots, peers, npeers);
                else
                    mk->sparse = 1;
            }
        }
        for (uint32_t k = 0; k < c->nmembers; k++)
            if (WORLD(k) < nranks)
                x->member_of[WORLD(k)] = NONE;
    }
    return rc ? -1 : 0;
}

#undef WORLD

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

/* The all-to-all kinds that move data (a barrier moves none). */
static int is_all_kind(uint32_t op)
{
    return op != OTF2_COLLECTIVE_OP_BARRIER && mg_shape_of(op) == MG_ALL_TO_ALL;
}

#define SENDS(k) (!(c->members[k].quiet & MG_QUIET_SEND))
#define RECEIVES(k) (!(c->members[k].quiet & MG_QUIET_RECV))

/* A sparse receiver's group: its recorded sources that sent bytes. */
static int sparse_group(struct mg_flow *f, const struct mg_result *m, const struct mg_collective *c, uint32_t k)
{
    const struct mg_member *mk = &c->members[k];
    if (group_open(f))
        return -1;
    for (uint32_t a = 0; a < mk->nsrc; a++) {
        uint32_t i = m->sources[mk->src_at + a];
        if (i < c->nmembers && i != k && SENDS(i) && pool_push(f, i))
            return -1;
    }
    group_sinks(f);
    if (pool_push(f, k))
        return -1;
    group_close(f);
    return 0;
}

static int build(struct mg_flow *f, const struct mg_result *m, const struct mg_collective *c)
{
    uint32_t n = c->nmembers;
    enum mg_shape shape = mg_shape_of(c->op);
    if (n < 2)
        return 0;
    if (c->neighbor) {
        for (uint32_t k = 0; k < n; k++)
            if (RECEIVES(k) && c->members[k].sparse && sparse_group(f, m, c, k))
                return -1;
        return 0;   /* a member whose in-neighbours are not known constrains nothing */
    }
    if (shape == MG_SCAN || shape == MG_EXSCAN) {
        for (uint32_t k = 0; k < n; k++)
            if (SENDS(k) || RECEIVES(k))
                return set_prefix(f, c, shape);
        return 0;   /* a zero count */
    }
    if (shape == MG_ONE_TO_ALL || shape == MG_ALL_TO_ONE) {
        uint32_t root = NONE;
        for (uint32_t k = 0; k < n && root == NONE; k++)
            if (c->root >= 0 && c->members[k].enter.rank == (uint32_t)c->root)
                root = k;
        if (root == NONE || (shape == MG_ONE_TO_ALL ? !SENDS(root) : !RECEIVES(root)))
            return 0;   /* the root's events are missing (crashed rank), or it moved nothing */
        if (group_open(f))
            return -1;
        if (shape == MG_ONE_TO_ALL && pool_push(f, root))
            return -1;
        for (uint32_t k = 0; shape == MG_ALL_TO_ONE && k < n; k++)
            if (k != root && SENDS(k) && pool_push(f, k))
                return -1;
        group_sinks(f);
        if (shape == MG_ALL_TO_ONE && pool_push(f, root))
            return -1;
        for (uint32_t k = 0; shape == MG_ONE_TO_ALL && k < n; k++)
            if (k != root && RECEIVES(k) && pool_push(f, k))
                return -1;
        group_close(f);
        return 0;
    }
    int barrier = c->op == OTF2_COLLECTIVE_OP_BARRIER;
    if (!barrier && !is_all_kind(c->op))
        return 0;
    /* Sparse receivers get a group each; the rest share the dense groups:
     * everybody to everybody, or on an intercommunicator side s to 1 - s. */
    for (uint32_t k = 0; k < n && !barrier; k++)
        if (RECEIVES(k) && c->members[k].sparse && sparse_group(f, m, c, k))
            return -1;
    for (int s = 0; s <= (c->inter != 0); s++) {
        if (group_open(f))
            return -1;
        for (uint32_t k = 0; k < n; k++)
            if ((!c->inter || c->members[k].side == s) && (barrier || SENDS(k)) && pool_push(f, k))
                return -1;
        group_sinks(f);
        for (uint32_t k = 0; k < n; k++)
            if ((!c->inter || c->members[k].side != s) && (barrier || (RECEIVES(k) && !c->members[k].sparse))
                && pool_push(f, k))
                return -1;
        group_close(f);
    }
    return 0;
}

#undef SENDS
#undef RECEIVES

int mg_flow_of(const struct mg_result *m, const struct mg_collective *c, struct mg_flow *f)
{
    mg_flow_reset(f);
    f->n = c->nmembers;
    if (build(f, m, c) != 0) {
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

static uint64_t from_arrays(const void *ctx, const struct mg_event_ref *e)
{
    uint64_t *const *times = ctx;
    return times[e->rank][e->index];
}

size_t mg_flow_violations(const struct mg_result *match, uint64_t *const *times, int neighbour)
{
    return mg_flow_violations_at(match, from_arrays, times, neighbour);
}

size_t mg_flow_violations_at(const struct mg_result *match,
                             uint64_t (*at)(const void *ctx, const struct mg_event_ref *e), const void *ctx,
                             int neighbour)
{
    struct mg_flow f = { 0 };
    size_t bad = 0;
    struct mg_coll_reader colls;   /* a failed read ends the walk: the caller checks mg_colls_error */
    mg_colls_begin(match, &colls);
    for (const struct mg_collective *c; (c = mg_colls_next(&colls));) {
        if (!c->neighbor != !neighbour)
            continue;
        if (mg_flow_of(match, c, &f) != 0)
            break;
        size_t here = 0;
#define ENTRY(k) at(ctx, &c->members[k].enter)
#define EXIT(k) at(ctx, &c->members[k].exit)
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
    mg_colls_end(&colls);
    mg_flow_free(&f);
    return bad;
}
