/* pipeline.c — the stages from the match to the write and after it, in
 * order: what the serial merge (merge.c) and the parallel one
 * (pmerge_run.c) both run. */
#include <config.h>
#include "merge_state.h"
#include "progress.h"

#include <stdio.h>

/* Seconds since *t, which becomes now. */
static double lap(double *t)
{
    double now = st_now_s(), s = now - *t;
    *t = now;
    return s;
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
