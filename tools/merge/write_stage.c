/* write_stage.c — the write stage: OUT/rawview.map (rawview.c) and the
 * merged OTF2 archive (otf2out.c), into the output being built. */
#include <config.h>
#include "merge_state.h"
#include "otf2out.h"
#include "rawview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define RV_PART ".rawview-part-"

/* The parallel merge's raw-view map: every process writes the sections
 * of its own locations to a part in dir, which process 0 puts together
 * once all are written (rv_assemble). Returns whether this process's
 * part was written; *worst its largest deviation. */
static int write_rv_part(struct merge_state *st, const char *dir, const struct ow_parallel *par, double *worst)
{
    char path[4400], err[4500];
    snprintf(path, sizeof path, "%s/" RV_PART "%u", dir, st->place);
    FILE *part = fopen(path, "w");
    int ok = part && rv_write_sections(part, dir, st->locs, st->nlocs, &st->gtime, st->rv_origin, par->mine, worst,
                                       err, sizeof err) == 0;
    if (!part)
        snprintf(err, sizeof err, "%s: cannot write: %s", path, strerror(errno));
    if (part && fclose(part) != 0 && ok) {
        snprintf(err, sizeof err, "%s: write failed", path);
        ok = 0;
    }
    if (!ok)
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", err);
    return ok;
}

/* Process 0: the parts put together into dir/rawview.map, and removed. */
static void assemble_rv(struct merge_state *st, const char *dir, int all_ok, double worst)
{
    char path[4400], err[4400] = "";
    FILE **parts = calloc(st->processes, sizeof *parts);
    int ok = all_ok && parts;
    for (uint32_t p = 0; parts && p < st->processes; p++) {
        snprintf(path, sizeof path, "%s/" RV_PART "%u", dir, p);
        if (ok && !(parts[p] = fopen(path, "r")))
            ok = 0;
    }
    if (ok && rv_assemble(dir, st->nlocs, st->owner, parts, worst, err, sizeof err) != 0)
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", err);
    for (uint32_t p = 0; parts && p < st->processes; p++) {
        if (parts[p])
            fclose(parts[p]);
        snprintf(path, sizeof path, "%s/" RV_PART "%u", dir, p);
        unlink(path);
    }
    free(parts);
}

/* Non-negative doubles order as their bits do: their maximum over the processes. */
static double max_over(const struct ow_parallel *par, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    bits = par->max_u64(bits);
    memcpy(&v, &bits, sizeof v);
    return v;
}

int merge_write_part(struct merge_state *st, const char *dir, const struct ow_parallel *par)
{
    char err[4400];
    /* The events' raw (interpolated ClockOffsets) times, for the HTML view:
     * first, as the archive's writer lets the events go. */
    double worst = 0;
    int rv_ok = 1;
    if (par)
        rv_ok = write_rv_part(st, dir, par, &worst);
    else if (rv_write(dir, st->locs, st->nlocs, &st->gtime, NULL, err, sizeof err) != 0)
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", err);
    struct ow_hooks hooks = { load_location, release_location, st, par };
    int rc = ow_write(dir, "traces", st->locs, st->nlocs, &st->match, &st->gtime, st->truth, &hooks, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "synctrace merge: %s\n", err);
    if (gt_given_error(&st->gtime)) {
        fprintf(stderr, "synctrace merge: %s\n", gt_given_error(&st->gtime));
        rc = -1;
    }
    if (par) {   /* every process's part written (whatever else failed: all take these steps) */
        int all_ok = par->agree(rv_ok);
        worst = max_over(par, worst);
        if (par->primary)
            assemble_rv(st, dir, all_ok, worst);
    }
    return rc;
}
