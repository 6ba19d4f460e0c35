/* rawview_write.c — see rawview.h: the map found from the merge's global
 * times (gtime.h) and written; reading it back is rawview.c's, which the
 * exports link without the merge. */
#include "rawview.h"
#include "clockmodel.h"
#include "fsutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A rank's events as points: global time, raw (interpolated ClockOffsets)
 * time from the run's earliest, each computed when asked. */
struct rank_points {
    const struct rt_location *rk;
    const struct gtime_map *gtime;
    uint32_t r;
    double origin;
    struct rt_time_reader *tr;   /* the rank's times, read nearly in order */
};

static void rank_at(const void *ctx, uint64_t i, double *x, double *y)
{
    const struct rank_points *p = ctx;
    *x = (double)gt_read(p->gtime, p->r, p->tr, i);
    *y = cm_interpolated(p->rk, rt_time_read(p->tr, i)) - p->origin;
}

/* The breakpoints of one rank, as put in file pts (count n), written to
 * out after "rank R COUNT" while every event is checked against them the
 * way rv_raw reads them: the last breakpoint at or before the event and
 * the next, or the last two beyond the end. The largest deviation into
 * *worst. 0, or -1 when a read fails. */
static int copy_and_check(FILE *pts, uint32_t n, FILE *out, uint32_t r, const struct rank_points *rp,
                          double *worst)
{
    fprintf(out, "rank %u %u\n", r, n);
    if (fflush(pts) != 0 || fseek(pts, 0, SEEK_SET) != 0)
        return -1;
    struct rv_point w[3];     /* w[0] before w[1] (when held), w[1] the last at or before the event, w[2] next */
    int have0 = 0, have2 = 0;
    uint32_t read = 0;
#define NEXT_POINT(dst) (read < n && fread(&(dst), sizeof(dst), 1, pts) == 1 \
                         && (fprintf(out, "%llu %.3f %.3f\n", (unsigned long long)(dst).index, (dst).g, (dst).raw), \
                             ++read))
    if (n == 0 || !NEXT_POINT(w[1]))
        return n == 0 ? 0 : -1;
    have2 = NEXT_POINT(w[2]) != 0;
    for (uint64_t i = 0; i < rp->rk->nevents; i++) {
        while (have2 && w[2].index <= i) {
            w[0] = w[1];
            w[1] = w[2];
            have0 = 1;
            have2 = NEXT_POINT(w[2]) != 0;
        }
        const struct rv_rank win = have2 ? (struct rv_rank){ &w[1], 2 }
                                         : (struct rv_rank){ have0 ? &w[0] : &w[1], have0 ? 2 : 1 };
        double x, y;
        rank_at(rp, i, &x, &y);
        *worst = fmax(*worst, fabs(rv_raw(&win, i, x) - y));
    }
    while (have2 && NEXT_POINT(w[2]))   /* none: the last point is on the last event */
        ;
#undef NEXT_POINT
    return read == n && !ferror(pts) ? 0 : -1;
}

double rv_origin(const struct rt_location *ranks, uint32_t n)
{
    /* the earliest raw event of the run is 0, as in global time */
    double origin = INFINITY;
    for (uint32_t r = 0; r < n; r++)
        if (ranks[r].nevents) {
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, &ranks[r]);
            origin = fmin(origin, cm_interpolated(&ranks[r], rt_time_read(&tr, 0)));
            rt_time_reader_free(&tr);
        }
    return origin;
}

