/* recover.h — rebuild a readable archive for a rank that was killed (SIGKILL,
 * the OOM killer, a batch system's hard kill) before it could close its
 * archive: its flushed events are in DIR/rank-NNNNNN/LOCATION.evt, the
 * records not yet written out as events in DIR/rank-NNNNNN.records
 * (recfile.h), but its definitions and anchor file were never written. The tracer keeps what they
 * are made of in DIR/rank-NNNNNN.journal (src/writer.c), with the locations
 * of its threads; from it this module writes a fresh archive of the same
 * name and chunk size into a temporary directory and puts the original
 * event files into it (symbolic links, or copies; a location with records
 * gets a copy of its whole chunks continued by their events), so that the
 * ordinary OTF2 reader can read the events. The input
 * directory is never modified. */
#ifndef SYNCTRACE_RECOVER_H
#define SYNCTRACE_RECOVER_H

#include <stddef.h>
#include <stdint.h>

/* What DIR holds for the rank of an anchor path ".../rank-NNNNNN.otf2". */
int rc_anchor_complete(const char *anchor);   /* the anchor file exists and is not empty */
int rc_has_journal(const char *anchor);       /* DIR/rank-NNNNNN.journal exists */

/* One location of a rebuilt archive: the thread that opened it (the main
 * one), or another thread of the rank (MPI_THREAD_SERIALIZED, MULTIPLE). */
struct rc_location {
    uint64_t id;              /* the OTF2 location id (the event file's name) */
    uint64_t chunks;          /* whole, consistent chunks in its event file */
    uint64_t events;          /* the events in them: read exactly these */
    uint64_t evt_bytes;       /* size of the original event file (0: none) */
    uint64_t evt_used;        /* bytes of it that are read: chunks * chunk_size */
    uint64_t from_records;    /* of `events`, those its records file adds (counted, then replayed) */
    int replayed;             /* its event file was written anew (whole chunks + records) */
};

struct rc_archive {
    char dir[4096];           /* the temporary directory (rc_remove deletes it) */
    char anchor[4200];        /* the rebuilt anchor file in it */
    uint64_t chunk_size;      /* OTF2 event chunk size, as the tracer used it */
    /* locs[0]: the main thread's location, always there (0 events when it
     * never flushed); then every journaled thread location with at least
     * one whole chunk, in journal order. Each location's definition says
     * its `events`. */
    struct rc_location *locs;
    uint32_t nlocs;
    uint64_t events;          /* all locations' */
    uint64_t from_records;    /* of them, replayed from the records file (recfile.h) */
    int records_file;         /* the rank left a records file (its tracer kept one) */
    char records_note[8800];  /* why some of its records could not be used; "" when all were */
};

/* Rebuild the archive of ANCHOR's rank from its journal and event files.
 * An event file was flushed in whole chunks but never finished with an
 * end-of-file record, and OTF2's reader does not stop at the end of such
 * a file: read exactly the number of events each location's definition
 * declares (locs[k].events; an incomplete chunk at the end, from a kill in
 * the middle of a flush, is not counted). Returns 0, or -1 with a one-line message naming the
 * anchor; on failure nothing is left behind. */
int rc_rebuild(const char *anchor, struct rc_archive *out, char *err, size_t errlen);
/* Delete the temporary directory of a rebuilt archive. */
void rc_remove(struct rc_archive *a);

#endif
