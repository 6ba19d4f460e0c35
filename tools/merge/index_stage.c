/* index_stage.c — the causal index (OUT/causal.idx, synctrace query),
 * built on its own thread from the end of the match on, while the solve,
 * the report and write_stage.c go on: it needs only each location's event
 * count and the matches, which nothing changes after the match. R:I of a query is the
 * I-th event of location R (location_order.h): ow_write writes every event
 * of a location in order, one record each. */
#include <config.h>
#include "merge_state.h"

#include <stdio.h>
#include <stdlib.h>

int merge_index_start(struct merge_state *st)
{
    const struct merge_options *o = &st->opt;
    uint32_t n = st->nlocs;
    /* At any number of locations: the build keeps its vectors within a
     * budget (causal.h, column windows) and stores full vectors as small
     * differences. */
    if (o->no_causal > 0)
        return 0;
    uint64_t *nev = malloc(sizeof *nev * (n ? n : 1));
    if (nev) {
        for (uint32_t r = 0; r < n; r++)
            nev[r] = st->locs[r].nevents;
        st->causal_job = causal_start(st->tmp, nev, n, &st->match, o->cluster_levels,
                                      (uint32_t)merge_analysis_threads(o));
        free(nev);
    }
    if (!st->causal_job) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    return 0;
}

int merge_index_finish(struct merge_state *st)
{
    if (!st->causal_job)
        return 0;
    char err[4400];
    int rc = causal_finish(st->causal_job, st->tmp, &st->causal, err, sizeof err);
    st->causal_job = NULL;
    if (rc != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    if (!st->causal.built)
        fprintf(stderr, "synctrace merge: warning: no causal index: %s\n", st->causal.error);
    st->rep.causal = &st->causal;
    return 0;
}

/* Before the matches the job reads are freed. */
void merge_index_abandon(struct merge_state *st)
{
    causal_abandon(st->causal_job);
    st->causal_job = NULL;
}
