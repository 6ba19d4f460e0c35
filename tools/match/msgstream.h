/* msgstream.h — the matched messages of an mg_result (match.h), read in
 * their order (by channel) whether they are held in memory or were set
 * aside on disk.
 *
 * A trace's messages grow with its events (64 bytes each; one in every
 * 4 to 10 events), and every stage after the match reads them front to
 * back: the constraints, the report, the causal index. So the match keeps
 * them in memory only up to a budget (mg_sort_config.message_memory) and
 * otherwise writes them, in order, to one nameless file (O_TMPFILE: gone
 * with the process, killed or not); readers then page through it, each
 * with a buffer of its own, so any number read at once (pread).
 *
 * A read that fails (an I/O error on our own file) ends that reader's
 * walk early and sticks in the file: mg_msgs_error says so, and the merge
 * checks it before anything it wrote is put in place. */
#ifndef SYNCTRACE_MSGSTREAM_H
#define SYNCTRACE_MSGSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include "match.h"

struct ms_file;

/* The file side, for match.c. new: NULL with a one-line message. append
 * buffers; flush writes what is buffered (before the first read). Both
 * 0, or -1 (ms_file_error says why). */
struct ms_file *ms_file_new(const char *dir, char *err, size_t errlen);
int ms_file_append(struct ms_file *f, const struct mg_message *m);
int ms_file_flush(struct ms_file *f);
const char *ms_file_error(const struct ms_file *f);   /* "" while none */
uint64_t ms_file_bytes(const struct ms_file *f);      /* written so far */
void ms_file_free(struct ms_file *f);

/* A walk over r's messages, in order:
 *   struct mg_msg_reader it;
 *   mg_msgs_begin(r, &it);
 *   for (const struct mg_message *m; (m = mg_msgs_next(&it));) ...
 * it.index is the index of the message last returned. The pointer lasts
 * until the next call. */
#define MG_MSG_READ_BLOCK 256
struct mg_msg_reader {
    const struct mg_result *r;
    size_t next;              /* the next message's index */
    size_t index;             /* the one last returned */
    size_t at, n;             /* buf[at .. n) not yet returned */
    struct mg_message buf[MG_MSG_READ_BLOCK];
};
void mg_msgs_begin(const struct mg_result *r, struct mg_msg_reader *it);
const struct mg_message *mg_msgs_next(struct mg_msg_reader *it);

/* NULL while every read of r's messages succeeded, else why one did not. */
const char *mg_msgs_error(const struct mg_result *r);

/* All of r's messages in one malloc'd array (for the readers that need
 * them by index: the controlled logical clock's comparison), or NULL
 * (out of memory, or a read failed: mg_msgs_error). n = 0 gives a
 * 1-element array. */
struct mg_message *mg_msgs_load(const struct mg_result *r);

#endif
