/* rawview.h — OUT/rawview.map: how each rank's events looked before the
 * merge, as today's tools show them (local time plus the init/finalize
 * ClockOffsets interpolated linearly, cm_interpolated()), as a function of
 * the merged (global) time.
 *
 * Per rank, a short sorted list of breakpoints (global_ns, raw_ns); linear
 * interpolation between them, and extrapolation beyond the ends, gives
 * every event's raw time from its global time within RV_TOLERANCE_NS. The
 * list is found by greedy piecewise-linear simplification of the events'
 * own (global, raw) pairs, so it knows nothing of the clock model: any
 * model whose global time is piecewise linear in local time gives a few
 * breakpoints per rank. Raw times are shifted so the earliest event of the
 * run is at 0, like global time.
 *
 * File format (text, version 1):
 *   synctrace-rawview 1
 *   ranks N
 *   rank R COUNT          then COUNT lines "global_ns raw_ns", global_ns rising
 */
#ifndef SYNCTRACE_RAWVIEW_H
#define SYNCTRACE_RAWVIEW_H

#include <stddef.h>
#include <stdint.h>
#include "rawtrace.h"

#define RV_TOLERANCE_NS 1.0

struct rv_point {
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
int rv_write(const char *dir, const struct rt_rank *ranks, uint32_t n, uint64_t *const *gtime, double *max_err_ns,
             char *err, size_t errlen);

/* Read a map; -1 with a one-line message naming the file and the problem. */
int rv_read(const char *path, struct rv_map *m, char *err, size_t errlen);
void rv_free(struct rv_map *m);

/* The raw time of global time g on one rank (binary search). */
double rv_raw(const struct rv_rank *r, double g);

/* Greedy simplification of points (x rising, y) into breakpoints within
 * tol of every point; returns the count written to out (at most n), or 0
 * when n == 0. Exposed for the unit tests. */
uint32_t rv_simplify(const double *x, const double *y, uint64_t n, double tol, struct rv_point *out);

#endif
