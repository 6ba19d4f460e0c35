/* match.c — see match.h. Everything is done by sorting: sends and receives
 * by (communicator, sender, receiver, tag, order), collective calls by
 * (communicator, rank, order); then equal keys are walked side by side.
 * The sorts are external (extsort.h): beyond their memory they spill to
 * disk, so the match's own tables never grow with the trace. */
#include "match.h"
#include "match_private.h"
#include "extsort.h"
#include "fsutil.h"
#include "table.h"
#include "flow.h"
#include "collstream.h"
#include "msgstream.h"

#include <assert.h>
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

/* ---------- messages ---------- */

static struct mg_event_ref event_of(const struct endpoint *e)
{
    return (struct mg_event_ref){ e->stream, e->index, e->time };
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


/* ---------- collectives ---------- */

static int by_call(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->enter.rank != y->enter.rank) return x->enter.rank < y->enter.rank ? -1 : 1;
    return (x->enter.index > y->enter.index) - (x->enter.index < y->enter.index);
}

/* Instances: (communicator, owner, nth), members in rank order. */
static int by_instance(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
    if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
    if (x->nth != y->nth) return x->nth < y->nth ? -1 : 1;
    return by_call(a, b);
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

static int is_neighbor_region(const struct rt_location *r, uint32_t region)
{
    return region < r->nregions && r->regions[region]
           && (strncmp(r->regions[region], "MPI_Neighbor_", 13) == 0
               || strncmp(r->regions[region], "MPI_Ineighbor_", 14) == 0);
}

/* One location's walk through its events (mg_match_chunk), kept from one
 * chunk to the next: the call it is in, an open collective call, its open
 * requests. */
struct location_pass {
    struct req_pending *pending;   /* NULL: not begun, or ended */
    uint32_t region;
    uint64_t open_begin, open_time;
    int open_neighbor;
    uint64_t entered;         /* when the current MPI call began: a blocking receive is posted then */
};

/* The match in three steps, so that a reader can hand each location over
 * as soon as its events are read (match.h). */
struct mg_matcher {
    const struct rt_location *ranks;
    uint32_t nranks;
    struct mg_result *out;
    struct interner names;
    uint32_t **comm_ids;      /* [location][archive comm ref] -> global communicator id */
    struct st_extsort *sends, *recvs, *calls, *instances, *requests;
    struct location_pass *passes;   /* [location]: its walk so far, kept across its chunks */
    struct req_pending **idle;   /* open-request tables of walks that ended, for the next ones */
    size_t nidle;
    size_t pending_room;
    struct match_sinks sinks;
    const char *spill_dir;    /* the sorts' and the messages' (msgstream.h) */
    size_t message_memory;    /* the messages' budget, and the collectives' (collstream.h) */
    size_t cmessages;         /* room in out->messages */
    size_t coll_bytes;        /* the collectives held in out->collectives, members included */
    size_t ccoll;             /* room in out->collectives */
    int failed;
    char err[1024];
};

/* The first sort that failed says why; none did: a table could not grow.
 * Returns -1. */
static int matcher_fail(struct mg_matcher *m)
{
    if (m->failed)
        return -1;
    m->failed = 1;
    struct st_extsort *all[] = { m->requests, m->sends, m->recvs, m->calls, m->instances };
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        if (all[k] && st_extsort_failed(all[k])) {
            snprintf(m->err, sizeof m->err, "while matching messages: %s", st_extsort_error(all[k]));
            return -1;
        }
    snprintf(m->err, sizeof m->err, "out of memory while matching messages");
    return -1;
}

static void matcher_free(struct mg_matcher *m)
{
    free(m->names.keys);   /* comm_ids are the result's (rank_comm) */
    free(m->names.slots);
    st_extsort_free(m->sends);
    st_extsort_free(m->recvs);
    st_extsort_free(m->calls);
    st_extsort_free(m->instances);
    st_extsort_free(m->requests);
    for (uint32_t r = 0; m->passes && r < m->nranks; r++)
        req_pending_free(m->passes[r].pending);
    free(m->passes);
    for (size_t k = 0; k < m->nidle; k++)
        req_pending_free(m->idle[k]);
    free(m->idle);
    free(m);
}

static struct mg_matcher *begin(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                                 int (*relay)(void *, enum mg_sink, const void *), void *relay_ctx,
                                 struct mg_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct mg_matcher *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory while matching messages");
        return NULL;
    }
    m->ranks = ranks;
    m->nranks = nranks;
    m->out = out;
    /* Four sorts fill at once (requests, sends, receives, calls), then
     * calls are sorted again by instance: each has a quarter of the memory. */
    struct mg_sort_config defaults = { NULL, MG_SORT_MEMORY_DEFAULT, SIZE_MAX };
    if (!cfg)
        cfg = &defaults;
    const char *spill = cfg->spill_dir ? cfg->spill_dir : mg_default_spill_dir();
    m->spill_dir = spill;
    out->spill_dir = spill;
    m->message_memory = cfg->message_memory;
    size_t share = cfg->memory / 4;
    if (!(m->comm_ids = calloc(nranks ? nranks : 1, sizeof *m->comm_ids)))
        goto oom;
    /* the result's from the start: the writer maps references with it, and
     * rma_order_begin (rma_flow.h) needs it before the pairing */
    out->rank_comm = m->comm_ids;
    out->nranks = nranks;
    for (uint32_t r = 0; r < nranks; r++)   /* the ranks' main locations */
        out->nworld += !ranks[r].thread;

    for (uint32_t r = 0; r < nranks; r++) {
        const struct rt_location *rk = &ranks[r];
        m->comm_ids[r] = malloc(sizeof **m->comm_ids * (rk->ncomms ? rk->ncomms : 1));
        if (!m->comm_ids[r])
            goto oom;
        for (uint32_t c = 0; c < rk->ncomms; c++) {
            int fresh;
            if (intern(&m->names, identity(&rk->comms[c]), &m->comm_ids[r][c], &fresh) != 0)
                goto oom;
        }
    }
    out->ncomms = m->names.n;
    out->comms = calloc(m->names.n ? m->names.n : 1, sizeof *out->comms);
    if (!out->comms)
        goto oom;
    if (relay) {
        m->sinks = (struct match_sinks){ NULL, NULL, NULL, NULL, out, relay, relay_ctx };
    } else if (!(m->sends = st_extsort_new(sizeof(struct endpoint), by_key, share, spill, err, errlen))
        || !(m->recvs = st_extsort_new(sizeof(struct endpoint), by_key, share, spill, err, errlen))
        || !(m->calls = st_extsort_new(sizeof(struct call), by_call, share, spill, err, errlen))
        || !(m->instances = st_extsort_new(sizeof(struct call), by_instance, share, spill, err, errlen))
        || !(m->requests = st_extsort_new(sizeof(struct req_record), by_request, share, spill, err,
                                          errlen))) {
        char why[1024];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "while matching messages: %s", why);
        goto fail;
    } else {
        m->sinks = (struct match_sinks){ m->sends, m->recvs, m->calls, m->requests, out, NULL, NULL };
    }
    /* each walk under way has a table of its locations's open requests;
     * a reader has a few under way at once (one per thread) */
    m->pending_room = share / sizeof(struct req_record) / 3 / 4;
    if (!(m->passes = calloc(nranks ? nranks : 1, sizeof *m->passes))
        || !(m->idle = malloc(sizeof *m->idle * (nranks ? nranks : 1))))
        goto oom;
    for (uint32_t r = 0; r < nranks; r++)
        for (uint32_t c = 0; c < ranks[r].ncomms; c++) {
            struct mg_comm *g = &out->comms[m->comm_ids[r][c]];
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
    return m;
oom:
    snprintf(err, errlen, "out of memory while matching messages");
fail:
    matcher_free(m);
    mg_free(out);
    return NULL;
}

