/* flowmatch.c — see flowmatch.h. */
#include "flowmatch.h"

#include <stdlib.h>
#include <string.h>

struct counter {
    struct fm_key key;
    uint64_t sends, recvs;
    int used;
};

enum { PENDING, RESOLVED, DROPPED };

struct posted {
    uint64_t req, time, cookie;
    struct fm_key key;
    int state, has_req;
};

struct queue {               /* ring buffer of receives in posting order */
    struct posted *v;
    uint64_t head, n, cap;   /* cap is a power of two */
};

struct fm_matcher {
    struct counter *slots;
    uint64_t nslots, used;
    struct queue *queues;     /* per rank: [2 * rank] receives, [2 * rank + 1] sends */
    uint32_t nranks;
    fm_end_fn on_end;
    void *user;
};

static uint64_t hash_key(const struct fm_key *k)
{
    uint64_t h = 1469598103934665603ULL;
    const uint32_t v[4] = { k->comm, k->src, k->dst, k->tag };
    for (int i = 0; i < 4; i++)
        h = (h ^ v[i]) * 1099511628211ULL, h ^= h >> 29;
    return h;
}

static int same(const struct fm_key *a, const struct fm_key *b)
{
    return a->comm == b->comm && a->src == b->src && a->dst == b->dst && a->tag == b->tag;
}

static struct counter *counter_of(struct fm_matcher *m, const struct fm_key *key)
{
    if ((m->used + 1) * 2 > m->nslots) {
        uint64_t ns = m->nslots ? m->nslots * 2 : 1024;
        struct counter *slots = calloc(ns, sizeof *slots);
        if (!slots)
            return NULL;
        for (uint64_t i = 0; i < m->nslots; i++)
            if (m->slots[i].used) {
                uint64_t s = hash_key(&m->slots[i].key) & (ns - 1);
                while (slots[s].used)
                    s = (s + 1) & (ns - 1);
                slots[s] = m->slots[i];
            }
        free(m->slots);
        m->slots = slots;
        m->nslots = ns;
    }
    uint64_t s = hash_key(key) & (m->nslots - 1);
    for (; m->slots[s].used; s = (s + 1) & (m->nslots - 1))
        if (same(&m->slots[s].key, key))
            return &m->slots[s];
    m->slots[s] = (struct counter){ *key, 0, 0, 1 };
    m->used++;
    return &m->slots[s];
}

struct fm_matcher *fm_new(uint32_t nranks, fm_end_fn on_end, void *user)
{
    struct fm_matcher *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->queues = calloc(nranks ? 2 * (size_t)nranks : 1, sizeof *m->queues);
    if (!m->queues) {
        free(m);
        return NULL;
    }
    m->nranks = nranks;
    m->on_end = on_end;
    m->user = user;
    return m;
}

void fm_free(struct fm_matcher *m)
{
    if (!m)
        return;
    for (uint32_t q = 0; q < 2 * m->nranks; q++)
        free(m->queues[q].v);
    free(m->queues);
    free(m->slots);
    free(m);
}

static struct posted *at(struct queue *q, uint64_t i)
{
    return &q->v[(q->head + i) & (q->cap - 1)];
}

static struct posted *push(struct queue *q)
{
    if (q->n == q->cap) {
        uint64_t cap = q->cap ? q->cap * 2 : 16;
        struct posted *v = malloc(sizeof *v * cap);
        if (!v)
            return NULL;
        for (uint64_t i = 0; i < q->n; i++)
            v[i] = *at(q, i);
        free(q->v);
        q->v = v;
        q->cap = cap;
        q->head = 0;
    }
    return at(q, q->n++);
}

/* Count the sends or receives at the head of a queue whose turn has come.
 * At the end (all), a send still pending was never cancelled: it counts. */
