/* anchor_check.h — what OTF2 3.0 trusts in an anchor file (rank-NNNNNN.otf2,
 * traces.otf2) without checking it, checked before OTF2_Reader_Open sees
 * the file. */
#ifndef SYNCTRACE_ANCHOR_CHECK_H
#define SYNCTRACE_ANCHOR_CHECK_H

#include <stddef.h>

/* 0 when OTF2 may open the anchor file PATH (it may still find it
 * malformed, and says so); -1 with a one-line message naming PATH when the
 * file declares more properties than it has bytes for: OTF2_AnchorFile_Load
 * allocates a table of that many (up to 32 GB) and, failing to read them,
 * loops over all of it to free their names (seconds to minutes). */
int anchor_check(const char *path, char *err, size_t errlen);

#endif
