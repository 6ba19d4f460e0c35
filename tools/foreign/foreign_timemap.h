/* foreign_timemap.h — the copy's time map (otf2copy.h) from our merge of a
 * foreign archive's raw trace (foreign_raw.h): a modelled event gets its
 * merged time, any other event of the location the time its raw time has
 * between the merged times of its modelled neighbours (the offset
 * interpolated between theirs, kept between their times: order within the
 * location holds). Merged times are read a location at a time, as the
 * copy reaches it; the copy's clock starts where the reference rank's
 * raw clock did. */
#ifndef SYNCTRACE_FOREIGN_TIMEMAP_H
#define SYNCTRACE_FOREIGN_TIMEMAP_H

#include <stddef.h>
#include <stdint.h>
#include "foreign_raw.h"
#include "otf2copy.h"

struct fm_timemap;

/* Under mpirun: which process this is (it reads the merged times of the
 * locations fr_place_of gives it) and the maximum over every process. */
struct fm_share {
    uint32_t place;
    uint64_t (*max_u64)(uint64_t v);
};

/* Open the merge's times (MERGE_TIMES_FILE in the directory `merged`,
 * written by merge_times_only) of the raw trace and fill *map. NULL, with a
 * one-line message, on failure. With a share (NULL: alone), collective:
 * where only another process failed, the message is "" (that one says
 * it). */
struct fm_timemap *fm_timemap_open(const struct foreign_raw *fr, const char *merged, uint32_t reference,
                                   const struct fm_share *share, struct oc_time_map *map, char *err,
                                   size_t errlen);
/* After the copy: whether the map failed (1, with the reason), or 0. */
int fm_timemap_failed(const struct fm_timemap *m, char *err, size_t errlen);
/* Per rank, the largest difference (ns) between the offset against rank
 * 0 that its ClockOffsets say and the merge's, where they were measured
 * (-1: none). 0, or -1 with a message. */
int fm_offset_errors(struct fm_timemap *m, double *err_ns, char *err, size_t errlen);
void fm_timemap_close(struct fm_timemap *m);

#endif
