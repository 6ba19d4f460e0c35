/* pairmin.c — see pairmin.h. */
#include <config.h>
#include "pairmin.h"

#include <stdlib.h>
#include <string.h>

static size_t home(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

/* The table twice as large, at most half full after the next entry. */
static int grow_table(struct pair_min *p)
{
    size_t cap = p->cap ? p->cap * 2 : 1024;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *slot = malloc(sizeof *slot * cap);
    if (!keys || !slot) {
        free(keys);
        free(slot);
        return -1;
    }
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->keys[i])
            continue;
        size_t s = home(p->keys[i], cap);
        while (keys[s])
            s = (s + 1) & (cap - 1);
        keys[s] = p->keys[i];
        slot[s] = p->slot[i];
    }
    free(p->keys);
    free(p->slot);
    p->keys = keys;
    p->slot = slot;
    p->cap = cap;
    return 0;
}

static int grow_entries(struct pair_min *p)
{
    size_t c = p->ecap ? p->ecap * 2 : 256;
    uint32_t *u = realloc(p->u, sizeof *u * c);
    if (u)
        p->u = u;
    uint32_t *v = u ? realloc(p->v, sizeof *v * c) : NULL;
    if (v)
        p->v = v;
    double *w = v ? realloc(p->w, sizeof *w * c) : NULL;
    if (w)
        p->w = w;
    if (!w)
        return -1;
    p->ecap = c;
    return 0;
}

int pmin_put(struct pair_min *p, uint32_t u, uint32_t v, double w)
{
    if ((p->n + 1) * 2 > p->cap && grow_table(p) != 0)
        return -1;
    uint64_t key = (((uint64_t)u << 32) | v) + 1;
    size_t s = home(key, p->cap);
    for (; p->keys[s]; s = (s + 1) & (p->cap - 1))
        if (p->keys[s] == key) {
            double *old = &p->w[p->slot[s]];
            if (!(w < *old))
                return 0;
            *old = w;
            return 1;
        }
    if (p->n >= UINT32_MAX || (p->n == p->ecap && grow_entries(p) != 0))
        return -1;
    p->u[p->n] = u;
    p->v[p->n] = v;
    p->w[p->n] = w;
    p->keys[s] = key;
    p->slot[s] = (uint32_t)p->n;
    p->n++;
    return 1;
}

void pmin_free(struct pair_min *p)
{
    free(p->u);
    free(p->v);
    free(p->w);
    free(p->keys);
    free(p->slot);
    memset(p, 0, sizeof *p);
}
