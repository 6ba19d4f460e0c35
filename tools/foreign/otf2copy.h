/* otf2copy.h — a copy of any OTF2 archive, record for record: every
 * global and local definition and every event of every location, in the
 * same order, with only the timestamps changed by a time map. The
 * per-record code is generated from OTF2's own headers
 * (otf2copy_records.c, gen-otf2copy.py): any record kind the installed
 * OTF2 reads is copied; a record of a kind it does not know fails the
 * copy rather than go missing. Events are read as written: local ids
 * (the mapping tables are copied with the definitions) and raw times (no
 * ClockOffset applied). The locations are copied by `jobs` threads, each
 * with its own reader of the archive, writing into the one copy (OTF2's
 * Pthread locks); each thread reads and writes one location at a time,
 * the OTF2 chunks of all of them within one bounded pool, whatever the
 * archive's size. The copy does not depend on the number of threads. */
#ifndef SYNCTRACE_OTF2COPY_H
#define SYNCTRACE_OTF2COPY_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>

/* How the copy's times are made from the archive's. time(): the new time
 * of a timestamp of location `location`, read in its event at `position`
 * (OTF2's event position, from 1) or, for position 0, of a definition; it
 * must not decrease along a location's events, which come in order (a
 * location may start over at position 1: the copy's fast path gave it
 * up). clock(): the copy's
 * ClockProperties from the archive's (NULL: unchanged). keep_offsets: the
 * locations' ClockOffset definitions are copied (else dropped: the copy's
 * times are synchronised, and no reader should correct them again).
 * thread_ctx: a state of its own for each copying thread, passed to time()
 * instead of ctx (NULL from it: out of memory), and thread_done(ctx, it)
 * when the thread is done; thread_ctx NULL: time() gets ctx, from any of
 * the threads at once. clock() is called once, before any time(). */
struct oc_time_map {
    uint64_t (*time)(void *ctx, uint64_t location, uint64_t position, uint64_t t);
    void (*clock)(void *ctx, uint64_t *resolution, uint64_t *global_offset, uint64_t *trace_length,
                  uint64_t *realtime);
    void *ctx;
    int keep_offsets;
    void *(*thread_ctx)(void *ctx);
    void (*thread_done)(void *ctx, void *thread_ctx);
};

struct oc_stats {
    uint64_t locations, events, global_definitions, local_definitions, offsets_dropped;
    uint64_t locations_in_place;   /* of the locations, those whose events were rewritten in place */
};

/* The copy shared among processes (mpirun -np K): every process takes
 * part in every step of the one output archive (OTF2's MPI collective
 * callbacks: collective()), copies the locations mine() says are its own,
 * and the primary writes the global definitions too. agree(ok): whether
 * every process may go on; max_u64, sum_u64: over every process. */
struct oc_share {
    int primary;
    uint32_t place, processes;    /* which of how many (a failure is said by one) */
    int (*mine)(void *ctx, uint64_t location);
    void *ctx;
    int (*collective)(void *archive);
    int (*agree)(int ok);
    uint64_t (*max_u64)(uint64_t v);
    uint64_t (*sum_u64)(uint64_t v);
};

/* flags: OC_IN_PLACE: a location's events are copied byte for byte with
 * their timestamps rewritten where that is certain to give what OTF2's
 * reader and writer give (evtpatch.h: an uncompressed POSIX archive; any
 * location it cannot do goes through OTF2), several times faster. */
enum { OC_IN_PLACE = 1 };

/* Copy the archive of anchor file `anchor` into DIR/NAME.otf2 (DIR must
 * exist; the caller renames it into place) on `jobs` threads (at most one
 * per location; below 1: 1). map NULL: an exact copy. Returns 0, or -1
 * with a one-line message naming the file (the first failing location's,
 * in the archive's order). With a share (NULL: one process), the stats are every process's and a
 * failure's message is left in err only on the process that copied the
 * first failing location (the others' err is ""): one says it. */
int oc_copy_archive(const char *anchor, const char *dir, const char *name, const struct oc_time_map *map, int jobs,
                    unsigned flags, const struct oc_share *share, struct oc_stats *stats, char *err, size_t errlen);

/* ---- for the generated callbacks (otf2copy_records.c) */
struct oc_location {
    uint64_t id, events;             /* as its definition says */
};

struct oc_copy {
    OTF2_EvtWriter *evt;             /* the location being copied */
    OTF2_GlobalDefWriter *global;
    OTF2_DefWriter *local;
    const struct oc_time_map *map;   /* NULL: times unchanged */
    void *map_ctx;                   /* map->ctx, or this thread's (map->thread_ctx) */
    uint64_t location, position;
    OTF2_ErrorCode failed;           /* the first write that failed */
    struct oc_stats *stats;          /* this thread's */
    struct oc_location *locations;   /* the locations defined, in order (the global definitions' copy) */
    uint64_t nlocations, clocations;
};

static inline uint64_t oc_time(const struct oc_copy *c, uint64_t t)
{
    return c->map && c->map->time ? c->map->time(c->map_ctx, c->location, c->position, t) : t;
}

static inline OTF2_CallbackCode oc_status(struct oc_copy *c, OTF2_ErrorCode code)
{
    if (code == OTF2_SUCCESS)
        return OTF2_CALLBACK_SUCCESS;
    if (c->failed == OTF2_SUCCESS)
        c->failed = code;
    return OTF2_CALLBACK_INTERRUPT;
}

void oc_copy_event_records(OTF2_EvtReaderCallbacks *callbacks);
void oc_copy_global_records(OTF2_GlobalDefReaderCallbacks *callbacks);
void oc_copy_local_records(OTF2_DefReaderCallbacks *callbacks);
extern const unsigned oc_record_kinds[3];   /* the kinds copied: events, global, local definitions */

#endif
