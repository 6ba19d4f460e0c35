/* waits_spool.c — a stack of fixed-size records in bounded memory: put
 * appends, pop takes the last one not yet taken. A full buffer is written
 * to a nameless file (asidefile.h) as one block and emptied; popping goes
 * through the buffer backwards, then reads the blocks back, last first.
 * The p2p rules make the instances of each receiver's messages walking
 * them backwards (Late Sender / wrong order looks at the later messages)
 * and count them in the receiver's order, as the table's sums need. */
#include "waits.h"
#include "asidefile.h"

#include <stdlib.h>
#include <string.h>

struct wt_spool {
    size_t rec, cap, n;       /* record bytes, records per block, records in buf */
    unsigned char *buf;
    uint64_t blocks;          /* full blocks in the file, not yet read back */
    uint64_t spilled;         /* bytes written to the file */
    struct st_aside file;
    int open;
    char *dir;
    char err[600];
};

struct wt_spool *wt_spool_new(size_t record_bytes, size_t budget_bytes, const char *spill_dir, char *err,
                              size_t errlen)
{
    struct wt_spool *s = calloc(1, sizeof *s);
    if (s) {
        s->rec = record_bytes;
        s->cap = budget_bytes / record_bytes > 1024 ? budget_bytes / record_bytes : 1024;
        s->buf = malloc(s->cap * record_bytes);
        s->dir = strdup(spill_dir ? spill_dir : ".");
    }
    if (!s || !s->buf || !s->dir) {
        wt_spool_free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return s;
}

int wt_spool_put(struct wt_spool *s, const void *rec)
{
    if (*s->err)
        return -1;
    if (s->n == s->cap) {
        if (!s->open) {
            if (st_aside_open(&s->file, s->dir, "synctrace-waits", "the wait instances", s->err, sizeof s->err) != 0)
                return -1;
            s->open = 1;
        }
        /* at its place in the stack: the file's end is of a stack that was higher */
        if (st_aside_pwrite(&s->file, s->buf, s->cap * s->rec, s->blocks * s->cap * s->rec) != 0) {
            snprintf(s->err, sizeof s->err, "%s", s->file.err);
            return -1;
        }
        s->blocks++;
        s->spilled += s->cap * s->rec;
        s->n = 0;
    }
    memcpy(s->buf + s->n * s->rec, rec, s->rec);
    s->n++;
    return 0;
}

const void *wt_spool_pop(struct wt_spool *s)
{
    if (*s->err)
        return NULL;
    if (!s->n && s->blocks) {
        s->blocks--;
        if (st_aside_read(&s->file, s->buf, s->cap * s->rec, s->blocks * s->cap * s->rec) != 0) {
            snprintf(s->err, sizeof s->err, "%s", s->file.err);
            return NULL;
        }
        s->n = s->cap;
    }
    return s->n ? s->buf + --s->n * s->rec : NULL;
}

const char *wt_spool_error(const struct wt_spool *s)
{
    return s->err;
}

uint64_t wt_spool_spilled(const struct wt_spool *s)
{
    return s ? s->spilled : 0;
}

void wt_spool_free(struct wt_spool *s)
{
    if (!s)
        return;
    if (s->open)
        st_aside_close(&s->file);
    free(s->buf);
    free(s->dir);
    free(s);
}
