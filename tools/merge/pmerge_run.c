/* pmerge_run.c — `mpirun -np K synctrace merge RAW -o OUT` (pmerge.h):
 * merge.c's stages shared out. Every process reads every rank's
 * definitions (so communicators, regions and locations are numbered
 * alike everywhere) and its own share of the rank archives' events
 * (pmerge_read.c); process 0 matches, solves, measures and builds the
 * causal index as one process does, then tells the workers the clock
 * model and offsets (or, after a repair, their events' times), and all
 * write the archive together, each its own locations' events. The output
 * is the one-process merge's, file for file.
 *
 * No process may wait for another that has given up: every step that can
 * fail on one process ends in an agreement (pm_agree), and a failure is
 * said once. A worker's stderr is held back: it is said when the worker
 * failed where process 0 did not (else process 0 says what went wrong),
 * and its warnings are said at the end. */
#include <config.h>
#include "merge_state.h"
#include "otf2out.h"
#include "heldstderr.h"
#include "pmerge.h"
#include "progress.h"
#include "rawview.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What process 0 tells the workers once the clocks are solved. */
struct plan {
    int32_t ok;               /* 0: the merge failed before the write: the workers end */
    int32_t repaired;         /* the times are the repair's: in dir/TIMES_FILE<place> */
    struct ow_attributes attrs;   /* found over every location */
    double gmin;              /* global time 0 (gtime.h) */
    double rv_origin;         /* the raw view's zero (rawview.h) */
    uint64_t model_bytes, nvertices;
    char dir[4200];           /* the output being built */
};

#define TIMES_FILE ".synctrace-times-"

/* ---------- the plan ---------- */

/* Per location: whether this process writes its events. */
static uint8_t *own_locations(const struct merge_state *st)
{
    uint8_t *mine = calloc(st->nlocs ? st->nlocs : 1, 1);
    for (uint32_t r = 0; mine && r < st->nlocs; r++)
        mine[r] = (uint8_t)merge_owns(st, r);
    return mine;
}

/* After a repair, the workers' events' times: process 0 has them (on disk,
 * clc_stream.h), each worker reads its own from a file in the output
 * being built (which every process sees: they write the archive there).
 * 0, or -1 (said). */
static int write_times_files(struct merge_state *st)
{
    for (uint32_t p = 1; p < st->processes; p++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/" TIMES_FILE "%u", st->tmp, p);
        FILE *f = fopen(path, "wb");
        if (!f) {
            fprintf(stderr, "synctrace merge: %s: %s\n", path, strerror(errno));
            return -1;
        }
        for (uint32_t r = 0; r < st->nlocs; r++) {
            if (st->owner[r] != p)
                continue;
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, &st->locs[r]);
            for (uint64_t i = 0; i < st->locs[r].nevents; i++) {
                uint64_t t = gt_read(&st->gtime, r, &tr, i);
                fwrite(&t, sizeof t, 1, f);
            }
            rt_time_reader_free(&tr);
        }
        if (ferror(f) | fclose(f)) {
            fprintf(stderr, "synctrace merge: %s: write failed\n", path);
            return -1;
        }
    }
    return 0;
}

static void remove_times_files(const struct merge_state *st)
{
    for (uint32_t p = 1; p < st->processes; p++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/" TIMES_FILE "%u", st->tmp, p);
        unlink(path);
    }
}

/* Process 0: the plan, then the model and offsets, to every worker. ok 0:
 * the merge failed. 0, or -1 (ok was 0). */
static int send_plan(struct merge_state *st, int ok, struct ow_parallel *par)
{
    struct plan pl;
    memset(&pl, 0, sizeof pl);
    void *model = NULL;
    size_t model_bytes = 0;
    if (ok) {
        pl.repaired = st->rep.repair_done;
        if (pl.repaired && write_times_files(st) != 0)
            ok = 0;
        ow_find_attributes(st->locs, st->nlocs, st->truth, &pl.attrs);
        if (ok && cm_pack(&st->model, &model, &model_bytes) != 0) {
            fprintf(stderr, "synctrace merge: out of memory\n");
            ok = 0;
        }
    }
    pl.ok = ok;
    pl.gmin = st->gtime.gmin;
    pl.rv_origin = st->rv_origin = ok ? rv_origin(st->locs, st->nlocs) : 0;
    pl.model_bytes = model_bytes;
    pl.nvertices = ok ? cm_nvertices(&st->model) : 0;
    snprintf(pl.dir, sizeof pl.dir, "%s", st->tmp);
    pm_bcast(&pl, sizeof pl);
    if (ok) {
        pm_bcast(model, model_bytes);
        pm_bcast(st->sol.x, sizeof *st->sol.x * pl.nvertices);
        par->attrs = pl.attrs;
    }
    free(model);
    return ok ? 0 : -1;
}

