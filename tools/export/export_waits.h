/* export_waits.h — the wait instances the exports mark: those of
 * OUT/waits-instances.bin (synctrace waits --json) that took time on the
 * merged timeline (w > 0), in order of rank, then start. Without the file,
 * or with one that is stale or damaged (a warning on stderr), there are
 * none and the views are as without waits. */
#ifndef SYNCTRACE_EXPORT_WAITS_H
#define SYNCTRACE_EXPORT_WAITS_H

#include "waits_instances.h"

struct export_waits {
    struct wt_instance *v;
    size_t n;
    uint64_t counted;         /* instances in the file, with or without time */
    char note[4600];          /* why there are none: said in the page */
};

/* locations: the archive's location ids (location_order.h). Never fails: a file that cannot be read
 * (memory included) is a warning and no waits. */
void export_waits_load(const char *outdir, const uint64_t *locations, uint32_t nlocations, struct export_waits *w);
void export_waits_free(struct export_waits *w);

#endif
