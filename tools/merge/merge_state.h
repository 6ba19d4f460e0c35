/* merge_state.h — `synctrace merge` as stages, each in its own file, and
 * what they hand each other (merge_state.c). cmd_merge (merge.c) and
 * pipeline.c only wire them:
 *
 *   options     merge_options.c  the command line
 *   read        read_stage.c     rank archives -> one rt_location per location (format/): definitions
 *                                first, then (from the match) events, location by location
 *   outside     outside.c        members of other jobs (spawn, connect) -> ranks after the trace's
 *   match       match_stage.c    messages and collectives paired by external sorts (tools/match/),
 *                                fed as the events are read; beyond --event-memory a location's
 *                                events but their times then go to disk until the write
 *   clock model model_select.c   which drift model the events contradict least (tools/clock/)
 *   constraints solution.c       one model's constraint graph and its offsets (constraints.c,
 *   solve                        solve.c in tools/clock/)
 *   apply       apply.c          global times of every event (tools/clc/gtime.c)
 *   repair      repair.c         contradicted inputs (delta > 0): causal order restored (tools/clc/)
 *   measure     compare_clc.c, precision.c, and tools/output/report.c
 *   write       write_stage.c    the merged archive and rawview.map (tools/output/), into
 *                                outdir.c's temporary directory
 *   index       index_stage.c    the causal index (tools/causal/), built from the match on
 *   report      pipeline.c       report.json; then outdir.c renames OUT.tmp-PID to OUT
 *
 * Under mpirun (pmerge.h) the same stages run in K processes:
 * pmerge_run.c wires them, pmerge_read.c hands the workers' reads to
 * process 0 (locstream.h), pmerge.c makes every MPI call.
 *
 * A stage that fails says why in one line on stderr and returns -1; the
 * state is freed by merge_state_free whatever stage was reached. */
#ifndef SYNCTRACE_MERGE_STATE_H
#define SYNCTRACE_MERGE_STATE_H

#include "member_pool.h"
#include <pthread.h>
#include <stdint.h>
#include "causal_report.h"
#include "clockmodel.h"
#include "constraints.h"
#include "jobs.h"
#include "match.h"
#include "eventspill.h"
#include "gtime.h"
#include "rawtrace.h"
#include "report.h"
#include "truthstore.h"
#include "solve.h"
#include "timing.h"

#define MERGE_EVENT_MEMORY_DEFAULT ((size_t)64 << 20)

struct merge_options {
    const char *raw, *out;
    int reference;            /* rank, which is also its main location's index */
    double alpha;
    int estimates;            /* offsets at the rounds' estimates projected onto the bounds (default); 0: --alpha */
    int median;
    double min_latency;       /* ns, between different clocks (--min-latency) */
    double max_drift;         /* largest drift a clock may have (fraction) */
    int jobs;                 /* threads reading rank archives */
    int jobs_given;           /* --jobs said so (else the parallel merge shares the cores) */
    int index_threads;        /* process 0's analysis (the causal index's window passes at once, the
                               * precision beside the apply): --jobs, not shared; 0: jobs */
    int force, no_drift;
    int drift_model;          /* --drift-model: 0 auto, else CM_LINE or CM_SEGMENTS + 1 */
    int rounds_only;          /* --drift-model rounds: the rounds' lines, never moved by the events */
    const char *cluster_levels;   /* causal index: maximum cluster sizes per level */
    int no_causal;            /* 1: --no-causal; -1: --causal (the default, kept for old scripts) */
    uint32_t precision_sources;   /* --precision-sources: sampled pair precision from so many clocks; 0 default */
    size_t sort_memory;       /* --sort-memory, bytes: the match's sorts spill beyond it */
    size_t event_memory;      /* --event-memory, bytes: events held beyond their times from the match to
                               * the write; the rest is set aside on disk */
    const char *spill_dir;    /* --spill-dir, else out_parent */
    int times_only;           /* OUT/times.bin instead of the archive (merge_times_only) */
    char out_parent[4200];    /* the directory that will hold OUT (where it is built) */
};

