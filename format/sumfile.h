/* sumfile.h — checksums that make every byte of a closed raw trace
 * verifiable, with no collective step.
 *
 * A rank, as the last act of closing its archive, writes DIR/rank-NNNNNN.sum:
 *
 *     synctrace-sum 1 xxh64
 *     HASH SIZE rank-NNNNNN.otf2        one line per file of the archive,
 *     HASH SIZE rank-NNNNNN.def         paths relative to DIR, HASH the
 *     HASH SIZE rank-NNNNNN.members     16-hex-digit XXH64 (hash64.h);
 *     HASH SIZE rank-NNNNNN/LOC.evt     .members when the rank wrote one
 *     ...
 *     checksum xxh64 HASH               seal: the XXH64 of every byte above
 *
 * written to a temporary name, synced and renamed: it exists whole or not at
 * all, so its presence says the rank closed its archive. DIR/run.meta ends
 * with the same seal line. A reader verifies the seal, then every listed
 * file's size and hash, and that the rank's folder holds no file the list
 * does not name. */
#ifndef SYNCTRACE_SUMFILE_H
#define SYNCTRACE_SUMFILE_H

#include <stddef.h>
#include <stdio.h>

/* Append the seal line to F, which is open for writing on PATH and holds
 * everything it is to hold. Returns 0, or -1 (errno set). */
int sum_seal(FILE *f, const char *path);

/* Verify PATH's seal. Returns 0, 1 when PATH does not exist, or -1 with a
 * one-line message naming PATH. */
int sum_verify_sealed(const char *path, char *err, size_t errlen);

/* Write DIR/NAME.sum for the archive NAME (e.g. "rank-000003"): NAME.otf2,
 * NAME.def, NAME.members (when there) and every regular file in DIR/NAME/. Returns 0, or -1 with a
 * one-line message. */
int sum_write_archive(const char *dir, const char *name, char *err, size_t errlen);

/* Verify the archive of ANCHOR (".../rank-NNNNNN.otf2") against its
 * checksum file. Returns 0 when it verifies, 1 when there is no checksum
 * file (the rank did not close its archive), or -1 with a one-line message
 * naming the damaged file. */
int sum_verify_archive(const char *anchor, char *err, size_t errlen);

#endif
