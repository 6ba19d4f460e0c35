/* apply.c — the apply stage: every event's global time from the chosen
 * clock model and its offsets (the earliest event becomes 0; gtime.h:
 * stored or computed), and its true time in ns where the trace has one
 * (SYNCTRACE_SKEW, synctrace-gen). */
#include <config.h>
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int merge_apply(struct merge_state *st)
{
    const struct rt_rank *locs = st->locs;
    uint32_t n = st->nlocs;
    st->truth = calloc(n, sizeof *st->truth);
    /* stored where the events are held (gtime.h), computed where they wait on disk */
    if (!st->truth || gt_build(&st->gtime, st->locs, n, &st->model, st->sol.x, st->kept_locations) != 0)
        goto oom;
    for (uint32_t r = 0; r < n; r++) {
        const struct rt_rank *rk = &locs[r];
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
