/* gtime.h — every event's global time (ns, the earliest event 0): from its
 * raw time and the solved offsets, computed when it is read, or stored.
 *
 * A location whose events are held in memory (the merge's --event-memory)
 * has its global times stored, 8 bytes each, as before; one whose events
 * were set aside (eventspill.h) has them computed from its time on each
 * read, by the same function that fills the stored ones, so the two agree
 * to the bit. A location where rounding would make a time go back (the
 * clamp that keeps times non-decreasing changed something) is stored
 * whatever its kind. The repair stage (delta > 0) replaces them all with
 * its own, which wait on disk (clc_stream.h) and are read through a small
 * cache: one reader at a time, as the report and the write read them. */
#ifndef SYNCTRACE_GTIME_H
#define SYNCTRACE_GTIME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "clc_stream.h"
#include "clockmodel.h"
#include "eventspill.h"
#include "match.h"
#include "rawtrace.h"

struct gt_given;

struct gtime_map {
    const struct rt_location *locs;
    const struct cm_model *model;
    const double *x;          /* the solution's offsets, by vertex */
    double gmin;              /* the earliest corrected time: global time 0 */
    uint32_t n;
    uint64_t **stored;        /* per location, NULL where computed */
    struct clc_times *repaired;   /* the repair's times (every location's), or NULL */
    struct gt_given *given;   /* a worker's of the parallel merge: process 0's repaired times, or NULL */
};

/* A worker's repaired times, from the file process 0 wrote them to: read
 * in order, a block at a time (gtime.c). */
uint64_t gt_given_get(struct gt_given *g, uint32_t r, uint64_t i);

/* Location r's global time of raw time t, unclamped. */
static inline uint64_t gt_compute(const struct gtime_map *g, uint32_t r, uint64_t t)
{
    double v = cm_corrected(g->model, r, t) + g->x[cm_vertex(g->model, r, t)] - g->gmin;
    return v <= 0 ? 0 : (uint64_t)llround(v);
}

/* A repaired time in ns, rounded up: a repaired receive must not fall
 * back before its send (they are non-decreasing per location, and so stay). */
static inline uint64_t gt_round_repaired(double v)
{
    return v <= 0 ? 0 : (uint64_t)ceil(v);
}

static inline uint64_t gt_repaired(const struct gtime_map *g, uint32_t r, uint64_t i)
{
    return gt_round_repaired(clc_times_get(g->repaired, r, i));
}

/* Event i of location r, whose raw time is t: repaired, stored, or computed. */
static inline uint64_t gt_with(const struct gtime_map *g, uint32_t r, uint64_t i, uint64_t t)
{
    if (g->given)
        return gt_given_get(g->given, r, i);
    if (g->repaired)
        return gt_repaired(g, r, i);
    return g->stored[r] ? g->stored[r][i] : gt_compute(g, r, t);
}

/* Event i of location r, through tr, a reader of its times (eventspill.h):
 * for a walk over a location whose times may be set aside. The reader is
 * not asked when the time is stored. */
static inline uint64_t gt_read(const struct gtime_map *g, uint32_t r, struct rt_time_reader *tr, uint64_t i)
{
    if (g->given)
        return gt_given_get(g->given, r, i);
    if (g->repaired)
        return gt_repaired(g, r, i);
    return g->stored[r] ? g->stored[r][i] : gt_compute(g, r, rt_time_read(tr, i));
}

/* The same for an event the match took with its raw time (match.h):
 * nothing is looked up by index unless the location is stored. */
static inline uint64_t gt_of(const struct gtime_map *g, const struct mg_event_ref *e)
{
    return gt_with(g, e->rank, e->index, e->time);
}

/* gt_of for readers that take a callback (mg_flow_violations_at); ctx: the map. */
uint64_t gt_of_cb(const void *ctx, const struct mg_event_ref *e);

/* The streaming clock's input (clc_stream.h, clc_fill_fn), location after
 * location through one time reader: each event's global time (g set), or
 * its time with the ClockOffsets interpolated (g NULL: what today's tools
 * show). gt_fill_end frees the reader. A read that fails gives 0 and sticks
 * in the spill file (rt_spill_error), which the merge checks. */
struct gt_fill {
    const struct gtime_map *g;
    const struct rt_location *locs;
    uint32_t r;
    int open;
    struct rt_time_reader tr;
};
int gt_fill_times(void *ctx, uint32_t r, uint64_t first, double *t, size_t n, char *err, size_t errlen);
void gt_fill_end(struct gt_fill *f);

/* Build the map: locations with keep[r] set (keep NULL: none), and those
 * the clamp changes, stored. 0, or -1 when out of memory. */
int gt_build(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const struct cm_model *model,
             const double *x, const uint8_t *keep);
/* The same for a worker of the parallel merge, which has the events of
 * the locations with mine[r] set only: global time 0 is process 0's gmin. */
int gt_build_part(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const struct cm_model *model,
                  const double *x, double gmin, const uint8_t *keep, const uint8_t *mine);
/* A worker's map of repaired times: location r's (mine[r] set) lie in
 * file `path` as 8-byte values, the locations one after another in
 * order. 0, or -1 with a one-line message. */
int gt_build_given(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const char *path,
                   const uint8_t *mine, char *err, size_t errlen);
/* A read of the given times failed: why, else NULL. */
const char *gt_given_error(const struct gtime_map *g);
/* A read of the repair's times failed (their file in --spill-dir): why,
 * else NULL. Such a read gives 0, so nothing read since may be written. */
const char *gt_repaired_error(const struct gtime_map *g);
/* Store every location's (the in-memory repair rewrites them): 0 or -1. */
int gt_store_all(struct gtime_map *g);
/* From now on every time is ct's (the streaming repair's): the stored
 * ones are freed, ct is the map's. */
void gt_set_repaired(struct gtime_map *g, struct clc_times *ct);
/* Location r's stored times are no longer needed (it is written). */
void gt_release(struct gtime_map *g, uint32_t r);
void gt_free(struct gtime_map *g);

#endif
