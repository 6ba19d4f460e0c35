/* handlemap.c — linear probing with tombstones; keys 0 and 1 are reserved,
 * so they are stored shifted (no MPI handle is 0 or 1 bytes apart from
 * another one, but MPI_REQUEST_NULL may be 0 elsewhere). */
#include "handlemap.h"

#include <stdlib.h>

#define EMPTY 0
#define DELETED 1

static inline uintptr_t encode(uintptr_t key) { return key + 2; }

static inline size_t slot_of(uintptr_t k, size_t cap)
{
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

void *st_handlemap_get(const struct st_handlemap *m, uintptr_t key)
{
    if (m->cap == 0)
        return NULL;
    uintptr_t k = encode(key);
    for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k)
            return m->values[i];
        if (m->keys[i] == EMPTY)
            return NULL;
    }
}

static int rehash(struct st_handlemap *m, size_t cap)
{
    uintptr_t *keys = calloc(cap, sizeof *keys);
    void **values = calloc(cap, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] <= DELETED)
            continue;
        size_t j = slot_of(m->keys[i], cap);
        while (keys[j] != EMPTY)
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    m->used = m->live;
    return 0;
}

int st_handlemap_put(struct st_handlemap *m, uintptr_t key, void *value)
{
    /* Keep at most half the slots used (live + tombstones) for short probes. */
    if ((m->used + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap : 64;
        while ((m->live + 1) * 4 > cap)
            cap *= 2;
        if (rehash(m, cap) != 0)
            return -1;
    }
    uintptr_t k = encode(key);
    size_t tomb = (size_t)-1;
    for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) {
            m->values[i] = value;
            return 0;
        }
        if (m->keys[i] == DELETED && tomb == (size_t)-1)
            tomb = i;
        if (m->keys[i] == EMPTY) {
            if (tomb != (size_t)-1)
                i = tomb;
            else
                m->used++;
            m->keys[i] = k;
            m->values[i] = value;
            m->live++;
            return 0;
        }
    }
}

void *st_handlemap_remove(struct st_handlemap *m, uintptr_t key)
{
    if (m->cap == 0)
        return NULL;
    uintptr_t k = encode(key);
    for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) {
            void *v = m->values[i];
            m->keys[i] = DELETED;
            m->values[i] = NULL;
            m->live--;
            return v;
        }
        if (m->keys[i] == EMPTY)
            return NULL;
    }
}

void st_handlemap_clear(struct st_handlemap *m)
{
    free(m->keys);
    free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->cap = m->used = m->live = 0;
}
