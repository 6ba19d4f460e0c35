/* u64map.h — an open-addressing hash map from a 64-bit key to a 64-bit
 * value (linear probing, deletion by backward shift: no tombstones, so a
 * map that sees many insertions and deletions stays as fast as a fresh
 * one). For tables of what is in flight: messages sent and not yet
 * received, by message number. Not thread-safe. */
#ifndef SYNCTRACE_U64MAP_H
#define SYNCTRACE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
    uint64_t *keys, *values;
    unsigned char *used;
    size_t cap, n;            /* cap: a power of two, or 0 */
};

/* Whether key is there; its value into *value (may be NULL). */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *value);
/* Insert or replace: 0, or -1 when out of memory (nothing changed). */
int u64map_put(struct u64map *m, uint64_t key, uint64_t value);
/* Remove key: whether it was there (its value into *value, may be NULL). */
int u64map_remove(struct u64map *m, uint64_t key, uint64_t *value);
void u64map_free(struct u64map *m);

#endif
