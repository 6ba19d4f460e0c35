/* causal_aside.c — the causal build's records and cluster entries on
 * disk (causal_aside.h). */
#include "causal_aside.h"
#include "asidefile.h"
#include "extsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A rank reads its records a window at a time: the windows of all ranks
 * share WINDOWS_BYTES (each of 16 to 256 records as stored), so that a
 * pass over 10,000 ranks does not make a read per few records. */
#define WINDOWS_BYTES ((size_t)16 << 20)

/* Rank r's records [first, first + n), as stored; cur: the one last
 * asked for, unpacked. */
struct rec_window {
    unsigned char *rows;
    uint64_t first;
    uint32_t n;
    struct ci_rec cur;
    uint64_t cur_k;               /* + 1; 0: none (a pass asks for the same one at each event until it starts) */
};

struct ci_recs {
    uint32_t nranks, nlevels;
    size_t row;                   /* bytes of a record on disk: a prefix of struct ci_rec */
    uint32_t window;              /* records a window holds */
    struct st_extsort *sort;      /* until sealed */
    uint64_t *count, *first;      /* per rank: its records, where they start (in records) */
    struct st_aside own;          /* the file (a view reads its owner's) */
    struct st_aside *file;
    int open;
    const struct ci_recs *owner;  /* a view (ci_recs_view): its own windows, the owner's counts and file */
    struct rec_window *win;
    unsigned char *scratch;       /* rows read at once */
    size_t cscratch;
    char err[600];
};

/* A record's fields up to its levels' gcr, whole 8-byte words: rank and
 * start are at the same places in a row as in the struct. */
static size_t row_bytes(uint32_t nlevels)
{
    return (offsetof(struct ci_rec, gcr) + 4 * (size_t)nlevels + 7) & ~(size_t)7;
}
_Static_assert(sizeof(struct ci_rec) >= ((offsetof(struct ci_rec, gcr) + 4 * CI_MAX_LEVELS + 7) & ~(size_t)7),
               "a row is a prefix of the struct");

static int by_rank_start(const void *a, const void *b)
{
    const struct ci_rec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

struct ci_recs *ci_recs_new(uint32_t nranks, uint32_t nlevels, const char *dir, size_t sort_memory, char *err,
                            size_t errlen)
{
    struct ci_recs *s = calloc(1, sizeof *s);
    if (!s || !(s->count = calloc(nranks ? nranks : 1, sizeof *s->count))
        || !(s->first = calloc(nranks ? nranks : 1, sizeof *s->first))) {
        snprintf(err, errlen, "causal index: out of memory for %u ranks", nranks);
        ci_recs_free(s);
        return NULL;
    }
    s->nranks = nranks;
    s->nlevels = nlevels;
    s->row = row_bytes(nlevels);
    size_t w = WINDOWS_BYTES / s->row / (nranks ? nranks : 1);
    s->window = w < 16 ? 16 : w > 256 ? 256 : (uint32_t)w;
    if (!(s->sort = st_extsort_new(s->row, by_rank_start, sort_memory, dir, err, errlen))) {
        ci_recs_free(s);
        return NULL;
    }
    s->file = &s->own;
    if (st_aside_open(s->file, dir, "synctrace-records", "the causal index's records", err, errlen) != 0) {
        ci_recs_free(s);
        return NULL;
    }
    s->open = 1;
    return s;
}

static int recs_fail(struct ci_recs *s, const char *why)
{
    if (!s->err[0])
        snprintf(s->err, sizeof s->err, "%s", why);
    return -1;
}

int ci_recs_put(struct ci_recs *s, const struct ci_rec *x)
{
    if (!s->sort || x->rank >= s->nranks)
        return recs_fail(s, "a record put after the records were sealed, or of no rank");
    struct ci_rec row = *x;
    for (uint32_t k = s->nlevels; k < CI_MAX_LEVELS; k++)
        row.gcr[k] = 0;   /* padding of the row: the file holds no stray bytes */
    if (st_extsort_put(s->sort, &row) != 0)
        return recs_fail(s, st_extsort_error(s->sort));
    s->count[x->rank]++;
    return 0;
}

int ci_recs_seal(struct ci_recs *s)
{
    if (!s->sort)
        return recs_fail(s, "records sealed twice");
    if (st_extsort_finish(s->sort) != 0)
        return recs_fail(s, st_extsort_error(s->sort));
    unsigned char buf[1 << 16];
    size_t n = 0;
    for (const void *x; (x = st_extsort_next(s->sort));) {
        memcpy(buf + n, x, s->row);
        n += s->row;
        if (n + s->row > sizeof buf) {
            if (st_aside_write(s->file, buf, n) != 0)
                return recs_fail(s, s->file->err);
            n = 0;
        }
    }
    if (st_extsort_failed(s->sort))
        return recs_fail(s, st_extsort_error(s->sort));
    if (st_aside_write(s->file, buf, n) != 0)
        return recs_fail(s, s->file->err);
    st_extsort_free(s->sort);
    s->sort = NULL;
    uint64_t at = 0;
    for (uint32_t r = 0; r < s->nranks; r++) {
        s->first[r] = at;
        at += s->count[r];
    }
    if (at * s->row != s->file->end)
        return recs_fail(s, "the causal index's records: fewer written than put");
    if (!(s->win = calloc(s->nranks ? s->nranks : 1, sizeof *s->win)))
        return recs_fail(s, "out of memory");
    return 0;
}

uint64_t ci_recs_count(const struct ci_recs *s, uint32_t r)
{
    return s->count[r];
}

static void unpack(const struct ci_recs *s, const unsigned char *row, struct ci_rec *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out, row, s->row);
}

