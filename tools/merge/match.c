/* match.c — see match.h. Everything is done by sorting: sends and receives
 * by (communicator, sender, receiver, tag, order), collective calls by
 * (communicator, rank, order); then equal keys are walked side by side. */
#include "match.h"
#include "table.h"
#include "flow.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- communicator keys -> global ids ---------- */

struct interner {
    uint64_t *keys;      /* by id */
    uint32_t n, cap;
    uint32_t *slots;     /* open addressing: id + 1, 0 = empty */
    uint32_t nslots;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static int intern(struct interner *in, uint64_t key, uint32_t *id, int *fresh)
{
    if ((in->n + 1) * 2 > in->nslots) {
        uint32_t ns = in->nslots ? in->nslots * 2 : 64;
        uint32_t *slots = calloc(ns, sizeof *slots);
        if (!slots)
            return -1;
        for (uint32_t i = 0; i < in->n; i++) {
            uint32_t s = (uint32_t)(mix64(in->keys[i]) & (ns - 1));
            while (slots[s])
                s = (s + 1) & (ns - 1);
            slots[s] = i + 1;
        }
        free(in->slots);
        in->slots = slots;
        in->nslots = ns;
    }
    uint32_t s = (uint32_t)(mix64(key) & (in->nslots - 1));
    for (; in->slots[s]; s = (s + 1) & (in->nslots - 1))
        if (in->keys[in->slots[s] - 1] == key) {
            *id = in->slots[s] - 1;
            *fresh = 0;
            return 0;
        }
    if (in->n == in->cap && st_grow((void **)&in->keys, &in->cap, sizeof *in->keys) != 0)
        return -1;
    in->keys[in->n] = key;
    in->slots[s] = in->n + 1;
    *id = in->n++;
    *fresh = 1;
    return 0;
}

/* The global identity of a rank's communicator: its agreed key; every
 * MPI_COMM_SELF one; a trace without keys (older tracers wrote the key as
 * the name, synctrace-gen names them), its name. */
#define SELF_KEY 0x5e1f5e1f5e1f5e1fULL
static uint64_t identity(const struct rt_comm *c)
{
    if (c->self)
        return SELF_KEY;
    if (c->has_key)
        return c->key;
    return hash_str(c->name ? c->name : "") ^ 0x6e616d65ULL;   /* "name" */
}

static uint64_t *copy_u64(const uint64_t *v, uint32_t n)
{
    uint64_t *c = malloc(sizeof *c * (n ? n : 1));
    if (c && n)
        memcpy(c, v, sizeof *c * n);
    return c;
}

/* The caller's rank in its communicator (its local group), or 0. */
static uint32_t local_rank(const struct rt_comm *c, uint32_t me)
{
    const uint64_t *v = c->inter ? c->local : c->members;
    uint32_t n = c->inter ? c->nlocal : c->nmembers;
    for (uint32_t m = 0; v && m < n; m++)
        if (v[m] == me)
            return m;
    for (uint32_t m = 0; c->inter && c->both_groups && m < c->nmembers; m++)
        if (c->members[m] == me)
            return m;
    return 0;
}

/* ---------- request ids -> event, per rank ---------- */

/* Request ids are unique per rank, not per location: one thread may post a
 * request and another complete it. */
struct req_index {
    uint32_t rank, stream;    /* world rank; the location that posted it */
    uint64_t req, index;      /* index: of the posting event (nbc: bit 63 = neighbourhood) */
};

static int by_req(const void *a, const void *b)
{
    const struct req_index *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->req > y->req) - (x->req < y->req);
}

/* qsort, but an empty array may be NULL (qsort's is declared nonnull) */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n)
        qsort(v, n, size, cmp);
}

static const struct req_index *find_req(const struct req_index *v, size_t n, uint32_t rank, uint64_t req)
{
    struct req_index key = { rank, 0, req, 0 };
    return n ? bsearch(&key, v, n, sizeof *v, by_req) : NULL;   /* v may be NULL when empty */
}

/* ---------- messages ---------- */

/* One per send and receive of the trace, so kept small (40 bytes): the
 * event as two fields (an mg_event_ref has padding), its length read from
 * the event when the pair is made. */
struct endpoint {
    uint32_t comm, src, dst, tag;   /* src, dst: world ranks */
    uint64_t order;           /* issue (sends) or posting (receives) time on the rank's clock: the
                               * rank's threads, each a location of its own, interleave by it */
    uint64_t index;           /* the event: its index on location `stream` */
    uint32_t stream;
    uint32_t open;            /* a receive released by MPI_Request_free: its completion is not known */
};

