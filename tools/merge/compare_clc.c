/* compare_clc.c — with true times, how the controlled logical clock
 * (Scalasca's repair of interpolated timestamps) fares on the same input,
 * for the report only: the archive keeps our times. Failing to compare is
 * a warning, never a failed merge. */
#include <config.h>
#include "clc.h"
#include "merge_state.h"

#include <stdio.h>
#include <stdlib.h>

void merge_compare_clc(struct merge_state *st)
{
    if (!st->truth[0])
        return;
    /* It holds every event's times (the merge does not): a comparison that
     * does not fit is left out, said on stderr and in report.json. */
    double need, avail;
    if (!merge_clc_fits(st, &need, &avail)) {
        fprintf(stderr, "synctrace merge: warning: no comparison with the controlled logical clock: it takes about "
                        "%.3g GB, more than the %.3g GB available here\n", need / 1e9, avail / 1e9);
        st->rep.clc_skipped_bytes = need;
        return;
    }
    uint32_t n = st->nlocs, nd = st->model.ndomains;
    double lmin = st->opt.min_latency;
    char err[4400];
    double t = st_now_s();
    uint64_t **ctime = calloc(n, sizeof *ctime);
    struct clc_stats cst;
    /* clc takes a latency per pair of clocks; ours is one number (NULL: 0) */
    double *clc_lmin = NULL;
    if (lmin > 0 && (clc_lmin = malloc(sizeof *clc_lmin * (size_t)nd * nd)) != NULL)
        for (size_t k = 0; k < (size_t)nd * nd; k++)
            clc_lmin[k] = lmin;
    if (!ctime || (lmin > 0 && !clc_lmin))
        fprintf(stderr, "synctrace merge: warning: out of memory: no comparison with the controlled logical clock\n");
    else if (clc_correct(st->locs, n, &st->match, clc_lmin, &st->model, NULL, ctime, &cst, err, sizeof err) != 0)
        fprintf(stderr, "synctrace merge: warning: no comparison with the controlled logical clock: %s\n", err);
    else
        report_fill_clc(&st->rep, st->locs, n, &st->match, ctime, st->truth, &cst, st_now_s() - t);
    if (ctime)
        clc_free_times(ctime, n);
    free(ctime);
    free(clc_lmin);
}
