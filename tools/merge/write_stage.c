/* write_stage.c — the write stage: OUT/rawview.map (rawview.c) and the
 * merged OTF2 archive (otf2out.c), into the output being built. */
#include <config.h>
#include "merge.h"
#include "merge_state.h"
#include "otf2out.h"
#include "rawview.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The raw-view map written on a thread beside the archive's writer (with
 * --jobs 2 or more; they were a third and a half of the write stage each
 * at 1000 ranks): the map walks the locations in order, reading their
 * times, and the writer takes location r (loads its events from disk,
 * lets them go) only once the map is past it. Not with repaired times,
 * which are read through one cache, one reader at a time (gtime.c). */
struct map_beside {
    struct merge_state *st;
    const char *dir;
    const struct ow_parallel *par;
    pthread_t thread;
    int running;
    pthread_mutex_t lock;
    pthread_cond_t moved;
    uint32_t past;                /* locations the map is done with */
    char why[4500];               /* the map is not written: why */
    int ok;                       /* its result, once joined */
    double worst;
};

/* What the archive writer's hooks are given. */
struct write_ctx {
    struct merge_state *st;
    struct map_beside *map;       /* NULL: the map was written before */
};

static void map_past(void *arg, uint32_t past)
{
    struct map_beside *m = arg;
    pthread_mutex_lock(&m->lock);
    m->past = past;
    pthread_cond_broadcast(&m->moved);
    pthread_mutex_unlock(&m->lock);
}

/* Until the map is done with location r (m NULL: it was written before). */
static void wait_for_map(struct map_beside *m, uint32_t r)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    while (m->past <= r)
        pthread_cond_wait(&m->moved, &m->lock);
    pthread_mutex_unlock(&m->lock);
}

/* A location is written: its events and their times have no reader left
 * (the report is filled; the causal index, still building, reads only the
 * matches and the counts), so their memory goes back while the index's
 * build grows. */
static void release_location(void *ctx, uint32_t r)
{
    struct write_ctx *w = ctx;
    wait_for_map(w->map, r);
    rt_store_release(&w->st->locs[r]);
    gt_release(&w->st->gtime, r);
}

/* A location is being written: its events come back from disk, the
 * chunk that holds event i in place of the one before. */
static int load_location(void *ctx, uint32_t r, uint64_t i, char *err, size_t errlen)
{
    struct write_ctx *w = ctx;
    struct merge_state *st = w->st;
    wait_for_map(w->map, r);
    if (st->spill && rt_spill_in_at(st->spill, &st->locs[r], i) != 0) {
        snprintf(err, errlen, "%s", rt_spill_error(st->spill));
        return -1;
    }
    return 0;
}

/* The foreign path's output (merge.h, MERGE_TIMES_FILE): the times the
 * archive would have, without the archive, whose writing and reading back
 * were two fifths of that path. With `mine` (the parallel merge), only
 * those locations, and no magic: a part that process 0 puts after it. */
static int write_times_to(struct merge_state *st, const char *path, const uint8_t *mine)
{
    FILE *f = fopen(path, "wb");
    int ok = f && (mine || fwrite(MERGE_TIMES_MAGIC, 8, 1, f) == 1);
    uint64_t buf[4096];
    for (uint32_t r = 0; ok && r < st->nlocs; r++) {
        if (mine && !mine[r])
            continue;
        const struct rt_location *rk = &st->locs[r];
        uint64_t head[2] = { ow_location_id(rk), rk->nevents };
        ok = fwrite(head, sizeof head, 1, f) == 1;
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, rk);
        for (uint64_t i = 0; ok && i < rk->nevents; i += 4096) {
            size_t n = rk->nevents - i < 4096 ? (size_t)(rk->nevents - i) : 4096;
            for (size_t k = 0; k < n; k++)
                buf[k] = gt_read(&st->gtime, r, &tr, i + k);
            ok = fwrite(buf, sizeof *buf, n, f) == n;
        }
        rt_time_reader_free(&tr);
    }
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "synctrace merge: %s: cannot write: %s\n", path, strerror(errno));
    else if (gt_given_error(&st->gtime) || gt_repaired_error(&st->gtime)) {
        fprintf(stderr, "synctrace merge: %s\n", gt_given_error(&st->gtime) ? gt_given_error(&st->gtime)
                                                                             : gt_repaired_error(&st->gtime));
        ok = 0;
    }
    return ok ? 0 : -1;
}

static int write_times(struct merge_state *st)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/" MERGE_TIMES_FILE, st->tmp);
    return write_times_to(st, path, NULL);
}

#define TIMES_PART ".times-part-"

int merge_write_times_part(struct merge_state *st, const char *dir, const uint8_t *mine)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/" TIMES_PART "%u", dir, st->place);
    return write_times_to(st, path, mine);
}

