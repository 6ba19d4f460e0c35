/* merge_state.c — the state the merge's stages share (merge_state.h):
 * made and freed, which locations this process owns, which of their
 * events stay in memory and which are set aside on disk, the true times'
 * store, and what a failed read of what was set aside says. */
#include <config.h>
#include "merge_state.h"
#include "collstream.h"
#include "eventspill.h"
#include "msgstream.h"
#include "rawdir.h"
#include "rawtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        rt_free_location(&st->locs[r]);
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
    if (st->opt.times_only)   /* no stage after the match reads them back, only their times */
        rt_spill_keep_times_only(st->spill);
    if (rt_spill_out_times(st->spill, &st->locs[r], times) != 0) {
        snprintf(err, errlen, "%s", rt_spill_error(st->spill));
        return -1;
    }
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
