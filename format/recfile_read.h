/* recfile_read.h — a killed rank's records file (recfile.h) read back: the
 * records its tracer had made but not yet written out as events, turned
 * into the events that continue a location's event file. */
#ifndef SYNCTRACE_RECFILE_READ_H
#define SYNCTRACE_RECFILE_READ_H

#include <stddef.h>
#include <stdint.h>
#include "convert.h"

struct rf_records {
    const uint8_t *map;        /* the file, mapped read-only */
    size_t size;
    uint64_t header_bytes, chunk_bytes;
    uint64_t nchunks;          /* whole chunks in the file */
};

/* Open PATH. Returns 0; 1 when there is no such file (the tracer kept its
 * records in memory, or an older tracer); -1 with a one-line message
 * naming the file when it is not a records file. */
int rf_records_open(const char *path, struct rf_records *r, char *err, size_t errlen);
void rf_records_close(struct rf_records *r);

/* What the records add to location `loc` whose event file holds `in_file`
 * events (its whole chunks): the events numbered in_file + 1 on, in order.
 * With f NULL only counts them; else appends them to f (resumed after
 * those events: st_evt_resume) through the converter with `refs`.
 * `true_time`: whether the rank's events carry it (every record must
 * agree). Returns the number of events; *why, when not NULL, is set to a
 * short reason when some records could not be used (they do not continue
 * the event file, a chunk is missing or damaged), else to NULL. */
uint64_t rf_records_replay(const struct rf_records *r, uint64_t loc, uint64_t in_file, int true_time,
                           struct st_evtfile *f, const struct st_convert_refs *refs, const char **why);

#endif
