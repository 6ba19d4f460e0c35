/* eventspill.c — see eventspill.h. A location's events are one or more
 * chunks in the file (a reader taking a location chunk by chunk sets each
 * aside as it comes), each a record:
 *
 *   header   (struct header)
 *   slots    n x struct rt_slot: events [first, first + n)
 *   columns  req, bytes, received of those events: n x { index, value }
 *   times    (struct times_header) the same events' times in rt_times
 *            form from the chunk's first event: base per block, delta
 *            per event, the wide blocks' times; about 4 bytes an event,
 *            for the stages that walk the times (rt_time_read) without
 *            the slots
 *
 * A location's sparse members' sources stay in memory: the match reads
 * them after the pass (flow.c, which members a sparse collective member
 * received from), and they are few (one entry per sparse member).
 * The file lives as long as the process; nothing in it outlives the run,
 * so it is in memory's layout, not a portable format. */
#include <config.h>
#include "eventspill.h"
#include "fsutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPILL_MAGIC UINT64_C(0x53545350494c4c32)   /* "STSPILL2" */

struct header {
    uint64_t magic, first, nevents, nreq, nbytes, nreceived;
};

#define TIMES_MAGIC UINT64_C(0x5354544d45533031)   /* "STTMES01" */

struct times_header {
    uint64_t magic, first, nevents, nwide;
};

struct rt_spill {
    int fd;
    uint64_t end;             /* bytes written */
    int failed;               /* the first error sticks: the file's end is no longer known */
    int times_only;           /* rt_spill_keep_times_only */
    char *dir;
    char err[512];
};

static int fail(struct rt_spill *s, const char *fmt, ...)
{
    if (!s->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
        s->failed = 1;
    }
    return -1;
}

/* len bytes at `at` of the file into p: 0, or -1 saying why (the read's
 * error, or a file shorter than what was written to it). */
static int read_back(struct rt_spill *s, void *p, size_t len, uint64_t at)
{
    const char *why = st_pread_exact(s->fd, p, len, at);
    return why ? fail(s, "events set aside in %s: read: %s", s->dir, why) : 0;
}

struct rt_spill *rt_spill_new(const char *dir, char *err, size_t errlen)
{
    struct rt_spill *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir))) {
        free(s);
        snprintf(err, errlen, "events set aside in %s: out of memory", dir);
        return NULL;
    }
    if ((s->fd = st_nameless_file(dir, "synctrace-events")) < 0) {
        snprintf(err, errlen, "%s: cannot make a file to set events aside: %s", dir, strerror(errno));
        free(s->dir);
        free(s);
        return NULL;
    }
    return s;
}

/* The pieces of a chunk's record, in file order. */
struct piece {
    void *p;
    size_t len;
};

static size_t pieces_of(struct rt_location *r, const struct header *h, struct piece v[6])
{
    struct rt_store_side *side = &r->side;
    size_t n = 0;
    v[n++] = (struct piece){ (void *)h, sizeof *h };
    v[n++] = (struct piece){ r->events, sizeof *r->events * h->nevents };
    v[n++] = (struct piece){ side->req.v, sizeof *side->req.v * h->nreq };
    v[n++] = (struct piece){ side->bytes.v, sizeof *side->bytes.v * h->nbytes };
    v[n++] = (struct piece){ side->received.v, sizeof *side->received.v * h->nreceived };
    return n;
}

/* The events a location has in the file: [0, end). */
static uint64_t spilled_end(const struct rt_location *r)
{
    const struct rt_spill_chunk *c = r->nspill_chunks ? &r->spill_chunks[r->nspill_chunks - 1] : NULL;
    return c ? c->first + c->n : 0;
}

/* Times t of events [first, first + t->n) as a times record at the
 * file's end: 0 or -1. */