struct mg_matcher *mg_match_begin(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                                  struct mg_result *out, char *err, size_t errlen)
{
    return begin(ranks, nranks, cfg, NULL, NULL, out, err, errlen);
}

struct mg_matcher *mg_match_begin_relay(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                                        int (*relay)(void *ctx, enum mg_sink which, const void *record), void *ctx,
                                        struct mg_result *out, char *err, size_t errlen)
{
    return begin(ranks, nranks, cfg, relay, ctx, out, err, errlen);
}

size_t mg_record_size(enum mg_sink which)
{
    return which == MG_SINK_SENDS || which == MG_SINK_RECVS ? sizeof(struct endpoint)
           : which == MG_SINK_CALLS ? sizeof(struct call) : sizeof(struct req_record);
}

int mg_match_put(struct mg_matcher *m, enum mg_sink which, const void *records, size_t n)
{
    if (m->failed)
        return -1;
    size_t size = mg_record_size(which);
    for (size_t k = 0; k < n; k++)
        if (sink_put(&m->sinks, which, (const char *)records + k * size) != 0)
            return matcher_fail(m);
    return 0;
}

void mg_match_add_counts(struct mg_matcher *m, uint64_t outside_sends, uint64_t outside_recvs, uint64_t cancelled)
{
    m->out->outside_sends += outside_sends;
    m->out->outside_recvs += outside_recvs;
    m->out->cancelled += cancelled;
}

