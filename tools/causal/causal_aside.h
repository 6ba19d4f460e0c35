/* causal_aside.h — what the causal index's build (causal_build.c) sets
 * aside on disk while it runs, because it grows with the events:
 *
 *   - the records: the first pass decides them in causal order (about one
 *     for six events); they are sorted by rank (an external sort) and
 *     written rank after rank to a nameless file, from which each later
 *     pass reads a rank's records in order through a small window, and the
 *     index's record sections are written in one walk over them;
 *   - the cluster entries: placed by the first pass in causal order, filled
 *     column window by column window by the later passes, which visit them
 *     in that same order: a sliding block over a nameless file.
 *
 * What stays in memory is per rank (a window each) and a few blocks. */
#ifndef SYNCTRACE_CAUSAL_ASIDE_H
#define SYNCTRACE_CAUSAL_ASIDE_H

#include <stddef.h>
#include <stdint.h>
#include "causal.h"

/* A record: the rank's events from `start` on until its next record share
 * this level's cluster snapshot (cluster, size) and the vector at `vec`
 * (entries, or at the top level its number among the full vectors);
 * gcr[k] as ci_index.rec_gcr. On disk only the first ci_recs_row_bytes
 * bytes are kept (gcr of the levels there are). */
struct ci_rec {
    uint64_t vec;
    uint32_t rank, start, cluster, size, level;
    uint32_t gcr[CI_MAX_LEVELS];
};

struct ci_recs;

/* For nranks ranks and nlevels cluster levels, sorting in dir within
 * sort_memory bytes. NULL with a one-line message. */
struct ci_recs *ci_recs_new(uint32_t nranks, uint32_t nlevels, const char *dir, size_t sort_memory, char *err,
                            size_t errlen);
/* The first pass's records, in any order; a rank's have increasing starts. 0 or -1. */
int ci_recs_put(struct ci_recs *s, const struct ci_rec *x);
/* Every record put: sorted and written out rank after rank. 0 or -1. */
int ci_recs_seal(struct ci_recs *s);
/* Records of rank r put so far (all of them once sealed). */
uint64_t ci_recs_count(const struct ci_recs *s, uint32_t r);
/* Record k of rank r, read through r's window (a pass reads a rank's
 * records in order): valid until the next call for r; NULL when a read
 * failed. */
const struct ci_rec *ci_recs_at(struct ci_recs *s, uint32_t r, uint64_t k);
/* Sealed records read by another thread: a view with windows of its own
 * over s's file (which must outlive it), freed with ci_recs_free. NULL
 * when out of memory. */
struct ci_recs *ci_recs_view(const struct ci_recs *s);
/* The windows' memory back (between passes, and before the walk). */
void ci_recs_drop_windows(struct ci_recs *s);
/* n records from the first'th of all (rank after rank) into out. 0 or -1. */
int ci_recs_read(struct ci_recs *s, uint64_t first, struct ci_rec *out, size_t n);
/* The first failure, one line; "" when none. */
const char *ci_recs_error(const struct ci_recs *s);
void ci_recs_free(struct ci_recs *s);

struct ci_entries;

/* n cluster entries (4 bytes each), all zero at first, in a file in dir.
 * NULL with a one-line message. */
struct ci_entries *ci_entries_new(uint64_t n, const char *dir, char *err, size_t errlen);
/* A pass is over (its block goes to the file) and the next begins at
 * entry 0, reading back what the passes before it wrote. 0 or -1. */
int ci_entries_rewind(struct ci_entries *e);
/* Entries [at, at + len), to read and change: `at` never goes back within
 * a pass. Valid until the next call; NULL when the file failed. */
uint32_t *ci_entries_span(struct ci_entries *e, uint64_t at, uint32_t len);
/* The pass is over: its block goes to the file. 0 or -1. */
int ci_entries_flush(struct ci_entries *e);
/* n bytes of the entries from byte off (after a flush). 0 or -1. */
int ci_entries_read(struct ci_entries *e, void *buf, size_t n, uint64_t off);
const char *ci_entries_error(const struct ci_entries *e);
void ci_entries_free(struct ci_entries *e);

#endif
