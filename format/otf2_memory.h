/* otf2_memory.h — OTF2's buffer chunks for a writer of archives, within a
 * budget. Without memory callbacks OTF2 mallocs a chunk whenever an event
 * buffer fills and keeps every one until the writer closes: a location of
 * many events would sit whole in memory, encoded. With these, an event
 * buffer that would pass the budget is flushed to its file instead (the
 * archive's pre-flush callback must say OTF2_FLUSH), and its chunks are
 * used again, by this archive or the next one of the pool's. */
#ifndef SYNCTRACE_OTF2_MEMORY_H
#define SYNCTRACE_OTF2_MEMORY_H

#include <otf2/otf2.h>
#include <pthread.h>
#include <stddef.h>

struct om_chunk;
struct om_pool {
    struct om_chunk *idle;    /* chunks no buffer holds */
    size_t bytes;             /* all chunks made */
    size_t event_budget;      /* event chunks beyond it: a flush instead */
    pthread_mutex_t *lock;    /* an archive written by several threads: held
                               * around the pool (NULL: one writer) */
};

/* OTF2_Archive_SetMemoryCallbacks(archive, &om_callbacks, pool), with
 * OTF2_Archive_SetFlushCallbacks(archive, &om_flush_callbacks, NULL): the
 * pre-flush that always says OTF2_FLUSH. */
extern const OTF2_MemoryCallbacks om_callbacks;
extern const OTF2_FlushCallbacks om_flush_callbacks;
/* Frees the chunks no archive holds (after the archives closed). */
void om_pool_free(struct om_pool *pool);

#endif
