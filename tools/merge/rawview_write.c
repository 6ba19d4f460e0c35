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

/* The points, read through `at` (point i of the series is (*x, *y)), so
 * that a rank of many events needs no array of them; breakpoints go to a
 * growing array, or to a file (f: a rank whose events were repaired may
 * have one nearly every event), failed: out of memory or a write failed. */
struct series {
    void (*at)(const void *ctx, uint64_t i, double *x, double *y);
    const void *ctx;
};

struct points {
    struct rv_point *v;
    uint32_t n, cap;
    FILE *f;
    struct rv_point last;
    int failed;
};

static void put(struct points *o, struct rv_point p)
{
    if (o->failed)
        return;
    o->last = p;
    if (o->f) {
        if (o->n == UINT32_MAX || fwrite(&p, sizeof p, 1, o->f) != 1)
            o->failed = 1;
        else
            o->n++;
        return;
    }
    if (o->n == o->cap) {
        uint32_t cap = o->cap ? o->cap * 2 : 16;
        struct rv_point *nv = cap > o->cap ? realloc(o->v, sizeof *nv * cap) : NULL;
        if (!nv) {
            o->failed = 1;
            return;
        }
        o->v = nv;
        o->cap = cap;
    }
    o->v[o->n++] = p;
}

/* One run of points [first, first + n) without steps: the cone of slopes
 * through the anchor that pass within tol of every point so far; when it
 * empties at point i, the segment ends at the last point left of x[i] (on
 * the line of the cone nearest that point), which becomes the anchor, and
 * the points from there to i are taken again. Events at the same global
 * time share one x: a segment never ends between them. */
static void simplify_run(const struct series *sr, uint64_t first, uint64_t n, double tol, struct points *out)
{
#define X(k) (sr->at(sr->ctx, first + (k), &px, &py), px)
#define Y(k) (sr->at(sr->ctx, first + (k), &px, &py), py)
    double px, py;
    /* the first anchor: the middle of the events at the first time */
    uint64_t i = 0;
    double x0 = X(0), lo_y = Y(0), hi_y = lo_y;
    while (i + 1 < n && X(i + 1) <= x0) {
        i++;
        lo_y = fmin(lo_y, Y(i));
        hi_y = fmax(hi_y, Y(i));
    }
    double ax = x0, ay = (lo_y + hi_y) / 2;
    put(out, (struct rv_point){ first, ax, ay });
    double lo = -INFINITY, hi = INFINITY;
    uint64_t last = i;   /* the last point inside the current segment */
    for (i++; i < n; i++) {
        double xi, yi;
        sr->at(sr->ctx, first + i, &xi, &yi);
        double dx = xi - ax;
        if (dx <= 0) {   /* at the anchor's own time: within tol of it */
            last = i;
            continue;
        }
        double l = (yi - tol - ay) / dx, h = (yi + tol - ay) / dx;
        double nlo = fmax(lo, l), nhi = fmin(hi, h);
        if (nlo <= nhi) {
            lo = nlo;
            hi = nhi;
            last = i;
            continue;
        }
        /* close the segment at the last point left of x[i] */
        uint64_t j = i;
        while (j > 0 && X(j - 1) >= xi)
            j--;
        if (j == 0 || X(j - 1) <= ax) {
            /* the events at x[i] alone spread wider than 2 tol: no line
             * fits them; keep going (rv_write checks every event) */
            lo = nlo < nhi ? nlo : fmin(nlo, nhi);
            hi = lo;
            last = i;
            continue;
        }
        /* of the slopes that fit, the one closest to the point itself:
         * the next segment then starts where the events are */
        double ex, ey;
        sr->at(sr->ctx, first + j - 1, &ex, &ey);
        double s = (ey - ay) / (ex - ax);
        s = fmin(fmax(s, lo), hi);
        ay += s * (ex - ax);
        ax = ex;
        put(out, (struct rv_point){ first + j - 1, ax, ay });
        lo = -INFINITY;
        hi = INFINITY;
        last = j - 1;
        i = j - 1;   /* take the points after the new anchor again */
    }
    /* the run's last event closes it (its index bounds the run's last piece) */
    double s = isfinite(lo) && isfinite(hi) ? (lo + hi) / 2 : 1;
    double xl = X(last);
    if (!out->failed && (xl > ax || first + n - 1 > out->last.index))
        put(out, (struct rv_point){ first + n - 1, xl, ay + s * (xl - ax) });
#undef X
#undef Y
}