static void release(struct fm_matcher *m, uint32_t rank, int is_send, int all)
{
    struct queue *q = &m->queues[2 * (size_t)rank + (is_send ? 1 : 0)];
    while (q->n) {
        struct posted *p = at(q, 0);
        if (p->state == PENDING && !all)
            break;
        if (p->state == RESOLVED || (p->state == PENDING && is_send)) {
            struct counter *c = counter_of(m, &p->key);
            if (c)
                m->on_end(m->user, is_send, &p->key, is_send ? c->sends++ : c->recvs++, rank, p->time, p->cookie);
        }
        q->head = (q->head + 1) & (q->cap - 1);
        q->n--;
    }
}

int fm_send(struct fm_matcher *m, uint32_t rank, int has_req, uint64_t req, const struct fm_key *key,
            uint64_t time, uint64_t cookie)
{
    if (rank >= m->nranks)
        return 0;
    struct posted *p = push(&m->queues[2 * (size_t)rank + 1]);
    if (!p)
        return -1;
    /* an Isend waits for its completion: a cancelled one is no message */
    *p = (struct posted){ req, time, cookie, *key, has_req ? PENDING : RESOLVED, has_req };
    release(m, rank, 1, 0);
    return 0;
}

/* The oldest pending entry of a queue with this request (ids are reused). */
static struct posted *pending(struct queue *q, uint64_t req)
{
    for (uint64_t i = 0; i < q->n; i++)
        if (at(q, i)->state == PENDING && at(q, i)->req == req)
            return at(q, i);
    return NULL;
}

void fm_send_complete(struct fm_matcher *m, uint32_t rank, uint64_t req)
{
    if (rank >= m->nranks)
        return;
    struct posted *p = pending(&m->queues[2 * (size_t)rank + 1], req);
    if (p) {
        p->state = RESOLVED;
        release(m, rank, 1, 0);
    }
}

int fm_post(struct fm_matcher *m, uint32_t rank, uint64_t req)
{
    if (rank >= m->nranks)
        return 0;
    struct posted *p = push(&m->queues[2 * (size_t)rank]);
    if (!p)
        return -1;
    *p = (struct posted){ .req = req, .state = PENDING, .has_req = 1 };
    return 0;
}

int fm_recv(struct fm_matcher *m, uint32_t rank, int has_req, uint64_t req, const struct fm_key *key, uint64_t time,
            uint64_t cookie)
{
    if (rank >= m->nranks)
        return 0;
    struct queue *q = &m->queues[2 * (size_t)rank];
    struct posted *p = has_req ? pending(q, req) : NULL;
    if (!p) {
        /* blocking, or no request record: posted when it completed */
        if (!(p = push(q)))
            return -1;
    }
    *p = (struct posted){ req, time, cookie, *key, RESOLVED, has_req };
    release(m, rank, 0, 0);
    return 0;
}

void fm_freed(struct fm_matcher *m, uint32_t rank, uint64_t req, const struct fm_key *key, uint64_t cookie)
{
    if (rank >= m->nranks)
        return;
    struct posted *p = pending(&m->queues[2 * (size_t)rank], req);
    if (!p)
        return;
    if (key)
        *p = (struct posted){ req, FM_TIME_UNKNOWN, cookie, *key, RESOLVED, 1 };
    else
        p->state = DROPPED;
    release(m, rank, 0, 0);
}

void fm_cancel(struct fm_matcher *m, uint32_t rank, uint64_t req)
{
    if (rank >= m->nranks)
        return;
    for (int is_send = 0; is_send < 2; is_send++) {
        struct posted *p = pending(&m->queues[2 * (size_t)rank + is_send], req);
        if (p) {
            p->state = DROPPED;
            release(m, rank, is_send, 0);
        }
    }
}

uint64_t fm_finish(struct fm_matcher *m)
{
    uint64_t never = 0;
    for (uint32_t r = 0; r < m->nranks; r++) {
        struct queue *q = &m->queues[2 * (size_t)r];
        for (uint64_t i = 0; i < q->n; i++)
            never += at(q, i)->state == PENDING;
        release(m, r, 0, 1);
        release(m, r, 1, 1);
    }
    return never;
}
