/* eventspill.h — locations' events set aside on disk while a reader needs
 * only their times (the merge between its match and its write): the 32
 * bytes of each event's slot leave memory, and so does its time (about 4
 * bytes in the file, struct rt_times, eventstore.h), read back in order
 * through rt_time_read.
 *
 * rt_spill_out writes the slots a location holds, their side columns and
 * their times (not the true times, nor its sparse members' sources, which
 * stay) to one nameless file (O_TMPFILE in dir: gone when the process
 * ends, killed or not), and keeps what later stages need of the rest
 * (rt_facts). A location read in chunks is set aside chunk by chunk,
 * each a record of its own. rt_spill_in reads a location back whole,
 * rt_spill_in_at one chunk; rt_store_release frees them again. Any number
 * of locations share a file, their chunks in any order. */
#ifndef SYNCTRACE_EVENTSPILL_H
#define SYNCTRACE_EVENTSPILL_H

#include <stddef.h>
#include <stdint.h>
#include "rawtrace.h"

struct rt_spill;

/* NULL with a one-line message when the file cannot be made in dir. */
struct rt_spill *rt_spill_new(const char *dir, char *err, size_t errlen);
/* The slots r holds (all its events, or the next chunk of them: they
 * continue what was set aside before) go to the file: 0, or -1
 * (rt_spill_error says why; r is then unchanged). A location holding no
 * events is left as it is; one brought back by rt_spill_in lets its
 * events go again (the file still has them). */
int rt_spill_out(struct rt_spill *s, struct rt_location *r);
/* The same with the held slots' times already in rt_times form (as
 * rt_times_of gives them; NULL: found here), for a caller that needed
 * them too. */
int rt_spill_out_times(struct rt_spill *s, struct rt_location *r, const struct rt_times *times);
/* 0 (r holds its events again, and still its times), or -1. _at: only
 * the chunk that holds event i (the one set aside with it), in place of
 * what r held: a writer walking a location through holds one chunk at a
 * time. */
int rt_spill_in(struct rt_spill *s, struct rt_location *r);
int rt_spill_in_at(struct rt_spill *s, struct rt_location *r, uint64_t i);
const char *rt_spill_error(const struct rt_spill *s);
/* From now on only the times of the slots set aside go to the file, not
 * the slots (some 40 bytes an event): for a merge whose later stages read
 * only times (the foreign path's, merge.h: merge_times_only). Their
 * events cannot be brought back (rt_spill_in fails, saying so). */
void rt_spill_keep_times_only(struct rt_spill *s);
/* A location read by another process (the parallel merge, pmerge.h): the
 * times of its events [first, first + t->n), which continue what it has,
 * as a chunk without events, for rt_time_read. 0, or -1. Its events
 * cannot be brought back (rt_spill_in fails): the process that read them
 * writes them. */
int rt_spill_times(struct rt_spill *s, struct rt_location *r, uint64_t first, const struct rt_times *t);

/* A location's times read in order, or near it, whatever holds them: its
 * slots held, or the file, one chunk's times (about 4 bytes an event) at
 * a time. Each reader has its own. A read that fails
 * gives 0 and sticks in the file (rt_spill_error): the caller's result is
 * then not to be used. */
struct rt_time_reader {
    const struct rt_location *r;
    uint64_t first, n;        /* the chunk loaded: events [first, first + n) */
    struct rt_times t;        /* its times, numbered from first */
};
void rt_time_reader_init(struct rt_time_reader *tr, const struct rt_location *r);
uint64_t rt_time_read_far(struct rt_time_reader *tr, uint64_t i);
void rt_time_reader_free(struct rt_time_reader *tr);
static inline uint64_t rt_time_read(struct rt_time_reader *tr, uint64_t i)
{
    const struct rt_location *r = tr->r;
    if (!r->nspill_chunks || (r->events && i - r->events_from < r->nheld))
        return rt_time(r, i);
    if (i - tr->first < tr->n)
        return rt_times_get(&tr->t, i - tr->first);
    return rt_time_read_far(tr, i);
}
uint64_t rt_spill_bytes(const struct rt_spill *s);   /* written so far */
void rt_spill_free(struct rt_spill *s);

#endif
