/* match_requests.c — a request's events put together (match_private.h).
 *
 * Most requests are posted and completed on one location, close together:
 * they wait in a small table of the location's open requests and are
 * resolved at their completion. The rest (completed by another thread,
 * cancelled elsewhere, still open when the location ends) go to a sort by
 * (rank, request id), whose groups hold the definitions first, then the
 * uses; request ids are unique per rank. Both ways resolve a use with the
 * same function, from the same facts. */
#include "match_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What a request's definitions say. */
struct req_state {
    int posted, nbc, cancelled;
    uint64_t posted_time, nbc_time;
    struct mg_event_ref nbc_enter;
    int nbc_neighbor;
};

/* The first definition of each kind counts, should an id repeat. */
static void state_add(struct req_state *s, const struct req_record *d)
{
    if (d->role == REQ_POSTED && !s->posted++)
        s->posted_time = d->time;
    else if (d->role == REQ_NBC && !s->nbc++) {
        s->nbc_time = d->time;
        s->nbc_enter = (struct mg_event_ref){ d->stream, d->index, d->time };
        s->nbc_neighbor = d->neighbor;
    } else if (d->role == REQ_CANCELLED)
        s->cancelled = 1;
}

static int resolve(const struct req_record *u, const struct req_state *s, struct match_sinks *k)
{
    struct endpoint ep;
    struct call c;
    switch (u->use) {
    case USE_ISEND:
        if (s->cancelled)
            k->out->cancelled++;
        else if (u->outside)   /* to a process outside the trace */
            k->out->outside_sends++;
        else
            return sink_put(k, MG_SINK_SENDS, &u->u.ep);
        return 0;
    case USE_RECEIVE:   /* its turn is when it was posted */
        ep = u->u.ep;
        ep.order = s->posted ? s->posted_time : u->time;
        return sink_put(k, MG_SINK_RECVS, &ep);
    case USE_CANCELLED:
        k->out->cancelled += s->posted != 0;   /* a receive's (a send's is counted at the send) */
        return 0;
    case USE_NBC:
        if (!s->nbc)
            return 0;   /* a completion without its posting: not a call we can place */
        c = u->u.c;
        c.enter = s->nbc_enter;
        c.order = s->nbc_time;
        c.neighbor = s->nbc_neighbor;
        return sink_put(k, MG_SINK_CALLS, &c);
    default:
        return 0;
    }
}

/* ---------- the location's open requests: open addressing by id ---------- */

struct pending {
    uint64_t req;
    int used;
    struct req_record posted, nbc, isend;   /* valid when has_* */
    int has_posted, has_nbc, has_isend;
};

struct req_pending {
    struct pending *slots;
    size_t cap, n;            /* cap: a power of two, n < cap / 2 */
    size_t room;              /* most entries held; then all go to the join */
};

static size_t slot_of(const struct req_pending *p, uint64_t req)
{
    uint64_t h = req * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h >> 32) & (p->cap - 1);
}

struct req_pending *req_pending_new(size_t room)
{
    struct req_pending *p = calloc(1, sizeof *p);
    if (p && !(p->slots = calloc(p->cap = 8, sizeof *p->slots))) {   /* many may be open at once: small, grown */
        free(p);
        p = NULL;
    }
    if (p)
        p->room = room > 4 ? room : 4;
    return p;
}


void req_pending_free(struct req_pending *p)
{
    if (p)
        free(p->slots);
    free(p);
}

static struct pending *find(struct req_pending *p, uint64_t req)
{
    for (size_t i = slot_of(p, req);; i = (i + 1) & (p->cap - 1))
        if (!p->slots[i].used)
            return NULL;
        else if (p->slots[i].req == req)
            return &p->slots[i];
}

static struct pending *add(struct req_pending *p, uint64_t req)
{
    if (2 * (p->n + 1) > p->cap) {   /* rehash into twice the room */
        struct pending *old = p->slots;
        size_t ocap = p->cap;
        struct pending *v = calloc(ocap * 2, sizeof *v);
        if (!v) {
            errno = ENOMEM;
            return NULL;
        }
        p->slots = v;
        p->cap = ocap * 2;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].used) {
                size_t j = slot_of(p, old[i].req);
                while (v[j].used)
                    j = (j + 1) & (p->cap - 1);
                v[j] = old[i];
            }
        free(old);
    }
    size_t i = slot_of(p, req);
    while (p->slots[i].used)
        i = (i + 1) & (p->cap - 1);
    memset(&p->slots[i], 0, sizeof p->slots[i]);
    p->slots[i].used = 1;
    p->slots[i].req = req;
    p->n++;
    return &p->slots[i];
}

/* A new entry for `req`, after sending every open one to the join when
 * the table is full; NULL (errno set) when memory or a sort failed. */
static struct pending *add_room(struct req_pending *p, struct match_sinks *k, uint64_t req)
{
    if (p->n >= p->room && req_location_end(p, k) != 0)
        return NULL;
    return add(p, req);
}

