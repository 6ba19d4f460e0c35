/* synctrace/waits.h — the figures of `synctrace waits OUT_DIR --json`
 * (OUT_DIR/waits.json) for a tool: one row per (pattern, rank, region,
 * communicator), biggest first, as waits.json lists them.
 *
 *     char err[512];
 *     stc_waits *w = stc_waits_open("run.otf2d", err, sizeof err);
 *     if (!w) { fprintf(stderr, "%s\n", err); exit(1); }
 *     for (size_t i = 0; i < stc_waits_count(w); i++) {
 *         const struct stc_wait_row *r = stc_waits_row(w, i);
 *         printf("%s rank %u %s: %.6f s [%.6f, %.6f]\n", r->pattern, r->rank, r->region,
 *                r->seconds, r->lo, r->hi);
 *     }
 *     stc_waits_close(w);
 *
 * Link with `pkg-config --cflags --libs synctrace-causal`. A handle is
 * read-only after opening; its strings live until stc_waits_close. */
#ifndef SYNCTRACE_WAITS_PUBLIC_H
#define SYNCTRACE_WAITS_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stc_waits stc_waits;

struct stc_wait_row {
    const char *pattern;      /* "late_sender", "wait_barrier", ... (synctrace-waits(1)) */
    uint32_t rank;            /* the world rank that waited */
    const char *region;       /* the call it waited in */
    const char *communicator; /* its communicator (the window for wait_fence) */
    uint64_t count;           /* instances that waited on the merged times */
    uint64_t count_sure;      /* ... whose bounds exclude no wait */
    uint64_t count_possible;  /* ... whose bounds allow a wait */
    double seconds;           /* time waited on the merged timeline */
    double lo, hi;            /* the true total lies in [lo, hi]; hi INFINITY when unbounded */
    int possibly_none;        /* 1: the bounds allow that nobody waited */
    double true_seconds;      /* on the true times (true_time attribute); NAN without */
    double raw_seconds;       /* on the raw view (waits --raw); NAN without */
};

/* Read DIR/waits.json whole. NULL with a one-line message in err when it
 * is missing or unreadable, not JSON, of another format, or a row lacks a
 * field or has one of the wrong type (the message names the row and field). */
stc_waits *stc_waits_open(const char *dir, char *err, size_t errlen);
void stc_waits_close(stc_waits *w);

size_t stc_waits_count(const stc_waits *w);
/* Row i (0 .. count - 1), NULL when out of range. */
const struct stc_wait_row *stc_waits_row(const stc_waits *w, size_t i);
/* The archive's events the waits were computed on. */
uint64_t stc_waits_events(const stc_waits *w);

#ifdef __cplusplus
}
#endif
#endif