void mg_match_relay_end(struct mg_matcher *m)
{
    matcher_free(m);
}

/* One pass over location r's events. What needs a request's other events
 * (when it was posted, whether it was cancelled) goes to `requests`, joined
 * at the end. */
int mg_match_location(struct mg_matcher *m, uint32_t r)
{
    return mg_match_chunk(m, r, 1);
}

/* A location's walk over one chunk of its events (mg_match_chunk): whose
 * they are, its world rank, its communicators' global ids, and its walk's
 * state (what is open, kept across chunks). */
struct walk {
    struct mg_matcher *m;
    const struct rt_location *rk;
    uint32_t r, me;
    const uint32_t *comm_ids;
    struct location_pass *ps;
};

/* A location's first chunk: an open-request table (one a walk that ended
 * left, or a new one), no call or collective open. 0, or -1. */
static int begin_walk(struct mg_matcher *m, struct location_pass *ps)
{
    ps->pending = m->nidle ? m->idle[--m->nidle] : req_pending_new(m->pending_room);
    if (!ps->pending)
        return -1;
    ps->region = UINT32_MAX;
    ps->open_begin = UINT64_MAX;
    ps->open_time = 0;
    ps->open_neighbor = 0;
    ps->entered = 0;
    return 0;
}

/* A request's events beside its use (its posting, its cancelling, an
 * isend's completion, a nonblocking collective's start): what the use
 * needs of them is joined at the end (`requests`). */
static int request_event(struct walk *w, const struct rt_event *e, struct req_record *q)
{
    switch (e->kind) {
    case RT_IRECV_REQUEST:
        q->role = REQ_POSTED;
        break;
    case RT_CANCELLED:
        /* a definition for the send it cancels; for a receive, counted once posted */
        q->role = REQ_CANCELLED;
        break;
    case RT_ISEND_COMPLETE:
        q->use = USE_ISEND_DONE;
        break;
    default:   /* RT_NBC_REQUEST */
        q->role = REQ_NBC;
        q->neighbor = (uint8_t)is_neighbor_region(w->rk, w->ps->region);
        break;
    }
    return req_put(w->ps->pending, &w->m->sinks, q) != 0 ? -1 : 0;
}

/* A send: to the sorts, or an isend to its request (unless it was
 * cancelled); one to a process outside the trace is only counted. */
static int send_event(struct walk *w, const struct rt_event *e, struct endpoint *ep, struct req_record *q)
{
    struct mg_result *out = w->m->out;
    int dst = rt_world_rank(w->rk, e->ref, e->peer);
    ep->src = w->me;
    ep->dst = dst < 0 ? UINT32_MAX : (uint32_t)dst;
    if (e->kind == RT_ISEND) {   /* unless it was cancelled */
        q->use = USE_ISEND;
        q->outside = dst >= (int)out->nworld;
        q->u.ep = *ep;
        return req_put(w->ps->pending, &w->m->sinks, q) != 0 ? -1 : 0;
    }
    if (dst >= (int)out->nworld) {   /* to a process outside the trace */
        out->outside_sends++;
        return 0;
    }
    return sink_put(&w->m->sinks, MG_SINK_SENDS, ep) != 0 ? -1 : 0;
}

