/* hash64.c — XXH64, streaming (see hash64.h for why this hash). */
#include "hash64.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* Little-endian loads, whatever the alignment (memcpy compiles to one load). */
static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t load32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t round64(uint64_t acc, uint64_t lane)
{
    acc += lane * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}

static inline uint64_t merge_round(uint64_t acc, uint64_t v)
{
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

void hash64_init(struct hash64 *h)
{
    memset(h, 0, sizeof *h);
    /* Seed 0. */
    h->v[0] = P1 + P2;
    h->v[1] = P2;
    h->v[2] = 0;
    h->v[3] = 0 - P1;
}

static inline void stripe(uint64_t v[4], const unsigned char *p)
{
    v[0] = round64(v[0], load64(p));
    v[1] = round64(v[1], load64(p + 8));
    v[2] = round64(v[2], load64(p + 16));
    v[3] = round64(v[3], load64(p + 24));
}

void hash64_update(struct hash64 *h, const void *data, size_t len)
{
    const unsigned char *p = data;
    h->total += len;
    if (h->nbuf > 0) {
        size_t take = 32 - h->nbuf < len ? 32 - h->nbuf : len;
        memcpy(h->buf + h->nbuf, p, take);
        h->nbuf += take;
        p += take;
        len -= take;
        if (h->nbuf < 32)
            return;
        stripe(h->v, h->buf);
        h->nbuf = 0;
    }
    /* Four independent lanes in registers: the loop runs at memory speed. */
    uint64_t v0 = h->v[0], v1 = h->v[1], v2 = h->v[2], v3 = h->v[3];
    while (len >= 32) {
        v0 = round64(v0, load64(p));
        v1 = round64(v1, load64(p + 8));
        v2 = round64(v2, load64(p + 16));
        v3 = round64(v3, load64(p + 24));
        p += 32;
        len -= 32;
    }
    h->v[0] = v0;
    h->v[1] = v1;
    h->v[2] = v2;
    h->v[3] = v3;
    memcpy(h->buf, p, len);
    h->nbuf = len;
}

uint64_t hash64_final(const struct hash64 *h)
{
    uint64_t acc;
    if (h->total >= 32) {
        const uint64_t *v = h->v;
        acc = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
        for (int i = 0; i < 4; i++)
            acc = merge_round(acc, v[i]);
    } else {
        acc = P5;   /* seed 0 + P5 */
    }
    acc += h->total;
    const unsigned char *p = h->buf;
    size_t len = h->nbuf;
    while (len >= 8) {
        acc ^= round64(0, load64(p));
        acc = rotl(acc, 27) * P1 + P4;
        p += 8;
        len -= 8;
    }
    if (len >= 4) {
        acc ^= (uint64_t)load32(p) * P1;
        acc = rotl(acc, 23) * P2 + P3;
        p += 4;
        len -= 4;
    }
    while (len > 0) {
        acc ^= (uint64_t)*p * P5;
        acc = rotl(acc, 11) * P1;
        p++;
        len--;
    }
    acc ^= acc >> 33;
    acc *= P2;
    acc ^= acc >> 29;
    acc *= P3;
    acc ^= acc >> 32;
    return acc;
}

uint64_t hash64(const void *data, size_t len)
{
    struct hash64 h;
    hash64_init(&h);
    hash64_update(&h, data, len);
    return hash64_final(&h);
}
