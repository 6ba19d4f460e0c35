/* mtorder.c — the events of a merged archive in time order (mt_read_events,
 * mtread.h), in memory bounded by the number of locations, never by the
 * number of events.
 *
 * OTF2's global reader holds a chunk buffer per location (256 KiB in a
 * merged archive): 2.6 GB at 10,000 locations. Here a location's next
 * event waits in a slot, and a heap of the locations by (time, location
 * index) says whose comes next. Up to max_open locations, each slot is
 * filled by the location's own OTF2 reader. Beyond, each location is read
 * alone, one after the other, and its events are written, compactly
 * encoded, to one nameless file (a location's events stay together); the
 * slots are then filled from that file through a small window per
 * location. Both ways give the same order, so the output of a reader
 * does not depend on how many locations fit.
 *
 * An event's encoding: its kind; a byte of flags, one per field that is
 * not zero (has_truth/truth, req, bytes, received, ref, peer, tag) and one
 * for sources that follow; the time as a zigzag varint of its difference
 * to the location's previous event; the fields as varints; the sources as
 * a varint count and, unless unknown, their words. */
#include <config.h>
#include "mtread_events.h"
#include "asidefile.h"
#include "fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum {
    F_TRUTH = 1, F_REQ = 2, F_BYTES = 4, F_RECEIVED = 8, F_REF = 16, F_PEER = 32, F_TAG = 64, F_SOURCES = 128
};
#define HEAD_MAX (2 + 10 + 4 * 10 + 3 * 5 + 5)   /* a record but its source words */
#define WINDOW 4096u                             /* bytes read at a time per location */
#define WRITE_BUFFER (1u << 20)

/* A location's next event. */
struct slot {
    struct rt_event e;
    uint32_t nslots;          /* its sources (has_sources) */
    uint32_t cap;             /* words room in bits */
    uint64_t *bits;           /* NULL: RT_SOURCES_UNKNOWN */
    uint8_t full, has_sources;
};

/* The events written in order of location, kept for another pass. */
struct mt_order {
    struct st_aside file;
    uint64_t *start;          /* [nlocations + 1]: location i's bytes are start[i] .. start[i+1] */
    size_t max_record;
};

struct run {
    struct mt_trace *t;
    struct slot *slots;
    uint32_t *heap, nheap;
    int failed;               /* out of memory keeping sources */
    /* the writing pass */
    struct mt_order *order;
    uint8_t *wbuf;
    size_t wlen;
    struct slot pending;      /* written when the next event comes: its sources may follow it */
    uint64_t prev_time;
};

/* ---------- slots ---------- */

/* The words may lie anywhere (the file's bytes): copied, never read in place. */
static int keep_sources(struct slot *s, uint32_t nslots, const void *bits)
{
    s->has_sources = 1;
    s->nslots = nslots;
    if (!bits) {
        free(s->bits);
        s->bits = NULL;
        s->cap = 0;
        return 0;
    }
    uint32_t words = (nslots + 63) / 64;
    if (words > s->cap || !s->bits) {
        uint64_t *nb = realloc(s->bits, sizeof *nb * (words ? words : 1));
        if (!nb)
            return -1;
        s->bits = nb;
        s->cap = words;
    }
    memcpy(s->bits, bits, sizeof *s->bits * words);
    return 0;
}

static int fill_event(void *user, uint32_t loc, const struct rt_event *e)
{
    struct slot *s = &((struct run *)user)->slots[loc];
    s->e = *e;
    s->full = 1;
    s->has_sources = 0;
    return 0;
}

static int fill_sources(void *user, uint32_t loc, uint32_t nslots, const uint64_t *bits)
{
    struct run *r = user;
    if (keep_sources(&r->slots[loc], nslots, bits) != 0) {
        r->failed = 1;
        return -1;
    }
    return 0;
}

/* ---------- the heap of locations by their next event ---------- */

static int before(const struct run *r, uint32_t a, uint32_t b)
{
    uint64_t ta = r->slots[a].e.time, tb = r->slots[b].e.time;
    return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct run *r, uint32_t k)
{
    for (;;) {
        uint32_t c = 2 * k + 1;
        if (c >= r->nheap)
            return;
        if (c + 1 < r->nheap && before(r, r->heap[c + 1], r->heap[c]))
            c++;
        if (!before(r, r->heap[c], r->heap[k]))
            return;
        uint32_t x = r->heap[c];
        r->heap[c] = r->heap[k];
        r->heap[k] = x;
        k = c;
    }
}

