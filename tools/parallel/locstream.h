/* locstream.h — what a worker of the parallel merge (pmerge.h) hands
 * process 0 about the locations it read: a stream of records, each a
 * header and a payload padded to 8 bytes, cut into pieces of whole
 * records. Both ends are the same program on the same machine type, so
 * structs travel in memory's layout (like the spill files, nothing of it
 * outlives the run).
 *
 *   LS_TIMES     a chunk's times in rt_times form (about 4 bytes an event)
 *   LS_TRUTH     its true times, as rt_truth_hand hands them over
 *   LS_SENDS, LS_RECVS, LS_CALLS, LS_REQUESTS
 *                the match's records of the chunk (match_private.h), for
 *                process 0's sorts
 *   LS_RMA       a location's one-sided operations (rma_flow.h), packed
 *   LS_LOCATION  a location read: its count, facts, sources (struct ls_location)
 *   LS_COUNTS    the worker's match counters (struct ls_counts), at its end
 *   LS_ERROR     a rank archive's read failed: `loc` its index, the message
 *   LS_END       the worker has read its share */
#ifndef SYNCTRACE_LOCSTREAM_H
#define SYNCTRACE_LOCSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include "eventstore.h"
#include "rawtrace.h"

enum ls_kind {
    LS_TIMES = 1, LS_TRUTH, LS_SENDS, LS_RECVS, LS_CALLS, LS_REQUESTS, LS_RMA, LS_LOCATION, LS_COUNTS, LS_ERROR,
    LS_END
};

struct ls_location {
    uint64_t nevents, trace_length, recovered_from_records;
    uint64_t nsources, nwords;      /* then nsources struct rt_sources, nwords uint64_t */
    struct rt_facts facts;
    int32_t recovered_records_file, finalized;
};

struct ls_counts {
    uint64_t outside_sends, outside_recvs, cancelled;
};

/* A stream being written: records appended to memory. */
struct ls_buf {
    uint8_t *v;
    size_t n, cap;
    int failed;               /* out of memory: the stream is lost */
};

/* A record as read: its payload points into the piece. */
struct ls_record {
    uint32_t kind, loc;
    const uint8_t *p;
    uint64_t len;
};

/* Append a record of nparts parts (NULL parts with length 0 allowed):
 * 0, or -1 (out of memory, sticks in b->failed). */
int ls_put(struct ls_buf *b, uint32_t kind, uint32_t loc, int nparts, const void *const *parts, const size_t *lens);
/* Room for `more` bytes after b->n (a buffer of bytes gathered before
 * they become a record's part): 0, or -1 (sticks in b->failed). */
int ls_reserve(struct ls_buf *b, size_t more);
int ls_put_times(struct ls_buf *b, uint32_t loc, uint64_t first, const struct rt_times *t);
int ls_put_truth(struct ls_buf *b, uint32_t loc, uint64_t from, uint64_t n, const uint64_t *raw,
                 const uint64_t *known);
int ls_put_location(struct ls_buf *b, uint32_t loc, const struct ls_location *l, const struct rt_sources *src,
                    const uint64_t *words);
void ls_buf_free(struct ls_buf *b);

/* The record at *at of piece [buf, buf + len): 1 (and *at moves past
 * it), 0 at the piece's end, -1 when the bytes are no record. */
int ls_next(const uint8_t *buf, size_t len, size_t *at, struct ls_record *r);
/* Views into a record's payload (nothing copied): 0, or -1 when its
 * length does not fit what it says. */
int ls_get_times(const struct ls_record *r, uint64_t *first, struct rt_times *view);
int ls_get_truth(const struct ls_record *r, uint64_t *from, uint64_t *n, const uint64_t **raw,
                 const uint64_t **known);
int ls_get_location(const struct ls_record *r, struct ls_location *l, const struct rt_sources **src,
                    const uint64_t **words);

#endif
