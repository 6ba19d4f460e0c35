/* blockcache.c — see blockcache.h. */
#include "blockcache.h"
#include "fsutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int st_blockcache_init(struct st_blockcache *c, int fd, size_t block_bytes, uint32_t nslots)
{
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->block_bytes = block_bytes;
    c->nslots = nslots ? nslots : 1;
    c->tag = calloc(c->nslots, sizeof *c->tag);
    c->mem = malloc(c->block_bytes * c->nslots);
    if (!c->tag || !c->mem) {
        st_blockcache_free(c);
        return -1;
    }
    return 0;
}

void st_blockcache_free(struct st_blockcache *c)
{
    free(c->tag);
    free(c->mem);
    c->tag = NULL;
    c->mem = NULL;
}

void st_blockcache_forget(struct st_blockcache *c)
{
    memset(c->tag, 0, sizeof *c->tag * c->nslots);
}

const char *st_blockcache_why(const struct st_blockcache *c)
{
    return c->err == 0 ? "" : c->err < 0 ? "cut short" : strerror(c->err);
}

const void *st_blockcache_read(struct st_blockcache *c, uint32_t slot, uint64_t key, uint64_t off, size_t len)
{
    if (c->err || len > c->block_bytes)
        return NULL;
    unsigned char *p = c->mem + (size_t)slot * c->block_bytes;
    size_t got = 0;
    c->tag[slot] = 0;
    errno = 0;
    if (st_pread_all(c->fd, p, len, off, &got) != 0 || got != len) {
        c->err = got != len && errno == 0 ? -1 : errno ? errno : EIO;
        return NULL;
    }
    c->tag[slot] = key + 1;
    return p;
}
