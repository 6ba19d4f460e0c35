/* rma_flow.c — see rma_flow.h. */
#include "rma_flow.h"
#include "table.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* RMA windows are created collectively over a communicator, in the same
 * order on every member: the n-th window a rank made on global
 * communicator C is the same window on every member of C. */
struct win_key {
    uint32_t comm, ordinal, rank, ref;
};

static int by_comm_ordinal(const void *a, const void *b)
{
    const struct win_key *x = a, *y = b;
    if (x->comm != y->comm)
        return (x->comm > y->comm) - (x->comm < y->comm);
    return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

int rma_unify_windows(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                         uint32_t **win_map, uint32_t *nwins, const char ***names, uint32_t **comm_of)
{
    size_t n = 0;
    for (uint32_t r = 0; r < nranks; r++)
        if (!ranks[r].thread)
            n += ranks[r].nwins;
    *nwins = 0;
    *names = NULL;
    *comm_of = NULL;
    struct win_key *keys = malloc(sizeof *keys * (n ? n : 1));
    uint32_t *counts = calloc(match->ncomms ? match->ncomms : 1, sizeof *counts);
    if (!keys || !counts) {
        free(keys);
        free(counts);
        return -1;
    }
    size_t k = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        if (ranks[r].thread)
            continue;
        for (uint32_t w = 0; w < ranks[r].nwins; w++) {
            uint32_t lc = ranks[r].wins[w].comm;
            uint32_t c = lc < ranks[r].ncomms ? match->rank_comm[r][lc] : UINT32_MAX;
            keys[k++] = (struct win_key){ c, c < match->ncomms ? counts[c]++ : w, r, w };
        }
        for (uint32_t w = 0; w < ranks[r].nwins; w++) {   /* counts are per rank */
            uint32_t lc = ranks[r].wins[w].comm;
            if (lc < ranks[r].ncomms && match->rank_comm[r][lc] < match->ncomms)
                counts[match->rank_comm[r][lc]] = 0;
        }
    }
    free(counts);
    qsort(keys, k, sizeof *keys, by_comm_ordinal);
    *names = malloc(sizeof **names * (k ? k : 1));
    *comm_of = malloc(sizeof **comm_of * (k ? k : 1));
    if (!*names || !*comm_of) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < k; i++) {
        if (i == 0 || keys[i].comm != keys[i - 1].comm || keys[i].ordinal != keys[i - 1].ordinal
            || keys[i].comm == UINT32_MAX) {
            (*names)[*nwins] = "";
            (*comm_of)[*nwins] = keys[i].comm;
            ++*nwins;
        }
        uint32_t g = *nwins - 1;
        const char *nm = ranks[keys[i].rank].wins[keys[i].ref].name;
        if (!(*names)[g][0] && nm)
            (*names)[g] = nm;
        win_map[keys[i].rank][keys[i].ref] = g;
    }
    free(keys);
    for (uint32_t r = 0; r < nranks; r++)   /* a thread's windows are its rank's */
        if (ranks[r].thread)
            for (uint32_t q = 0; q < nranks; q++)
                if (!ranks[q].thread && ranks[q].rank == ranks[r].rank && ranks[r].nwins)
                    memcpy(win_map[r], win_map[q], sizeof **win_map * ranks[r].nwins);
    return 0;
}

/* An operation at its origin: its matching id, event, window, target, and
 * the fence (ordinal on the window) that completed it, if one did. */
struct op {
    uint64_t id, index, time;
    uint32_t win, target, fence;
};

/* A fence's end at a rank: window, ordinal, event. */
struct fence {
    uint32_t win, ordinal;
    uint64_t index, time;
};

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const struct op *)a)->id, y = ((const struct op *)b)->id;
    return (x > y) - (x < y);
}

