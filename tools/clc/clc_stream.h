/* clc_stream.h — the controlled logical clock (clc.h) in memory bounded by
 * the locations and what is in flight, not by the events: the merge's
 * repair (delta > 0) of traces of any size.
 *
 * The forward values C are a function of the happened-before graph alone
 * (a max over an event's rank predecessor and its cross-rank predecessors;
 * the collectives' top2 aggregates are order-free, ties included), so any
 * order that processes an event after its predecessors gives clc.c's
 * numbers to the bit. This one takes the locations' events in the order of
 * their input times (a heap of locations by their next event's time): a
 * send's value waits in a table until its receive takes it, an instance's
 * aggregates until its last exit, so what is held is what is in flight in
 * time (a receive ahead of its send waits, by at most delta).
 *
 * What grows with events is on disk, in nameless files in spill_dir:
 *   - the input times, then the output (8 bytes an event, a region per
 *     location);
 *   - the forward values (8 bytes an event; the jumps are found again);
 *   - each event's role (receive of message m, entry or exit of member q
 *     of instance k, send of m): one external sort by (location, event);
 *   - the limits the receives and instances put on their predecessors
 *     (L(e) in clc.h): one external sort by (location, event descending),
 *     read by the backward pass, location by location, back to front.
 *
 * Same results as clc_correct_times on the same input, to the bit, and the
 * same statistics, unless the happened-before graph has a cycle (a wrong
 * match): the two orders may then break it at different events
 * (stats->cycles_broken counts them). tests/unit/unit_clc.c compares the two. */
#ifndef SYNCTRACE_CLC_STREAM_H
#define SYNCTRACE_CLC_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include "clc.h"
#include "match.h"

/* The input times of location r, events [first, first + n), into t: called
 * for r = 0, 1, ... in turn and, for each, with first rising from 0. 0, or
 * -1 with a one-line message in err. */
typedef int (*clc_fill_fn)(void *ctx, uint32_t r, uint64_t first, double *t, size_t n, char *err, size_t errlen);

struct clc_stream_config {
    const char *spill_dir;    /* NULL: $TMPDIR or /tmp */
    size_t memory;            /* bytes for the sorts and the locations' buffers (0: 64 MiB) */
};

/* What the run held and wrote (for report.json). */
struct clc_stream_usage {
    uint64_t disk_bytes;           /* written to the nameless files, sorts included */
    uint64_t max_messages_in_flight;
    uint64_t max_open_instances;
};

/* The corrected times, on disk. */
struct clc_times;

/* clc_correct_times with the times from `fill` and the result in *out (NULL
 * on failure). domain_of, ndomains, lmin and p as there. usage may be
 * NULL. 0, or -1 with a one-line message (bad event reference in the
 * match, bad parameters, out of memory, an I/O error naming the spill
 * directory). */
int clc_stream_correct(uint32_t nlocs, const uint64_t *nevents, clc_fill_fn fill, void *fill_ctx,
                       const struct mg_result *match, const uint32_t *domain_of, uint32_t ndomains, const double *lmin,
                       const struct clc_params *p, const struct clc_stream_config *cfg, struct clc_times **out,
                       struct clc_stats *stats, struct clc_stream_usage *usage, char *err, size_t errlen);

/* The corrected time of event i of location r. Reads go through a small
 * cache of blocks (one reader at a time: not thread-safe); near-ordered
 * reads cost one pread per 512 events. A read that fails gives 0 and sticks
 * (clc_times_error). */
double clc_times_get(struct clc_times *ct, uint32_t r, uint64_t i);
/* NULL while every read succeeded, else why one did not. */
const char *clc_times_error(const struct clc_times *ct);
void clc_times_free(struct clc_times *ct);

#endif
