/* export_waits.c — see export_waits.h. */
#include "export_waits.h"
#include "location_order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_rank_start(const void *pa, const void *pb)
{
    const struct wt_instance *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->w < b->w) - (a->w > b->w);   /* the longer first: nested ones after */
}

void export_waits_load(const char *outdir, const uint64_t *locations, uint32_t nlocations, struct export_waits *w)
{
    memset(w, 0, sizeof *w);
    uint32_t nranks = 0;   /* as synctrace waits counts them */
    for (uint32_t i = 0; i < nlocations; i++)
        if (loc_id_rank(locations[i]) + 1 > nranks)
            nranks = loc_id_rank(locations[i]) + 1;
    char why[4400] = "";
    struct wt_instance *v;
    size_t n;
    int rc = wt_instances_read(outdir, nranks, &v, &n, why, sizeof why);
    if (rc == 1) {
        snprintf(w->note, sizeof w->note, "no %s (synctrace waits %s --json makes it)", WT_INSTANCES_FILE, outdir);
        return;
    }
    if (rc != 0) {   /* the view without waits rather than no view */
        fprintf(stderr, "synctrace export: warning: %s; no waits shown\n", why);
        snprintf(w->note, sizeof w->note, "%s", why);
        return;
    }
    /* zero-length ones (a wait only some clock allows) have nothing to mark */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].w > 0 && isfinite(v[i].from))
            v[k++] = v[i];
    qsort(v, k, sizeof *v, by_rank_start);
    w->v = v;
    w->n = k;
    w->counted = n;
}

void export_waits_free(struct export_waits *w)
{
    free(w->v);
    memset(w, 0, sizeof *w);
}
