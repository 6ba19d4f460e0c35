/* rawview.h — OUT/rawview.map: how each rank's events looked before the
 * merge, as today's tools show them (local time plus the init/finalize
 * ClockOffsets interpolated linearly, cm_interpolated()), as a function of
 * the merged (global) time.
 *
 * Per rank, a short list of breakpoints (event index, global_ns, raw_ns),
 * each on one of the rank's events, in event order; for the i-th event the
 * breakpoints around it (the last one at an index <= i and the next one),
 * interpolated linearly in global time, and extrapolated beyond the ends,
 * give its raw time within RV_TOLERANCE_NS. The event index matters where
 * two events share a global time but not a raw one: a clock cut into drift
 * segments (clockmodel.h) may close the gap between the last event of one
 * segment and the first of the next; there the map steps. The
 * list is found by greedy piecewise-linear simplification of the events'
 * own (global, raw) pairs, so it knows nothing of the clock model: any
 * model whose global time is piecewise linear in local time gives a few
 * breakpoints per rank. Raw times are shifted so the earliest event of the
 * run is at 0, like global time.
 *
 * File format (text, version 2):
 *   synctrace-rawview 2
 *   ranks N               one entry per location of the merged archive, in its order
 *   rank R COUNT          then COUNT lines "event_index global_ns raw_ns", both rising
 */
#ifndef SYNCTRACE_RAWVIEW_H
#define SYNCTRACE_RAWVIEW_H

#include <stddef.h>
#include <stdint.h>
#include "gtime.h"
#include "rawtrace.h"

#define RV_TOLERANCE_NS 1.0

struct rv_point {
    uint64_t index;           /* the event it sits on */
    double g, raw;
};

struct rv_rank {
    struct rv_point *v;
    uint32_t n;
};

struct rv_map {
    struct rv_rank *ranks;
    uint32_t nranks;
};

/* Build the map of n ranks from their events' global times and write
 * DIR/rawview.map. Returns 0, or -1 with a one-line message. *max_err_ns
 * (if not NULL) gets the largest deviation found when checking every event. */
int rv_write(const char *dir, const struct rt_rank *ranks, uint32_t n, const struct gtime_map *gtime,
             double *max_err_ns, char *err, size_t errlen);

/* Read a map; -1 with a one-line message naming the file and the problem. */
int rv_read(const char *path, struct rv_map *m, char *err, size_t errlen);
void rv_free(struct rv_map *m);

/* The raw time of event `index` of one rank, at global time g (binary search). */
double rv_raw(const struct rv_rank *r, uint64_t index, double g);

/* Greedy simplification of points (x non-decreasing, y) into breakpoints
 * within tol of every point, stepping where points at one x differ by more
 * than 2 tol; returns the count written to out (at most n + 1), or 0 when
 * n == 0. Exposed for the unit tests. */
uint32_t rv_simplify(const double *x, const double *y, uint64_t n, double tol, struct rv_point *out);

#endif
