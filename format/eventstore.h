/* eventstore.h — one location's events as readers of a whole trace hold
 * them (rawtrace.h's rt_location): 32 bytes each instead of the 56 of a decoded
 * struct rt_event. What few events use lives beside the array: request ids
 * and lengths of 2^32 - 1 or more, collectives' received bytes, and true
 * times (only in traces that carry them).
 *
 * The slot's time, kind, ref, peer and tag are read directly; req, bytes,
 * received and the true time through the accessors, or the whole event
 * through rt_event_at. */
#ifndef SYNCTRACE_EVENTSTORE_H
#define SYNCTRACE_EVENTSTORE_H

#include <stddef.h>
#include <stdint.h>

#define RT_WIDE UINT32_MAX    /* a slot's req or bytes that did not fit: the value is in a side table */

struct rt_slot {
    uint64_t time;
    uint32_t ref;             /* as struct rt_event (rawtrace.h) says */
    uint32_t peer;
    uint32_t tag;
    uint32_t req;             /* or RT_WIDE */
    uint32_t bytes;           /* or RT_WIDE */
    uint8_t kind;             /* enum rt_kind */
};

/* Values by event index, ascending: a sparse column. */
struct rt_column {
    struct { uint64_t index, value; } *v;
    size_t n, cap;
};

struct rt_store_side {
    struct rt_column req, bytes;  /* the values behind RT_WIDE (by event index) */
    struct rt_column received;    /* non-zero received bytes (collectives, RMA) */
    uint64_t *truth;          /* raw true_time of events from truth_from on; NULL when none has one yet */
    uint64_t *truth_known;    /* bit i - truth_from: event i has a true time */
    uint64_t truth_from;      /* events before it were handed over (rt_truth_hand); a multiple of 64 */
    uint64_t cap;             /* events the truth arrays have room for: up to this index */
    uint64_t slot_cap;        /* slots allocated (from events_from) */
};

/* Times as a chunk of set-aside events keeps them in the spill file
 * (eventspill.h) and rt_time_read reads them back, in about 4 bytes each: per block of RT_TIME_BLOCK events a base (the
 * block's least time) and each event's 32-bit distance from it; a block
 * spanning 2^32 ns or more (over 4 s between its first and last event)
 * keeps its times whole in `wide`, and its base is RT_TIME_WIDE | where
 * they start. Read through rt_times_get. */
#define RT_TIME_BLOCK 64
#define RT_TIME_WIDE (UINT64_C(1) << 63)
struct rt_times {
    uint64_t *base;           /* per block */
    uint32_t *delta;          /* per event */
    uint64_t *wide;           /* the wide blocks' times, RT_TIME_BLOCK each */
    size_t nwide, cwide;
    uint64_t n, cap;          /* events, and room for them (delta) */
};

/* Time i of t. */
static inline uint64_t rt_times_get(const struct rt_times *t, uint64_t i)
{
    uint64_t b = t->base[i / RT_TIME_BLOCK];
    return b & RT_TIME_WIDE ? t->wide[(b & ~RT_TIME_WIDE) + i % RT_TIME_BLOCK] : b + t->delta[i];
}

/* Where one chunk of a set-aside location's events lies in the spill
 * file (eventspill.c): events [first, first + n), and their times in
 * rt_times form (from the chunk's first event) at times_at. */
struct rt_spill_chunk {
    uint64_t first, n, at, times_at;
};

/* What readers after the merge's match need of a location's events
 * besides their times (rt_facts, rawtrace.h). */
struct rt_facts {
    uint64_t polling_regions; /* ENTER events standing for several polling calls */
    uint64_t polling_calls;   /* ... and the calls they stand for */
    uint32_t source_words;    /* the most 64-bit words of a sparse member's sources */
    int sparse_members;       /* some collective exit has a sources list */
};

#endif