static void heap_make(struct run *r)
{
    for (uint32_t k = r->nheap / 2; k-- > 0;)
        sift_down(r, k);
}

/* ---------- the encoding ---------- */

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* NULL if the record runs past end (a damaged file: never written so). */
static const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return p;
        }
    }
    return NULL;
}

static size_t encode(const struct slot *s, uint64_t prev_time, uint8_t *out)
{
    const struct rt_event *e = &s->e;
    uint8_t *p = out + 2;
    int64_t dt = (int64_t)(e->time - prev_time);
    p = put_varint(p, ((uint64_t)dt << 1) ^ (uint64_t)(dt >> 63));
    uint8_t flags = 0;
#define FIELD(flag, cond, value) do { if (cond) { flags |= (flag); p = put_varint(p, (value)); } } while (0)
    FIELD(F_TRUTH, e->has_truth, e->truth);
    FIELD(F_REQ, e->req, e->req);
    FIELD(F_BYTES, e->bytes, e->bytes);
    FIELD(F_RECEIVED, e->received, e->received);
    FIELD(F_REF, e->ref, e->ref);
    FIELD(F_PEER, e->peer, e->peer);
    FIELD(F_TAG, e->tag, e->tag);
#undef FIELD
    if (s->has_sources) {
        flags |= F_SOURCES;
        p = put_varint(p, s->bits ? s->nslots : RT_SOURCES_UNKNOWN);
        if (s->bits) {
            size_t n = sizeof *s->bits * ((s->nslots + 63) / 64);
            memcpy(p, s->bits, n);
            p += n;
        }
    }
    out[0] = e->kind;
    out[1] = flags;
    return (size_t)(p - out);
}

/* One record from p (at most end): its length, or 0 if damaged. */
static size_t decode(struct slot *s, uint64_t prev_time, const uint8_t *p, const uint8_t *end)
{
    const uint8_t *q = p + 2;
    uint64_t v = 0;
    if (end - p < 3 || !(q = get_varint(q, end, &v)))
        return 0;
    struct rt_event e = { .kind = p[0] };
    uint8_t flags = p[1];
    e.time = prev_time + (uint64_t)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
#define FIELD(flag, dst) do { if (flags & (flag)) { if (!(q = get_varint(q, end, &v))) return 0; dst; } } while (0)
    FIELD(F_TRUTH, (e.has_truth = 1, e.truth = v));
    FIELD(F_REQ, e.req = v);
    FIELD(F_BYTES, e.bytes = v);
    FIELD(F_RECEIVED, e.received = v);
    FIELD(F_REF, e.ref = (uint32_t)v);
    FIELD(F_PEER, e.peer = (uint32_t)v);
    FIELD(F_TAG, e.tag = (uint32_t)v);
#undef FIELD
    s->e = e;
    s->full = 1;
    s->has_sources = 0;
    if (flags & F_SOURCES) {
        if (!(q = get_varint(q, end, &v)) || v > UINT32_MAX)
            return 0;
        if (v == RT_SOURCES_UNKNOWN) {
            if (keep_sources(s, (uint32_t)v, NULL) != 0)
                return 0;
        } else {
            size_t n = sizeof(uint64_t) * (size_t)((v + 63) / 64);
            if ((size_t)(end - q) < n)
                return 0;
            if (keep_sources(s, (uint32_t)v, q) != 0)
                return 0;
            q += n;
        }
    }
    return (size_t)(q - p);
}

/* ---------- writing the events location after location ---------- */