/* A receive: a blocking one takes its turn when its call began, an irecv
 * where it was posted (its request's); one from a process outside the
 * trace is only counted. */
static int receive_event(struct walk *w, const struct rt_event *e, struct endpoint *ep, struct req_record *q)
{
    struct mg_result *out = w->m->out;
    if (e->kind == RT_IRECV)
        q->use = USE_RECEIVE;   /* in turn where it was posted */
    else
        ep->order = w->ps->entered;
    int src = rt_world_rank(w->rk, e->ref, e->peer);
    if (src >= (int)out->nworld) {   /* from a process outside the trace */
        out->outside_recvs++;
        return 0;
    }
    ep->src = src < 0 ? UINT32_MAX : (uint32_t)src;
    ep->dst = w->me;
    if (q->use == USE_RECEIVE) {
        q->u.ep = *ep;
        return req_put(w->ps->pending, &w->m->sinks, q) != 0 ? -1 : 0;
    }
    return sink_put(&w->m->sinks, MG_SINK_RECVS, ep) != 0 ? -1 : 0;
}

/* A receive request released by MPI_Request_free: it takes its turn where
 * it was posted; a wildcard one cannot be placed (its send is reported
 * unmatched). */
static int freed_receive_event(struct walk *w, const struct rt_event *e, struct endpoint *ep, struct req_record *q)
{
    if (e->peer == RT_ANY || e->tag == RT_ANY)
        return 0;
    int src = rt_world_rank(w->rk, e->ref, e->peer);
    if (src >= (int)w->m->out->nworld)
        return 0;   /* from a process outside the trace: nothing to pair */
    ep->src = src < 0 ? UINT32_MAX : (uint32_t)src;
    ep->dst = w->me;
    ep->open = 1;
    q->use = USE_RECEIVE;
    q->u.ep = *ep;
    return req_put(w->ps->pending, &w->m->sinks, q) != 0 ? -1 : 0;
}

/* A collective call's end (event i): a blocking one with the begin that
 * opened it, to the sorts; a nonblocking one's completion to its request,
 * entered where it was posted. An end without a begin is not a call we
 * can place. */
static int collective_end_event(struct walk *w, const struct rt_event *e, uint64_t i, uint32_t comm,
                                struct req_record *q)
{
    const struct rt_location *rk = w->rk;
    struct location_pass *ps = w->ps;
    uint32_t me = w->me;
    struct call c = { comm, me, e->tag, 0, -1, 0, 0, 0, 0, 0, { w->r, 0, 0 }, { w->r, i, e->time }, e->ref,
                      (uint8_t)((e->bytes ? 0 : MG_QUIET_SEND) | (e->received ? 0 : MG_QUIET_RECV)), 0 };
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
        if (ps->open_begin == UINT64_MAX)
            return 0;   /* an end without a begin: not a call we can place */
        c.enter.index = ps->open_begin;
        c.enter.time = ps->open_time;
        c.order = ps->open_time;
        c.neighbor = ps->open_neighbor;
        c.blocking = 1;
        ps->open_begin = UINT64_MAX;
    }
    /* the caller's rank in the communicator (an intercommunicator's: in its local group) */
    if (e->ref < rk->ncomms)
        c.comm_rank = local_rank(&rk->comms[e->ref], me);
    if (e->kind == RT_NBC_COMPLETE) {   /* entered where it was posted */
        q->use = USE_NBC;
        q->u.c = c;
        return req_put(ps->pending, &w->m->sinks, q) != 0 ? -1 : 0;
    }
    return sink_put(&w->m->sinks, MG_SINK_CALLS, &c) != 0 ? -1 : 0;
}

/* Event i, not a region's beginning or end: the endpoint and request
 * record it may become, filled in by its kind. 0, or -1 (a table or sort
 * could not take it). */
