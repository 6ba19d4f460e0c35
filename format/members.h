/* members.h — the world-rank membership of a rank's communicators, kept
 * beside its raw archive in DIR/rank-NNNNNN.members, so that the archive's
 * OTF2 definitions name only the rank's own locations (every OTF2 reader
 * then reads it) and cost O(own), not O(world size).
 *
 * The file (format RF_MEMBERS_FORMAT; the archive's property
 * RF_PROP_MEMBERS says it has one), one record per line:
 *
 *     synctrace-members 1
 *     rank R world W
 *     group G N RUNS            member lists, interned, numbered 0, 1, ...
 *     comm C LOCAL [remote G] [key HEX16] [in N RUNS]
 *     end K                     K: the number of comm lines (a file cut short fails)
 *
 * LOCAL is a group (a communicator's members; an intercommunicator's local
 * group) or "self" (MPI_COMM_SELF: this rank alone); "remote G" makes it an
 * intercommunicator; "in" lists a topology communicator's in-neighbours of
 * this rank. RUNS (the codec below) is a comma-separated list of runs in
 * member order: "F" one world rank, "F:C" C ranks from F, "F:C:S" C ranks
 * from F in steps of S (signed); "oT.F", "oT.F:C", "oT.F:C:S" the same for
 * indices of outside set T (processes of another job, rawformat.h
 * RF_OUTSIDE_BASE); "?" / "?:C" members of another world nothing is known
 * of (OTF2_UNDEFINED_UINT64); "-" no member. MPI_COMM_WORLD is "0:W", the
 * even ranks of a split "0:K:2", a spawned job's four processes "o0.0:4".
 * The reader is defs_read.c's. */
#ifndef SYNCTRACE_MEMBERS_H
#define SYNCTRACE_MEMBERS_H

#include <otf2/otf2.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "defs_write.h"

/* Write the runs of `n` members (world ranks, outside-set members, or
 * OTF2_UNDEFINED_UINT64) to f. Returns 0, or -1 when f failed. */
int rf_runs_encode(FILE *f, uint32_t n, const uint64_t *members);

/* Decode RUNS `s` (its end: `end`, or the NUL when end is NULL) into
 * exactly `n` members, each a world rank below `world`, an outside-set
 * member or OTF2_UNDEFINED_UINT64.
 * Returns 0, or -1 with what is wrong in `problem`. */
int rf_runs_decode(const char *s, const char *end, uint32_t n, uint64_t world, uint64_t *out, char *problem,
                   size_t len);

/* Write DIR/NAME.members for the definitions `d` of rank `rank` of
 * `world_size` (to a temporary name, renamed). Returns 0, or -1 with a
 * one-line message naming the file. */
int rf_members_write(const char *dir, const char *name, const struct rf_defs *d, int rank, int world_size,
                     char *err, size_t errlen);

/* Say in the archive's properties that it has a membership file. */
int rf_members_declare(OTF2_Archive *ar);

#endif
