/* rawview_simplify.c — see rawview.h: the greedy piecewise-linear
 * simplification that finds a rank's breakpoints (rawview_write.c, from
 * the events) and thins them for a page (export_html.c, from the map). */
#include "rawview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(struct rv_points *o, struct rv_point p)
{
    if (o->failed)
        return;
    if (o->limit && o->n == o->limit) {
        o->failed = RV_OVER;
        return;
    }
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
static void simplify_run(const struct rv_series *sr, uint64_t first, uint64_t n, double tol, struct rv_points *out)
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
    for (i++; i < n && !out->failed; i++) {
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
void rv_simplify_series(const struct rv_series *sr, uint64_t n, double tol, struct rv_points *out)
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
    const struct rv_series sr = { array_at, &a };
    struct rv_points p = { 0 };
    rv_simplify_series(&sr, n, tol, &p);
    if (p.failed) {
        free(p.v);
        return 0;
    }
    if (p.n)
        memcpy(out, p.v, sizeof *out * p.n);
    free(p.v);
    return p.n;
}
int rv_simplify_within(const struct rv_series *sr, uint64_t n, uint32_t limit, double tol, struct rv_points *out,
                       double *tol_used)
{
    /* at a tolerance wider than the points' spread no line ends for the
     * cone and a run splits nowhere: 2 points; the doublings reach it */
    for (int tries = 0; tries < 2100; tries++, tol *= 2) {
        out->n = 0;
        out->failed = 0;
        out->limit = limit < 2 ? 2 : limit;
        rv_simplify_series(sr, n, tol, out);
        if (out->failed != RV_OVER) {
            *tol_used = tol;
            return out->failed ? -1 : 0;
        }
    }
    return -1;
}