static int walk_event(struct walk *w, uint64_t i)
{
    const struct rt_location *rk = w->rk;
    const struct rt_event ev = rt_event_at(rk, i), *e = &ev;
    uint32_t comm = e->ref < rk->ncomms ? w->comm_ids[e->ref] : UINT32_MAX;
    struct endpoint ep = { comm, 0, 0, e->tag, e->time, i, w->r, 0, e->bytes, e->time };
    struct req_record q = { .rank = w->me, .role = REQ_USE, .req = e->req, .stream = w->r, .index = i,
                            .time = e->time };
    switch (e->kind) {
    case RT_IRECV_REQUEST:
    case RT_CANCELLED:
    case RT_ISEND_COMPLETE:
    case RT_NBC_REQUEST:
        return request_event(w, e, &q);
    case RT_ISEND:
    case RT_SEND:
        return send_event(w, e, &ep, &q);
    case RT_IRECV:
    case RT_RECV:
        return receive_event(w, e, &ep, &q);
    case RT_IRECV_FREED:
        return freed_receive_event(w, e, &ep, &q);
    case RT_COLL_BEGIN:
        w->ps->open_begin = i;
        w->ps->open_time = e->time;
        w->ps->open_neighbor = is_neighbor_region(rk, w->ps->region);
        return 0;
    case RT_COLL_END:
    case RT_NBC_COMPLETE:
        return collective_end_event(w, e, i, comm, &q);
    default:
        return 0;
    }
}

int mg_match_chunk(struct mg_matcher *m, uint32_t r, int last)
{
    if (m->failed)
        return -1;
    struct location_pass *ps = &m->passes[r];
    if (!ps->pending && begin_walk(m, ps) != 0)   /* the location's first chunk */
        return matcher_fail(m);
    const struct rt_location *rk = &m->ranks[r];
    struct walk w = { m, rk, r, (uint32_t)rk->rank, m->comm_ids[r], ps };
    for (uint64_t i = rk->events_from; i < rk->events_from + rk->nheld; i++) {
        /* most events are regions' ends and beginnings: from the slot alone */
        const struct rt_slot *slot = &rk->events[i - rk->events_from];
        if (slot->kind == RT_ENTER) {
            ps->region = slot->ref;
            ps->entered = slot->time;
            continue;
        }
        if (slot->kind == RT_LEAVE || slot->kind == RT_FLUSH || slot->kind == RT_RMA || slot->kind == RT_COMM_CREATE
            || slot->kind == RT_COMM_DESTROY)
            continue;
        if (walk_event(&w, i) != 0)
            return matcher_fail(m);
    }
    if (!last)
        return 0;
    if (req_location_end(ps->pending, &m->sinks) != 0)
        return matcher_fail(m);
    m->idle[m->nidle++] = ps->pending;   /* emptied: the next walk takes it */
    ps->pending = NULL;
    return 0;
}

/* A sort read to its end: what it spilled is counted, its memory and files go. */
static void retire(struct mg_result *out, struct st_extsort **s)
{
    out->sort_runs += st_extsort_runs(*s);
    out->sort_spilled_bytes += st_extsort_spilled_bytes(*s);
    st_extsort_free(*s);
    *s = NULL;
}

/* A matched message joins the result: in memory while they fit in the
 * budget, else from then on in the file (msgstream.h), those held so far
 * first. 0, or -1 (m->err says why). */
static int put_message(struct mg_matcher *m, const struct mg_message *msg)
{
    struct mg_result *out = m->out;
    /* the array grows by doubling: the file takes over before it would
     * pass the budget */
    size_t grown = m->cmessages ? m->cmessages * 2 : 1024;
    if (!out->message_file && out->nmessages == m->cmessages && grown > m->message_memory / sizeof *msg) {
        char err[600];
        if (!(out->message_file = ms_file_new(m->spill_dir, err, sizeof err))) {
            m->failed = 1;
            snprintf(m->err, sizeof m->err, "while matching messages: %s", err);
            return -1;
        }
        for (size_t i = 0; i < out->nmessages; i++)
            if (ms_file_append(out->message_file, &out->messages[i]) != 0)
                goto failed;
        free(out->messages);
        out->messages = NULL;
        m->cmessages = 0;
    }
    if (out->message_file) {
        if (ms_file_append(out->message_file, msg) != 0)
            goto failed;
        out->nmessages++;
        return 0;
    }
    PUSH(out->messages, out->nmessages, m->cmessages, *msg);
    return 0;
oom:
    return matcher_fail(m);
failed:
    m->failed = 1;
    snprintf(m->err, sizeof m->err, "while matching messages: %s", ms_file_error(out->message_file));
    return -1;
}

