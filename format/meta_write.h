/* meta_write.h — DIR/run.meta, the run's metadata, as rank 0 of the tracer
 * and synctrace-gen write it: "key value" lines (keys in rawformat.h),
 * written to a temporary name and renamed, so that a reader sees either
 * no file or a complete one. */
#ifndef SYNCTRACE_META_WRITE_H
#define SYNCTRACE_META_WRITE_H

#include <stdint.h>
#include <stdio.h>

struct rf_meta {
    FILE *f;
    char tmp[4200], path[4200];
};

/* What every run.meta starts with. */
struct rf_meta_head {
    const char *version, *run_id;
    int world_size, thread_level;
    const char *clock;
    int sync_init, sync_finalize, sync_periodic;   /* the rounds configured */
    const char *interval_config;                   /* "auto" or "fixed" */
    uint64_t buffer_bytes;
    const char *skew;                              /* SYNCTRACE_SKEW, or "none" */
};

/* Start DIR/run.meta (at its temporary name) with its head. Returns 0, or
 * -1 (errno set, nothing left behind). */
int rf_meta_begin(struct rf_meta *m, const char *dir, const struct rf_meta_head *h);
/* One more "key value" line, the value formatted. */
void rf_meta_line(struct rf_meta *m, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One sync round's estimate for one edge of the sync tree (ns): the
 * domain of world rank `peer` against its parent's, world rank `parent`.
 * key: RF_META_KEY_SYNC_EPOCH, or RF_META_KEY_SYNC_BACKGROUND for a
 * background round (its parent the reference). */
void rf_meta_sync_peer(struct rf_meta *m, const char *key, int epoch, int peer, int parent, double rtt_min,
                       double rtt_median, double rtt_max, double offset, double error);
/* The rounds: their number, ping-pongs per edge, edges (peers) and the
 * tree's depth in steps, the interval between rounds. */
void rf_meta_sync_summary(struct rf_meta *m, int epochs, int rounds_per_peer, int peers, int tree_steps,
                          double interval_s, const char *interval_mode);
/* Each rank's clock domain (its lowest rank), and each rank's final tick rate. */
void rf_meta_domains(struct rf_meta *m, int n, const int *domain);
void rf_meta_rates(struct rf_meta *m, int n, const double *ticks_per_second);
/* Write "status STATUS", seal the file with its checksum
 * (format/sumfile.h) and put it in place. Returns 0, or -1 (the
 * temporary file removed). */
int rf_meta_end(struct rf_meta *m, const char *status);

#endif
