/* causal_vectors.c — the build's vectors (causal_builder.h): a pool of
 * them, W entries each, and their join, the inner loop of every receive. */
#include "causal_builder.h"

#include <stdlib.h>
#include <string.h>

int cb_u32_push(struct u32vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        uint32_t *v = realloc(a->v, sizeof *v * cap);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

static uint32_t *vec_get(struct builder *b)
{
    uint32_t *v = b->nfree ? b->free_vecs[--b->nfree] : malloc(sizeof *v * (b->Wmax ? b->Wmax : 1));
    if (!v) {
        b->oom = 1;
        return NULL;
    }
    if (++b->live > b->peak)
        b->peak = b->live;
    return v;
}

void cb_vec_put(struct builder *b, uint32_t *v)
{
    if (!v)
        return;
    b->live--;
    if (b->nfree == b->cfree) {
        size_t cap = b->cfree ? b->cfree * 2 : 64;
        uint32_t **nv = realloc(b->free_vecs, sizeof *nv * cap);
        if (!nv) {
            free(v);
            return;
        }
        b->free_vecs = nv;
        b->cfree = cap;
    }
    b->free_vecs[b->nfree++] = v;
}

uint32_t *cb_vec_copy(struct builder *b, const uint32_t *src)
{
    uint32_t *v = vec_get(b);
    if (v)
        memcpy(v, src, sizeof *v * b->W);
    return v;
}

void cb_join(uint32_t *restrict v, const uint32_t *restrict w, uint32_t n)
{
    uint32_t q = 0;
    for (; q + 4 <= n; q += 4) {
        u32x4 a = load4(v + q), b = load4(w + q), gt = (u32x4)(a > b);
        a = (a & gt) | (b & ~gt);
        memcpy(v + q, &a, sizeof a);
    }
    for (; q < n; q++)
        v[q] = v[q] > w[q] ? v[q] : w[q];
}