/* A worker: the plan, and the global times of its locations from it.
 * 1 to write, 0 when process 0 failed, -1 when this worker did (said). */
static int take_plan(struct merge_state *st, const uint8_t *mine, struct ow_parallel *par, char *dir, size_t len)
{
    struct plan pl;
    pm_bcast(&pl, sizeof pl);
    if (!pl.ok)
        return 0;
    void *model = malloc(pl.model_bytes ? pl.model_bytes : 1);
    double *x = malloc(sizeof *x * (pl.nvertices ? pl.nvertices : 1));
    if (!model || !x) {
        /* the broadcast must still be taken: the others take part in it */
        fprintf(stderr, "synctrace merge: out of memory\n");
        pm_abort();
    }
    pm_bcast(model, pl.model_bytes);
    pm_bcast(x, sizeof *x * pl.nvertices);
    snprintf(dir, len, "%s", pl.dir);
    st->rv_origin = pl.rv_origin;
    par->attrs = pl.attrs;
    int rc = cm_unpack(model, pl.model_bytes, &st->model);
    free(model);
    st->sol.x = x;
    if (rc != 0) {
        fprintf(stderr, "synctrace merge: process 0 sent a clock model this process cannot read\n");
        return -1;
    }
    char err[4400];
    if (pl.repaired) {
        char path[4400];
        snprintf(path, sizeof path, "%s/" TIMES_FILE "%u", pl.dir, st->place);
        if (gt_build_given(&st->gtime, st->locs, st->nlocs, path, mine, err, sizeof err) != 0) {
            fprintf(stderr, "synctrace merge: %s\n", err);
            return -1;
        }
    } else if (gt_build_part(&st->gtime, st->locs, st->nlocs, &st->model, x, pl.gmin, st->kept, mine) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    return 1;
}

/* ---------- the steps ---------- */

/* merge_times_only's (the foreign path, merge.h): times.bin, not the archive */
static int times_only;

/* This process's share of the output: its locations' events in the
 * archive, or (times_only) their times, a part of times.bin. */
static int write_share(struct merge_state *st, const char *dir, const struct ow_parallel *par)
{
    if (times_only)
        return merge_write_times_part(st, dir, par->mine);
    return merge_write_part(st, dir, par);
}

/* The steps every process takes alike up to the events: options, OUT,
 * definitions, the shares. 0 to go on, else the exit status. *zero_failed
 * is set when process 0 failed at the step that stopped them (it said why). */
static int begin(struct merge_state **stp, int argc, char **argv, int *zero_failed)
{
    struct merge_options o;
    int rc = merge_parse_options(argc, argv, &o);
    if (rc) {   /* the same argv everywhere: the same answer, said by process 0 */
        *zero_failed = 1;
        return rc < 0 ? 0 : rc;
    }
    /* process 0's causal index runs mostly after the workers' read and
     * write: its window passes take the node's cores (or --jobs) */
    o.index_threads = o.jobs;
    o.times_only = times_only;
    if (!o.jobs_given) {   /* the processes on one node share its cores */
        uint32_t local = pm_local_processes();
        o.jobs = o.jobs / (int)local > 0 ? o.jobs / (int)local : 1;
    }
    int zero_ok;
    int ok = pm_place() == 0 ? outdir_refuse_existing(&o) == 0 : 1;
    if (!pm_agree_zero(ok, &zero_ok)) {
        *zero_failed = !zero_ok;
        return 1;
    }
    struct merge_state *st = malloc(sizeof *st);
    if (st)
        merge_state_init(st, &o);
    *stp = st;
    if (!st)
        fprintf(stderr, "synctrace merge: out of memory\n");
    if (st) {
        st->place = pm_place();
        st->processes = pm_processes();
        st->t_read_start = st_now_s();
    }
    ok = st && merge_read(st) == 0 && merge_outside(st) == 0;
    uint64_t *events = NULL;
    if (ok && (!(events = calloc((size_t)st->nanchors + 1, sizeof *events))
               || !(st->share = malloc(sizeof *st->share * (st->processes + 1)))
               || !(st->owner = malloc(sizeof *st->owner * (st->nlocs ? st->nlocs : 1)))))
        ok = 0;
    if (!pm_agree_zero(ok, &zero_ok)) {
        *zero_failed = !zero_ok;
        free(events);
        return 1;
    }
    /* shares by declared events, which every process read alike */
    for (uint32_t r = 0; r < st->nlocs; r++)
        events[st->locs[r].rank] += st->locs[r].declared_events;
    pm_share(events, (uint32_t)st->nanchors, st->processes, st->share);
    free(events);
    for (uint32_t r = 0; r < st->nlocs; r++) {
        uint32_t rank = (uint32_t)st->locs[r].rank, p = 0;
        while (p + 1 < st->processes && rank >= st->share[p + 1])
            p++;
        st->owner[r] = p;
    }
    return 0;
}

static int run_zero(struct merge_state *st, struct ow_parallel *par, int *zero_failed)
{
    /* read, match (with the workers' shares), solve, measure */
    int ok = merge_match(st) == 0;
    if (!ok && !st->streams_taken)
        pm_drain_locations();   /* a worker blocked in a send would never end */
    ok = ok && merge_analyse(st) == 0;
    if (send_plan(st, ok, par) != 0) {
        *zero_failed = 1;
        return 1;
    }
    /* every worker ready to write its share, or none writes */
    int zero_ok;
    if (!pm_agree_zero(1, &zero_ok)) {
        if (st->rep.repair_done)
            remove_times_files(st);
        int done = 0;
        pm_bcast(&done, sizeof done);
        return 1;
    }
    progress_update("writing the merged archive", 0, 0);
    ok = pm_agree_zero(write_share(st, st->tmp, par) == 0, &zero_ok);
    if (st->rep.repair_done)
        remove_times_files(st);
    if (times_only && merge_assemble_times(st, ok) != 0 && ok) {
        ok = 0;
        zero_ok = 0;
    }
    if (!ok) {
        *zero_failed = !zero_ok;
        int done = 0;
        pm_bcast(&done, sizeof done);
        return 1;
    }
    st->rep.events_set_aside_bytes = pm_sum_u64(st->rep.events_set_aside_bytes);
    int done = merge_conclude(st) == 0;
    *zero_failed = !done;
    pm_bcast(&done, sizeof done);
    if (done)
        report_print_summary(&st->rep, stdout);
    return done ? 0 : 1;
}

static int run_worker(struct merge_state *st, struct ow_parallel *par, int *zero_failed)
{
    /* a failure of its read is said by process 0, with the other ranks' */
    pm_worker_read(st);
    char dir[sizeof st->tmp];
    int go = take_plan(st, par->mine, par, dir, sizeof dir);
    if (go == 0) {
        *zero_failed = 1;
        return 1;
    }
    int zero_ok;
    if (!pm_agree_zero(go > 0, &zero_ok)) {   /* this process or another cannot write its share: none write */
        int done;
        pm_bcast(&done, sizeof done);
        return 1;
    }
    int ok = pm_agree_zero(write_share(st, dir, par) == 0, &zero_ok);
    if (!ok) {
        *zero_failed = !zero_ok;
        int done;
        pm_bcast(&done, sizeof done);
        return 1;
    }
    pm_sum_u64(rt_spill_bytes(st->spill));
    int done = 0;
    pm_bcast(&done, sizeof done);
    *zero_failed = !done;
    return done ? 0 : 1;
}

int merge_parallel(int argc, char **argv, uint32_t processes, int times)
{
    times_only = times;
    if (pm_start_command(processes, "merge") != 0)
        return 1;
    struct held_stderr held = { -1, -1 };
    if (pm_place() > 0)
        quiet_worker(&held, "synctrace-merge-stderr");
    int zero_failed = 0;
    struct merge_state *st = NULL;
    if (pm_place() == 0)
        progress_begin("synctrace merge");   /* the first process shows how far the merge is */
    int rc = begin(&st, argc, argv, &zero_failed);
    if (rc == 0 && st) {
        uint8_t *mine = own_locations(st);
        struct ow_parallel par = { mine, st->place == 0, { 0, 0, 0 }, pm_archive_collective, pm_agree, pm_max_u64 };
        if (!mine) {
            fprintf(stderr, "synctrace merge: out of memory\n");
            pm_abort();   /* the others are past their last agreement: nothing else ends the job */
        }
        if (st->place == 0) {
            rc = run_zero(st, &par, &zero_failed);
        } else {
            rc = run_worker(st, &par, &zero_failed);
            /* its files are process 0's to remove */
            st->tmp[0] = '\0';
        }
        free(mine);
    }
    if (pm_place() == 0)
        progress_end();
    if (st) {
        merge_state_free(st);
        free(st);
    }
    release_stderr(&held, !zero_failed);
    pm_finish();
    return rc;
}
