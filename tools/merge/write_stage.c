/* write_stage.c — the write stage: OUT/rawview.map (rawview.c) and the
 * merged OTF2 archive (otf2out.c), into the output being built. */
#include <config.h>
#include "merge_state.h"
#include "otf2out.h"
#include "rawview.h"

#include <stdio.h>
#include <stdlib.h>

/* A location is written: its events and their times have no reader left
 * (the report is filled; the causal index, still building, reads only the
 * matches and the counts), so their memory goes back while the index's
 * build grows. */
static void release_location(void *ctx, uint32_t r)
{
    struct merge_state *st = ctx;
    rt_store_release(&st->locs[r]);
    gt_release(&st->gtime, r);
}

/* A location is being written: its events come back from disk, the
 * chunk that holds event i in place of the one before. */
static int load_location(void *ctx, uint32_t r, uint64_t i, char *err, size_t errlen)
{
    struct merge_state *st = ctx;
    if (st->spill && rt_spill_in_at(st->spill, &st->locs[r], i) != 0) {
        snprintf(err, errlen, "%s", rt_spill_error(st->spill));
        return -1;
    }
    return 0;
}

int merge_write(struct merge_state *st)
{
    return merge_write_part(st, st->tmp, NULL);
}

int merge_write_part(struct merge_state *st, const char *dir, const struct ow_parallel *par)
{
    char err[4400];
    /* The events' raw (interpolated ClockOffsets) times, for the HTML view:
     * first, as the archive's writer lets the events go. Process 0 has
     * every location's times. */
    if ((!par || par->primary) && rv_write(dir, st->locs, st->nlocs, &st->gtime, NULL, err, sizeof err) != 0)
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", err);
    struct ow_hooks hooks = { load_location, release_location, st, par };
    if (ow_write(dir, "traces", st->locs, st->nlocs, &st->match, &st->gtime, st->truth, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    if (gt_given_error(&st->gtime)) {
        fprintf(stderr, "synctrace merge: %s\n", gt_given_error(&st->gtime));
        return -1;
    }
    return 0;
}
