/* collstream.c — see collstream.h. The file is the instances back to
 * back in memory's layout (each struct mg_collective, its members pointer
 * meaningless, then its members): it lives as long as the process, never
 * as a format. */
#include <config.h>
#include "collstream.h"
#include "asidefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK ((size_t)64 << 10)   /* written and read 64 KB at a time */

struct mc_file {
    struct st_aside a;
    uint8_t *pending;         /* BLOCK bytes buffered before a write */
    size_t npending;
};

struct mc_file *mc_file_new(const char *dir, char *err, size_t errlen)
{
    struct mc_file *f = calloc(1, sizeof *f);
    if (!f || !(f->pending = malloc(BLOCK))) {
        free(f);
        snprintf(err, errlen, "setting the matched collectives aside in %s: out of memory", dir);
        return NULL;
    }
    if (st_aside_open(&f->a, dir, "synctrace-collectives", "the matched collectives", err, errlen) != 0) {
        free(f->pending);
        free(f);
        return NULL;
    }
    return f;
}

int mc_file_flush(struct mc_file *f)
{
    if (st_aside_write(&f->a, f->pending, f->npending) != 0)
        return -1;
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
    if (f->a.failed)
        return -1;
    return put(f, c, sizeof *c) || put(f, c->members, sizeof *c->members * c->nmembers) ? -1 : 0;
}

const char *mc_file_error(const struct mc_file *f)
{
    return f && f->a.failed ? f->a.err : "";
}

uint64_t mc_file_bytes(const struct mc_file *f)
{
    return f ? f->a.end + f->npending : 0;
}

void mc_file_free(struct mc_file *f)
{
    if (!f)
        return;
    st_aside_close(&f->a);
    free(f->pending);
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
            if (!it->buf && !(it->buf = malloc(BLOCK)))
                return st_aside_fail(&f->a, "read", "out of memory");
            uint64_t left = f->a.end > it->off ? f->a.end - it->off : 0;
            size_t want = left < BLOCK ? (size_t)left : BLOCK;
            if (st_aside_read(&f->a, it->buf, want ? want : 1, it->off) != 0)   /* nothing left: cut short */
                return -1;
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
    it->offset = it->off - (it->n - it->at);
    if (r->coll_file->a.failed || take(it, &it->cur, sizeof it->cur) != 0)
        return NULL;
    if (it->cur.nmembers > it->cmembers) {
        struct mg_member *v = realloc(it->members, sizeof *v * it->cur.nmembers);
        if (!v) {
            st_aside_fail(&r->coll_file->a, "read", "out of memory");
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
    return r->coll_file && r->coll_file->a.failed ? r->coll_file->a.err : NULL;
}

int mg_colls_read_at(const struct mg_result *r, uint64_t offset, struct mg_collective *out)
{
    struct st_aside *a = &r->coll_file->a;
    out->members = NULL;
    if (st_aside_read(a, out, sizeof *out, offset) != 0)
        return -1;
    if (!(out->members = malloc(sizeof *out->members * (out->nmembers ? out->nmembers : 1))))
        return st_aside_fail(a, "read", "out of memory");
    if (st_aside_read(a, out->members, sizeof *out->members * out->nmembers, offset + sizeof *out) != 0) {
        free(out->members);
        out->members = NULL;
        return -1;
    }
    return 0;
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
