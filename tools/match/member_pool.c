/* member_pool.c — see member_pool.h. An open-addressing table of lists,
 * keyed by their content's hash. */
#include <config.h>
#include "member_pool.h"
#include "hash64.h"

#include <stdlib.h>
#include <string.h>

/* Shorter lists cost less than sharing them. */
#define SHARE_MIN_MEMBERS 16

struct member_list {
    uint64_t hash;            /* 0: an empty slot */
    uint32_t n;
    uint64_t *v;
};

void member_pool_init(struct member_pool *p)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
}

static uint64_t hash_of(const uint64_t *v, uint32_t n)
{
    uint64_t h = hash64(v, sizeof *v * n) ^ n;
    return h ? h : 1;
}

/* Room for one more list; lock held. 0, or -1 when out of memory. */
static int grow(struct member_pool *p)
{
    if ((p->n + 1) * 2 <= p->cap)
        return 0;
    size_t cap = p->cap ? p->cap * 2 : 64;
    struct member_list *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->slots[i].hash)
            continue;
        size_t s = (size_t)p->slots[i].hash & (cap - 1);
        while (slots[s].hash)
            s = (s + 1) & (cap - 1);
        slots[s] = p->slots[i];
    }
    free(p->slots);
    p->slots = slots;
    p->cap = cap;
    return 0;
}

/* The pool's copy of v[0..n): v itself when it is new (the pool takes it),
 * the earlier equal list (v is freed), or NULL when the pool is full. */
static uint64_t *intern(struct member_pool *p, uint64_t *v, uint32_t n)
{
    uint64_t h = hash_of(v, n);
    if (grow(p) != 0)
        return NULL;
    size_t s = (size_t)h & (p->cap - 1);
    for (; p->slots[s].hash; s = (s + 1) & (p->cap - 1)) {
        const struct member_list *l = &p->slots[s];
        if (l->hash == h && l->n == n && memcmp(l->v, v, sizeof *v * n) == 0) {
            free(v);
            return l->v;
        }
    }
    p->slots[s] = (struct member_list){ h, n, v };
    p->n++;
    return v;
}

void member_pool_share(struct member_pool *p, struct rt_location *r)
{
    if (r->borrowed)
        return;   /* a thread's location: its rank's lists */
    pthread_mutex_lock(&p->lock);
    for (uint32_t c = 0; c < r->ncomms; c++) {
        struct rt_comm *cm = &r->comms[c];
        if (cm->shared_members || !cm->members || cm->nmembers < SHARE_MIN_MEMBERS)
            continue;
        uint64_t *shared = intern(p, cm->members, cm->nmembers);
        if (shared) {
            cm->members = shared;
            cm->shared_members = 1;
        }
    }
    pthread_mutex_unlock(&p->lock);
}

int member_pool_own(struct rt_comm *c)
{
    if (!c->shared_members)
        return 0;
    uint64_t *own = malloc(sizeof *own * (c->nmembers ? c->nmembers : 1));
    if (!own)
        return -1;
    memcpy(own, c->members, sizeof *own * c->nmembers);
    c->members = own;
    c->shared_members = 0;
    return 0;
}

void member_pool_free(struct member_pool *p)
{
    for (size_t i = 0; i < p->cap; i++)
        free(p->slots[i].v);
    free(p->slots);
    pthread_mutex_destroy(&p->lock);
    memset(p, 0, sizeof *p);
}