/* One solve of a clock model's constraint graph, and everything it produced. */
struct merge_solution {
    struct sv_graph *graph;
    struct hub_store *hubs;   /* the collectives' hubs (hubstore.h): in the graph, or beside it */
    double *x, *lo, *hi, delta;
    uint32_t unbounded;
    struct cs_stats cs;
};

struct merge_state {
    struct merge_options opt;
    struct merge_job *jobs;   /* read: the run and the jobs it spawned (jobs.h) */
    int njobs;
    char **anchors;           /* read: the rank archives' anchor files */
    int nanchors;
    struct rt_location *locs;     /* read: one per location, numbered as location_order.h says */
    struct member_pool members;   /* read: the communicators' member lists, shared by the locations */
    uint32_t nlocs;
    struct outside_table outside;   /* outside: processes of other jobs, ranks from rep.ranks on */
    struct mg_result match;   /* match */
    struct rt_spill *spill;   /* match: the events but their times, until the write (eventspill.h) */
    double t_read_start;      /* the read's time ends in the match, with the last event read */
    double t_write_start;
    struct cm_model model;    /* clock model */
    struct merge_solution sol;   /* constraints + solve: the offsets of the chosen model */
    uint32_t tau;             /* the reference clock's domain */
    uint8_t *kept;            /* match: per location, whether it keeps its events in memory */
    uint64_t chunk_events;    /* match: events read at a time of a location not kept */
    /* the parallel merge (pmerge.h): rank archives [share[p], share[p + 1])
     * are process p's; NULL when this process reads them all */
    uint32_t *share;
    uint32_t *owner;          /* per location: the process that reads it (its rank archive's share) */
    uint32_t place, processes;
    int streams_taken;        /* process 0 has taken the workers' streams to their ends */
    double rv_origin;         /* the raw view's zero (rv_origin): process 0's, over every location */
    struct gtime_map gtime;   /* apply: every event's global ns (gtime.h) */
    struct truth_store *truth;   /* read: the events' true times in ns, set aside (NULL: none) */
    int truth_dropped;        /* they could not be set aside: the merge goes on without */
    char tmp[4200];           /* the output directory being built, "" when none */
    struct causal_job *causal_job;
    struct causal_summary causal;
    struct report rep;
    int unread_said;          /* set_aside_unread said why a read failed */
};


/* merge_options.c: 0 to go on, else the exit status (-1: --help, exit 0). */
int merge_parse_options(int argc, char **argv, struct merge_options *o);
/* NULL when this process can make files in directory `dir`, else why not. */
const char *merge_unwritable_dir(const char *dir);

/* merge_state.c */
void merge_state_init(struct merge_state *st, const struct merge_options *o);
void merge_state_free(struct merge_state *st);

/* The stages, in order; each returns 0 or -1 (the line already printed). */
int merge_read(struct merge_state *st);
/* memcheck.c: one line on stderr when the trace's events seem not to fit
 * in the memory available (read calls it before reading events). */
void merge_memory_check(const struct merge_state *st);
/* Whether the in-memory controlled logical clock's arrays for every event
 * (the repair's reference, SYNCTRACE_REPAIR=memory) seem to fit in the
 * memory this process may use: *need and *avail in bytes (*avail 0:
 * unknown, taken as room). */
int merge_clc_fits(const struct merge_state *st, double *need, double *avail);
/* memcheck.c: the streaming repair's files seem not to fit in spill_dir: one line. */
void merge_repair_disk_check(const struct merge_state *st, const char *spill_dir);
int merge_outside(struct merge_state *st);
/* jobs_merge.c: the spawned jobs' ranks, clocks and communicators made
 * ranks of one run after their parents' (read calls it). */
int jobs_renumber(struct merge_state *st);
void outside_table_free(struct outside_table *t);
/* match_stage.c: reads the events (merge_read_events) into the match's
 * sorts as they come, then pairs them. */