static int put_times(struct rt_spill *s, uint64_t first, const struct rt_times *t, uint64_t *at)
{
    uint64_t nblocks = (t->n + RT_TIME_BLOCK - 1) / RT_TIME_BLOCK;
    struct times_header h = { TIMES_MAGIC, first, t->n, t->nwide };
    struct piece v[4] = {
        { &h, sizeof h },
        { t->base, sizeof *t->base * nblocks },
        { t->delta, sizeof *t->delta * t->n },
        { t->wide, sizeof *t->wide * t->nwide },
    };
    *at = s->end;
    for (int k = 0; k < 4; k++) {
        if (v[k].len && st_write_all(s->fd, v[k].p, v[k].len) != 0)
            return fail(s, "events set aside in %s: write: %s", s->dir, strerror(errno));
        s->end += v[k].len;
    }
    return 0;
}

/* The held slots' times (given, or found here) as a times record at the
 * file's end: 0 or -1. */
static int write_times(struct rt_spill *s, const struct rt_location *r, const struct rt_times *given, uint64_t *at)
{
    if (given)
        return put_times(s, r->events_from, given, at);
    struct rt_times *t = rt_times_of(r->events, r->nheld);   /* numbered from the chunk's first event */
    if (!t)
        return fail(s, "events set aside in %s: out of memory", s->dir);
    int rc = put_times(s, r->events_from, t, at);
    rt_times_free(t);
    return rc;
}

/* A chunk whose events another process holds (rt_spill_times), and one
 * whose events were not kept (rt_spill_keep_times_only). */
#define NO_EVENTS UINT64_MAX
#define TIMES_ONLY (UINT64_MAX - 1)

void rt_spill_keep_times_only(struct rt_spill *s)
{
    s->times_only = 1;
}

int rt_spill_times(struct rt_spill *s, struct rt_location *r, uint64_t first, const struct rt_times *t)
{
    if (s->failed)
        return -1;
    if (r->events || first != spilled_end(r))
        return fail(s, "events set aside in %s: times of location %llu out of order", s->dir,
                    (unsigned long long)r->location);
    if (!t->n)
        return 0;
    struct rt_spill_chunk *chunks = realloc(r->spill_chunks, sizeof *chunks * (r->nspill_chunks + 1));
    if (!chunks)
        return fail(s, "events set aside in %s: out of memory", s->dir);
    r->spill_chunks = chunks;
    uint64_t times_at;
    if (put_times(s, first, t, &times_at) != 0)
        return -1;
    chunks[r->nspill_chunks++] = (struct rt_spill_chunk){ first, t->n, NO_EVENTS, times_at };
    r->spill = s;
    return 0;
}

int rt_spill_out(struct rt_spill *s, struct rt_location *r)
{
    return rt_spill_out_times(s, r, NULL);
}

int rt_spill_out_times(struct rt_spill *s, struct rt_location *r, const struct rt_times *times)
{
    if (s->failed)
        return -1;
    if (!r->events || !r->nheld)
        return 0;
    if (r->events_from < spilled_end(r)) {   /* brought back: the file still has them */
        rt_store_drop(r);
        return 0;
    }
    struct rt_spill_chunk *chunks = realloc(r->spill_chunks, sizeof *chunks * (r->nspill_chunks + 1));
    if (!chunks)
        return fail(s, "events set aside in %s: out of memory", s->dir);
    r->spill_chunks = chunks;
    struct header h = { SPILL_MAGIC, r->events_from, r->nheld, r->side.req.n, r->side.bytes.n,
                        r->side.received.n };
    struct piece v[6];
    size_t n = s->times_only ? 0 : pieces_of(r, &h, v);
    uint64_t at = s->times_only ? TIMES_ONLY : s->end, times_at = 0;
    for (size_t k = 0; k < n; k++) {
        if (v[k].len && st_write_all(s->fd, v[k].p, v[k].len) != 0)
            return fail(s, "events set aside in %s: write: %s", s->dir, strerror(errno));
        s->end += v[k].len;
    }
    if (write_times(s, r, times, &times_at) != 0)
        return -1;
    struct rt_facts f;   /* added to the chunks' before (none: zero) */
    rt_facts_held(r, &f);
    rt_facts_add(&r->spilled_facts, &f);
    chunks[r->nspill_chunks++] = (struct rt_spill_chunk){ r->events_from, r->nheld, at, times_at };
    r->spill = s;
    rt_store_drop(r);   /* the sources stay, and the true times the merge has not handed on (rt_truth_hand) */
    return 0;
}

