/* otf2out.h — write the merged archive: one OTF2 trace with every rank's
 * location, unified definitions, and global timestamps in nanoseconds. */
#ifndef SYNCTRACE_OTF2OUT_H
#define SYNCTRACE_OTF2OUT_H

#include <stddef.h>
#include <stdint.h>
#include "gtime.h"
#include "match.h"
#include "rawtrace.h"
#include "truthstore.h"

/* gtime (gtime.h): the global ns of event i of location r (non-decreasing).
 * truth (truthstore.h; may be NULL): the true_time attribute in ns of the
 * events of every location whose first event has one. */
/* The id of a location (a rank's thread) in the merged archive. */
uint64_t ow_location_id(const struct rt_location *r);

/* The caller's part in writing, each NULL when not wanted:
 * load(ctx, r, i) is called when location r's event i is not held (the
 * merge keeps them on disk until then, in chunks: eventspill.h); it makes
 * it held, and may let the events before it go; 0 or -1 with a one-line
 * message; written(ctx, r) once they are written: ow_write reads them no
 * more (only nevents), nor gtime[r], so the caller may free them. Before load, ow_write reads only the locations' definitions, event
 * counts and facts (rt_facts). */
/* The optional attributes the archive defines, numbered densely: true_time
 * when any location has one, a sparse collective member's sources (and
 * how many 64-bit words the widest list takes) when any member is
 * sparse. Found over every location (ow_find_attributes). */
struct ow_attributes {
    int any_truth, pre_sources;
    uint32_t pre_words;
};
void ow_find_attributes(const struct rt_location *ranks, uint32_t nranks, const struct truth_store *truth,
                        struct ow_attributes *a);

struct ow_parallel;
struct ow_hooks {
    int (*load)(void *ctx, uint32_t r, uint64_t i, char *err, size_t errlen);
    void (*written)(void *ctx, uint32_t r);
    void *ctx;
    const struct ow_parallel *par;   /* NULL: this process writes the whole archive */
};

/* One of several processes writing the archive together (the parallel
 * merge, pmerge.h): the events of the locations with mine[r] set; the
 * global definitions and the locations outside the trace if primary. The
 * attributes' numbering (true_time, a sparse member's sources) is
 * decided over every location: given. collective sets OTF2's collective
 * callbacks over the processes (0 or -1); agree and max_u64 are taken by
 * every process at the same steps (pmerge.h). */
struct ow_parallel {
    const uint8_t *mine;
    int primary;
    struct ow_attributes attrs;
    int (*collective)(void *archive);
    int (*agree)(int ok);
    uint64_t (*max_u64)(uint64_t v);
};
int ow_write(const char *dir, const char *name, const struct rt_location *ranks, uint32_t nranks,
             const struct mg_result *match, const struct gtime_map *gtime, struct truth_store *truth,
             const struct ow_hooks *hooks, char *err, size_t errlen);

#endif
