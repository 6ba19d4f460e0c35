/* truthstore.c — see truthstore.h. */
#include "truthstore.h"
#include "blockcache.h"
#include "fsutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TS_BLOCK 512u             /* values read at a time */
/* Blocks held: 4 a location (a message's two ends, a collective's
 * members: each location is read near one place at a time), 64 to 2048
 * (256 KB to 8 MB). Each location has slots of its own while there are
 * enough (two locations read in step, a message's sender and receiver,
 * would otherwise keep taking each other's slot). */
#define TS_SLOTS_PER_LOCATION 4u
#define TS_SLOTS_MIN 64u
#define TS_SLOTS_MAX 2048u

/* Events [from, from + n) of a location: values [at, at + n) of the file. */
struct ts_chunk {
    uint64_t from, n, at;
};

struct ts_loc {
    struct ts_chunk *c;
    uint32_t n, cap;
    uint32_t last;                /* the chunk the last read found */
    int has;                      /* its first event has a true time */
};

struct truth_store {
    int fd;
    uint32_t nlocs, nslots, per_loc;   /* slots, and a location's share of them */
    int cached;                   /* a block has been read since the last put */
    double ticks_per_s;
    struct ts_loc *locs;
    uint64_t written;             /* values in the file */
    struct st_blockcache cache;   /* nslots blocks of TS_BLOCK values */
    uint64_t buf[TS_BLOCK];       /* a put's values on their way */
    char dir[512];
    char err[640];
};

const char *ts_error(const struct truth_store *t)
{
    return t->err;
}

uint64_t ts_bytes(const struct truth_store *t)
{
    return t->written * sizeof(uint64_t);
}

void ts_free(struct truth_store *t)
{
    if (!t)
        return;
    for (uint32_t q = 0; t->locs && q < t->nlocs; q++)
        free(t->locs[q].c);
    free(t->locs);
    st_blockcache_free(&t->cache);
    if (t->fd >= 0)
        close(t->fd);
    free(t);
}

static int fail(struct truth_store *t, const char *op)
{
    if (!t->err[0])
        snprintf(t->err, sizeof t->err, "the true times set aside in %s: %s: %s", t->dir, op,
                 errno ? strerror(errno) : "cut short");
    return -1;
}

struct truth_store *ts_new(uint32_t nlocs, const char *dir, double ticks_per_s, char *err, size_t errlen)
{
    struct truth_store *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory for the true times");
        return NULL;
    }
    t->fd = -1;
    t->nlocs = nlocs;
    t->ticks_per_s = ticks_per_s;
    snprintf(t->dir, sizeof t->dir, "%s", dir ? dir : st_temp_dir());
    t->locs = calloc(nlocs ? nlocs : 1, sizeof *t->locs);
    uint64_t want = (uint64_t)nlocs * TS_SLOTS_PER_LOCATION;
    t->nslots = want < TS_SLOTS_MIN ? TS_SLOTS_MIN : want > TS_SLOTS_MAX ? TS_SLOTS_MAX : (uint32_t)want;
    t->per_loc = nlocs && t->nslots / nlocs ? t->nslots / nlocs : 1;
    if (!t->locs) {
        snprintf(err, errlen, "out of memory for the true times");
        ts_free(t);
        return NULL;
    }
    if ((t->fd = st_nameless_file(t->dir, "truth")) < 0) {
        snprintf(err, errlen, "the true times cannot be set aside in %s: %s", t->dir, strerror(errno));
        ts_free(t);
        return NULL;
    }
    if (st_blockcache_init(&t->cache, t->fd, sizeof *t->buf * TS_BLOCK, t->nslots) != 0) {
        snprintf(err, errlen, "out of memory for the true times");
        ts_free(t);
        return NULL;
    }
    return t;
}

/* A chunk of location q at file value `at` (joined to the last one when it
 * continues it). */
static int add_chunk(struct truth_store *t, struct ts_loc *l, uint64_t from, uint64_t n, uint64_t at)
{
    if (l->n) {
        struct ts_chunk *p = &l->c[l->n - 1];
        if (p->from + p->n == from && p->at + p->n == at) {
            p->n += n;
            return 0;
        }
    }
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 4;
        struct ts_chunk *c = realloc(l->c, sizeof *c * cap);
        if (!c) {
            errno = ENOMEM;
            return fail(t, "its index");
        }
        l->c = c;
        l->cap = cap;
    }
    l->c[l->n++] = (struct ts_chunk){ from, n, at };
    return 0;
}

