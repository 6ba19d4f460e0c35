/* truthstore.h — the true times of a test trace's events (SYNCTRACE_SKEW,
 * synctrace-gen: the true_time attribute), set aside as the events are
 * read, in ns, so that the report's accuracy figures and the merged
 * archive's true_time attribute cost no memory per event.
 *
 * A location's values arrive in order, in chunks (as read_stage.c hands
 * the events over, from any reading thread but one at a time); they are
 * appended to one nameless file in the spill directory, 8 bytes an event,
 * and read back by (location, event) through a cache of 4 KiB blocks (4
 * a location, 256 KB to 8 MB). What is held besides: a few words per
 * location and per chunk.
 * Not thread-safe: one reader at a time (the merge's stages after the
 * match run on one thread). */
#ifndef SYNCTRACE_TRUTHSTORE_H
#define SYNCTRACE_TRUTHSTORE_H

#include <stddef.h>
#include <stdint.h>

#define TS_UNKNOWN UINT64_MAX   /* an event without a true time */

struct truth_store;

/* For nlocs locations, the file made in dir (NULL: $TMPDIR, else /tmp);
 * true times in ticks become ns at ticks_per_s (the whole run's one
 * clock). NULL with a one-line message. */
struct truth_store *ts_new(uint32_t nlocs, const char *dir, double ticks_per_s, char *err, size_t errlen);
/* Events [from, from + n) of location q, the next ones of q: raw[k] the
 * true time of event from + k where bit k of known is set (rt_truth_hand's
 * put). 0, or -1 (the error sticks: ts_error). */
int ts_put(struct truth_store *t, uint32_t q, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known);
/* Whether location q's first event has a true time: only then are its
 * events measured (as the report has always done). */
int ts_has(const struct truth_store *t, uint32_t q);
/* Event i's true time in ns, or TS_UNKNOWN (also when a read failed:
 * ts_error says so). */
uint64_t ts_get(struct truth_store *t, uint32_t q, uint64_t i);
const char *ts_error(const struct truth_store *t);   /* "" while none */

/* One location's true times read in order (or nearly), through a block
 * of its own: the report's and the write's walks over every event, which
 * then never compete with ts_get's cache (nor with each other). */
#define TS_CURSOR_BLOCK 4096
struct ts_cursor {
    struct truth_store *t;
    uint32_t q;
    uint64_t lo, hi;          /* events [lo, hi) are in v */
    uint64_t v[TS_CURSOR_BLOCK];
};
void ts_cursor_init(struct ts_cursor *c, struct truth_store *t, uint32_t q);
uint64_t ts_cursor_fill(struct ts_cursor *c, uint64_t i);   /* ts_cursor_get's slow path */
/* As ts_get(c->t, c->q, i). */
static inline uint64_t ts_cursor_get(struct ts_cursor *c, uint64_t i)
{
    return i >= c->lo && i < c->hi ? c->v[i - c->lo] : ts_cursor_fill(c, i);
}
uint64_t ts_bytes(const struct truth_store *t);        /* set aside */
void ts_free(struct truth_store *t);

#endif