/* Linear probing's deletion: later entries of the run move back into the
 * hole, so that every lookup still finds its entry before an empty slot. */
static void drop(struct req_pending *p, struct pending *e)
{
    size_t hole = (size_t)(e - p->slots), mask = p->cap - 1;
    p->slots[hole].used = 0;
    p->n--;
    for (size_t i = (hole + 1) & mask; p->slots[i].used; i = (i + 1) & mask) {
        size_t home = slot_of(p, p->slots[i].req);
        /* it may fill the hole when the hole lies between its home and i (cyclically) */
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            p->slots[hole] = p->slots[i];
            p->slots[i].used = 0;
            hole = i;
        }
    }
}

static struct req_state state_of(const struct pending *e)
{
    struct req_state s = { 0 };
    if (e->has_posted)
        state_add(&s, &e->posted);
    if (e->has_nbc)
        state_add(&s, &e->nbc);
    return s;
}

int req_put(struct req_pending *p, struct match_sinks *k, const struct req_record *q)
{
    struct pending *e = find(p, q->req);
    struct req_record u;
    struct req_state s;
    int rc;
    switch (q->role == REQ_USE ? -1 : (int)q->role) {
    case REQ_POSTED:
    case REQ_NBC:
        if (!e && !(e = add_room(p, k, q->req)))
            return -1;
        if (q->role == REQ_POSTED ? e->has_posted : e->has_nbc)
            return sink_put(k, MG_SINK_REQUESTS, q);   /* an id posted twice: the join takes the first */
        if (q->role == REQ_POSTED) {
            e->posted = *q;
            e->has_posted = 1;
        } else {
            e->nbc = *q;
            e->has_nbc = 1;
        }
        return 0;
    case REQ_CANCELLED:
        u = *q;
        u.role = REQ_USE;
        u.use = USE_CANCELLED;
        if (!e)   /* posted elsewhere, or still to come: the join decides */
            return sink_put(k, MG_SINK_REQUESTS, q) || sink_put(k, MG_SINK_REQUESTS, &u) ? -1 : 0;
        s = state_of(e);
        s.cancelled = 1;
        rc = e->has_isend ? resolve(&e->isend, &s, k) : 0;
        if (rc == 0)
            rc = resolve(&u, &s, k);
        drop(p, e);
        return rc;
    }
    switch (q->use) {
    case USE_ISEND:   /* open until it completes or is cancelled */
        if (!e && !(e = add_room(p, k, q->req)))
            return -1;
        if (e->has_isend)
            return sink_put(k, MG_SINK_REQUESTS, q);
        e->isend = *q;
        e->has_isend = 1;
        return 0;
    case USE_ISEND_DONE:   /* completed, so never cancelled; elsewhere's sends are the join's */
        if (!e || !e->has_isend)
            return 0;
        s = state_of(e);
        rc = resolve(&e->isend, &s, k);
        drop(p, e);
        return rc;
    case USE_RECEIVE:
    case USE_NBC:
        if (!e || !(q->use == USE_RECEIVE ? e->has_posted : e->has_nbc))
            return sink_put(k, MG_SINK_REQUESTS, q);   /* posted on another location */
        s = state_of(e);
        rc = resolve(q, &s, k);
        drop(p, e);
        return rc;
    default:
        return 0;
    }
}

int req_location_end(struct req_pending *p, struct match_sinks *k)
{
    for (size_t i = 0; i < p->cap; i++) {
        struct pending *e = &p->slots[i];
        if (!e->used)
            continue;
        if ((e->has_posted && sink_put(k, MG_SINK_REQUESTS, &e->posted) != 0)
            || (e->has_nbc && sink_put(k, MG_SINK_REQUESTS, &e->nbc) != 0)
            || (e->has_isend && sink_put(k, MG_SINK_REQUESTS, &e->isend) != 0))
            return -1;
        e->used = 0;
    }
    p->n = 0;
    return 0;
}

int by_request(const void *a, const void *b)
{
    const struct req_record *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->req != y->req) return x->req < y->req ? -1 : 1;
    if (x->role != y->role) return x->role < y->role ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return (x->use > y->use) - (x->use < y->use);
}

int req_join(struct match_sinks *k)
{
    if (st_extsort_finish(k->requests) != 0)
        return -1;
    uint32_t rank = 0;
    uint64_t req = 0;
    int first = 1;
    struct req_state s = { 0 };
    for (const struct req_record *x; (x = st_extsort_next(k->requests));) {
        if (first || x->rank != rank || x->req != req) {   /* a new request */
            first = 0;
            rank = x->rank;
            req = x->req;
            memset(&s, 0, sizeof s);
        }
        if (x->role != REQ_USE)
            state_add(&s, x);
        else if (resolve(x, &s, k) != 0)
            return -1;
    }
    return st_extsort_failed(k->requests) ? -1 : 0;
}
