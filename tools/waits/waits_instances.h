/* waits_instances.h — OUT/waits-instances.bin: every wait instance that
 * `synctrace waits --json` counted into waits.json, for the views that
 * draw them (synctrace export). Summing max(0, .) of an instance's w, lo
 * and hi over the instances of a row of waits.json gives its seconds, lo
 * and hi (in ns); the instances with w > 0 are its count.
 *
 * Little-endian, a 64-byte header then 48-byte records:
 *   header: "STWAITI1", u32 version (1), u32 ranks, u64 instances,
 *           u64 events of the archive, i64 mtime (ns) and u64 size of
 *           OUT/traces.otf2 when the waits were computed (a later merge
 *           makes the file stale), 16 bytes zero
 *   record: u8 pattern (enum wt_pattern), 3 bytes zero, u32 rank, u32
 *           region, u32 communicator (the archive's definitions), f64
 *           from (merged ns: the waiting rank's entry; NaN: not known), f64 w, lo, hi (ns;
 *           lo, hi may be -inf/inf) */
#ifndef SYNCTRACE_WAITS_INSTANCES_H
#define SYNCTRACE_WAITS_INSTANCES_H

#include "waits.h"

#define WT_INSTANCES_FILE "waits-instances.bin"
#define WT_INSTANCES_HEADER 64
#define WT_INSTANCE_BYTES 48

struct wt_instance {
    uint32_t pattern, rank, region, comm;
    double from, w, lo, hi;
};

/* The writer: begin before the rules run (it becomes tb's on_instance and
 * bd's probe, whose earlier moment is the instance's start; from is NAN
 * when that moment was not on the waiting rank: a rule whose differences
 * start elsewhere sets the probe itself, as waits_pscw.c's Early Wait),
 * finish after them; the file appears under its name only at commit, after
 * waits.json. Each returns 0, or -1 with a message in err (abort then
 * removes the temporary file). */
struct wt_instances_out {
    FILE *f;
    char path[4200], tmp[4300];
    uint64_t n, unplaced;     /* instances; of them, with from NAN */
    struct wt_probe probe;
    int failed;               /* errno of a failed write, once */
};
int wt_instances_begin(struct wt_instances_out *o, const char *outdir, struct wt_table *tb, struct wt_bounds *bd,
                       char *err, size_t errlen);
int wt_instances_finish(struct wt_instances_out *o, const char *outdir, const struct wt_records *rec, char *err,
                        size_t errlen);
int wt_instances_commit(struct wt_instances_out *o, char *err, size_t errlen);
void wt_instances_abort(struct wt_instances_out *o);

/* The whole file read back, checked against the archive as it is now
 * (nranks: its ranks): 0 with *v (free it) and *n; 1 when there is no such
 * file; -1 with a message when it is unreadable, damaged or stale. */
int wt_instances_read(const char *outdir, uint32_t nranks, struct wt_instance **v, size_t *n, char *err,
                      size_t errlen);

#endif
