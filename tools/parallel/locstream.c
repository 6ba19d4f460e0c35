/* locstream.c — see locstream.h. */
#include <config.h>
#include "locstream.h"

#include <stdlib.h>
#include <string.h>

struct header {
    uint32_t kind, loc;
    uint64_t len;             /* the payload's, unpadded */
};

static size_t padded(uint64_t n)
{
    return (size_t)((n + 7) & ~(uint64_t)7);
}

int ls_reserve(struct ls_buf *b, size_t more)
{
    if (b->failed)
        return -1;
    size_t need = b->n + more;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : (size_t)1 << 16;
        while (cap < need)
            cap *= 2;
        uint8_t *nv = realloc(b->v, cap);
        if (!nv) {
            b->failed = 1;
            return -1;
        }
        b->v = nv;
        b->cap = cap;
    }
    return 0;
}

int ls_put(struct ls_buf *b, uint32_t kind, uint32_t loc, int nparts, const void *const *parts, const size_t *lens)
{
    uint64_t len = 0;
    for (int k = 0; k < nparts; k++)
        len += lens[k];
    size_t need = b->n + sizeof(struct header) + padded(len);
    if (ls_reserve(b, need - b->n) != 0)
        return -1;
    struct header h = { kind, loc, len };
    memcpy(b->v + b->n, &h, sizeof h);
    size_t at = b->n + sizeof h;
    for (int k = 0; k < nparts; k++) {
        if (lens[k])
            memcpy(b->v + at, parts[k], lens[k]);
        at += lens[k];
    }
    memset(b->v + at, 0, padded(len) - len);
    b->n = need;
    return 0;
}

int ls_put_times(struct ls_buf *b, uint32_t loc, uint64_t first, const struct rt_times *t)
{
    uint64_t head[3] = { first, t->n, t->nwide };
    uint64_t nblocks = (t->n + RT_TIME_BLOCK - 1) / RT_TIME_BLOCK;
    /* the 8-byte arrays first: every part stays aligned in the piece */
    const void *parts[4] = { head, t->base, t->wide, t->delta };
    size_t lens[4] = { sizeof head, sizeof *t->base * nblocks, sizeof *t->wide * t->nwide,
                       sizeof *t->delta * t->n };
    return ls_put(b, LS_TIMES, loc, 4, parts, lens);
}

int ls_put_truth(struct ls_buf *b, uint32_t loc, uint64_t from, uint64_t n, const uint64_t *raw,
                 const uint64_t *known)
{
    uint64_t head[2] = { from, n };
    const void *parts[3] = { head, raw, known };
    size_t lens[3] = { sizeof head, sizeof *raw * n, sizeof *known * ((n + 63) / 64) };
    return ls_put(b, LS_TRUTH, loc, 3, parts, lens);
}

int ls_put_location(struct ls_buf *b, uint32_t loc, const struct ls_location *l, const struct rt_sources *src,
                    const uint64_t *words)
{
    const void *parts[3] = { l, src, words };
    size_t lens[3] = { sizeof *l, sizeof *src * l->nsources, sizeof *words * l->nwords };
    return ls_put(b, LS_LOCATION, loc, 3, parts, lens);
}

void ls_buf_free(struct ls_buf *b)
{
    free(b->v);
    memset(b, 0, sizeof *b);
}

int ls_next(const uint8_t *buf, size_t len, size_t *at, struct ls_record *r)
{
    if (*at == len)
        return 0;
    struct header h;
    if (len - *at < sizeof h)
        return -1;
    memcpy(&h, buf + *at, sizeof h);
    if (h.len > len - *at - sizeof h || padded(h.len) > len - *at - sizeof h)
        return -1;
    r->kind = h.kind;
    r->loc = h.loc;
    r->p = buf + *at + sizeof h;
    r->len = h.len;
    *at += sizeof h + padded(h.len);
    return 1;
}

int ls_get_times(const struct ls_record *r, uint64_t *first, struct rt_times *view)
{
    uint64_t head[3];
    if (r->len < sizeof head)
        return -1;
    memcpy(head, r->p, sizeof head);
    uint64_t n = head[1], nwide = head[2], nblocks = (n + RT_TIME_BLOCK - 1) / RT_TIME_BLOCK;
    if (n > r->len || nwide > r->len || r->len != sizeof head + 8 * nblocks + 8 * nwide + 4 * n)
        return -1;
    memset(view, 0, sizeof *view);
    *first = head[0];
    view->n = view->cap = n;
    view->nwide = view->cwide = nwide;
    view->base = (uint64_t *)(uintptr_t)(r->p + sizeof head);
    view->wide = view->base + nblocks;
    view->delta = (uint32_t *)(uintptr_t)(view->wide + nwide);
    return 0;
}

int ls_get_truth(const struct ls_record *r, uint64_t *from, uint64_t *n, const uint64_t **raw,
                 const uint64_t **known)
{
    uint64_t head[2];
    if (r->len < sizeof head)
        return -1;
    memcpy(head, r->p, sizeof head);
    if (head[1] > r->len || r->len != sizeof head + 8 * head[1] + 8 * ((head[1] + 63) / 64))
        return -1;
    *from = head[0];
    *n = head[1];
    *raw = (const uint64_t *)(uintptr_t)(r->p + sizeof head);
    *known = *raw + head[1];
    return 0;
}

int ls_get_location(const struct ls_record *r, struct ls_location *l, const struct rt_sources **src,
                    const uint64_t **words)
{
    if (r->len < sizeof *l)
        return -1;
    memcpy(l, r->p, sizeof *l);
    if (l->nsources > r->len || l->nwords > r->len
        || r->len != sizeof *l + sizeof **src * l->nsources + sizeof **words * l->nwords)
        return -1;
    *src = (const struct rt_sources *)(uintptr_t)(r->p + sizeof *l);
    *words = (const uint64_t *)(uintptr_t)(r->p + sizeof *l + sizeof **src * l->nsources);
    return 0;
}
