/* waits_share.h — `mpirun -np K synctrace waits OUT`: the locations of
 * the merged archive shared among the K processes (contiguous shares of
 * about equal declared events, pm_share). Each reads its share with its
 * --jobs threads into the records one process makes; a worker (process
 * 1..K-1) streams them to process 0 in pieces (the sorted kinds as a tag
 * and the record's bytes; at the end, its epochs and counts), which puts
 * them into its own sorters beside its threads' and runs the rules as one
 * process does: the output is the one-process run's. Every step that can
 * fail on one process ends in an agreement (pmerge.h's pm_agree), and a
 * failure is said once: by process 0 when it failed itself, else by the
 * worker that saw it (heldstderr.h). No MPI call here: pmerge.c makes
 * them. */
#ifndef SYNCTRACE_WAITS_SHARE_H
#define SYNCTRACE_WAITS_SHARE_H

#include "waits.h"

/* One kind of sorted record: where its sorter goes in wt_records, its
 * records' bytes, order and share of the budget. Its tag on the wire is
 * its index in wt_read's table of kinds: a new kind is one line there. */
struct wt_kind {
    struct wt_sorted **sorter;
    size_t bytes;
    int (*cmp)(const void *, const void *);
    size_t budget;
};

/* `synctrace waits` started by a launcher as `processes` > 1: MPI started,
 * run(argc, argv, share) in every process, whose ends are agreed; the
 * exit status, non-zero everywhere when any process failed. */
int wt_share_main(int argc, char **argv, uint32_t processes,
                  int (*run)(int argc, char **argv, struct wt_share *share));
uint32_t wt_share_place(const struct wt_share *sh);
/* The processes on this node (they share its cores). */
uint32_t wt_share_local(const struct wt_share *sh);
/* 1 when this process failed only because another did (which says why). */
int wt_share_quiet(const struct wt_share *sh);

/* Every process opened the archive (ok: this one could; events: declared
 * per location, n locations): 0 when all could, with this process's
 * locations [*first, *end); -1 when one could not. */
int wt_share_open(struct wt_share *sh, int ok, const uint64_t *events, uint32_t n, uint32_t *first,
                  uint32_t *end);
/* The sorters of the kinds for `jobs` reading threads: on a worker sinks
 * that stream to process 0; on process 0 sorters with one putter more
 * (the workers' records, put by a receiving thread started here). 0, or
 * -1 with err. */
int wt_share_sorters(struct wt_share *sh, const struct wt_kind *kinds, uint32_t nkinds, uint32_t jobs,
                     const char *spill_dir, char *err, size_t errlen);
/* This process's read done (ok: it succeeded, rec gathered): a worker
 * sends its epochs and counts; process 0 receives every worker's stream
 * to its end and adds their epochs and counts to rec in location order.
 * Then every process agrees: 0 when all read, -1 (err says this
 * process's own failure, "" when it was another's). */
int wt_share_end(struct wt_share *sh, int ok, struct wt_records *rec, char *err, size_t errlen);

#endif