int merge_match(struct merge_state *st);
/* read_stage.c, the second pass: each rank's events into its locations,
 * chunk(ctx, location) events at a time (0, or chunk NULL: all at once);
 * done(ctx, location, last) is called after each chunk with its events
 * held, by one thread at a time (0, or -1 with a one-line message), and
 * may set them aside. Then the losses of ranks that died are said, and the
 * events counted. */
struct merge_hand_over {
    uint64_t (*chunk)(void *ctx, uint32_t loc);
    int (*done)(void *ctx, uint32_t loc, int last, char *err, size_t errlen);
    void *ctx;
    /* The parallel merge (pmerge.h). end > 0: only rank archives [first,
     * end) are read here. Process 0: remote, run by this thread while
     * others read its own, takes in what the workers read, holding lock
     * while it hands it over; a rank's failure goes into errors[rank]
     * (malloc'd), whether a rank finalized into finalized[rank]; 0, or -1
     * with a message in err when the stream itself failed. A worker:
     * rank_failed(ctx, rank, message) takes each rank's failure (rank
     * UINT32_MAX: the read as a whole) instead of its being said. */
    uint32_t first, end;      /* with remote or rank_failed set */
    int (*remote)(void *ctx, pthread_mutex_t *lock, char **errors, int *finalized, char *err, size_t errlen);
    int (*rank_failed)(void *ctx, uint32_t rank, const char *message);
    /* per rank, whether its main location entered MPI_Finalize, as done
     * is called with its chunks (NULL: the read keeps that to itself) */
    int *finalized;
};
int merge_read_events(struct merge_state *st, const struct merge_hand_over *h);
/* merge_state.c, the read's parts the parallel merge's workers share: which
 * locations this process reads (all without a share); which it keeps in
 * memory, within --event-memory (*held bytes: 0 or -1); how many events
 * of location r are read at a time (0: all); a chunk of r read, kept or
 * set aside (its times in rt_times form when the caller has them, else
 * NULL; 0, or -1 with a message); true times for the store. */
int merge_owns(const struct merge_state *st, uint32_t r);
int merge_plan_keeping(struct merge_state *st, uint64_t *held);
uint64_t merge_read_chunk(const struct merge_state *st, uint32_t r);
int merge_keep_or_set_aside(struct merge_state *st, uint32_t r, const struct rt_times *times, char *err,
                            size_t errlen);
void merge_put_truth(struct merge_state *st, uint32_t loc, uint64_t from, uint64_t n, const uint64_t *raw,
                     const uint64_t *known);
/* pmerge_read.c: a worker's read, its stream to process 0 (0 or -1; the
 * failure is process 0's to say), and process 0's side of it (the
 * hand-over's remote, match_stage.c). */
int pm_worker_read(struct merge_state *st);
struct rma_orderer;
int pm_receive_locations(struct merge_state *st, struct mg_matcher *m, struct rma_orderer *rma, pthread_mutex_t *lock,
                         char **errors, int *finalized, char *err, size_t errlen);
/* Process 0 failed before it took the workers' streams: taken and dropped. */
void pm_drain_locations(void);
int merge_choose_model(struct merge_state *st);
int merge_apply(struct merge_state *st);
int merge_repair(struct merge_state *st);             /* repair.c: only when delta > 0 */
/* repair.c: the streaming controlled logical clock (clc_stream.h) over the
 * merge's locations and matches, with its latencies and budgets; input:
 * the map's global times, or with NULL the ClockOffsets interpolated. */
int merge_clc_stream(struct merge_state *st, const struct gtime_map *input, struct clc_times **out,
                     struct clc_stats *cs, struct clc_stream_usage *use, char *err, size_t errlen);
int merge_write(struct merge_state *st);              /* the index ends after it */
/* write_stage.c: the same into dir as one of the parallel merge's
 * processes (par: otf2out.h; NULL: alone). */
