/* u64map.c — see u64map.h. */
#include "u64map.h"

#include <stdlib.h>

static size_t slot_of(const struct u64map *m, uint64_t key)
{
    key ^= key >> 33;   /* splitmix64's finaliser: message numbers are dense */
    key *= UINT64_C(0xff51afd7ed558ccd);
    key ^= key >> 33;
    return (size_t)key & (m->cap - 1);
}

int u64map_get(const struct u64map *m, uint64_t key, uint64_t *value)
{
    if (!m->n)
        return 0;
    for (size_t i = slot_of(m, key); m->used[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) {
            if (value)
                *value = m->values[i];
            return 1;
        }
    return 0;
}

static int grow(struct u64map *m)
{
    struct u64map g = { 0 };
    g.cap = m->cap ? m->cap * 2 : 64;
    g.keys = malloc(sizeof *g.keys * g.cap);
    g.values = malloc(sizeof *g.values * g.cap);
    g.used = calloc(g.cap, 1);
    if (!g.keys || !g.values || !g.used || g.cap < m->cap) {
        u64map_free(&g);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            u64map_put(&g, m->keys[i], m->values[i]);   /* no growth: room for all */
    u64map_free(m);
    *m = g;
    return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t value)
{
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) != 0)   /* at most 3/4 full */
        return -1;
    size_t i = slot_of(m, key);
    for (; m->used[i]; i = (i + 1) & (m->cap - 1))
        if (m->keys[i] == key) {
            m->values[i] = value;
            return 0;
        }
    m->used[i] = 1;
    m->keys[i] = key;
    m->values[i] = value;
    m->n++;
    return 0;
}

int u64map_remove(struct u64map *m, uint64_t key, uint64_t *value)
{
    if (!m->n)
        return 0;
    size_t mask = m->cap - 1, i = slot_of(m, key);
    for (; m->used[i] && m->keys[i] != key; i = (i + 1) & mask)
        ;
    if (!m->used[i])
        return 0;
    if (value)
        *value = m->values[i];
    /* backward shift: move up each later entry of the run that may sit in the hole */
    for (size_t j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m, m->keys[j]);
        /* j's entry may move to i unless its home lies cyclically in (i, j] */
        if (((j - home) & mask) >= ((j - i) & mask)) {
            m->keys[i] = m->keys[j];
            m->values[i] = m->values[j];
            i = j;
        }
    }
    m->used[i] = 0;
    m->n--;
    return 1;
}

void u64map_free(struct u64map *m)
{
    free(m->keys);
    free(m->values);
    free(m->used);
    m->keys = m->values = NULL;
    m->used = NULL;
    m->cap = m->n = 0;
}