static int by_win_ordinal(const void *a, const void *b)
{
    const struct fence *x = a, *y = b;
    if (x->win != y->win)
        return (x->win > y->win) - (x->win < y->win);
    return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

/* A PSCW notification: complete's NOTIFY_OUT to a target, wait's
 * NOTIFY_IN from an origin (window, remote window rank, event). */
struct notify {
    uint32_t win, remote, out;
    uint64_t index, time;
};

struct rank_rma {
    struct op *ops;
    size_t nops, cops;
    struct fence *fences;
    size_t nfences, cfences;
    struct notify *notes;
    size_t nnotes, cnotes;
    /* the walk so far (scan), kept from one chunk of events to the next */
    uint64_t *inside;         /* completions in the open collective */
    size_t ninside, cinside;
    uint32_t *count;          /* fences so far, by local window */
    int open;
};

#define ROOM ST_ROOM

/* One location's operations and fences, and which fence completed which
 * operation (its completions lie between the fence's begin and end): the
 * events held (a chunk: rk->events_from ..), continuing the walk in out;
 * `last` sorts what it found. */
static int scan(const struct rt_location *rk, const uint32_t *win_map, struct rank_rma *out, int last)
{
    if (!out->count && !(out->count = calloc(rk->nwins ? rk->nwins : 1, sizeof *out->count)))
        return -1;
    uint32_t *count = out->count;
    for (uint64_t i = rk->events_from; i < rk->events_from + rk->nheld; i++) {
        if (rk->events[i - rk->events_from].kind != RT_RMA)
            continue;
        const struct rt_event ev = rt_event_at(rk, i), *e = &ev;
        uint32_t what = e->tag & 0xff;
        if (what == RT_RMA_COLL_BEGIN) {
            out->open = 1;
            out->ninside = 0;
        } else if (what == RT_RMA_OP_COMPLETE_REMOTE && out->open) {
            if (ROOM(out->inside, out->ninside, out->cinside) != 0)
                return -1;
            out->inside[out->ninside++] = e->req;
        } else if (what == RT_RMA_COLL_END) {
            if ((e->req >> 32) == OTF2_COLLECTIVE_OP_BARRIER && e->ref < rk->nwins) {
                uint32_t ordinal = count[e->ref]++;
                if (ROOM(out->fences, out->nfences, out->cfences) != 0)
                    return -1;
                out->fences[out->nfences++] = (struct fence){ win_map[e->ref], ordinal, i, e->time };
                for (size_t k = 0; k < out->ninside; k++)
                    for (size_t o = out->nops; o-- > 0;)   /* ids grow with time: the latest first */
                        if (out->ops[o].id == out->inside[k]) {
                            out->ops[o].fence = ordinal;
                            break;
                        }
            }
            out->open = 0;
            out->ninside = 0;
        } else if (what == RT_RMA_SYNC && e->ref < rk->nwins
                   && (e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_OUT || e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_IN)) {
            if (ROOM(out->notes, out->nnotes, out->cnotes) != 0)
                return -1;
            out->notes[out->nnotes++] = (struct notify){ win_map[e->ref], e->peer,
                                                         e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_OUT, i, e->time };
        } else if ((what == RT_RMA_PUT || what == RT_RMA_GET || what == RT_RMA_ATOMIC) && e->ref < rk->nwins) {
            if (ROOM(out->ops, out->nops, out->cops) != 0)
                return -1;
            out->ops[out->nops++] = (struct op){ e->req, i, e->time, win_map[e->ref], e->peer, UINT32_MAX };
        }
    }
    if (!last)
        return 0;
    free(out->inside);
    free(out->count);
    out->inside = NULL;
    out->count = NULL;
    out->ninside = out->cinside = 0;
    if (out->nops > 1)
        qsort(out->ops, out->nops, sizeof *out->ops, by_id);
    if (out->nfences > 1)
        qsort(out->fences, out->nfences, sizeof *out->fences, by_win_ordinal);
    return 0;
}

/* The fence and PSCW orderings in steps (rma_flow.h). */
struct rma_orderer {
    const struct rt_location *ranks;
    uint32_t nranks;
    const struct mg_result *match;
    uint32_t nwins, *comm_of;
    const char **names;
    uint32_t **win_map;
    struct rank_rma *rr;
    uint32_t *main_of;        /* world rank -> index of its main location */
    int any, failed;
};

void rma_order_free(struct rma_orderer *o)
{
    if (!o)
        return;
    for (uint32_t r = 0; o->rr && r < o->nranks; r++) {
        free(o->rr[r].ops);
        free(o->rr[r].fences);
        free(o->rr[r].notes);
        free(o->rr[r].inside);
        free(o->rr[r].count);
    }
    free(o->rr);
    for (uint32_t r = 0; o->win_map && r < o->nranks; r++)
        free(o->win_map[r]);
    free(o->win_map);
    free(o->names);
    free(o->comm_of);
    free(o->main_of);
    free(o);
}

struct rma_orderer *rma_order_begin(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match)
{
    struct rma_orderer *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->ranks = ranks;
    o->nranks = nranks;
    o->match = match;
    for (uint32_t r = 0; r < nranks; r++)
        o->any |= ranks[r].nwins > 0;
    if (!o->any)
        return o;   /* nothing one-sided: every step is a no-op */
    o->win_map = calloc(nranks ? nranks : 1, sizeof *o->win_map);
    o->rr = calloc(nranks ? nranks : 1, sizeof *o->rr);
    if (!o->win_map || !o->rr)
        goto oom;
    for (uint32_t r = 0; r < nranks; r++)
        if (!(o->win_map[r] = malloc(sizeof **o->win_map * (ranks[r].nwins ? ranks[r].nwins : 1))))
            goto oom;
    if (rma_unify_windows(ranks, nranks, match, o->win_map, &o->nwins, &o->names, &o->comm_of) != 0)
        goto oom;
    if (!(o->main_of = malloc(sizeof *o->main_of * (nranks ? nranks : 1))))
        goto oom;
    for (uint32_t r = 0; r < nranks; r++)
        o->main_of[r] = UINT32_MAX;
    for (uint32_t r = 0; r < nranks; r++)
        if (!ranks[r].thread && ranks[r].rank >= 0 && (uint32_t)ranks[r].rank < nranks)
            o->main_of[ranks[r].rank] = r;
    return o;
oom:
    rma_order_free(o);
    return NULL;
}

int rma_order_location(struct rma_orderer *o, uint32_t r)
{
    return rma_order_chunk(o, r, 1);
}

int rma_order_chunk(struct rma_orderer *o, uint32_t r, int last)
{
    /* the tracer records fences of the main thread's windows; threads' one-sided calls are left out */
    if (!o->any || o->failed || o->ranks[r].thread)
        return o->failed ? -1 : 0;
    if (scan(&o->ranks[r], o->win_map[r], &o->rr[r], last) != 0) {
        o->failed = 1;
        return -1;
    }
    return 0;
}

/* n bytes of an array that is NULL when empty (memcpy must not see it). */
static size_t put_array(char *to, const void *from, size_t n)
{
    if (n)
        memcpy(to, from, n);
    return n;
}

int rma_order_pack(const struct rma_orderer *o, uint32_t r, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (!o->any || o->ranks[r].thread)
        return 0;
    const struct rank_rma *x = &o->rr[r];
    if (!x->nops && !x->nfences && !x->nnotes)
        return 0;
    uint64_t head[3] = { x->nops, x->nfences, x->nnotes };
    size_t n = sizeof head + sizeof *x->ops * x->nops + sizeof *x->fences * x->nfences + sizeof *x->notes * x->nnotes;
    char *p = malloc(n);
    if (!p)
        return -1;
    memcpy(p, head, sizeof head);
    size_t at = sizeof head;
    at += put_array(p + at, x->ops, sizeof *x->ops * x->nops);
    at += put_array(p + at, x->fences, sizeof *x->fences * x->nfences);
    put_array(p + at, x->notes, sizeof *x->notes * x->nnotes);
    *buf = p;
    *len = n;
    return 0;
}

/* n elements of `size` bytes from *at into a fresh array: 0, or -1. */
static int take(const char *p, size_t len, size_t *at, uint64_t n, size_t size, void **out, size_t *count,
                size_t *cap)
{
    if (n > (len - *at) / size)
        return -1;
    void *v = malloc(size * (n ? n : 1));
    if (!v)
        return -1;
    memcpy(v, p + *at, size * n);
    *at += size * n;
    *out = v;
    *count = *cap = n;
    return 0;
}

int rma_order_unpack(struct rma_orderer *o, uint32_t r, const void *buf, size_t len)
{
    uint64_t head[3];
    struct rank_rma *x = &o->rr[r];
    size_t at = sizeof head;
    if (o->failed || !o->any || r >= o->nranks || len < sizeof head || x->ops || x->fences || x->notes) {
        o->failed = 1;
        return -1;
    }
    memcpy(head, buf, sizeof head);
    if (take(buf, len, &at, head[0], sizeof *x->ops, (void **)&x->ops, &x->nops, &x->cops) != 0
        || take(buf, len, &at, head[1], sizeof *x->fences, (void **)&x->fences, &x->nfences, &x->cfences) != 0
        || take(buf, len, &at, head[2], sizeof *x->notes, (void **)&x->notes, &x->nnotes, &x->cnotes) != 0
        || at != len) {
        o->failed = 1;
        return -1;
    }
    return 0;
}

int rma_order_end(struct rma_orderer *o, struct mg_message **flows, size_t *n, char *err, size_t errlen)
{
    *flows = NULL;
    *n = 0;
    if (o->failed)
        goto oom;
    if (!o->any)
        return 0;
    const struct rt_location *ranks = o->ranks;
    const struct mg_result *match = o->match;
    uint32_t nranks = o->nranks, nwins = o->nwins, *comm_of = o->comm_of, *main_of = o->main_of;
    struct rank_rma *rr = o->rr;
    size_t total = 0;
    for (uint32_t r = 0; r < nranks; r++)
        total += rr[r].nops + rr[r].nnotes;
    if (!(*flows = malloc(sizeof **flows * (total ? total : 1))))
        goto oom;
    /* PSCW: origin o's k-th complete toward target t (its NOTIFY_OUT)
     * precedes the end of t's k-th wait that named o (its NOTIFY_IN): in
     * order per (window, origin, target) */
    for (uint32_t r = 0; r < nranks; r++) {
        for (size_t a = 0; a < rr[r].nnotes; a++) {
            const struct notify *no = &rr[r].notes[a];
            if (!no->out || no->win >= nwins || comm_of[no->win] >= match->ncomms)
                continue;
            const struct mg_comm *c = &match->comms[comm_of[no->win]];
            if (no->remote >= c->size || c->members[no->remote] >= nranks)
                continue;
            uint32_t q = main_of[c->members[no->remote]];
            if (q == UINT32_MAX)
                continue;
            /* which of o's notifications to t on this window this is, and t's one from o of that ordinal */
            size_t k = 0;
            for (size_t b = 0; b < a; b++)
                k += rr[r].notes[b].out && rr[r].notes[b].win == no->win && rr[r].notes[b].remote == no->remote;
            uint32_t my = UINT32_MAX;   /* the origin's rank in the window's communicator */
            for (uint32_t m = 0; m < c->size; m++)
                if (c->members[m] == (uint64_t)ranks[r].rank)
                    my = m;
            for (size_t b = 0; b < rr[q].nnotes; b++) {
                const struct notify *in = &rr[q].notes[b];
                if (in->out || in->win != no->win || in->remote != my)
                    continue;
                if (k-- == 0) {
                    (*flows)[(*n)++] = (struct mg_message){ { r, no->index, no->time }, { q, in->index, in->time },
                                                            comm_of[no->win], 0, 0 };
                    break;
                }
            }
        }
    }
    for (uint32_t r = 0; r < nranks; r++) {
        for (size_t k = 0; k < rr[r].nops; k++) {
            const struct op *op = &rr[r].ops[k];
            if (op->fence == UINT32_MAX || op->win >= nwins || comm_of[op->win] >= match->ncomms)
                continue;
            const struct mg_comm *c = &match->comms[comm_of[op->win]];
            if (op->target >= c->size || c->members[op->target] >= nranks)
                continue;
            uint32_t q = main_of[c->members[op->target]];
            if (q == UINT32_MAX)
                continue;
            struct fence key = { op->win, op->fence, 0, 0 };
            const struct fence *f = bsearch(&key, rr[q].fences, rr[q].nfences, sizeof key, by_win_ordinal);
            if (!f)
                continue;   /* the target's fence was not recorded (a rank that died) */
            (*flows)[(*n)++] = (struct mg_message){ { r, op->index, op->time }, { q, f->index, f->time },
                                                    comm_of[op->win], 0, 0 };
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory while ordering one-sided operations");
    free(*flows);
    *flows = NULL;
    *n = 0;
    return -1;
}

int rma_fence_flows(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                   struct mg_message **flows, size_t *n, char *err, size_t errlen)
{
    struct rma_orderer *o = rma_order_begin(ranks, nranks, match);
    if (!o) {
        *flows = NULL;
        *n = 0;
        snprintf(err, errlen, "out of memory while ordering one-sided operations");
        return -1;
    }
    for (uint32_t r = 0; r < nranks; r++)
        rma_order_location(o, r);   /* a failure sticks: the end reports it */
    int rc = rma_order_end(o, flows, n, err, errlen);
    rma_order_free(o);
    return rc;
}