static int write_pending(struct run *r)
{
    struct slot *s = &r->pending;
    if (!s->full)
        return 0;
    size_t need = HEAD_MAX + (s->has_sources && s->bits ? sizeof *s->bits * ((s->nslots + 63) / 64) : 0);
    if (r->wlen + need > WRITE_BUFFER) {
        if (st_aside_write(&r->order->file, r->wbuf, r->wlen) != 0)
            return -1;
        r->wlen = 0;
    }
    uint8_t *out = need <= WRITE_BUFFER ? r->wbuf + r->wlen : NULL;
    size_t len;
    if (out) {
        len = encode(s, r->prev_time, out);
        r->wlen += len;
    } else {   /* a record beyond the buffer: sources of millions of ranks */
        uint8_t *big = malloc(need);
        if (!big)
            return -1;
        len = encode(s, r->prev_time, big);
        int rc = st_aside_write(&r->order->file, big, len);
        free(big);
        if (rc != 0)
            return -1;
    }
    if (len > r->order->max_record)
        r->order->max_record = len;
    r->prev_time = s->e.time;
    s->full = 0;
    return 0;
}

static int write_event(void *user, uint32_t loc, const struct rt_event *e)
{
    struct run *r = user;
    (void)loc;
    if (write_pending(r) != 0) {
        r->failed = 1;
        return -1;
    }
    r->pending.e = *e;
    r->pending.full = 1;
    r->pending.has_sources = 0;
    return 0;
}

static int write_sources(void *user, uint32_t loc, uint32_t nslots, const uint64_t *bits)
{
    struct run *r = user;
    (void)loc;
    if (keep_sources(&r->pending, nslots, bits) != 0) {
        r->failed = 1;
        return -1;
    }
    return 0;
}

void mt_order_free(struct mt_order *o)
{
    if (!o)
        return;
    st_aside_close(&o->file);
    free(o->start);
    free(o);
}

static struct mt_order *write_in_location_order(struct run *r, char *err, size_t errlen)
{
    struct mt_trace *t = r->t;
    struct mt_order *o = calloc(1, sizeof *o);
    if (!o || !(o->start = calloc((size_t)t->nlocations + 1, sizeof *o->start))
        || !(r->wbuf = malloc(WRITE_BUFFER))) {
        snprintf(err, errlen, "out of memory");
        if (o)
            free(o->start);
        free(o);
        return NULL;
    }
    if (st_aside_open(&o->file, t->spill_dir && *t->spill_dir ? t->spill_dir : st_temp_dir(), "synctrace-order", "the events put in time order", err, errlen) != 0) {
        free(o->start);
        free(o);
        return NULL;
    }
    r->order = o;
    struct mt_events *ev = mt_events_begin(t, write_event, t->on_sources ? write_sources : NULL, r, err, errlen);
    int rc = ev ? 0 : -1;
    for (uint32_t i = 0; i < t->nlocations && !rc; i++) {
        o->start[i] = o->file.end + r->wlen;
        r->prev_time = 0;
        uint64_t got;
        do
            rc = mt_events_read(ev, i, 4096, &got, err, errlen);
        while (!rc && got);
        mt_events_close_location(ev, i);
        if (!rc && write_pending(r) != 0)
            rc = -1;
    }
    mt_events_end(ev);
    if (!rc && r->wlen && st_aside_write(&o->file, r->wbuf, r->wlen) != 0)
        rc = -1;
    o->start[t->nlocations] = o->file.end;
    if (rc && (o->file.failed || r->failed))
        snprintf(err, errlen, "%s", o->file.failed ? o->file.err : "out of memory");
    free(r->wbuf);
    r->wbuf = NULL;
    r->order = NULL;
    if (rc) {
        mt_order_free(o);
        return NULL;
    }
    return o;
}

/* ---------- the order ---------- */

struct window {
    uint64_t off;             /* next byte of the file to read */
    uint32_t pos, len;        /* what of buf is unread */
    uint64_t prev_time;
};

/* Location i's next event into its slot from the file (slot not full at its end). */
static int next_from_file(struct run *r, const struct mt_order *o, struct window *w, uint8_t *buf, size_t cap,
                          uint32_t i, char *err, size_t errlen)
{
    struct slot *s = &r->slots[i];
    s->full = 0;
    uint64_t end = o->start[i + 1];
    if (w->len - w->pos < o->max_record && w->off < end) {
        uint32_t rest = w->len - w->pos;
        memmove(buf, buf + w->pos, rest);
        uint64_t n = cap - rest;
        if (n > end - w->off)
            n = end - w->off;
        if (st_aside_read((struct st_aside *)&o->file, buf + rest, (size_t)n, w->off) != 0) {
            snprintf(err, errlen, "%s", o->file.err);
            return -1;
        }
        w->off += n;
        w->pos = 0;
        w->len = rest + (uint32_t)n;
    }
    if (w->pos == w->len)
        return 0;
    size_t len = decode(s, w->prev_time, buf + w->pos, buf + w->len);
    if (!len) {
        snprintf(err, errlen, "%s set aside in %s: a damaged record of location %u", o->file.what, o->file.dir, i);
        return -1;
    }
    w->pos += (uint32_t)len;
    w->prev_time = s->e.time;
    return 0;
}

