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
#include <stdio.h>
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

/* Told as the map is done with each location, in order (`past`
 * locations: none of their events is read again): a writer running
 * beside it (write_stage.c) waits for it. */
struct rv_progress {
    void (*past)(void *arg, uint32_t past);
    void *arg;
};

/* Build the map of n ranks from their events' global times and write
 * DIR/rawview.map. Returns 0, or -1 with a one-line message. *max_err_ns
 * (if not NULL) gets the largest deviation found when checking every
 * event. progress: NULL, or told as each rank is done. */
int rv_write(const char *dir, const struct rt_location *ranks, uint32_t n, const struct gtime_map *gtime,
             double *max_err_ns, const struct rv_progress *progress, char *err, size_t errlen);

/* The same in parts, for the parallel merge (pmerge.h), whose processes
 * each have their own locations' times: the raw time of the run's
 * earliest event (process 0's, over every location); the sections of the
 * locations with mine[r] set, in order, into `out` (their points wait in a
 * nameless file in dir; the largest deviation into *worst: 0, or -1 with
 * a message); and DIR/rawview.map from each process's sections, parts[p]
 * holding those of the locations with owner[r] == p (0, or -1 with a
 * message, when a part is not what it should be or worst is beyond the
 * tolerance). */
double rv_origin(const struct rt_location *ranks, uint32_t n);
int rv_write_sections(FILE *out, const char *dir, const struct rt_location *ranks, uint32_t n,
                      const struct gtime_map *gtime, double origin, const uint8_t *mine,
                      const struct rv_progress *progress, double *worst, char *err, size_t errlen);
int rv_assemble(const char *dir, uint32_t n, const uint32_t *owner, FILE *const *parts, double worst, char *err,
                size_t errlen);

/* A map read back without holding it: its text checked line by line and
 * its points set aside in a nameless file, of which a few blocks are held
 * at a time (rawview.c): what is held is some 40 bytes per rank, 8 per
 * 32 points and a cache of at most 6 MB, whatever the map's length (a
 * repaired trace's has a point nearly every few events). */
struct rv_file;

/* Read PATH, which must describe `expect_ranks` ranks, its points set
 * aside in tmpdir (NULL: $TMPDIR, else /tmp): NULL with a one-line message
 * naming the file and line. */
struct rv_file *rv_open(const char *path, uint32_t expect_ranks, const char *tmpdir, char *err, size_t errlen);
uint32_t rv_count(const struct rv_file *m, uint32_t rank);
/* Point k < rv_count() of a rank: 0, or -1 when the file's read failed
 * (rv_file_error says why; the failure sticks). */
int rv_point_at(struct rv_file *m, uint32_t rank, uint32_t k, struct rv_point *p);
/* As rv_raw over the rank's whole list (g when a read failed). */
double rv_file_raw(struct rv_file *m, uint32_t rank, uint64_t index, double g);
const char *rv_file_error(const struct rv_file *m);   /* "" until a read fails */
void rv_close(struct rv_file *m);

/* The raw time of event `index` of one rank, at global time g (binary search). */
double rv_raw(const struct rv_rank *r, uint64_t index, double g);

/* Greedy simplification of points (x non-decreasing, y) into breakpoints
 * within tol of every point, stepping where points at one x differ by more
 * than 2 tol; returns the count written to out (at most n + 1), or 0 when
 * n == 0. Exposed for the unit tests. */
uint32_t rv_simplify(const double *x, const double *y, uint64_t n, double tol, struct rv_point *out);

/* The simplification itself, over points read through `at` (point i of
 * the series is (*x, *y)), so that a rank of many events needs no array
 * of them (rawview_simplify.c). Breakpoints go to a growing array v, or to
 * a file f; with a limit, the limit+1-th sets failed to RV_OVER and the
 * pass stops; else failed is 1 when memory or a write failed. */
struct rv_series {
    void (*at)(const void *ctx, uint64_t i, double *x, double *y);
    const void *ctx;
};

#define RV_OVER 2

struct rv_points {
    struct rv_point *v;
    uint32_t n, cap, limit;   /* limit 0: none */
    FILE *f;
    struct rv_point last;
    int failed;
};

void rv_simplify_series(const struct rv_series *sr, uint64_t n, double tol, struct rv_points *out);

/* The same into at most max(limit, 2) breakpoints: the tolerance, from
 * tol, doubles until they fit (*tol_used: the one that did). 0, or -1 when
 * memory failed. Breakpoint indexes are the series' point numbers. */
int rv_simplify_within(const struct rv_series *sr, uint64_t n, uint32_t limit, double tol, struct rv_points *out,
                       double *tol_used);

#endif
