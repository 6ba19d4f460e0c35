/* blockcache.h — blocks of a file read back through slots of memory, for
 * the merge's files of fixed-size values set aside (the repair's times,
 * clc_stream.c; the true times, truthstore.c; the raw-view map's points,
 * rawview.c). The caller names each block (a key), where it lies in the
 * file and which slot it goes to: each reads in its own pattern (a hash
 * of the block, slots of their own per location, the block's number), the
 * reading, the tags and a failure that sticks are here. The file stays
 * the caller's. Not thread-safe. */
#ifndef SYNCTRACE_BLOCKCACHE_H
#define SYNCTRACE_BLOCKCACHE_H

#include <stddef.h>
#include <stdint.h>

struct st_blockcache {
    int fd;
    size_t block_bytes;       /* a slot's room */
    uint32_t nslots;
    uint64_t *tag;            /* per slot: its block's key + 1, 0 when empty */
    unsigned char *mem;       /* nslots x block_bytes */
    int err;                  /* the first failed read's errno (-1: cut short), or 0 */
};

/* nslots empty slots of block_bytes each over file fd: 0, or -1 when out of memory. */
int st_blockcache_init(struct st_blockcache *c, int fd, size_t block_bytes, uint32_t nslots);
void st_blockcache_free(struct st_blockcache *c);
/* Every slot empty again (the file changed where they were read). */
void st_blockcache_forget(struct st_blockcache *c);
/* Why the first read failed ("" when none did). */
const char *st_blockcache_why(const struct st_blockcache *c);

const void *st_blockcache_read(struct st_blockcache *c, uint32_t slot, uint64_t key, uint64_t off, size_t len);

/* Block `key`, bytes [off, off + len) of the file (len at most
 * block_bytes), in slot `slot`: its bytes, read in unless the slot holds
 * it already; NULL when a read failed (then and ever after). */
static inline const void *st_blockcache_get(struct st_blockcache *c, uint32_t slot, uint64_t key, uint64_t off,
                                            size_t len)
{
    if (c->tag[slot] == key + 1)
        return c->mem + (size_t)slot * c->block_bytes;
    return st_blockcache_read(c, slot, key, off, len);
}

#endif