static struct mg_event_ref event_of(const struct endpoint *e)
{
    return (struct mg_event_ref){ e->stream, e->index };
}

/* (communicator, sender, receiver, tag) */
static int by_channel(const struct endpoint *x, const struct endpoint *y)
{
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst) return x->dst < y->dst ? -1 : 1;
    return (x->tag > y->tag) - (x->tag < y->tag);
}

/* the channel, then issue or posting order */
static int by_key(const void *a, const void *b)
{
    const struct endpoint *x = a, *y = b;
    int c = by_channel(x, y);
    if (c) return c;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int same_key(const struct endpoint *x, const struct endpoint *y)
{
    return x->comm == y->comm && x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

/* ---------- collectives ---------- */

struct call {
    uint32_t comm, rank, op, comm_rank;   /* rank: the world rank (its threads' calls interleave by time) */
    int root, neighbor;
    int root_self;            /* the caller is the root (MPI_ROOT on an intercommunicator) */
    uint64_t order;
    struct mg_event_ref enter, exit;
};

static int by_call(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->enter.rank != y->enter.rank) return x->enter.rank < y->enter.rank ? -1 : 1;
    return (x->enter.index > y->enter.index) - (x->enter.index < y->enter.index);
}

#define PUSH(vec, n, cap, item)                                                      \
    do {                                                                             \
        if ((n) == (cap)) {                                                          \
            size_t c_ = (cap) ? (cap) * 2 : 1024;                                    \
            void *nv_ = realloc((vec), sizeof *(vec) * c_);                          \
            if (!nv_) goto oom;                                                      \
            (vec) = nv_;                                                             \
            (cap) = c_;                                                              \
        }                                                                            \
        (vec)[(n)++] = (item);                                                       \
    } while (0)

static int is_neighbor_region(const struct rt_rank *r, uint32_t region)
{
    return region < r->nregions && r->regions[region]
           && (strncmp(r->regions[region], "MPI_Neighbor_", 13) == 0
               || strncmp(r->regions[region], "MPI_Ineighbor_", 14) == 0);
}

int mg_match(const struct rt_rank *ranks, uint32_t nranks, struct mg_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct interner names = { 0 };
    uint32_t **comm_ids = calloc(nranks ? nranks : 1, sizeof *comm_ids);
    struct endpoint *sends = NULL, *recvs = NULL;
    size_t nsends = 0, csends = 0, nrecvs = 0, crecvs = 0;
    struct call *calls = NULL;
    size_t ncalls = 0, ccalls = 0;
    struct req_index *posted = NULL, *cancelled = NULL, *nbc = NULL;
    size_t nposted = 0, cposted = 0, ncancelled = 0, ccancelled = 0, nnbc = 0, cnbc = 0;
    if (!comm_ids)
        goto oom;
    for (uint32_t r = 0; r < nranks; r++)   /* the ranks' main locations */
        out->nworld += !ranks[r].thread;

    for (uint32_t r = 0; r < nranks; r++) {
        const struct rt_rank *rk = &ranks[r];
        comm_ids[r] = malloc(sizeof **comm_ids * (rk->ncomms ? rk->ncomms : 1));
        if (!comm_ids[r])
            goto oom;
        for (uint32_t c = 0; c < rk->ncomms; c++) {
            int fresh;
            if (intern(&names, identity(&rk->comms[c]), &comm_ids[r][c], &fresh) != 0)
                goto oom;
        }
    }
    out->ncomms = names.n;
    out->comms = calloc(names.n ? names.n : 1, sizeof *out->comms);
    if (!out->comms)
        goto oom;
    for (uint32_t r = 0; r < nranks; r++)
        for (uint32_t c = 0; c < ranks[r].ncomms; c++) {
            struct mg_comm *g = &out->comms[comm_ids[r][c]];
            const struct rt_comm *rc = &ranks[r].comms[c];
            if (g->name)
                continue;
            g->name = strdup(rc->name ? rc->name : "");
            g->key = identity(rc);
            g->self = rc->self;
            g->inter = rc->inter;
            if (rc->self) {
                g->members = copy_u64(NULL, 0);
            } else if (rc->inter) {
                /* group A: this rank's side (or the archive's A); B: the remote side */
                g->size = rc->nlocal;
                g->members = copy_u64(rc->local, rc->nlocal);
                g->size_b = rc->nmembers;
                if (!(g->members_b = copy_u64(rc->members, rc->nmembers)))
                    goto oom;
            } else {
                g->size = rc->nmembers;
                g->members = copy_u64(rc->members, rc->nmembers);
            }
            if (!g->name || !g->members)
                goto oom;
        }

    /* First pass, over every location: where each receive request was
     * posted, which requests were cancelled, and where non-blocking
     * collectives were posted. */
    for (uint32_t r = 0; r < nranks; r++) {
        const struct rt_rank *rk = &ranks[r];
        uint32_t region = UINT32_MAX;
        for (uint64_t i = 0; i < rk->nevents; i++) {
            const struct rt_event ev = rt_event_at(rk, i), *e = &ev;
            if (e->kind == RT_ENTER)
                region = e->ref;
            struct req_index ri = { (uint32_t)rk->rank, r, e->req, i };
            if (e->kind == RT_IRECV_REQUEST)
                PUSH(posted, nposted, cposted, ri);
            else if (e->kind == RT_CANCELLED)
                PUSH(cancelled, ncancelled, ccancelled, ri);
            else if (e->kind == RT_NBC_REQUEST) {
                ri.index = i | (is_neighbor_region(rk, region) ? 1ULL << 63 : 0);
                PUSH(nbc, nnbc, cnbc, ri);
            }
        }
    }
    sort(posted, nposted, sizeof *posted, by_req);
    sort(cancelled, ncancelled, sizeof *cancelled, by_req);
    sort(nbc, nnbc, sizeof *nbc, by_req);

    for (uint32_t r = 0; r < nranks; r++) {
        const struct rt_rank *rk = &ranks[r];
        uint32_t region;
        uint64_t open_begin = UINT64_MAX;
        int open_neighbor = 0;
        region = UINT32_MAX;
        uint32_t me = (uint32_t)rk->rank;
        uint64_t entered = 0;   /* when the current MPI call began: a blocking receive is posted then */
        for (uint64_t i = 0; i < rk->nevents; i++) {
            const struct rt_event ev = rt_event_at(rk, i), *e = &ev;
            uint32_t comm = e->ref < rk->ncomms ? comm_ids[r][e->ref] : UINT32_MAX;
            struct endpoint ep = { comm, 0, 0, e->tag, e->time, i, r, 0 };
            switch (e->kind) {
            case RT_ENTER:
                region = e->ref;
                entered = e->time;
                break;
            case RT_ISEND:
                if (find_req(cancelled, ncancelled, me, e->req)) {
                    out->cancelled++;
                    break;
                }
                /* fall through */
            case RT_SEND: {
                int dst = rt_world_rank(rk, e->ref, e->peer);
                if (dst >= (int)out->nworld) {   /* to a process outside the trace */
                    out->outside_sends++;
                    break;
                }
                ep.src = me;
                ep.dst = dst < 0 ? UINT32_MAX : (uint32_t)dst;
                PUSH(sends, nsends, csends, ep);
                break;
            }
            case RT_IRECV: {
                const struct req_index *p = find_req(posted, nposted, me, e->req);
                ep.order = p ? ranks[p->stream].events[p->index].time : e->time;
            }
                goto receive;
            case RT_RECV:
                ep.order = entered;
            receive: {
                int src = rt_world_rank(rk, e->ref, e->peer);
                if (src >= (int)out->nworld) {   /* from a process outside the trace */
                    out->outside_recvs++;
                    break;
                }
                ep.src = src < 0 ? UINT32_MAX : (uint32_t)src;
                ep.dst = me;
                PUSH(recvs, nrecvs, crecvs, ep);
                break;
            }
            case RT_CANCELLED:
                if (find_req(posted, nposted, me, e->req))
                    out->cancelled++;
                break;
            case RT_IRECV_FREED: {
                /* It takes its turn where it was posted; a wildcard one
                 * cannot be placed (its send is reported unmatched). */
                if (e->peer == RT_ANY || e->tag == RT_ANY)
                    break;
                const struct req_index *p = find_req(posted, nposted, me, e->req);
                int src = rt_world_rank(rk, e->ref, e->peer);
                if (src >= (int)out->nworld)
                    break;   /* from a process outside the trace: nothing to pair */
                ep.order = p ? ranks[p->stream].events[p->index].time : e->time;
                ep.src = src < 0 ? UINT32_MAX : (uint32_t)src;
                ep.dst = me;
                ep.open = 1;
                PUSH(recvs, nrecvs, crecvs, ep);
                break;
            }
            case RT_COLL_BEGIN:
                open_begin = i;
                open_neighbor = is_neighbor_region(rk, region);
                break;
            case RT_COLL_END:
            case RT_NBC_COMPLETE: {
                struct call c = { comm, me, e->tag, 0, -1, 0, 0, 0, { r, 0 }, { r, i } };
                /* The root: MPI_ROOT on an intercommunicator is the caller
                 * itself; MPI_PROC_NULL (the rest of the root's group) names
                 * none; else a rank of the (remote) group. */
                if (e->peer == OTF2_COLLECTIVE_ROOT_SELF) {
                    c.root = (int)me;
                    c.root_self = 1;
                }
                else if (e->peer < OTF2_COLLECTIVE_ROOT_THIS_GROUP)
                    c.root = rt_world_rank(rk, e->ref, e->peer);
                if (e->kind == RT_COLL_END) {
                    if (open_begin == UINT64_MAX)
                        break;   /* an end without a begin: not a call we can place */
                    c.enter.index = open_begin;
                    c.order = rk->events[open_begin].time;
                    c.neighbor = open_neighbor;
                    open_begin = UINT64_MAX;
                } else {
                    const struct req_index *p = find_req(nbc, nnbc, me, e->req);
                    if (!p)
                        break;
                    c.enter = (struct mg_event_ref){ p->stream, p->index & ~(1ULL << 63) };
                    c.order = ranks[p->stream].events[c.enter.index].time;
                    c.neighbor = (p->index >> 63) != 0;
                }
                /* the caller's rank in the communicator (an intercommunicator's: in its local group) */
                if (e->ref < rk->ncomms)
                    c.comm_rank = local_rank(&rk->comms[e->ref], me);
                PUSH(calls, ncalls, ccalls, c);
                break;
            }
            default:
                break;
            }
        }
    }

    /* The request tables' last reader was that pass: their room goes to the sort. */
    free(posted);
    free(cancelled);
    free(nbc);
    posted = cancelled = nbc = NULL;

    /* Messages: walk equal keys side by side, k-th send with k-th receive. */
    sort(sends, nsends, sizeof *sends, by_key);
    sort(recvs, nrecvs, sizeof *recvs, by_key);
    size_t cmsg = 0, cus = 0, cur = 0;
    size_t i = 0, j = 0;
    while (i < nsends || j < nrecvs) {
        int cmp = i >= nsends ? 1 : j >= nrecvs ? -1 : 0;
        if (!cmp)
            cmp = by_channel(&sends[i], &recvs[j]);
        if (cmp < 0) {
            struct mg_unmatched u = { event_of(&sends[i]), sends[i].comm, sends[i].dst, sends[i].tag };
            PUSH(out->unmatched_sends, out->nunmatched_sends, cus, u);
            i++;
        } else if (cmp > 0) {
            if (!recvs[j].open) {
                struct mg_unmatched u = { event_of(&recvs[j]), recvs[j].comm, recvs[j].src, recvs[j].tag };
                PUSH(out->unmatched_recvs, out->nunmatched_recvs, cur, u);
            }
            j++;
        } else {
            size_t i_end = i, j_end = j;
            while (i_end < nsends && same_key(&sends[i_end], &sends[i])) i_end++;
            while (j_end < nrecvs && same_key(&recvs[j_end], &recvs[j])) j_end++;
            for (; i < i_end && j < j_end; i++, j++) {
                if (recvs[j].open) {   /* paired; nothing known of when it arrived */
                    out->freed_receives++;
                    continue;
                }
                struct mg_message m = { event_of(&sends[i]), event_of(&recvs[j]), sends[i].comm, sends[i].tag,
                                        rt_bytes(&ranks[sends[i].stream], sends[i].index) };
                PUSH(out->messages, out->nmessages, cmsg, m);
            }
            for (; i < i_end; i++) {
                struct mg_unmatched u = { event_of(&sends[i]), sends[i].comm, sends[i].dst, sends[i].tag };
                PUSH(out->unmatched_sends, out->nunmatched_sends, cus, u);
            }
            for (; j < j_end; j++) {
                if (recvs[j].open)
                    continue;   /* released before any message came: legal */
                struct mg_unmatched u = { event_of(&recvs[j]), recvs[j].comm, recvs[j].src, recvs[j].tag };
                PUSH(out->unmatched_recvs, out->nunmatched_recvs, cur, u);
            }
        }
    }

    free(sends);
    free(recvs);
    sends = recvs = NULL;

    /* Collectives: per communicator, the k-th call of every member. */
    sort(calls, ncalls, sizeof *calls, by_call);
    size_t ccoll = 0;
    for (size_t a = 0; a < ncalls;) {
        size_t b = a;
        /* MPI_COMM_SELF: one rank's calls are its own instances */
        int self = calls[a].comm < out->ncomms && out->comms[calls[a].comm].self;
        while (b < ncalls && calls[b].comm == calls[a].comm && (!self || calls[b].rank == calls[a].rank))
            b++;
        /* runs of one rank each inside [a, b) */
        uint32_t nr = 0;
        size_t maxlen = 0;
        for (size_t k = a; k < b;) {
            size_t l = k;
            while (l < b && calls[l].rank == calls[k].rank)
                l++;
            nr++;
            if (l - k > maxlen)
                maxlen = l - k;
            k = l;
        }
        size_t *start = malloc(sizeof *start * (nr + 1));
        if (!start)
            goto oom;
        nr = 0;
        for (size_t k = a; k < b;) {
            start[nr++] = k;
            while (k < b && calls[k].rank == calls[start[nr - 1]].rank)
                k++;
        }
        start[nr] = b;
        const struct mg_comm *g = calls[a].comm < out->ncomms ? &out->comms[calls[a].comm] : NULL;
        uint32_t comm_size = !g ? nr : g->self ? 1 : g->size + (g->inter ? g->size_b : 0);
        int outside = 0;
        for (uint32_t m = 0; g && !g->self && m < g->size; m++)
            outside |= g->members[m] >= out->nworld;
        for (uint32_t m = 0; g && g->inter && m < g->size_b; m++)
            outside |= g->members_b[m] >= out->nworld;
        for (size_t k = 0; k < maxlen; k++) {
            struct mg_collective c = { .comm = calls[a].comm, .root = -1 };
            c.members = malloc(sizeof *c.members * nr);
            if (!c.members) {
                free(start);
                goto oom;
            }
            int root_said = 0;
            for (uint32_t q = 0; q < nr; q++) {
                if (start[q] + k >= start[q + 1])
                    continue;
                const struct call *x = &calls[start[q] + k];
                c.op = x->op;
                /* the root's own word first: the other group names it by a
                 * remote rank, resolved through a definition */
                if (x->root >= 0 && (x->root_self || !root_said))
                    c.root = x->root;
                root_said |= x->root_self;
                c.neighbor |= x->neighbor;
                c.members[c.nmembers++] = (struct mg_member){ .enter = x->enter, .exit = x->exit, .comm_rank = x->comm_rank };
            }
            if (outside)
                out->outside_collectives++;
            else if (c.nmembers < comm_size)
                out->incomplete_collectives++;
            PUSH(out->collectives, out->ncollectives, ccoll, c);
        }
        free(start);
        a = b;
    }

    int rc = 0;
    if (mg_flow_facts(ranks, nranks, out) != 0)
        goto oom;
    goto done;
oom:
    rc = -1;
    snprintf(err, errlen, "out of memory while matching messages");
done:
    if (rc == 0) {
        out->rank_comm = comm_ids;   /* kept: the writer maps references with it */
        out->nranks = nranks;
        comm_ids = NULL;
    }
    if (comm_ids)
        for (uint32_t r = 0; r < nranks; r++)
            free(comm_ids[r]);
    free(comm_ids);
    free(names.keys);
    free(names.slots);
    free(sends);
    free(recvs);
    free(calls);
    free(posted);
    free(cancelled);
    free(nbc);
    if (rc)
        mg_free(out);
    return rc;
}

void mg_free(struct mg_result *r)
{
    if (r->rank_comm)
        for (uint32_t k = 0; k < r->nranks; k++)
            free(r->rank_comm[k]);
    free(r->rank_comm);
    for (uint32_t c = 0; c < r->ncomms; c++) {
        free(r->comms[c].name);
        free(r->comms[c].members);
        free(r->comms[c].members_b);
    }
    free(r->comms);
    free(r->messages);
    free(r->rma_flows);
    for (size_t c = 0; c < r->ncollectives; c++)
        free(r->collectives[c].members);
    free(r->collectives);
    free(r->unmatched_sends);
    free(r->unmatched_recvs);
    free(r->sources);
    memset(r, 0, sizeof *r);
}

enum mg_shape mg_shape_of(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return MG_ALL_TO_ALL;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        return MG_ONE_TO_ALL;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
        return MG_ALL_TO_ONE;
    case OTF2_COLLECTIVE_OP_SCAN:
        return MG_SCAN;
    case OTF2_COLLECTIVE_OP_EXSCAN:
        return MG_EXSCAN;
    default:
        return MG_SKIP;
    }
}

const uint64_t *mg_in_neighbours(const struct rt_rank *ranks, const struct mg_member *m, uint32_t *n)
{
    const struct rt_rank *r = &ranks[m->exit.rank];
    uint32_t comm = r->events[m->exit.index].ref;   /* the exit event names the communicator */
    *n = 0;
    if (comm >= r->ncomms || !r->comms[comm].has_in)
        return NULL;
    *n = r->comms[comm].nin;
    return r->comms[comm].in;
}
