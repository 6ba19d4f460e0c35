/* merge.c — `synctrace merge RAW_DIR -o OUT`: read every rank's archive,
 * match messages and collectives, solve clock offsets as difference
 * constraints, and write one tachyon-free OTF2 archive plus report.json.
 *
 * Only the wiring of the stages (merge_state.h lists them and their
 * files) and their timings for the report. */
#include <config.h>
#include "merge.h"
#include "launcher.h"
#include "merge_state.h"
#include "progress.h"
#include "eventspill.h"
#include "collstream.h"
#include "msgstream.h"
#include "rawdir.h"
#include "rma_flow.h"
#include "rawtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds since *t, which becomes now. */
static double lap(double *t)
{
    double now = st_now_s(), s = now - *t;
    *t = now;
    return s;
}

void merge_state_init(struct merge_state *st, const struct merge_options *o)
{
    memset(st, 0, sizeof *st);
    st->opt = *o;
    if (o->spill_dir == o->out_parent)   /* the copy's own */
        st->opt.spill_dir = st->opt.out_parent;
    member_pool_init(&st->members);
    report_init(&st->rep);
}

void merge_state_free(struct merge_state *st)
{
    merge_index_abandon(st);   /* before the matches it reads are freed */
    outdir_abandon(st);
    gt_free(&st->gtime);
    ts_free(st->truth);
    merge_solution_free(&st->sol);
    cm_free(&st->model);
    mg_free(&st->match);
    outside_table_free(&st->outside);
    for (uint32_t r = 0; st->locs && r < st->nlocs; r++)
        rt_free_rank(&st->locs[r]);
    free(st->locs);
    free(st->kept);
    free(st->share);
    free(st->owner);
    member_pool_free(&st->members);   /* after the ranks that point into it */
    rt_spill_free(st->spill);
    rawdir_free(st->anchors, st->nanchors);
    jobs_free(st->jobs, st->njobs);
    report_free(&st->rep);
}

/* What the match needs while the events are read: the matcher and the
 * one-sided orderings. */
struct fused {
    struct merge_state *st;
    struct mg_matcher *matcher;
    struct rf_orderer *rma;
};

int merge_owns(const struct merge_state *st, uint32_t r)
{
    return !st->owner || st->owner[r] == st->place;
}

/* Until the write, the stages read only the events' times (and the true
 * times, kept beside them). Beyond --event-memory, the rest of a
 * location's events goes to disk as soon as the match has seen them, 24
 * of every 32 bytes, and comes back as the location is written. The
 * locations first in order are kept, as many as their declared events fit
 * in the budget: the choice depends on the trace and the budget alone,
 * not on the order the threads read them in. */
static int keep_locations(struct merge_state *st, uint64_t *held)
{
    *held = 0;
    free(st->kept);
    if (!(st->kept = calloc(st->nlocs ? st->nlocs : 1, 1)))
        return -1;
    for (uint32_t r = 0; r < st->nlocs; r++) {
        if (!merge_owns(st, r))
            continue;   /* read by another process of the parallel merge: never held here */
        uint64_t more = st->locs[r].declared_events * sizeof(struct rt_slot);
        if (*held + more > st->opt.event_memory)
            break;
        *held += more;
        st->kept[r] = 1;
    }
    return 0;
}

/* A location beyond the kept ones is read in chunks that fit in the
 * budget, a share of it per reading thread (at least RT_TIME_BLOCK x 64
 * events, and a whole number of blocks): one location of many events
 * never has to be held whole. */
static uint64_t read_chunk(const struct merge_state *st)
{
    uint64_t share = st->opt.event_memory / sizeof(struct rt_slot) / 2 / (uint64_t)(st->opt.jobs > 0 ? st->opt.jobs : 1);
    uint64_t least = (uint64_t)RT_TIME_BLOCK * 64;
    share = share < least ? least : share;
    return share / RT_TIME_BLOCK * RT_TIME_BLOCK;
}

int merge_plan_keeping(struct merge_state *st, uint64_t *held)
{
    st->chunk_events = read_chunk(st);
    return keep_locations(st, held);
}

uint64_t merge_read_chunk(const struct merge_state *st, uint32_t r)
{
    return st->kept[r] ? 0 : st->chunk_events;
}

static uint64_t chunk_of(void *ctx, uint32_t r)
{
    const struct fused *f = ctx;
    return merge_read_chunk(f->st, r);
}

/* True times of location `loc` go to the store, made at the first. */
struct truth_put {
    struct merge_state *st;
    uint32_t loc;
};

static int put_truth(void *ctx, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known)
{
    struct truth_put *tp = ctx;
    merge_put_truth(tp->st, tp->loc, from, n, raw, known);
    return 0;
}