/* Messages: walk equal keys side by side, k-th send with k-th receive: the
 * smaller key of the two heads has no partner. */
static int pair_messages(struct mg_matcher *m)
{
    struct mg_result *out = m->out;
    if (st_extsort_finish(m->sends) != 0 || st_extsort_finish(m->recvs) != 0)
        return matcher_fail(m);
    size_t cus = 0, cur = 0;
    const struct endpoint *snd = st_extsort_next(m->sends), *rcv = st_extsort_next(m->recvs);
#ifndef NDEBUG
    /* the k-th send of a channel meets its k-th receive only if both
     * come sorted by key (extsort.h) */
    struct endpoint last_snd, last_rcv;
    int have_snd = 0, have_rcv = 0;
#endif
    while (snd || rcv) {
#ifndef NDEBUG
        if (snd) {
            assert(!have_snd || by_key(&last_snd, snd) <= 0);
            last_snd = *snd;
            have_snd = 1;
        }
        if (rcv) {
            assert(!have_rcv || by_key(&last_rcv, rcv) <= 0);
            last_rcv = *rcv;
            have_rcv = 1;
        }
#endif
        int cmp = !snd ? 1 : !rcv ? -1 : by_channel(snd, rcv);
        if (cmp < 0) {
            struct mg_unmatched u = { event_of(snd), snd->comm, snd->dst, snd->tag };
            PUSH(out->unmatched_sends, out->nunmatched_sends, cus, u);
            snd = st_extsort_next(m->sends);
        } else if (cmp > 0) {
            if (!rcv->open) {   /* an open one was released before any message came: legal */
                struct mg_unmatched u = { event_of(rcv), rcv->comm, rcv->src, rcv->tag };
                PUSH(out->unmatched_recvs, out->nunmatched_recvs, cur, u);
            }
            rcv = st_extsort_next(m->recvs);
        } else {
            if (rcv->open) {   /* paired; nothing known of when it arrived */
                out->freed_receives++;
            } else {
                struct mg_message msg = { event_of(snd), event_of(rcv), snd->comm, snd->tag, snd->bytes };
                if (put_message(m, &msg) != 0)
                    return -1;
            }
            snd = st_extsort_next(m->sends);
            rcv = st_extsort_next(m->recvs);
        }
    }
    if (st_extsort_failed(m->sends) || st_extsort_failed(m->recvs))
        return matcher_fail(m);
    if (out->message_file && ms_file_flush(out->message_file) != 0) {
        m->failed = 1;
        snprintf(m->err, sizeof m->err, "while matching messages: %s", ms_file_error(out->message_file));
        return -1;
    }
    retire(out, &m->sends);
    retire(out, &m->recvs);
    return 0;
oom:
    return matcher_fail(m);
}

/* A gathered instance joins the result (it owns c->members): in memory
 * while they fit in the budget, else from then on in the file
 * (collstream.h), those held so far first. 0, or -1 (m->err says why). */
