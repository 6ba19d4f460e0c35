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
    struct queue *queues;
    uint32_t nranks;
    uint64_t max_queue;
    fm_recv_fn on_recv;
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

struct fm_matcher *fm_new(uint32_t nranks, fm_recv_fn on_recv, void *user)
{
    struct fm_matcher *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->queues = calloc(nranks ? nranks : 1, sizeof *m->queues);
    if (!m->queues) {
        free(m);
        return NULL;
    }
    m->nranks = nranks;
    m->on_recv = on_recv;
    m->user = user;
    return m;
}

void fm_free(struct fm_matcher *m)
{
    if (!m)
        return;
    for (uint32_t r = 0; r < m->nranks; r++)
        free(m->queues[r].v);
    free(m->queues);
    free(m->slots);
    free(m);
}

uint64_t fm_send(struct fm_matcher *m, const struct fm_key *key)
{
    struct counter *c = counter_of(m, key);
    return c ? c->sends++ : UINT64_MAX;
}

static struct posted *at(struct queue *q, uint64_t i)
{
    return &q->v[(q->head + i) & (q->cap - 1)];
}

static struct posted *push(struct fm_matcher *m, struct queue *q)
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
    struct posted *p = at(q, q->n++);
    if (q->n > m->max_queue)
        m->max_queue = q->n;
    return p;
}

/* Count the receives at the head of the queue whose turn has come. */
static void release(struct fm_matcher *m, uint32_t rank, int all)
{
    struct queue *q = &m->queues[rank];
    while (q->n) {
        struct posted *p = at(q, 0);
        if (p->state == PENDING && !all)
            break;
        if (p->state == RESOLVED) {
            struct counter *c = counter_of(m, &p->key);
            if (c)
                m->on_recv(m->user, &p->key, c->recvs++, rank, p->time, p->cookie);
        }
        q->head = (q->head + 1) & (q->cap - 1);
        q->n--;
    }
}

int fm_post(struct fm_matcher *m, uint32_t rank, uint64_t req)
{
    if (rank >= m->nranks)
        return 0;
    struct posted *p = push(m, &m->queues[rank]);
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
    struct queue *q = &m->queues[rank];
    struct posted *p = NULL;
    /* the oldest pending receive with this request (ids are reused) */
    for (uint64_t i = 0; has_req && i < q->n && !p; i++)
        if (at(q, i)->state == PENDING && at(q, i)->req == req)
            p = at(q, i);
    if (!p) {
        /* blocking, or no request record: posted when it completed */
        if (!(p = push(m, q)))
            return -1;
    }
    *p = (struct posted){ req, time, cookie, *key, RESOLVED, has_req };
    release(m, rank, 0);
    return 0;
}

void fm_cancel(struct fm_matcher *m, uint32_t rank, uint64_t req)
{
    if (rank >= m->nranks)
        return;
    struct queue *q = &m->queues[rank];
    for (uint64_t i = 0; i < q->n; i++)
        if (at(q, i)->state == PENDING && at(q, i)->req == req) {
            at(q, i)->state = DROPPED;
            break;
        }
    release(m, rank, 0);
}

uint64_t fm_finish(struct fm_matcher *m)
{
    uint64_t never = 0;
    for (uint32_t r = 0; r < m->nranks; r++) {
        struct queue *q = &m->queues[r];
        for (uint64_t i = 0; i < q->n; i++)
            never += at(q, i)->state == PENDING;
        release(m, r, 1);
    }
    return never;
}

uint64_t fm_max_queue(const struct fm_matcher *m)
{
    return m->max_queue;
}
