/* collstream.c — see collstream.h. The file is the instances back to
 * back in memory's layout (each struct mg_collective, its members pointer
 * meaningless, then its members): it lives as long as the process, never
 * as a format. */
#include <config.h>
#include "collstream.h"
#include "fsutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK ((size_t)64 << 10)   /* written and read 64 KB at a time */

struct mc_file {
    int fd;
    uint64_t end;             /* bytes written */
    uint8_t *pending;         /* BLOCK bytes buffered before a write */
    size_t npending;
    char *dir;
    pthread_mutex_t lock;     /* readers of several threads may fail at once */
    int failed;               /* the first error sticks */
    char err[512];
};

static int fail(struct mc_file *f, const char *what, const char *why)
{
    pthread_mutex_lock(&f->lock);
    if (!f->failed) {
        snprintf(f->err, sizeof f->err, "the matched collectives set aside in %s: %s: %s", f->dir, what, why);
        f->failed = 1;
    }
    pthread_mutex_unlock(&f->lock);
    return -1;
}

struct mc_file *mc_file_new(const char *dir, char *err, size_t errlen)
{
    struct mc_file *f = calloc(1, sizeof *f);
    if (!f || !(f->dir = strdup(dir)) || !(f->pending = malloc(BLOCK))) {
        if (f)
            free(f->dir);
        free(f);
        snprintf(err, errlen, "setting the matched collectives aside in %s: out of memory", dir);
        return NULL;
    }
    if ((f->fd = st_nameless_file(dir, "synctrace-collectives")) < 0) {
        snprintf(err, errlen, "%s: cannot make a file to set the matched collectives aside: %s", dir,
                 strerror(errno));
        free(f->pending);
        free(f->dir);
        free(f);
        return NULL;
    }
    pthread_mutex_init(&f->lock, NULL);
    return f;
}

int mc_file_flush(struct mc_file *f)
{
    if (f->failed)
        return -1;
    if (f->npending && st_write_all(f->fd, f->pending, f->npending) != 0)
        return fail(f, "write", strerror(errno));
    f->end += f->npending;
    f->npending = 0;
    return 0;
}

static int put(struct mc_file *f, const void *p, size_t len)
{
    const uint8_t *s = p;
    while (len) {
        if (f->npending == BLOCK && mc_file_flush(f) != 0)
            return -1;
        size_t k = BLOCK - f->npending < len ? BLOCK - f->npending : len;
        memcpy(f->pending + f->npending, s, k);
        f->npending += k;
        s += k;
        len -= k;
    }
    return 0;
}

int mc_file_append(struct mc_file *f, const struct mg_collective *c)
{
    if (f->failed)
        return -1;
    return put(f, c, sizeof *c) || put(f, c->members, sizeof *c->members * c->nmembers) ? -1 : 0;
}

const char *mc_file_error(const struct mc_file *f)
{
    return f && f->failed ? f->err : "";
}

uint64_t mc_file_bytes(const struct mc_file *f)
{
    return f ? f->end + f->npending : 0;
}

void mc_file_free(struct mc_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    pthread_mutex_destroy(&f->lock);
    free(f->pending);
    free(f->dir);
    free(f);
}

void mg_colls_begin(const struct mg_result *r, struct mg_coll_reader *it)
{
    memset(it, 0, sizeof *it);
    it->r = r;
}

/* len bytes of the file, the next ones, into dst: 0, or -1 (the error sticks). */
static int take(struct mg_coll_reader *it, void *dst, size_t len)
{
    struct mc_file *f = it->r->coll_file;
    uint8_t *d = dst;
    while (len) {
        if (it->at == it->n) {
            size_t got;
            if (!it->buf && !(it->buf = malloc(BLOCK)))
                return fail(f, "read", "out of memory");
            uint64_t left = f->end > it->off ? f->end - it->off : 0;
            size_t want = left < BLOCK ? (size_t)left : BLOCK;
            if (!want)
                return fail(f, "read", "cut short");
            if (st_pread_all(f->fd, it->buf, want, it->off, &got) != 0)
                return fail(f, "read", strerror(errno));
            if (got != want)
                return fail(f, "read", "cut short");
            it->off += want;
            it->at = 0;
            it->n = want;
        }
        size_t k = it->n - it->at < len ? it->n - it->at : len;
        memcpy(d, it->buf + it->at, k);
        it->at += k;
        d += k;
        len -= k;
    }
    return 0;
}

const struct mg_collective *mg_colls_next(struct mg_coll_reader *it)
{
    const struct mg_result *r = it->r;
    if (it->next >= r->ncollectives)
        return NULL;
    if (!r->coll_file) {   /* held in memory */
        it->index = it->next++;
        return &r->collectives[it->index];
    }
    if (r->coll_file->failed || take(it, &it->cur, sizeof it->cur) != 0)
        return NULL;
    if (it->cur.nmembers > it->cmembers) {
        struct mg_member *v = realloc(it->members, sizeof *v * it->cur.nmembers);
        if (!v) {
            fail(r->coll_file, "read", "out of memory");
            return NULL;
        }
        it->members = v;
        it->cmembers = it->cur.nmembers;
    }
    if (take(it, it->members, sizeof *it->members * it->cur.nmembers) != 0)
        return NULL;
    it->cur.members = it->members;
    it->index = it->next++;
    return &it->cur;
}

void mg_colls_end(struct mg_coll_reader *it)
{
    free(it->buf);
    free(it->members);
    it->buf = NULL;
    it->members = NULL;
    it->cmembers = it->at = it->n = 0;
}

const char *mg_colls_error(const struct mg_result *r)
{
    return r->coll_file && r->coll_file->failed ? r->coll_file->err : NULL;
}

void mg_colls_free(struct mg_collective *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free(c[i].members);
    free(c);
}

struct mg_collective *mg_colls_load(const struct mg_result *r)
{
    struct mg_collective *all = calloc(r->ncollectives ? r->ncollectives : 1, sizeof *all);
    if (!all)
        return NULL;
    struct mg_coll_reader it;
    mg_colls_begin(r, &it);
    size_t n = 0;
    for (const struct mg_collective *c; (c = mg_colls_next(&it)); n++) {
        all[n] = *c;
        all[n].members = malloc(sizeof *c->members * (c->nmembers ? c->nmembers : 1));
        if (!all[n].members)
            break;
        memcpy(all[n].members, c->members, sizeof *c->members * c->nmembers);
    }
    mg_colls_end(&it);
    if (n != r->ncollectives) {
        mg_colls_free(all, n);
        return NULL;
    }
    return all;
}