static int put_collective(struct mg_matcher *m, struct mg_collective *c)
{
    struct mg_result *out = m->out;
    m->coll_bytes += sizeof *c + sizeof *c->members * c->nmembers;
    if (!out->coll_file && m->coll_bytes > m->message_memory) {
        char err[600];
        if (!(out->coll_file = mc_file_new(m->spill_dir, err, sizeof err))) {
            free(c->members);
            m->failed = 1;
            snprintf(m->err, sizeof m->err, "while matching collectives: %s", err);
            return -1;
        }
        for (size_t i = 0; i < out->ncollectives; i++)
            if (mc_file_append(out->coll_file, &out->collectives[i]) != 0)
                goto failed;
        for (size_t i = 0; i < out->ncollectives; i++)
            free(out->collectives[i].members);
        free(out->collectives);
        out->collectives = NULL;
        m->ccoll = 0;
    }
    if (out->coll_file) {
        int rc = mc_file_append(out->coll_file, c);
        free(c->members);
        if (rc != 0)
            goto failed;
        out->ncollectives++;
        return 0;
    }
    PUSH(out->collectives, out->ncollectives, m->ccoll, *c);
    return 0;
oom:
    free(c->members);
    return matcher_fail(m);
failed:
    m->failed = 1;
    snprintf(m->err, sizeof m->err, "while matching collectives: %s", mc_file_error(out->coll_file));
    return -1;
}

/* Collectives: per communicator, the k-th call of every member. A rank's
 * calls come in order: number them, and count the ranks that called (an
 * instance with fewer members is incomplete). Then sorted by instance,
 * each instance's members are consecutive. On MPI_COMM_SELF one rank's
 * calls are its own instances. */
static int gather_instances(struct mg_matcher *m)
{
    struct mg_result *out = m->out;
    struct mg_member *members = NULL;
    size_t cmembers = 0;
    uint32_t *callers = NULL;   /* per communicator (and one for unknown ones): ranks that called */
    struct mg_facts facts;      /* what each member moved (flow.h), filled as each instance is gathered */
    if (mg_flow_facts_begin(&facts, m->ranks, m->nranks) != 0) {
        free(facts.member_of);
        return matcher_fail(m);
    }
    if (st_extsort_finish(m->calls) != 0)
        goto fail;
    if (!(callers = calloc((size_t)out->ncomms + 1, sizeof *callers)))
        goto fail;
    {
        uint32_t prev_comm = 0, prev_rank = 0;
        uint64_t nth = 0, seen = 0;
        /* the latest exit of this rank's blocking calls on this communicator so far */
        struct mg_event_ref last_blocking_exit = { UINT32_MAX, 0, 0 };
        for (const struct call *y; (y = st_extsort_next(m->calls)); seen++) {
            struct call c = *y;   /* y lasts until the next call of the sort */
            int same_rank = seen && prev_comm == c.comm && prev_rank == c.rank;
            nth = same_rank ? nth + 1 : 0;
            if (!same_rank)
                last_blocking_exit.rank = UINT32_MAX;
            if (c.blocking) {
                /* entered before another thread (location) left one (a rank's threads share a clock; one
                 * thread's own calls never overlap, so the latest exit is the only one to compare with) */
                int none = last_blocking_exit.rank == UINT32_MAX;
                if (!none && last_blocking_exit.rank != c.enter.rank && c.enter.time < last_blocking_exit.time)
                    out->thread_overlapping_collectives++;
                if (none || c.exit.time > last_blocking_exit.time)
                    last_blocking_exit = c.exit;
            }
            if (!same_rank)
                callers[c.comm < out->ncomms ? c.comm : out->ncomms]++;
            c.nth = nth;
            c.owner = c.comm < out->ncomms && out->comms[c.comm].self ? c.rank : 0;
            prev_comm = c.comm;
            prev_rank = c.rank;
            if (st_extsort_put(m->instances, &c) != 0)
                goto fail;
        }
        if (st_extsort_failed(m->calls))
            goto fail;
    }
    retire(out, &m->calls);
    if (st_extsort_finish(m->instances) != 0)
        goto fail;
    const struct call *x = st_extsort_next(m->instances);
    while (x) {
        uint32_t comm = x->comm, owner = x->owner;
        uint64_t nth = x->nth;
        const struct mg_comm *g = comm < out->ncomms ? &out->comms[comm] : NULL;
        uint32_t comm_size = !g ? callers[out->ncomms] : g->self ? 1 : g->size + (g->inter ? g->size_b : 0);
        int outside = 0;
        for (uint32_t k = 0; g && !g->self && k < g->size; k++)
            outside |= g->members[k] >= out->nworld;
        for (uint32_t k = 0; g && g->inter && k < g->size_b; k++)
            outside |= g->members_b[k] >= out->nworld;
        struct mg_collective c = { .comm = comm, .root = -1 };
        int root_said = 0;
        for (; x && x->comm == comm && x->owner == owner && x->nth == nth; x = st_extsort_next(m->instances)) {
            c.op = x->op;
            /* the root's own word first: the other group names it by a
             * remote rank, resolved through a definition */
            if (x->root >= 0 && (x->root_self || !root_said))
                c.root = x->root;
            root_said |= x->root_self;
            c.neighbor |= x->neighbor;
            struct mg_member mb = { .enter = x->enter, .exit = x->exit, .comm_rank = x->comm_rank,
                                    .quiet = x->quiet, .comm_ref = x->comm_ref };
            PUSH(members, c.nmembers, cmembers, mb);
        }
        if (!(c.members = malloc(sizeof *c.members * (c.nmembers ? c.nmembers : 1))))
            goto oom;
        memcpy(c.members, members, sizeof *c.members * c.nmembers);
        if (outside)
            out->outside_collectives++;
        else if (c.nmembers < comm_size)
            out->incomplete_collectives++;
        if (mg_flow_facts_one(&facts, &c) != 0) {
            free(c.members);
            goto oom;
        }
        if (put_collective(m, &c) != 0)
            goto failed;
    }
    if (st_extsort_failed(m->instances))
        goto fail;
    if (out->coll_file && mc_file_flush(out->coll_file) != 0) {
        snprintf(m->err, sizeof m->err, "while matching collectives: %s", mc_file_error(out->coll_file));
        m->failed = 1;
        goto failed;
    }
    retire(out, &m->instances);
    mg_flow_facts_end(&facts, out);
    free(members);
    free(callers);
    return 0;
oom:
fail:
    mg_flow_facts_abandon(&facts);
    free(members);
    free(callers);
    return matcher_fail(m);
failed:
    mg_flow_facts_abandon(&facts);
    free(members);
    free(callers);
    return -1;
}