static int deliver(struct run *r, uint32_t i, mt_event_fn fn, void *user)
{
    const struct slot *s = &r->slots[i];
    if (fn(user, i, &s->e) != 0)
        return -1;
    if (s->has_sources && r->t->on_sources && r->t->on_sources(user, i, s->nslots, s->bits) != 0)
        return -1;
    return 0;
}

/* Locations read at once: as asked, within the files this process may
 * open (OTF2 keeps a location's event file open while its reader is). */
static uint32_t open_at_once(const struct mt_trace *t)
{
    uint32_t n = t->max_open ? t->max_open : MT_OPEN_LOCATIONS;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        rlim_t room = rl.rlim_cur > 64 ? rl.rlim_cur - 64 : 1;
        if (room < n)
            n = (uint32_t)room;
    }
    return n;
}

int mt_read_events(struct mt_trace *t, mt_event_fn fn, void *user, char *err, size_t errlen)
{
    uint32_t n = t->nlocations, max_open = open_at_once(t);
    struct run r = { .t = t };
    struct mt_events *ev = NULL;
    struct window *win = NULL;
    uint8_t *bufs = NULL;
    size_t cap = 0;
    int rc = -1;
    r.slots = calloc(n ? n : 1, sizeof *r.slots);
    r.heap = malloc(sizeof *r.heap * (n ? n : 1));
    if (!r.slots || !r.heap) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    int direct = n <= max_open;
    if (!direct && !t->order && !(t->order = write_in_location_order(&r, err, errlen)))
        goto done;
    if (direct) {
        if (!(ev = mt_events_begin(t, fill_event, t->on_sources ? fill_sources : NULL, &r, err, errlen)))
            goto done;
    } else {
        cap = WINDOW > 2 * t->order->max_record ? WINDOW : 2 * t->order->max_record;
        win = calloc(n, sizeof *win);
        bufs = malloc(cap * n);
        if (!win || !bufs) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    /* every location's first event */
    for (uint32_t i = 0; i < n; i++) {
        if (direct) {
            uint64_t got = 1;
            while (!r.slots[i].full && got)
                if (mt_events_read(ev, i, 1, &got, err, errlen) != 0)
                    goto failed;
        } else {
            win[i].off = t->order->start[i];
            if (next_from_file(&r, t->order, &win[i], bufs + cap * i, cap, i, err, errlen) != 0)
                goto done;
        }
        if (r.slots[i].full)
            r.heap[r.nheap++] = i;
        else if (direct)
            mt_events_close_location(ev, i);
    }
    heap_make(&r);
    while (r.nheap) {
        uint32_t i = r.heap[0];
        if (deliver(&r, i, fn, user) != 0)
            goto done;   /* the callback said why */
        r.slots[i].full = 0;
        if (direct) {
            uint64_t got = 1;
            while (!r.slots[i].full && got)
                if (mt_events_read(ev, i, 1, &got, err, errlen) != 0)
                    goto failed;
            if (!got)
                mt_events_close_location(ev, i);
        } else if (next_from_file(&r, t->order, &win[i], bufs + cap * i, cap, i, err, errlen) != 0) {
            goto done;
        }
        if (!r.slots[i].full)
            r.heap[0] = r.heap[--r.nheap];
        sift_down(&r, 0);
    }
    rc = 0;
    goto done;
failed:
    if (r.failed)
        snprintf(err, errlen, "out of memory");
done:
    mt_events_end(ev);
    for (uint32_t i = 0; r.slots && i < n; i++)
        free(r.slots[i].bits);
    free(r.pending.bits);
    free(r.slots);
    free(r.heap);
    free(win);
    free(bufs);
    return rc;
}
