/* collstream.h — the matched collective instances of an mg_result
 * (match.h), read in their order whether they are held in memory or were
 * set aside on disk.
 *
 * A trace's collective members grow with its events (72 bytes each, one
 * per call; a world collective on 1000 ranks is 1000 of them), and the
 * stages after the match read the instances front to back: the
 * constraints, the report's checks. So the match keeps them in memory
 * only up to a budget (mg_sort_config.message_memory, the same amount as
 * the messages') and otherwise writes them, in order, to one nameless
 * file (O_TMPFILE: gone with the process, killed or not): each instance
 * as its struct mg_collective, then its members. Readers page through it,
 * each with a buffer of its own (pread), so any number read at once.
 * Readers that need instances by number (the causal index, the controlled
 * logical clock) load them all (mg_colls_load).
 *
 * A read that fails (an I/O error on our own file) ends that reader's
 * walk early and sticks in the file: mg_colls_error says so, and the
 * merge checks it before anything it wrote is put in place. */
#ifndef SYNCTRACE_COLLSTREAM_H
#define SYNCTRACE_COLLSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include "match.h"

struct mc_file;

/* The file side, for match.c. new: NULL with a one-line message. append
 * buffers (the members are copied); flush writes what is buffered (before
 * the first read). Both 0, or -1 (mc_file_error says why). */
struct mc_file *mc_file_new(const char *dir, char *err, size_t errlen);
int mc_file_append(struct mc_file *f, const struct mg_collective *c);
int mc_file_flush(struct mc_file *f);
const char *mc_file_error(const struct mc_file *f);   /* "" while none */
uint64_t mc_file_bytes(const struct mc_file *f);      /* written so far */
void mc_file_free(struct mc_file *f);

/* A walk over r's collective instances, in order:
 *   struct mg_coll_reader it;
 *   mg_colls_begin(r, &it);
 *   for (const struct mg_collective *c; (c = mg_colls_next(&it));) ...
 *   mg_colls_end(&it);
 * it.index is the index of the instance last returned. The instance and
 * its members last until the next call. */
struct mg_coll_reader {
    const struct mg_result *r;
    size_t next;              /* the next instance's index */
    size_t index;             /* the one last returned */
    uint64_t off;             /* the file's offset of buf[n] */
    uint8_t *buf;             /* a block of the file: buf[at .. n) not yet read */
    size_t at, n;
    struct mg_collective cur;
    struct mg_member *members;
    size_t cmembers;
    uint64_t offset;          /* set aside: where the one last returned starts (mg_colls_read_at) */
};
void mg_colls_begin(const struct mg_result *r, struct mg_coll_reader *it);
const struct mg_collective *mg_colls_next(struct mg_coll_reader *it);
void mg_colls_end(struct mg_coll_reader *it);

/* NULL while every read of r's instances succeeded, else why one did not. */
const char *mg_colls_error(const struct mg_result *r);

/* The instance that starts at `offset` of r's file (a reader's offset),
 * into *out with members of its own (free(out->members)): 0, or -1 (out
 * of memory or a read failed: mg_colls_error). Readers that need a few
 * instances at a time by number keep their offsets instead of loading
 * them all. */
int mg_colls_read_at(const struct mg_result *r, uint64_t offset, struct mg_collective *out);

/* All of r's instances in one malloc'd array, each with its own members
 * (mg_colls_free), or NULL (out of memory, or a read failed:
 * mg_colls_error). n = 0 gives a 1-element array. */
struct mg_collective *mg_colls_load(const struct mg_result *r);
void mg_colls_free(struct mg_collective *c, size_t n);

#endif
