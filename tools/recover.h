/* recover.h — rebuild a readable archive for a rank that was killed (SIGKILL,
 * the OOM killer, a batch system's hard kill) before it could close its
 * archive: its flushed events are in DIR/rank-NNNNNN/LOCATION.evt, but its
 * definitions and anchor file were never written. The tracer keeps what they
 * are made of in DIR/rank-NNNNNN.journal (src/writer.c); from it this module
 * writes a fresh archive of the same name and chunk size into a temporary
 * directory and puts the original event file into it (a symbolic link, or a
 * copy), so that the ordinary OTF2 reader can read the events. The input
 * directory is never modified. */
#ifndef SYNCTRACE_RECOVER_H
#define SYNCTRACE_RECOVER_H

#include <stddef.h>
#include <stdint.h>

/* What DIR holds for the rank of an anchor path ".../rank-NNNNNN.otf2". */
int rc_anchor_complete(const char *anchor);   /* the anchor file exists and is not empty */
int rc_has_journal(const char *anchor);       /* DIR/rank-NNNNNN.journal exists */

struct rc_archive {
    char dir[4096];           /* the temporary directory (rc_remove deletes it) */
    char anchor[4200];        /* the rebuilt anchor file in it */
    uint64_t location;        /* the OTF2 location id (the event file's name) */
    uint64_t chunk_size;      /* OTF2 event chunk size, as the tracer used it */
    uint64_t chunks;          /* whole, consistent chunks in the event file */
    uint64_t events;          /* the events in them: read exactly these */
    uint64_t evt_bytes;       /* size of the original event file */
    uint64_t evt_used;        /* bytes of it that are read: chunks * chunk_size */
};

/* Rebuild the archive of ANCHOR's rank from its journal and event file.
 * The event file was flushed in whole chunks but never finished with an
 * end-of-file record, and OTF2's reader does not stop at the end of such
 * a file: read exactly `events` events from the rebuilt archive (an
 * incomplete chunk at the end, from a kill in the middle of a flush, is
 * not counted). Returns 0, or -1 with a one-line message naming the
 * anchor; on failure nothing is left behind. */
int rc_rebuild(const char *anchor, struct rc_archive *out, char *err, size_t errlen);
/* Delete the temporary directory of a rebuilt archive. */
void rc_remove(struct rc_archive *a);

#endif