/* Runs end where two events at one global time are further apart in raw
 * time than a line through them could cover. */
static void simplify(const struct series *sr, uint64_t n, double tol, struct points *out)
{
    for (uint64_t start = 0; start < n && !out->failed;) {
        uint64_t end = start + 1;
        double xp, yp, xe, ye;
        sr->at(sr->ctx, start, &xp, &yp);
        for (; end < n; end++, xp = xe, yp = ye) {
            sr->at(sr->ctx, end, &xe, &ye);
            if (xe <= xp && fabs(ye - yp) > 2 * tol)
                break;
        }
        simplify_run(sr, start, end - start, tol, out);
        start = end;
    }
}

struct arrays {
    const double *x, *y;
};

static void array_at(const void *ctx, uint64_t i, double *x, double *y)
{
    const struct arrays *a = ctx;
    *x = a->x[i];
    *y = a->y[i];
}

uint32_t rv_simplify(const double *x, const double *y, uint64_t n, double tol, struct rv_point *out)
{
    const struct arrays a = { x, y };
    const struct series sr = { array_at, &a };
    struct points p = { 0 };
    simplify(&sr, n, tol, &p);
    if (p.failed) {
        free(p.v);
        return 0;
    }
    if (p.n)
        memcpy(out, p.v, sizeof *out * p.n);
    free(p.v);
    return p.n;
}

/* A rank's events as points: global time, raw (interpolated ClockOffsets)
 * time from the run's earliest, each computed when asked. */
struct rank_points {
    const struct rt_rank *rk;
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

int rv_write(const char *dir, const struct rt_rank *ranks, uint32_t n, const struct gtime_map *gtime,
             double *max_err_ns, char *err, size_t errlen)
{
    char path[4300], tmp[4400];
    snprintf(path, sizeof path, "%s/rawview.map", dir);
    snprintf(tmp, sizeof tmp, "%s/.rawview.map.tmp", dir);
    /* written as it is found, checked, then put in place: a rank's
     * breakpoints wait in a nameless file, not in memory */
    int fd = st_nameless_file(dir, "rawview");
    FILE *pts = fd >= 0 ? fdopen(fd, "w+b") : NULL;
    FILE *f = fopen(tmp, "w");
    int rc = -1;
    if (!pts || !f) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (!pts && fd >= 0)
            close(fd);
        goto done;
    }
    /* the earliest raw event of the run is 0, as in global time */
    double origin = INFINITY;
    for (uint32_t r = 0; r < n; r++)
        if (ranks[r].nevents) {
            struct rt_time_reader tr;
            rt_time_reader_init(&tr, &ranks[r]);
            origin = fmin(origin, cm_interpolated(&ranks[r], rt_time_read(&tr, 0)));
            rt_time_reader_free(&tr);
        }
    double worst = 0;
    fprintf(f, "synctrace-rawview 2\nranks %u\n", n);
    for (uint32_t r = 0; r < n; r++) {
        const struct rt_rank *rk = &ranks[r];
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, rk);
        const struct rank_points rp = { rk, gtime, r, origin, &tr };
        const struct series sr = { rank_at, &rp };
        /* a little below the bound: the file rounds to 1/1000 ns; the global
         * times themselves are rounded to whole ns, so ±0.5 ns is noise */
        struct points p = { 0 };
        p.f = pts;
        rewind(pts);
        simplify(&sr, rk->nevents, RV_TOLERANCE_NS * 0.9, &p);
        int bad = p.failed || copy_and_check(pts, p.n, f, r, &rp, &worst) != 0;
        rt_time_reader_free(&tr);
        if (bad) {
            snprintf(err, errlen, "%s: its breakpoints could not be set aside in %s: %s", path, dir,
                     errno ? strerror(errno) : "write failed");
            goto done;
        }
    }
    if (max_err_ns)
        *max_err_ns = worst;
    if (!(worst <= RV_TOLERANCE_NS)) {
        snprintf(err, errlen, "%s: the raw times do not follow a piecewise-linear map within %.1f ns (%.3f ns off)",
                 path, RV_TOLERANCE_NS, worst);
        goto done;
    }
    int bad = ferror(f);
    FILE *closing = f;
    f = NULL;
    if (fclose(closing) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        goto done;
    }
    rc = 0;
done:
    if (f)
        fclose(f);
    if (rc != 0)
        unlink(tmp);
    if (pts)
        fclose(pts);
    return rc;
}
