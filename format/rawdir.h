/* rawdir.h — the rank archives of a raw trace directory. */
#ifndef SYNCTRACE_RAWDIR_H
#define SYNCTRACE_RAWDIR_H

#include <stddef.h>

/* The anchor paths DIR/rank-NNNNNN.otf2 of every rank, in rank order:
 * ranks 0 to the highest rank that has an anchor file or a recovery
 * journal (rank-NNNNNN.journal, left by a rank that was killed), or to the
 * world size in DIR/run.meta if that is larger. An anchor listed need not
 * exist: rt_read_rank then rebuilds the archive from the journal, or says
 * that the rank is missing. Returns the count (>= 1), or -1 with a one-line
 * message (missing directory, no archives). */
int rawdir_list(const char *dir, char ***anchors, char *err, size_t errlen);
void rawdir_free(char **anchors, int n);

#endif