struct ow_parallel;
int merge_write_part(struct merge_state *st, const char *dir, const struct ow_parallel *par);

/* solution.c: build the constraint graph of `model` and solve it. */
int merge_solve_model(const struct rt_location *locs, const struct cm_model *model, const struct mg_result *match,
                      double lmin, uint32_t tau, double alpha, struct merge_solution *s);
/* Labels computed on the solution's graph (precision.c: distances from or
 * to clocks, backward[k]) lowered until they hold for the hubs kept beside
 * it too (hubstore.h): 0, or -1 (said on stderr). */
int merge_hubs_settle(struct merge_solution *s, double *const *vec, const int *backward, uint32_t nvec);
void merge_solution_free(struct merge_solution *s);
/* estimate.c: the chosen solution's clock offsets moved from the interval's
 * midpoints to the sync rounds' estimates, projected onto the offsets the
 * constraints allow (*moved: the clock vertices the constraints moved off
 * their estimate). 0, or -1 (said); on any doubt the midpoints stay. */
int merge_place_estimates(struct merge_state *st, uint32_t *moved);
/* Each clock's line fitted to its sync rounds inside the bounds the
 * messages give over the run (drift_fit.c); the model and solution
 * replaced when that stays consistent. 0, or -1 (said why). */
int merge_fit_drifts(struct merge_state *st);
/* report.json's "hubs_beside_graph" from the chosen solution. */
void merge_note_hubs(struct merge_state *st);

/* pipeline.c: the stages from the match's end to the write, and after the
 * write (the index completed, the report, OUT in place): 0 or -1 (said). */
int merge_analyse(struct merge_state *st);
int merge_conclude(struct merge_state *st);
/* merge_state.c: why a stage's results miss what it could not read back
 * from disk (NULL: nothing), and the same said once (1) or nothing (0). */
const char *set_aside_error(const struct merge_state *st);
int set_aside_unread(struct merge_state *st);
/* pmerge_run.c: `synctrace merge` as one of `processes` started by an MPI
 * launcher (pmerge.h): the exit status. */
int merge_parallel(int argc, char **argv, uint32_t processes, int times_only);
/* write_stage.c, for the parallel merge_times_only: this process's
 * locations' times (mine) as a part in dir; process 0 then puts every
 * process's part into st->tmp/MERGE_TIMES_FILE (all_ok 0: only removes
 * them). 0, or -1 (said). */
int merge_write_times_part(struct merge_state *st, const char *dir, const uint8_t *mine);
int merge_assemble_times(struct merge_state *st, int all_ok);

/* The threads the analysis after the match may use (merge_options.index_threads). */
static inline int merge_analysis_threads(const struct merge_options *o)
{
    return o->index_threads > 0 ? o->index_threads : o->jobs;
}

/* compare_clc.c, precision.c: measures for the report (warnings only). */
void merge_compare_clc(struct merge_state *st);
/* The pairs' precision needs only the solved graph, which nothing changes
 * after the solve: with two threads or more, and matrices of at most 32
 * MB, it runs on its own beside the apply, the repair and the other
 * measures, and finish waits for it;
 * else finish runs it, when `wanted` (the stages beside it succeeded).
 * Either way its figures are the same. */
struct precision_job {
    struct merge_state *st;
    pthread_t thread;
    int running;
};
void merge_precision_start(struct merge_state *st, struct precision_job *job);
void merge_precision_finish(struct precision_job *job, int wanted);

/* index_stage.c */
int merge_index_start(struct merge_state *st);
int merge_index_finish(struct merge_state *st);
void merge_index_abandon(struct merge_state *st);

/* outdir.c: OUT is built in OUT.tmp-PID and renamed into place. */
int outdir_refuse_existing(const struct merge_options *o);   /* 1 (said why) if OUT exists without --force */
int outdir_create(struct merge_state *st);
int outdir_commit(struct merge_state *st);
void outdir_abandon(struct merge_state *st);

#endif
