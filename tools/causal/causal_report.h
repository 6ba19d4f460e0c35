/* causal_report.h — the causal index in a merge: build it, write
 * OUT/causal.idx, the paper's cluster-size sweep (OUT/cluster_sizes.csv and
 * .svg), and what report.json / report.txt say of it. */
#ifndef SYNCTRACE_CAUSAL_REPORT_H
#define SYNCTRACE_CAUSAL_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "match.h"

#define CAUSAL_SWEEP_MAX 50

/* Causal index clusters by default (merge and synctrace causal): two-level,
 * at most 8 ranks per cluster (bench/causal.sh: stencils of 256 and 1024
 * ranks at 13% of Fidge/Mattern, queries ~0.5 us on average). Hierarchical
 * 8,64 is smaller (9%) but its cross-cluster walk costs the product of the
 * cluster sizes: ~10 us on average on the same trace. */
#define CAUSAL_DEFAULT_LEVELS "8"

struct causal_summary {
    int built;                      /* 0: no index (see error) */
    char error[512];
    char levels[96];                /* maximum cluster sizes per level, "8" or "8,64" */
    uint32_t ranks;
    uint64_t events, receives, cluster_receives, full_vectors, records, entries, index_bytes;
    double entries_per_event;       /* the paper's size: average entries of an event's timestamp */
    double file_ratio;              /* index file / Fidge/Mattern vectors of 4-byte entries */
    size_t peak_live_vectors;
    uint32_t passes, window;        /* the build's passes over windows of `window` columns */
    uint32_t threads;               /* passes run at once (each with a window's vectors) */
    size_t vector_bytes;            /* the vectors a pass kept (SYNCTRACE_CAUSAL_MEMORY_MB bounds them) */
    double seconds_build;           /* with the sweep, which runs along the build */
    double seconds_write, seconds_sweep;   /* sweep: reading its results */
    double seconds_wait;            /* the merge waiting for the build (it runs while the archive is written) */
    uint32_t nsweep;                /* rows of the sweep: max cluster size 1 .. nsweep */
    double sweep_self[CAUSAL_SWEEP_MAX + 1], sweep_contiguous[CAUSAL_SWEEP_MAX + 1];
};

/* The index is built (and the sweep run) in a thread while the merge writes
 * the archive, its entries straight into dir's index file: causal_start
 * before ow_write, causal_finish after it, with
 * match and its contents unchanged in between. causal_start returns NULL
 * only when out of memory; causal_abandon ends a job on an error path. */
struct causal_job;
struct causal_job *causal_start(const char *dir, const uint64_t *nevents, uint32_t nranks,
                                const struct mg_result *match, const char *levels, uint32_t threads);
int causal_finish(struct causal_job *job, const char *dir, struct causal_summary *s, char *err, size_t errlen);
void causal_abandon(struct causal_job *job);

/* All at once: build the index of the merged trace in dir (already written there), write
 * dir/causal.idx, dir/cluster_sizes.csv and dir/cluster_sizes.svg. On
 * failure to build (not to write) s->built is 0 and s->error says why, and
 * the merge goes on. Returns 0, or -1 with err (a file could not be written). */
int causal_for_merge(const char *dir, const uint64_t *nevents, uint32_t nranks, const struct mg_result *match,
                     const char *levels, uint32_t threads, struct causal_summary *s, char *err, size_t errlen);
void causal_report_json(FILE *f, const struct causal_summary *s);
void causal_report_text(FILE *f, const struct causal_summary *s);

#endif