/* n rows from record `first` of all into out, unpacked. */
static int read_rows(struct ci_recs *s, uint64_t first, struct ci_rec *out, size_t n)
{
    size_t bytes = n * s->row;
    if (bytes > s->cscratch) {
        unsigned char *p = realloc(s->scratch, bytes);
        if (!p)
            return recs_fail(s, "out of memory");
        s->scratch = p;
        s->cscratch = bytes;
    }
    if (st_aside_read(s->file, s->scratch, bytes, first * s->row) != 0)
        return recs_fail(s, s->file->err);
    for (size_t k = 0; k < n; k++)
        unpack(s, s->scratch + k * s->row, &out[k]);
    return 0;
}

const struct ci_rec *ci_recs_at(struct ci_recs *s, uint32_t r, uint64_t k)
{
    struct rec_window *w = &s->win[r];
    if (w->cur_k == k + 1)
        return &w->cur;
    if (!w->rows || k < w->first || k >= w->first + w->n) {
        if (k >= s->count[r]) {
            recs_fail(s, "the causal index's records: read past a rank's last");
            return NULL;
        }
        if (!w->rows && !(w->rows = malloc(s->row * s->window))) {
            recs_fail(s, "out of memory");
            return NULL;
        }
        uint64_t left = s->count[r] - k;
        w->cur_k = 0;
        w->first = k;
        w->n = left < s->window ? (uint32_t)left : s->window;
        if (st_aside_read(s->file, w->rows, s->row * w->n, (s->first[r] + k) * s->row) != 0) {
            w->n = 0;
            recs_fail(s, s->file->err);
            return NULL;
        }
    }
    unpack(s, w->rows + (k - w->first) * s->row, &w->cur);
    w->cur_k = k + 1;
    return &w->cur;
}

void ci_recs_drop_windows(struct ci_recs *s)
{
    for (uint32_t r = 0; s->win && r < s->nranks; r++) {
        free(s->win[r].rows);
        s->win[r] = (struct rec_window){ 0 };
    }
}

int ci_recs_read(struct ci_recs *s, uint64_t first, struct ci_rec *out, size_t n)
{
    return read_rows(s, first, out, n);
}

const char *ci_recs_error(const struct ci_recs *s)
{
    return s->err;
}

struct ci_recs *ci_recs_view(const struct ci_recs *s)
{
    struct ci_recs *v = calloc(1, sizeof *v);
    if (!v || !(v->win = calloc(s->nranks ? s->nranks : 1, sizeof *v->win))) {
        free(v);
        return NULL;
    }
    v->nranks = s->nranks;
    v->nlevels = s->nlevels;
    v->row = s->row;
    v->window = s->window;
    v->count = s->count;
    v->first = s->first;
    v->file = s->file;
    v->owner = s;
    return v;
}