int rv_write_sections(FILE *out, const char *dir, const struct rt_location *ranks, uint32_t n,
                      const struct gtime_map *gtime, double origin, const uint8_t *mine,
                      const struct rv_progress *progress, double *worst, char *err, size_t errlen)
{
    /* a rank's breakpoints wait in a nameless file, not in memory */
    int fd = st_nameless_file(dir, "rawview");
    FILE *pts = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    if (!pts) {
        snprintf(err, errlen, "%s/rawview.map: cannot write: %s", dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = 0;
    for (uint32_t r = 0; r < n && rc == 0; r++) {
        if (progress && r > 0)
            progress->past(progress->arg, r);
        if (mine && !mine[r])
            continue;
        const struct rt_location *rk = &ranks[r];
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, rk);
        const struct rank_points rp = { rk, gtime, r, origin, &tr };
        const struct rv_series sr = { rank_at, &rp };
        /* a little below the bound: the file rounds to 1/1000 ns; the global
         * times themselves are rounded to whole ns, so ±0.5 ns is noise */
        struct rv_points p = { 0 };
        p.f = pts;
        rewind(pts);
        rv_simplify_series(&sr, rk->nevents, RV_TOLERANCE_NS * 0.9, &p);
        if (p.failed || copy_and_check(pts, p.n, out, r, &rp, worst) != 0) {
            snprintf(err, errlen, "%s/rawview.map: its breakpoints could not be set aside in %s: %s", dir, dir,
                     errno ? strerror(errno) : "write failed");
            rc = -1;
        }
        rt_time_reader_free(&tr);
    }
    fclose(pts);
    return rc;
}

/* Put tmp in place as DIR/rawview.map, worst within the tolerance: 0, or
 * -1 with a message (tmp removed). */
static int put_in_place(FILE *f, const char *tmp, const char *path, double worst, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: write failed", path);
    } else if (!(worst <= RV_TOLERANCE_NS)) {
        snprintf(err, errlen, "%s: the raw times do not follow a piecewise-linear map within %.1f ns (%.3f ns off)",
                 path, RV_TOLERANCE_NS, worst);
    } else if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
    } else {
        return 0;
    }
    unlink(tmp);
    return -1;
}

/* DIR/rawview.map's temporary (names into path and tmp), its header
 * written: the file, or NULL with a message. */
static FILE *begin_map(const char *dir, uint32_t n, char *path, size_t pathlen, char *tmp, size_t tmplen, char *err,
                       size_t errlen)
{
    snprintf(path, pathlen, "%s/rawview.map", dir);
    snprintf(tmp, tmplen, "%s/.rawview.map.tmp", dir);
    FILE *f = fopen(tmp, "w");
    if (!f)
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    else
        fprintf(f, "synctrace-rawview 2\nranks %u\n", n);
    return f;
}

int rv_write(const char *dir, const struct rt_location *ranks, uint32_t n, const struct gtime_map *gtime,
             double *max_err_ns, const struct rv_progress *progress, char *err, size_t errlen)
{
    char path[4300], tmp[4400];
    FILE *f = begin_map(dir, n, path, sizeof path, tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    double worst = 0;
    if (rv_write_sections(f, dir, ranks, n, gtime, rv_origin(ranks, n), NULL, progress, &worst, err, errlen) != 0) {
        fclose(f);
        unlink(tmp);
        return -1;
    }
    if (max_err_ns)
        *max_err_ns = worst;
    return put_in_place(f, tmp, path, worst, err, errlen);
}

int rv_assemble(const char *dir, uint32_t n, const uint32_t *owner, FILE *const *parts, double worst, char *err,
                size_t errlen)
{
    char path[4300], tmp[4400], line[256];
    FILE *f = begin_map(dir, n, path, sizeof path, tmp, sizeof tmp, err, errlen);
    if (!f)
        return -1;
    for (uint32_t r = 0; r < n; r++) {
        /* location r's section: next in its owner's part */
        FILE *in = parts[owner[r]];
        unsigned rank, count;
        const char *why = NULL;
        if (!fgets(line, sizeof line, in) || sscanf(line, "rank %u %u", &rank, &count) != 2 || rank != r)
            why = "missing from";
        for (unsigned k = 0; !why && k <= count; k++) {
            fputs(line, f);
            if (k < count && !fgets(line, sizeof line, in))
                why = "cut short in";
        }
        if (why) {
            snprintf(err, errlen, "%s: the section of location %u is %s its process's part", path, r, why);
            fclose(f);
            unlink(tmp);
            return -1;
        }
    }
    return put_in_place(f, tmp, path, worst, err, errlen);
}
