/* write_stage.c — the write stage: the merged OTF2 archive (otf2out.c)
 * and OUT/rawview.map (rawview.c), into the output being built. */
#include <config.h>
#include "merge_state.h"
#include "otf2out.h"
#include "rawview.h"

#include <stdio.h>

int merge_write(struct merge_state *st)
{
    char err[4400];
    if (ow_write(st->tmp, "traces", st->locs, st->nlocs, &st->match, st->gtime, st->truth, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    /* The events' raw (interpolated ClockOffsets) times, for the HTML view. */
    if (rv_write(st->tmp, st->locs, st->nlocs, st->gtime, NULL, err, sizeof err) != 0)
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", err);
    return 0;
}
