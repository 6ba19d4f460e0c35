/* rawdir.h — the rank archives of a raw trace directory. */
#ifndef SYNCTRACE_RAWDIR_H
#define SYNCTRACE_RAWDIR_H

#include <stddef.h>

/* The anchor files DIR/rank-NNNNNN.otf2, sorted by rank. Returns the count
 * (>= 1), or -1 with a one-line message (missing directory, no archives). */
int rawdir_list(const char *dir, char ***anchors, char *err, size_t errlen);
void rawdir_free(char **anchors, int n);

#endif