void ci_recs_free(struct ci_recs *s)
{
    if (!s)
        return;
    ci_recs_drop_windows(s);
    free(s->win);
    free(s->scratch);
    if (!s->owner) {
        st_extsort_free(s->sort);
        if (s->open)
            st_aside_close(s->file);
        free(s->count);
        free(s->first);
    }
    free(s);
}

/* ---------------------------------------------------------------- entries */

#define ENTRY_BLOCK ((size_t)1 << 18)   /* entries in memory at once (1 MB) */

struct ci_entries {
    uint64_t n;
    struct st_aside file;
    int open;
    uint32_t *blk;                /* entries [first, first + len) */
    size_t cap;
    uint64_t first;
    size_t len;
    int loaded, fresh;            /* fresh: the first pass (the file is all zeros) */
    char err[600];
};

struct ci_entries *ci_entries_new(uint64_t n, const char *dir, char *err, size_t errlen)
{
    struct ci_entries *e = calloc(1, sizeof *e);
    if (!e || !(e->blk = malloc(sizeof *e->blk * ENTRY_BLOCK))) {
        snprintf(err, errlen, "causal index: out of memory");
        free(e);
        return NULL;
    }
    e->n = n;
    e->cap = ENTRY_BLOCK;
    e->fresh = 1;
    if (st_aside_open(&e->file, dir, "synctrace-entries", "the causal index's cluster entries", err, errlen) != 0) {
        ci_entries_free(e);
        return NULL;
    }
    e->open = 1;
    if (st_aside_resize(&e->file, 4 * n) != 0) {
        snprintf(err, errlen, "%s", e->file.err);
        ci_entries_free(e);
        return NULL;
    }
    return e;
}

static int entries_fail(struct ci_entries *e, const char *why)
{
    if (!e->err[0])
        snprintf(e->err, sizeof e->err, "%s", why);
    return -1;
}

int ci_entries_flush(struct ci_entries *e)
{
    if (!e->loaded)
        return e->err[0] ? -1 : 0;
    e->loaded = 0;
    if (st_aside_pwrite(&e->file, e->blk, 4 * e->len, 4 * e->first) != 0)
        return entries_fail(e, e->file.err);
    return 0;
}

int ci_entries_rewind(struct ci_entries *e)
{
    int rc = ci_entries_flush(e);
    e->fresh = 0;   /* the pass wrote them: later passes read them back */
    e->first = e->len = 0;
    return rc;
}

uint32_t *ci_entries_span(struct ci_entries *e, uint64_t at, uint32_t len)
{
    if (e->loaded && at >= e->first && at + len <= e->first + e->len)
        return e->blk + (at - e->first);
    if (at < e->first || at > e->n || len > e->n - at) {
        entries_fail(e, "the causal index's cluster entries: out of order");
        return NULL;
    }
    if (ci_entries_flush(e) != 0)
        return NULL;
    if (len > e->cap) {   /* one cluster larger than the block */
        uint32_t *p = realloc(e->blk, sizeof *p * len);
        if (!p) {
            entries_fail(e, "out of memory");
            return NULL;
        }
        e->blk = p;
        e->cap = len;
    }
    e->first = at;
    e->len = e->n - at < e->cap ? (size_t)(e->n - at) : e->cap;
    if (e->fresh)
        memset(e->blk, 0, 4 * e->len);
    else if (st_aside_read(&e->file, e->blk, 4 * e->len, 4 * at) != 0) {
        entries_fail(e, e->file.err);
        return NULL;
    }
    e->loaded = 1;
    return e->blk;
}

int ci_entries_read(struct ci_entries *e, void *buf, size_t n, uint64_t off)
{
    if (st_aside_read(&e->file, buf, n, off) != 0)
        return entries_fail(e, e->file.err);
    return 0;
}

const char *ci_entries_error(const struct ci_entries *e)
{
    return e->err;
}

void ci_entries_free(struct ci_entries *e)
{
    if (!e)
        return;
    if (e->open)
        st_aside_close(&e->file);
    free(e->blk);
    free(e);
}
