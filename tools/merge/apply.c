/* apply.c — the apply stage: every event's global time from the chosen
 * clock model and its offsets (the earliest event becomes 0), and its true
 * time in ns where the trace has one (SYNCTRACE_SKEW, synctrace-gen). */
#include <config.h>
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int merge_apply(struct merge_state *st)
{
    const struct cm_model *model = &st->model;
    const struct rt_rank *locs = st->locs;
    const double *x = st->sol.x;
    uint32_t n = st->nlocs;
    st->gtime = calloc(n, sizeof *st->gtime);
    st->truth = calloc(n, sizeof *st->truth);
    if (!st->gtime || !st->truth)
        goto oom;
    double gmin = INFINITY;
    for (uint32_t r = 0; r < n; r++)
        if (locs[r].nevents)
            gmin = fmin(gmin, cm_corrected(model, r, rt_time(&locs[r], 0))
                                  + x[cm_vertex(model, r, rt_time(&locs[r], 0))]);
    for (uint32_t r = 0; r < n; r++) {
        const struct rt_rank *rk = &locs[r];
        uint64_t *gt = st->gtime[r] = malloc(sizeof *gt * (rk->nevents ? rk->nevents : 1));
        if (!gt)
            goto oom;
        uint64_t prev = 0;
        for (uint64_t i = 0; i < rk->nevents; i++) {
            uint64_t ti = rt_time(rk, i);
            double g = cm_corrected(model, r, ti) + x[cm_vertex(model, r, ti)] - gmin;
            uint64_t v = g <= 0 ? 0 : (uint64_t)llround(g);
            if (v < prev)
                v = prev;   /* rounding only: c() is monotonic */
            gt[i] = prev = v;
        }
        /* The raw true times become the report's, in ns, in place: the raw
         * ones have no other reader. (Only when the first event has one.) */
        if (rk->nevents && rt_truth_known(rk, 0)) {
            uint64_t *tt = st->truth[r] = rt_take_truth(&st->locs[r]);
            /* true_time is one clock for the whole run (the undistorted node
             * clock): one rate for every rank, or calibration differences of a
             * few ppb times ticks since boot would show as microseconds. */
            double res = locs[0].resolution ? (double)locs[0].resolution : 1e9;
            for (uint64_t i = 0; i < rk->nevents; i++)
                tt[i] = (uint64_t)llround((double)tt[i] / res * 1e9);
        }
    }
    return 0;
oom:
    fprintf(stderr, "synctrace merge: out of memory\n");
    return -1;
}
