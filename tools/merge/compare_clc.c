/* compare_clc.c — with true times, how the controlled logical clock
 * (Scalasca's repair of interpolated timestamps) fares on the same input,
 * for the report only: the archive keeps our times. It streams
 * (clc_stream.h), as the repair does: its per-event state waits in
 * --spill-dir, so the comparison runs at any size. Failing to compare is a
 * warning, never a failed merge. */
#include <config.h>
#include "clc_stream.h"
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The output as clc_correct gives it: ns, rounded, the earliest event 0. */
struct clc_view {
    struct clc_times *ct;
    double gmin;
};

static uint64_t clc_at(const void *ctx, uint32_t r, uint64_t i)
{
    const struct clc_view *v = ctx;
    double x = clc_times_get(v->ct, r, i) - v->gmin;
    return x <= 0 ? 0 : (uint64_t)llround(x);
}

void merge_compare_clc(struct merge_state *st)
{
    if (!ts_has(st->truth, 0))
        return;
    uint32_t n = st->nlocs;
    double t = st_now_s();
    struct clc_stats cst;
    struct clc_view view = { NULL, INFINITY };
    char err[4400];
    /* the input: the ClockOffsets interpolated, what today's tools show */
    int rc = merge_clc_stream(st, NULL, &view.ct, &cst, NULL, err, sizeof err);
    if (rc != 0) {
        if (!set_aside_error(st))   /* else the merge fails, saying that read */
            fprintf(stderr, "synctrace merge: warning: no comparison with the controlled logical clock: %s\n", err);
    } else {
        for (uint32_t r = 0; r < n; r++)
            if (st->locs[r].nevents)
                view.gmin = fmin(view.gmin, clc_times_get(view.ct, r, 0));
        const struct time_source src = { clc_at, &view };
        report_fill_clc(&st->rep, st->locs, n, &st->match, &src, st->truth, &cst, st_now_s() - t);
        if (clc_times_error(view.ct)) {   /* its numbers are not to be shown */
            st->rep.have_clc = 0;
            fprintf(stderr, "synctrace merge: warning: no comparison with the controlled logical clock: %s\n",
                    clc_times_error(view.ct));
        }
    }
    clc_times_free(view.ct);
}
