/* msgstream.c — see msgstream.h. The file is the messages back to back in
 * memory's layout: it lives as long as the process, never as a format. */
#include <config.h>
#include "msgstream.h"
#include "fsutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITE_BLOCK 1024      /* messages buffered before a write: 48 KB */

struct ms_file {
    int fd;
    uint64_t end;             /* bytes written */
    struct mg_message pending[WRITE_BLOCK];
    size_t npending;
    char *dir;
    pthread_mutex_t lock;     /* readers of several threads may fail at once */
    int failed;               /* the first error sticks */
    char err[512];
};

static int fail(struct ms_file *f, const char *what, const char *why)
{
    pthread_mutex_lock(&f->lock);
    if (!f->failed) {
        snprintf(f->err, sizeof f->err, "the matched messages set aside in %s: %s: %s", f->dir, what, why);
        f->failed = 1;
    }
    pthread_mutex_unlock(&f->lock);
    return -1;
}

struct ms_file *ms_file_new(const char *dir, char *err, size_t errlen)
{
    struct ms_file *f = calloc(1, sizeof *f);
    if (!f || !(f->dir = strdup(dir))) {
        free(f);
        snprintf(err, errlen, "setting the matched messages aside in %s: out of memory", dir);
        return NULL;
    }
    if ((f->fd = st_nameless_file(dir, "synctrace-messages")) < 0) {
        snprintf(err, errlen, "%s: cannot make a file to set the matched messages aside: %s", dir, strerror(errno));
        free(f->dir);
        free(f);
        return NULL;
    }
    pthread_mutex_init(&f->lock, NULL);
    return f;
}

int ms_file_flush(struct ms_file *f)
{
    if (f->failed)
        return -1;
    size_t len = sizeof *f->pending * f->npending;
    if (len && st_write_all(f->fd, f->pending, len) != 0)
        return fail(f, "write", strerror(errno));
    f->end += len;
    f->npending = 0;
    return 0;
}

int ms_file_append(struct ms_file *f, const struct mg_message *m)
{
    if (f->npending == WRITE_BLOCK && ms_file_flush(f) != 0)
        return -1;
    if (f->failed)
        return -1;
    f->pending[f->npending++] = *m;
    return 0;
}

const char *ms_file_error(const struct ms_file *f)
{
    return f && f->failed ? f->err : "";
}

uint64_t ms_file_bytes(const struct ms_file *f)
{
    return f ? f->end + sizeof *f->pending * f->npending : 0;
}

void ms_file_free(struct ms_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    pthread_mutex_destroy(&f->lock);
    free(f->dir);
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
    size_t len = sizeof *it->buf * want, got;
    if (st_pread_all(f->fd, it->buf, len, (uint64_t)it->next * sizeof *it->buf, &got) != 0)
        return fail(f, "read", strerror(errno));
    if (got != len)
        return fail(f, "read", "cut short");
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
    if (r->message_file->failed || (it->at == it->n && refill(it) != 0))
        return NULL;
    it->index = it->next++;
    return &it->buf[it->at++];
}

const char *mg_msgs_error(const struct mg_result *r)
{
    return r->message_file && r->message_file->failed ? r->message_file->err : NULL;
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
