/* gtime.c — see gtime.h. */
#include <config.h>
#include "gtime.h"

#include "blockcache.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t gt_of_cb(const void *ctx, const struct mg_event_ref *e)
{
    return gt_of(ctx, e);
}

int gt_fill_times(void *ctx, uint32_t r, uint64_t first, double *t, size_t n, char *err, size_t errlen)
{
    struct gt_fill *f = ctx;
    (void)err;
    (void)errlen;
    if (!f->open || f->r != r) {
        gt_fill_end(f);
        rt_time_reader_init(&f->tr, &f->locs[r]);
        f->r = r;
        f->open = 1;
    }
    for (size_t k = 0; k < n; k++)
        t[k] = f->g ? (double)gt_read(f->g, r, &f->tr, first + k)
                    : cm_interpolated(&f->locs[r], rt_time_read(&f->tr, first + k));
    return 0;
}

void gt_fill_end(struct gt_fill *f)
{
    if (f->open)
        rt_time_reader_free(&f->tr);
    f->open = 0;
}

/* Location r's times into gt (NULL: only look), clamped never to go back
 * (rounding only: the corrected time is monotonic in the raw one, the raw
 * ones are not always in order). Returns whether the clamp changed any. */
static int fill(const struct gtime_map *g, uint32_t r, uint64_t *gt)
{
    const struct rt_location *rk = &g->locs[r];
    struct rt_time_reader tr;
    rt_time_reader_init(&tr, rk);
    uint64_t prev = 0;
    int clamped = 0;
    for (uint64_t i = 0; i < rk->nevents; i++) {
        uint64_t v = gt_compute(g, r, rt_time_read(&tr, i));
        if (v < prev) {
            v = prev;
            clamped = 1;
        }
        if (gt)
            gt[i] = v;
        prev = v;
    }
    rt_time_reader_free(&tr);
    return clamped;
}

/* Store location r's times: 0, or -1 when out of memory. */
static int store(struct gtime_map *g, uint32_t r)
{
    uint64_t n = g->locs[r].nevents;
    if (!(g->stored[r] = malloc(sizeof *g->stored[r] * (n ? n : 1))))
        return -1;
    fill(g, r, g->stored[r]);
    return 0;
}

static int build(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const struct cm_model *model,
                 const double *x, double gmin, const uint8_t *keep, const uint8_t *mine)
{
    memset(g, 0, sizeof *g);
    g->locs = locs;
    g->model = model;
    g->x = x;
    g->n = n;
    g->gmin = gmin;
    for (uint32_t r = 0; isnan(gmin) && r < n; r++)
        if (locs[r].nevents) {
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, &locs[r]);
            uint64_t t = rt_time_read(&tr, 0);
            rt_time_reader_free(&tr);
            g->gmin = fmin(isnan(g->gmin) ? INFINITY : g->gmin, cm_corrected(model, r, t) + x[cm_vertex(model, r, t)]);
        }
    if (isnan(g->gmin))
        g->gmin = INFINITY;   /* no events at all */
    if (!(g->stored = calloc(n ? n : 1, sizeof *g->stored)))
        return -1;
    /* the others are computed on each read: the same values, unless the clamp changed one */
    for (uint32_t r = 0; r < n; r++)
        if ((!mine || mine[r]) && ((keep && keep[r]) || fill(g, r, NULL)) && store(g, r) != 0)
            return -1;
    return 0;
}

int gt_build(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const struct cm_model *model,
             const double *x, const uint8_t *keep)
{
    return build(g, locs, n, model, x, NAN, keep, NULL);
}

int gt_build_part(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const struct cm_model *model,
                  const double *x, double gmin, const uint8_t *keep, const uint8_t *mine)
{
    return build(g, locs, n, model, x, gmin, keep, mine);
}

/* ---------- a worker's repaired times, from process 0's file ---------- */

#define GIVEN_BLOCK 8192      /* values read at a time */

struct gt_given {
    int fd;
    uint64_t *at;             /* per location: where its values begin in the file (in values) */
    uint64_t total;           /* values in the file */
    struct st_blockcache cache;   /* one block: the write reads each location in order */
    char err[600];            /* the first failed read */
};

int gt_build_given(struct gtime_map *g, const struct rt_location *locs, uint32_t n, const char *path,
                   const uint8_t *mine, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->locs = locs;
    g->n = n;
    struct gt_given *gv = calloc(1, sizeof *gv);
    if (!gv || !(gv->at = malloc(sizeof *gv->at * (n ? n : 1)))) {
        free(gv);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < n; r++) {
        gv->at[r] = gv->total;
        if (mine[r])
            gv->total += locs[r].nevents;
    }
    if ((gv->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(gv->at);
        free(gv);
        return -1;
    }
    g->given = gv;
    if (st_blockcache_init(&gv->cache, gv->fd, sizeof(uint64_t) * GIVEN_BLOCK, 1) != 0) {
        snprintf(err, errlen, "out of memory");
        gt_free(g);
        return -1;
    }
    return 0;
}

uint64_t gt_given_get(struct gt_given *g, uint32_t r, uint64_t i)
{
    uint64_t k = g->at[r] + i, blk = k / GIVEN_BLOCK, first = blk * GIVEN_BLOCK;
    uint64_t m = g->total - first < GIVEN_BLOCK ? g->total - first : GIVEN_BLOCK;
    const uint64_t *v = st_blockcache_get(&g->cache, 0, blk, first * sizeof *v, sizeof *v * m);
    if (!v) {
        if (!g->err[0])
            snprintf(g->err, sizeof g->err, "repaired times of location %u: %s", r, st_blockcache_why(&g->cache));
        return 0;   /* the failure sticks: the write fails (gt_given_error) */
    }
    return v[k % GIVEN_BLOCK];
}

const char *gt_given_error(const struct gtime_map *g)
{
    return g->given && g->given->err[0] ? g->given->err : NULL;
}

const char *gt_repaired_error(const struct gtime_map *g)
{
    return g->repaired ? clc_times_error(g->repaired) : NULL;
}

int gt_store_all(struct gtime_map *g)
{
    for (uint32_t r = 0; r < g->n; r++)
        if (!g->stored[r] && store(g, r) != 0)
            return -1;
    return 0;
}

void gt_set_repaired(struct gtime_map *g, struct clc_times *ct)
{
    for (uint32_t r = 0; r < g->n; r++)
        gt_release(g, r);
    clc_times_free(g->repaired);
    g->repaired = ct;
}

void gt_release(struct gtime_map *g, uint32_t r)
{
    if (g->stored && g->stored[r]) {
        free(g->stored[r]);
        g->stored[r] = NULL;
    }
}

void gt_free(struct gtime_map *g)
{
    if (g->given) {
        close(g->given->fd);
        st_blockcache_free(&g->given->cache);
        free(g->given->at);
        free(g->given);
    }
    for (uint32_t r = 0; g->stored && r < g->n; r++)
        free(g->stored[r]);
    free(g->stored);
    clc_times_free(g->repaired);
    memset(g, 0, sizeof *g);
}