/* The chunk that holds event i of a set-aside location. */
static uint32_t chunk_of(const struct rt_location *r, uint64_t i)
{
    uint32_t lo = 0, hi = r->nspill_chunks;   /* the last chunk beginning at or before i */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->spill_chunks[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Chunk c's record read into `in` (slots at in->events + into, columns
 * appended): 0, or -1. */
static int read_chunk(struct rt_spill *s, const struct rt_spill_chunk *c, struct rt_location *in, uint64_t into)
{
    struct header h;
    if (c->at == NO_EVENTS)
        return fail(s, "events set aside in %s: another process read these events", s->dir);
    if (c->at == TIMES_ONLY)
        return fail(s, "events set aside in %s: only their times were kept", s->dir);
    if (read_back(s, &h, sizeof h, c->at) != 0)
        return -1;
    if (h.magic != SPILL_MAGIC || h.first != c->first || h.nevents != c->n)
        return fail(s, "events set aside in %s: the file was changed under us", s->dir);
    struct rt_store_side *side = &in->side;
    struct rt_column *cols[3] = { &side->req, &side->bytes, &side->received };
    uint64_t counts[3] = { h.nreq, h.nbytes, h.nreceived };
    for (int k = 0; k < 3; k++)
        if (cols[k]->n + counts[k] > cols[k]->cap) {
            size_t cap = cols[k]->n + counts[k];
            void *nv = realloc(cols[k]->v, sizeof *cols[k]->v * (cap ? cap : 1));
            if (!nv)
                return fail(s, "events set aside in %s: out of memory", s->dir);
            cols[k]->v = nv;
            cols[k]->cap = cap;
        }
    struct piece v[4] = {
        { in->events + into, sizeof *in->events * h.nevents },
        { side->req.v + side->req.n, sizeof *side->req.v * h.nreq },
        { side->bytes.v + side->bytes.n, sizeof *side->bytes.v * h.nbytes },
        { side->received.v + side->received.n, sizeof *side->received.v * h.nreceived },
    };
    uint64_t at = c->at + sizeof h;
    for (int k = 0; k < 4; k++) {
        if (v[k].len && read_back(s, v[k].p, v[k].len, at) != 0)
            return -1;
        at += v[k].len;
    }
    for (int k = 0; k < 3; k++)
        cols[k]->n += counts[k];
    return 0;
}

/* Chunks [c0, c1) back into r, which holds none: events [first of c0, end of c1 - 1). */
static int load(struct rt_spill *s, struct rt_location *r, uint32_t c0, uint32_t c1)
{
    const struct rt_spill_chunk *c = r->spill_chunks;
    uint64_t from = c[c0].first, n = c[c1 - 1].first + c[c1 - 1].n - from;
    struct rt_location in = { 0 };
    if (!(in.events = malloc(sizeof *in.events * (n ? n : 1))))
        return fail(s, "events set aside in %s: out of memory", s->dir);
    int rc = 0;
    for (uint32_t k = c0; k < c1 && rc == 0; k++)
        rc = read_chunk(s, &c[k], &in, c[k].first - from);
    if (rc != 0) {
        free(in.events);
        free(in.side.req.v);
        free(in.side.bytes.v);
        free(in.side.received.v);
        return -1;
    }
    struct rt_store_side *side = &r->side;
    r->events = in.events;
    r->events_from = from;
    r->nheld = n;
    side->slot_cap = n;
    side->req = in.side.req;
    side->bytes = in.side.bytes;
    side->received = in.side.received;
    return 0;
}

int rt_spill_in(struct rt_spill *s, struct rt_location *r)
{
    if (s->failed)
        return -1;
    if (!r->nspill_chunks || (r->events && r->events_from == 0 && r->nheld == r->nevents))
        return 0;
    rt_store_drop(r);
    return load(s, r, 0, r->nspill_chunks);
}

int rt_spill_in_at(struct rt_spill *s, struct rt_location *r, uint64_t i)
{
    if (s->failed)
        return -1;
    if (!r->nspill_chunks || (r->events && i >= r->events_from && i < r->events_from + r->nheld))
        return 0;
    uint32_t k = chunk_of(r, i);
    rt_store_drop(r);
    return load(s, r, k, k + 1);
}

/* A chunk's times record read into t (its arrays made; numbered from the
 * chunk's first event): 0, or -1. */
static int load_times(struct rt_spill *s, const struct rt_spill_chunk *c, struct rt_times *t)
{
    struct times_header h;
    if (read_back(s, &h, sizeof h, c->times_at) != 0)
        return -1;
    if (h.magic != TIMES_MAGIC || h.first != c->first || h.nevents != c->n)
        return fail(s, "events set aside in %s: the file was changed under us", s->dir);
    uint64_t nblocks = (h.nevents + RT_TIME_BLOCK - 1) / RT_TIME_BLOCK;
    t->base = malloc(sizeof *t->base * (nblocks ? nblocks : 1));
    t->delta = malloc(sizeof *t->delta * (h.nevents ? h.nevents : 1));
    t->wide = malloc(sizeof *t->wide * (h.nwide ? h.nwide : 1));
    t->n = t->cap = h.nevents;
    t->nwide = t->cwide = h.nwide;
    if (!t->base || !t->delta || !t->wide)
        return fail(s, "events set aside in %s: out of memory", s->dir);
    struct piece v[3] = {
        { t->base, sizeof *t->base * nblocks },
        { t->delta, sizeof *t->delta * h.nevents },
        { t->wide, sizeof *t->wide * h.nwide },
    };
    uint64_t at = c->times_at + sizeof h;
    for (int k = 0; k < 3; k++) {
        if (v[k].len && read_back(s, v[k].p, v[k].len, at) != 0)
            return -1;
        at += v[k].len;
    }
    return 0;
}

static void times_release(struct rt_times *t)
{
    free(t->base);
    free(t->delta);
    free(t->wide);
    memset(t, 0, sizeof *t);
}

void rt_time_reader_init(struct rt_time_reader *tr, const struct rt_location *r)
{
    memset(tr, 0, sizeof *tr);
    tr->r = r;
}

uint64_t rt_time_read_far(struct rt_time_reader *tr, uint64_t i)
{
    const struct rt_location *r = tr->r;
    if (!r->nspill_chunks || !r->spill || i >= spilled_end(r))
        return 0;   /* no such event: a caller's error, never read past the file */
    times_release(&tr->t);
    tr->first = tr->n = 0;
    const struct rt_spill_chunk *c = &r->spill_chunks[chunk_of(r, i)];
    if (load_times(r->spill, c, &tr->t) != 0) {
        times_release(&tr->t);
        return 0;   /* the failure sticks in the file: the merge fails (rt_spill_error) */
    }
    tr->first = c->first;
    tr->n = c->n;
    return rt_times_get(&tr->t, i - tr->first);
}

void rt_time_reader_free(struct rt_time_reader *tr)
{
    times_release(&tr->t);
    tr->first = tr->n = 0;
}

const char *rt_spill_error(const struct rt_spill *s)
{
    return s->failed ? s->err : "";
}

uint64_t rt_spill_bytes(const struct rt_spill *s)
{
    return s ? s->end : 0;
}

void rt_spill_free(struct rt_spill *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s->dir);
    free(s);
}