int ts_put(struct truth_store *t, uint32_t q, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known)
{
    if (t->err[0] || q >= t->nlocs)
        return -1;
    struct ts_loc *l = &t->locs[q];
    if (from == 0 && n > 0)
        l->has = (int)(known[0] & 1);
    if (add_chunk(t, l, from, n, t->written) != 0)
        return -1;
    for (uint64_t k = 0; k < n;) {
        uint64_t m = n - k < TS_BLOCK ? n - k : TS_BLOCK;
        for (uint64_t j = 0; j < m; j++) {
            uint64_t b = k + j;
            /* as the report has always converted them: one rate for the run */
            t->buf[j] = known[b / 64] >> (b % 64) & 1 ? (uint64_t)llround((double)raw[k + j] / t->ticks_per_s * 1e9)
                                                      : TS_UNKNOWN;
        }
        errno = 0;
        if (st_pwrite_all(t->fd, t->buf, sizeof *t->buf * m, t->written * sizeof *t->buf) != 0)
            return fail(t, "write");
        /* a block read before this write would be stale */
        if (t->cached) {
            st_blockcache_forget(&t->cache);
            t->cached = 0;
        }
        t->written += m;
        k += m;
    }
    return 0;
}

int ts_has(const struct truth_store *t, uint32_t q)
{
    return t && q < t->nlocs && t->locs[q].has;
}

/* The chunk of location q that holds event i, or NULL. */
static const struct ts_chunk *chunk_of(struct truth_store *t, uint32_t q, uint64_t i)
{
    if (q >= t->nlocs || !t->locs[q].n)
        return NULL;
    struct ts_loc *l = &t->locs[q];
    const struct ts_chunk *c = &l->c[l->last < l->n ? l->last : 0];
    if (i >= c->from && i - c->from < c->n)
        return c;
    uint32_t lo = 0, hi = l->n;   /* the last chunk starting at or before i */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->c[mid].from <= i)
            lo = mid;
        else
            hi = mid;
    }
    c = &l->c[lo];
    if (i < c->from || i - c->from >= c->n)
        return NULL;
    l->last = lo;
    return c;
}

uint64_t ts_get(struct truth_store *t, uint32_t q, uint64_t i)
{
    const struct ts_chunk *c = chunk_of(t, q, i);
    if (!c)
        return TS_UNKNOWN;
    uint64_t g = c->at + (i - c->from), blk = g / TS_BLOCK;
    uint32_t s = (q % (t->nslots / t->per_loc)) * t->per_loc + (uint32_t)(blk % t->per_loc);
    uint64_t first = blk * TS_BLOCK, m = t->written - first < TS_BLOCK ? t->written - first : TS_BLOCK;
    const uint64_t *v = st_blockcache_get(&t->cache, s, blk, first * sizeof *v, sizeof *v * m);
    if (!v) {
        if (!t->err[0])
            snprintf(t->err, sizeof t->err, "the true times set aside in %s: read: %s", t->dir,
                     st_blockcache_why(&t->cache));
        return TS_UNKNOWN;
    }
    t->cached = 1;
    return v[g % TS_BLOCK];
}

void ts_cursor_init(struct ts_cursor *c, struct truth_store *t, uint32_t q)
{
    c->t = t;
    c->q = q;
    c->lo = c->hi = 0;
}

uint64_t ts_cursor_fill(struct ts_cursor *c, uint64_t i)
{
    struct truth_store *t = c->t;
    const struct ts_chunk *k = t ? chunk_of(t, c->q, i) : NULL;
    c->lo = c->hi = 0;
    if (!k || t->err[0])
        return TS_UNKNOWN;
    uint64_t m = k->from + k->n - i < TS_CURSOR_BLOCK ? k->from + k->n - i : TS_CURSOR_BLOCK;
    size_t got = 0;
    errno = 0;
    if (st_pread_all(t->fd, c->v, sizeof *c->v * m, (k->at + (i - k->from)) * sizeof *c->v, &got) != 0
        || got != sizeof *c->v * m) {
        fail(t, "read");
        return TS_UNKNOWN;
    }
    c->lo = i;
    c->hi = i + m;
    return c->v[0];
}
