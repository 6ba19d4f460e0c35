/* apply.c — the apply stage: every event's global time from the chosen
 * clock model and its offsets (the earliest event becomes 0; gtime.h:
 * stored or computed). True times (SYNCTRACE_SKEW, synctrace-gen) were
 * set aside in ns as the events were read (truthstore.h). */
#include <config.h>
#include "merge_state.h"

#include <stdio.h>

int merge_apply(struct merge_state *st)
{
    /* stored where the events are held (gtime.h), computed where they wait on disk */
    if (gt_build(&st->gtime, st->locs, st->nlocs, &st->model, st->sol.x, st->kept) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    return 0;
}