int mg_match_end(struct mg_matcher *m, char *err, size_t errlen)
{
    struct mg_result *out = m->out;
    int rc = m->failed ? -1 : 0;
    if (rc == 0 && req_join(&m->sinks) != 0)
        rc = matcher_fail(m);
    if (rc == 0)
        retire(out, &m->requests);
    if (rc == 0)
        rc = pair_messages(m);
    if (rc == 0)
        rc = gather_instances(m);
    if (rc != 0) {
        snprintf(err, errlen, "%s", m->err);
        mg_free(out);
    }
    matcher_free(m);
    return rc;
}

void mg_match_abandon(struct mg_matcher *m)
{
    if (!m)
        return;
    mg_free(m->out);
    matcher_free(m);
}

int mg_match_sorted(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                    struct mg_result *out, char *err, size_t errlen)
{
    struct mg_matcher *m = mg_match_begin(ranks, nranks, cfg, out, err, errlen);
    if (!m)
        return -1;
    for (uint32_t r = 0; r < nranks; r++)
        mg_match_location(m, r);   /* the first failure sticks: the end reports it */
    return mg_match_end(m, err, errlen);
}

int mg_match(const struct rt_location *ranks, uint32_t nranks, struct mg_result *out, char *err, size_t errlen)
{
    return mg_match_sorted(ranks, nranks, NULL, out, err, errlen);
}

const char *mg_default_spill_dir(void)
{
    return st_temp_dir();
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
    ms_file_free(r->message_file);
    free(r->rma_flows);
    for (size_t c = 0; r->collectives && c < r->ncollectives; c++)
        free(r->collectives[c].members);
    free(r->collectives);
    mc_file_free(r->coll_file);
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

const uint64_t *mg_in_neighbours(const struct rt_location *ranks, const struct mg_member *m, uint32_t *n)
{
    const struct rt_location *r = &ranks[m->exit.rank];
    uint32_t comm = m->comm_ref;   /* the exit event named the communicator */
    *n = 0;
    if (comm >= r->ncomms || !r->comms[comm].has_in)
        return NULL;
    *n = r->comms[comm].nin;
    return r->comms[comm].in;
}
