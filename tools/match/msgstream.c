/* msgstream.c — see msgstream.h. The file is the messages back to back in
 * memory's layout: it lives as long as the process, never as a format. */
#include <config.h>
#include "msgstream.h"
#include "asidefile.h"

#include <stdio.h>
#include <stdlib.h>

#define WRITE_BLOCK 1024      /* messages buffered before a write: 64 KB */

struct ms_file {
    struct st_aside a;
    struct mg_message pending[WRITE_BLOCK];
    size_t npending;
};

struct ms_file *ms_file_new(const char *dir, char *err, size_t errlen)
{
    struct ms_file *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "setting the matched messages aside in %s: out of memory", dir);
        return NULL;
    }
    if (st_aside_open(&f->a, dir, "synctrace-messages", "the matched messages", err, errlen) != 0) {
        free(f);
        return NULL;
    }
    return f;
}

int ms_file_flush(struct ms_file *f)
{
    if (st_aside_write(&f->a, f->pending, sizeof *f->pending * f->npending) != 0)
        return -1;
    f->npending = 0;
    return 0;
}

int ms_file_append(struct ms_file *f, const struct mg_message *m)
{
    if (f->npending == WRITE_BLOCK && ms_file_flush(f) != 0)
        return -1;
    if (f->a.failed)
        return -1;
    f->pending[f->npending++] = *m;
    return 0;
}

const char *ms_file_error(const struct ms_file *f)
{
    return f && f->a.failed ? f->a.err : "";
}

uint64_t ms_file_bytes(const struct ms_file *f)
{
    return f ? f->a.end + sizeof *f->pending * f->npending : 0;
}

void ms_file_free(struct ms_file *f)
{
    if (!f)
        return;
    st_aside_close(&f->a);
    free(f);
}

void mg_msgs_begin(const struct mg_result *r, struct mg_msg_reader *it)
{
    it->r = r;
    it->next = it->index = it->at = it->n = 0;
}

/* The next block of the file into it->buf: 0, or -1 (the error sticks). */
static int refill(struct mg_msg_reader *it)
{
    struct ms_file *f = it->r->message_file;
    size_t want = it->r->nmessages - it->next;
    if (want > MG_MSG_READ_BLOCK)
        want = MG_MSG_READ_BLOCK;
    if (st_aside_read(&f->a, it->buf, sizeof *it->buf * want, (uint64_t)it->next * sizeof *it->buf) != 0)
        return -1;
    it->at = 0;
    it->n = want;
    return 0;
}

const struct mg_message *mg_msgs_next(struct mg_msg_reader *it)
{
    const struct mg_result *r = it->r;
    if (it->next >= r->nmessages)
        return NULL;
    if (!r->message_file) {   /* held in memory */
        it->index = it->next++;
        return &r->messages[it->index];
    }
    if (r->message_file->a.failed || (it->at == it->n && refill(it) != 0))
        return NULL;
    it->index = it->next++;
    return &it->buf[it->at++];
}

const char *mg_msgs_error(const struct mg_result *r)
{
    return r->message_file && r->message_file->a.failed ? r->message_file->a.err : NULL;
}

struct mg_message *mg_msgs_load(const struct mg_result *r)
{
    struct mg_message *all = malloc(sizeof *all * (r->nmessages ? r->nmessages : 1));
    if (!all)
        return NULL;
    struct mg_msg_reader it;
    mg_msgs_begin(r, &it);
    size_t n = 0;
    for (const struct mg_message *m; (m = mg_msgs_next(&it));)
        all[n++] = *m;
    if (n != r->nmessages) {
        free(all);
        return NULL;
    }
    return all;
}