void merge_put_truth(struct merge_state *st, uint32_t loc, uint64_t from, uint64_t n, const uint64_t *raw,
                     const uint64_t *known)
{
    if (st->truth_dropped)
        return;
    /* true_time is one clock for the whole run (the undistorted node
     * clock): one rate for every rank, or calibration differences of a
     * few ppb times ticks since boot would show as microseconds */
    double res = st->locs[0].resolution ? (double)st->locs[0].resolution : 1e9;
    char why[700] = "";
    if (!st->truth && !(st->truth = ts_new(st->nlocs, st->opt.spill_dir, res, why, sizeof why)))
        st->truth_dropped = 1;
    else if (ts_put(st->truth, loc, from, n, raw, known) != 0) {
        snprintf(why, sizeof why, "%s", ts_error(st->truth));
        ts_free(st->truth);
        st->truth = NULL;
        st->truth_dropped = 1;
    }
    /* A test trace's true times only measure the merge: without them it
     * still merges, as the comparison with the controlled logical clock
     * is left out when its files cannot be written. */
    if (st->truth_dropped)
        fprintf(stderr, "synctrace merge: warning: no comparison with true time: %s\n", why);
}

int merge_keep_or_set_aside(struct merge_state *st, uint32_t r, const struct rt_times *times, char *err,
                            size_t errlen)
{
    if (st->kept[r])
        return 0;
    if (!st->spill && !(st->spill = rt_spill_new(st->opt.spill_dir, err, errlen)))
        return -1;
    if (rt_spill_out_times(st->spill, &st->locs[r], times) != 0) {
        snprintf(err, errlen, "%s", rt_spill_error(st->spill));
        return -1;
    }
    return 0;
}

/* A chunk of a location's events is read (one at a time: read_stage.c
 * serialises); `last` ends the location. */
static int hand_over(void *ctx, uint32_t r, int last, char *err, size_t errlen)
{
    struct fused *f = ctx;
    struct merge_state *st = f->st;
    /* a failure sticks in the matcher or the orderer: their ends say it */
    mg_match_chunk(f->matcher, r, last);
    rf_order_chunk(f->rma, r, last);
    /* the true times leave memory for the store */
    struct truth_put tp = { st, r };
    if (rt_truth_hand(&st->locs[r], last, put_truth, &tp) != 0)
        return -1;
    return merge_keep_or_set_aside(st, r, NULL, err, errlen);
}

/* The parallel merge's process 0: what the workers read, handed over. */
static int take_remote(void *ctx, pthread_mutex_t *lock, char **errors, int *finalized, char *err, size_t errlen)
{
    struct fused *f = ctx;
    return pm_receive_locations(f->st, f->matcher, f->rma, lock, errors, finalized, err, errlen);
}

/* The events, read rank by rank and handed to the match as they come:
 * sends, receives, calls and requests go into its sorts (match.c), and a
 * location's events leave memory beyond --event-memory. Then the pairing. */
