/* synctrace/causal.h — happened-before queries over a trace merged by
 * `synctrace merge` (its causal index OUT_DIR/causal.idx, Ward & Taylor's
 * self-organizing hierarchical cluster timestamps).
 *
 * An event is (rank, index): the index-th event, from 0, of the rank's
 * location in the merged archive OUT_DIR/traces.otf2.
 *
 *     char err[512];
 *     stc_causal *c = stc_causal_open("run.otf2d", err, sizeof err);
 *     if (!c) { fprintf(stderr, "%s\n", err); exit(1); }
 *     int rel = stc_causal_relation(c, 3, 1200, 17, 88);   // STC_BEFORE, ...
 *     stc_causal_close(c);
 *
 * Link with `pkg-config --cflags --libs synctrace-causal`. A handle is
 * read-only after opening: threads may query one handle concurrently. */
#ifndef SYNCTRACE_CAUSAL_PUBLIC_H
#define SYNCTRACE_CAUSAL_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ci_index stc_causal;

enum stc_relation {
    STC_INVALID = -1,   /* an event that the trace does not have */
    STC_SAME = 0,       /* the same event */
    STC_BEFORE = 1,     /* the first happened before the second */
    STC_AFTER = 2,      /* the second happened before the first */
    STC_CONCURRENT = 3  /* neither */
};

/* Open DIR/causal.idx (DIR: a merged trace directory). NULL with a one-line
 * message in err when the index is missing, corrupt, of another version,
 * or does not belong to DIR's archive as it is now (stale). */
stc_causal *stc_causal_open(const char *dir, char *err, size_t errlen);
void stc_causal_close(stc_causal *c);

uint32_t stc_causal_ranks(const stc_causal *c);
uint64_t stc_causal_events(const stc_causal *c, uint32_t rank);   /* 0 for a rank out of range */

/* 1 when (ra, ia) happened before (rb, ib) (never for the same event), 0
 * when not, -1 when either event does not exist. */
int stc_causal_precedes(const stc_causal *c, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib);
/* One of enum stc_relation. */
int stc_causal_relation(const stc_causal *c, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib);
/* "same", "before", "after", "concurrent" or "invalid". */
const char *stc_relation_name(int relation);

#ifdef __cplusplus
}
#endif
#endif
