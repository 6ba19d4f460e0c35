/* otf2_memory.c — see otf2_memory.h. */
#include <config.h>
#include "otf2_memory.h"

#include <stdlib.h>

struct om_chunk {
    struct om_chunk *next;
    uint64_t size;
};

static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer, uint64_t size)
{
    (void)loc;
    struct om_pool *pool = user;
    struct om_chunk *c = NULL;
    if (pool->lock)
        pthread_mutex_lock(pool->lock);
    for (struct om_chunk **p = &pool->idle; *p; p = &(*p)->next)
        if ((*p)->size == size) {
            c = *p;
            *p = c->next;
            break;
        }
    if (!c) {
        /* over budget, an event buffer that holds chunks is flushed instead */
        if (!(type == OTF2_FILETYPE_EVENTS && pool->bytes + size > pool->event_budget && *per_buffer)
            && (c = malloc(sizeof *c + size))) {
            c->size = size;
            pool->bytes += size;
        }
    }
    if (pool->lock)
        pthread_mutex_unlock(pool->lock);
    if (!c)
        return NULL;
    c->next = *per_buffer;   /* the buffer's own list: its writer's thread alone */
    *per_buffer = c;
    return c + 1;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer, bool final)
{
    (void)type;
    (void)loc;
    (void)final;
    struct om_pool *pool = user;
    if (pool->lock)
        pthread_mutex_lock(pool->lock);
    for (struct om_chunk *c = *per_buffer, *next; c; c = next) {   /* kept for the next buffer */
        next = c->next;
        c->next = pool->idle;
        pool->idle = c;
    }
    if (pool->lock)
        pthread_mutex_unlock(pool->lock);
    *per_buffer = NULL;
}

const OTF2_MemoryCallbacks om_callbacks = { chunk_alloc, chunk_free_all };

void om_pool_free(struct om_pool *pool)
{
    while (pool->idle) {
        struct om_chunk *next = pool->idle->next;
        pool->bytes -= pool->idle->size;
        free(pool->idle);
        pool->idle = next;
    }
}

static OTF2_FlushType always_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)user; (void)type; (void)loc; (void)caller; (void)final;
    return OTF2_FLUSH;
}

const OTF2_FlushCallbacks om_flush_callbacks = { always_flush, NULL };