int merge_match(struct merge_state *st)
{
    char err[4400];
    uint64_t held;
    if (merge_plan_keeping(st, &held) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    /* the matched messages share the budget: what the kept events leave */
    struct mg_sort_config sort = { st->opt.spill_dir, st->opt.sort_memory, (size_t)(st->opt.event_memory - held) };
    struct fused f = { st, NULL, NULL };
    if (!(f.matcher = mg_match_begin(st->locs, st->nlocs, &sort, &st->match, err, sizeof err))) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    if (!(f.rma = rf_order_begin(st->locs, st->nlocs, &st->match))) {
        mg_match_abandon(f.matcher);
        fprintf(stderr, "synctrace merge: out of memory while ordering one-sided operations\n");
        return -1;
    }
    struct merge_hand_over h = { chunk_of, hand_over, &f, 0, 0, NULL, NULL, NULL };
    if (st->share) {   /* process 0 of the parallel merge reads its share and takes the workers' */
        h.first = st->share[0];
        h.end = st->share[1];
        h.remote = take_remote;
    }
    int rc = merge_read_events(st, &h);
    st->rep.seconds_read += st_now_s() - st->t_read_start;
    if (rc != 0) {
        mg_match_abandon(f.matcher);
        rf_order_free(f.rma);
        return -1;
    }
    if (mg_match_end(f.matcher, err, sizeof err) != 0
        || rf_order_end(f.rma, &st->match.rma_flows, &st->match.nrma_flows, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        rf_order_free(f.rma);
        return -1;
    }
    rf_order_free(f.rma);
    st->match.outside = &st->outside;
    st->rep.sort_memory = sort.memory;
    st->rep.sort_runs = st->match.sort_runs;
    st->rep.sort_spilled_bytes = st->match.sort_spilled_bytes;
    st->rep.events_set_aside_bytes = rt_spill_bytes(st->spill);
    st->rep.messages_set_aside_bytes = ms_file_bytes(st->match.message_file);
    st->rep.collectives_set_aside_bytes = mc_file_bytes(st->match.coll_file);
    return 0;
}

/* A stage read the matched messages, collectives, the events' times,
 * their repaired times or their true times from their files and a read
 * failed: why (the first), else NULL. */
const char *set_aside_error(const struct merge_state *st)
{
    const char *why = mg_msgs_error(&st->match);
    if (!why)
        why = mg_colls_error(&st->match);
    if (!why && st->spill && *rt_spill_error(st->spill))
        why = rt_spill_error(st->spill);
    if (!why && st->truth && *ts_error(st->truth))
        why = ts_error(st->truth);
    if (!why)
        why = gt_repaired_error(&st->gtime);
    return why;
}

/* Such a failure leaves the stage's results incomplete, so nothing of OUT
 * may be put in place: said once, however many stages met it. */
int set_aside_unread(struct merge_state *st)
{
    const char *why = set_aside_error(st);
    if (why && !st->unread_said) {
        fprintf(stderr, "synctrace merge: %s\n", why);
        st->unread_said = 1;
    }
    return why != NULL;
}

/* From the match to the write: the output directory, the causal index
 * begun beside the rest, the clock model, every event's global time, the
 * repair and the measures. 0, or -1 (said). */
int merge_analyse(struct merge_state *st)
{
    struct report *rep = &st->rep;
    double t = st_now_s();
    rep->seconds_match = t - st->t_read_start - rep->seconds_read;
    /* The causal index needs only the matches and the event counts: it
     * builds on its own thread from here, beside the solve, the report and
     * the write (its file goes into the output being built). */
    if (outdir_create(st) != 0 || merge_index_start(st) != 0)
        return -1;
    progress_update("solving the clock constraints", 0, 0);
    if (merge_choose_model(st) != 0) {
        set_aside_unread(st);   /* a read that failed is said here */
        return -1;
    }
    rep->seconds_solve = lap(&t);
    struct precision_job precision;
    merge_precision_start(st, &precision);
    int ok = merge_apply(st) == 0 && merge_repair(st) == 0;
    if (ok) {
        progress_update("measuring the result", 0, 0);
        report_fill(rep, st->locs, st->nlocs, &st->match, &st->model, st->sol.x, st->sol.lo, st->sol.hi,
                    st->tau, st->opt.min_latency, &st->gtime, st->truth);
        merge_compare_clc(st);
    }
    merge_precision_finish(&precision, ok);   /* before a failed apply's state is freed */
    if (set_aside_unread(st) || !ok)
        return -1;
    rep->seconds_apply = lap(&t);
    st->t_write_start = t;
    return 0;
}

/* After the write: the index completed, the report, OUT put in place. */
int merge_conclude(struct merge_state *st)
{
    struct report *rep = &st->rep;
    rep->seconds_write = st_now_s() - st->t_write_start;
    if (merge_index_finish(st) != 0 || set_aside_unread(st))
        return -1;
    rep->seconds_total = st_now_s() - st->t_read_start;
    char err[4400];
    if (report_write(rep, st->tmp, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    return outdir_commit(st);
}

/* Every stage in order; 0 when OUT is in place. */
static int run_stages(struct merge_state *st)
{
    /* read: every rank's definitions, then (in the match) its events */
    st->t_read_start = st_now_s();
    if (merge_read(st) != 0 || merge_outside(st) != 0 || merge_match(st) != 0 || merge_analyse(st) != 0)
        return -1;
    progress_update("writing the merged archive", 0, 0);
    if (merge_write(st) != 0)
        return -1;
    return merge_conclude(st);
}

int cmd_merge(int argc, char **argv)
{
    /* started by mpirun (or srun, mpiexec) as several processes: they merge together */
    uint32_t place, processes;
    merge_launch_place(&place, &processes);
    if (processes > 1)
        return merge_parallel(argc, argv, processes);
    struct merge_options o;
    int rc = merge_parse_options(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (outdir_refuse_existing(&o))
        return 1;
    struct merge_state *st = malloc(sizeof *st);
    if (!st) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return 1;
    }
    merge_state_init(st, &o);
    progress_begin("synctrace merge");
    rc = run_stages(st);
    progress_end();
    if (rc == 0)
        report_print_summary(&st->rep, stdout);
    merge_state_free(st);
    free(st);
    return rc == 0 ? 0 : 1;
}