int merge_assemble_times(struct merge_state *st, int all_ok)
{
    char path[4400], part[4400];
    snprintf(path, sizeof path, "%s/" MERGE_TIMES_FILE, st->tmp);
    FILE *f = all_ok ? fopen(path, "wb") : NULL;
    int ok = f && fwrite(MERGE_TIMES_MAGIC, 8, 1, f) == 1;
    if (all_ok && !ok)
        fprintf(stderr, "synctrace merge: %s: cannot write: %s\n", path, strerror(errno));
    char buf[1 << 16];
    for (uint32_t p = 0; p < st->processes; p++) {
        snprintf(part, sizeof part, "%s/" TIMES_PART "%u", st->tmp, p);
        FILE *in = ok ? fopen(part, "rb") : NULL;
        size_t n;
        if (ok && !in) {
            fprintf(stderr, "synctrace merge: %s: %s\n", part, strerror(errno));
            ok = 0;
        }
        while (in && ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
            if (fwrite(buf, 1, n, f) != n) {
                fprintf(stderr, "synctrace merge: %s: cannot write: %s\n", path, strerror(errno));
                ok = 0;
            }
        if (in && ferror(in) && ok) {
            fprintf(stderr, "synctrace merge: %s: read failed\n", part);
            ok = 0;
        }
        if (in)
            fclose(in);
        unlink(part);
    }
    if (f && fclose(f) != 0 && ok) {
        fprintf(stderr, "synctrace merge: %s: write failed\n", path);
        ok = 0;
    }
    return ok ? 0 : -1;
}

int merge_write(struct merge_state *st)
{
    if (st->opt.times_only)
        return write_times(st);
    return merge_write_part(st, st->tmp, NULL);
}

#define RV_PART ".rawview-part-"

/* The map is not written: the merge goes on, and says so once; not when
 * a read of what was set aside failed (the map then saw times it gave as
 * 0), which the merge fails on, saying that (set_aside_unread). */
static void no_raw_view(const struct merge_state *st, const char *why)
{
    if (!set_aside_error(st))
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", why);
}

/* The parallel merge's raw-view map: every process writes the sections
 * of its own locations to a part in dir, which process 0 puts together
 * once all are written (rv_assemble). Returns whether this process's
 * part was written; *worst its largest deviation. */
static int write_rv_part(struct merge_state *st, const char *dir, const struct ow_parallel *par,
                         const struct rv_progress *progress, double *worst, char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/" RV_PART "%u", dir, st->place);
    FILE *part = fopen(path, "w");
    int ok = part && rv_write_sections(part, dir, st->locs, st->nlocs, &st->gtime, st->rv_origin, par->mine,
                                       progress, worst, err, errlen) == 0;
    if (!part)
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    if (part && fclose(part) != 0 && ok) {
        snprintf(err, errlen, "%s: write failed", path);
        ok = 0;
    }
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
        no_raw_view(st, err);
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

/* The events' raw (interpolated ClockOffsets) times, for the HTML view:
 * this process's map or part of it. Whether it was written; if not, why
 * in err (said by the caller, on the merge's own thread). */
static int write_map(struct merge_state *st, const char *dir, const struct ow_parallel *par,
                     const struct rv_progress *progress, double *worst, char *err, size_t errlen)
{
    if (par)
        return write_rv_part(st, dir, par, progress, worst, err, errlen);
    return rv_write(dir, st->locs, st->nlocs, &st->gtime, NULL, progress, err, errlen) == 0;
}

static void *map_thread(void *arg)
{
    struct map_beside *m = arg;
    const struct rv_progress progress = { map_past, m };
    m->ok = write_map(m->st, m->dir, m->par, &progress, &m->worst, m->why, sizeof m->why);
    map_past(m, UINT32_MAX);   /* whatever happened: the writer waits no more */
    return NULL;
}

int merge_write_part(struct merge_state *st, const char *dir, const struct ow_parallel *par)
{
    char err[4400];
    double worst = 0;
    int rv_ok = 1;
    struct map_beside map;
    memset(&map, 0, sizeof map);
    map.st = st;
    map.dir = dir;
    map.par = par;
    struct write_ctx ctx = { st, NULL };
    if (st->opt.jobs >= 2 && !st->gtime.repaired && !st->gtime.given) {
        pthread_mutex_init(&map.lock, NULL);
        pthread_cond_init(&map.moved, NULL);
        map.running = pthread_create(&map.thread, NULL, map_thread, &map) == 0;
        if (map.running)
            ctx.map = &map;
        else {
            pthread_mutex_destroy(&map.lock);
            pthread_cond_destroy(&map.moved);
        }
    }
    char why[4500] = "";
    if (!map.running)   /* first, as the archive's writer lets the events go */
        rv_ok = write_map(st, dir, par, NULL, &worst, why, sizeof why);
    struct ow_hooks hooks = { load_location, release_location, &ctx, par };
    int rc = ow_write(dir, "traces", st->locs, st->nlocs, &st->match, &st->gtime, st->truth, &hooks, err, sizeof err);
    if (map.running) {
        pthread_join(map.thread, NULL);
        rv_ok = map.ok;
        worst = map.worst;
        snprintf(why, sizeof why, "%s", map.why);
    }
    if (!rv_ok)
        no_raw_view(st, why);
    if (ctx.map) {
        pthread_mutex_destroy(&map.lock);
        pthread_cond_destroy(&map.moved);
    }
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
