/* rawview.c — see rawview.h: the map read back (the exports); writing
 * it is rawview_write.c's. */
#include "rawview.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double rv_raw(const struct rv_rank *r, uint64_t index, double g)
{
    if (r->n == 0)
        return g;
    if (r->n == 1)
        return r->v[0].raw + (g - r->v[0].g);
    /* k: the last breakpoint at or before the event */
    uint32_t lo = 0, hi = r->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->v[mid].index <= index)
            lo = mid;
        else
            hi = mid;
    }
    const struct rv_point *a, *b;
    if (lo + 1 == r->n) {   /* at or beyond the last breakpoint: its piece, extrapolated */
        a = &r->v[lo - 1];
        b = &r->v[lo];
        if (b->g > a->g)
            return b->raw + (b->raw - a->raw) * (g - b->g) / (b->g - a->g);
        return b->raw + (g - b->g);
    }
    a = &r->v[lo];
    b = &r->v[lo + 1];
    if (b->g > a->g)
        return a->raw + (b->raw - a->raw) * (g - a->g) / (b->g - a->g);
    return a->raw + (g - a->g);   /* a step: the event is on a's side */
}

void rv_free(struct rv_map *m)
{
    for (uint32_t r = 0; m->ranks && r < m->nranks; r++)
        free(m->ranks[r].v);
    free(m->ranks);
    m->ranks = NULL;
    m->nranks = 0;
}

int rv_read(const char *path, struct rv_map *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[256];
    unsigned long lineno = 0;
    int version = 0;
    unsigned nranks = 0;
#define NEXT() (lineno++, fgets(line, sizeof line, f) != NULL)
    if (!NEXT() || sscanf(line, "synctrace-rawview %d", &version) != 1) {
        snprintf(err, errlen, "%s: not a synctrace raw-view map (no 'synctrace-rawview' header)", path);
        goto bad;
    }
    if (version != 2) {
        snprintf(err, errlen, "%s: raw-view map version %d, this synctrace reads version 2", path, version);
        goto bad;
    }
    if (!NEXT() || sscanf(line, "ranks %u", &nranks) != 1 || nranks > (1u << 24)) {
        snprintf(err, errlen, "%s:%lu: expected 'ranks N'", path, lineno);
        goto bad;
    }
    if (!(m->ranks = calloc(nranks ? nranks : 1, sizeof *m->ranks))) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto bad;
    }
    m->nranks = nranks;
    for (unsigned r = 0; r < nranks; r++) {
        unsigned rr, cnt;
        if (!NEXT() || sscanf(line, "rank %u %u", &rr, &cnt) != 2 || rr != r || cnt > (1u << 28)) {
            snprintf(err, errlen, "%s:%lu: expected 'rank %u COUNT'", path, lineno, r);
            goto bad;
        }
        if (!(m->ranks[r].v = malloc(sizeof *m->ranks[r].v * (cnt ? cnt : 1)))) {
            snprintf(err, errlen, "%s: out of memory", path);
            goto bad;
        }
        for (unsigned k = 0; k < cnt; k++) {
            struct rv_point *p = &m->ranks[r].v[k];
            char extra;
            unsigned long long idx;
            if (!NEXT() || sscanf(line, "%llu %lf %lf %c", &idx, &p->g, &p->raw, &extra) != 3 || !isfinite(p->g)
                || !isfinite(p->raw)
                || (k && (p->g < m->ranks[r].v[k - 1].g || idx < m->ranks[r].v[k - 1].index))) {
                snprintf(err, errlen, "%s:%lu: expected 'event_index global_ns raw_ns', both rising", path, lineno);
                goto bad;
            }
            p->index = idx;
            m->ranks[r].n = k + 1;
        }
    }
#undef NEXT
    fclose(f);
    return 0;
bad:
    fclose(f);
    rv_free(m);
    return -1;
}
