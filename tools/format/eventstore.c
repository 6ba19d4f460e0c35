/* eventstore.c — a location's events in 32-byte slots with their rare
 * fields beside them (eventstore.h). */
#include <config.h>
#include "rawtrace.h"

#include <stdlib.h>
#include <string.h>

/* Column values are appended in event order, so a lookup is a binary search. */
static int column_add(struct rt_column *c, uint64_t index, uint64_t value)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        void *nv = realloc(c->v, sizeof *c->v * cap);
        if (!nv)
            return -1;
        c->v = nv;
        c->cap = cap;
    }
    c->v[c->n].index = index;
    c->v[c->n].value = value;
    c->n++;
    return 0;
}

static uint64_t column_get(const struct rt_column *c, uint64_t index)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->v[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->n && c->v[lo].index == index ? c->v[lo].value : 0;
}

static void column_shrink(struct rt_column *c)
{
    if (c->n && c->n < c->cap) {
        void *nv = realloc(c->v, sizeof *c->v * c->n);
        if (nv) {
            c->v = nv;
            c->cap = c->n;
        }
    }
}

/* A 64-bit field into its 32-bit slot, or RT_WIDE and the column. */
static int narrow(uint32_t *slot, struct rt_column *c, uint64_t index, uint64_t value)
{
    if (value < RT_WIDE) {
        *slot = (uint32_t)value;
        return 0;
    }
    *slot = RT_WIDE;
    return column_add(c, index, value);
}

/* Room for cap events (cap > s->cap). */
static int grow_to(struct rt_rank *r, uint64_t cap)
{
    struct rt_store_side *s = &r->side;
    struct rt_slot *nv = realloc(r->events, sizeof *nv * cap);
    if (!nv)
        return -1;
    r->events = nv;
    uint64_t *known = realloc(s->truth_known, sizeof *known * ((cap + 63) / 64));
    if (!known)
        return -1;
    memset(known + (s->cap + 63) / 64, 0, sizeof *known * ((cap + 63) / 64 - (s->cap + 63) / 64));
    s->truth_known = known;
    if (s->truth) {
        uint64_t *t = realloc(s->truth, sizeof *t * cap);
        if (!t)
            return -1;
        s->truth = t;
    }
    s->cap = cap;
    return 0;
}

int rt_store_reserve(struct rt_rank *r, uint64_t n)
{
    return n > r->side.cap ? grow_to(r, n) : 0;
}

int rt_store_event(struct rt_rank *r, const struct rt_event *e)
{
    struct rt_store_side *s = &r->side;
    if (r->nevents == s->cap && grow_to(r, s->cap ? s->cap * 2 : 64) != 0)
        return -1;
    uint64_t i = r->nevents;
    struct rt_slot *slot = &r->events[i];
    memset(slot, 0, sizeof *slot);
    slot->time = e->time;
    slot->ref = e->ref;
    slot->peer = e->peer;
    slot->tag = e->tag;
    slot->kind = e->kind;
    if (narrow(&slot->req, &s->req, i, e->req) != 0 || narrow(&slot->bytes, &s->bytes, i, e->bytes) != 0
        || (e->received && column_add(&s->received, i, e->received) != 0))
        return -1;
    if (e->has_truth) {
        if (!s->truth) {   /* the first true time: earlier events had none */
            s->truth = calloc(s->cap, sizeof *s->truth);
            if (!s->truth)
                return -1;
        }
        s->truth[i] = e->truth;
        s->truth_known[i / 64] |= UINT64_C(1) << (i % 64);
    } else if (s->truth) {
        s->truth[i] = 0;
    }
    r->nevents++;
    return 0;
}

void rt_store_shrink(struct rt_rank *r)
{
    struct rt_store_side *s = &r->side;
    column_shrink(&s->req);
    column_shrink(&s->bytes);
    column_shrink(&s->received);
    if (!r->nevents || r->nevents == s->cap)
        return;
    struct rt_slot *e = realloc(r->events, sizeof *e * r->nevents);
    if (!e)
        return;
    r->events = e;
    uint64_t *known = realloc(s->truth_known, sizeof *known * ((r->nevents + 63) / 64));
    if (known)
        s->truth_known = known;
    if (s->truth) {
        uint64_t *t = realloc(s->truth, sizeof *t * r->nevents);
        if (t)
            s->truth = t;
    }
    /* every array holds at least nevents now, whichever realloc failed */
    s->cap = r->nevents;
}

void rt_store_free(struct rt_rank *r)
{
    rt_store_release(r);
    r->nevents = 0;
}

void rt_store_release(struct rt_rank *r)
{
    struct rt_store_side *s = &r->side;
    rt_times_free(r->times);
    r->times = NULL;
    free(r->events);
    free(s->req.v);
    free(s->bytes.v);
    free(s->received.v);
    free(s->truth);
    free(s->truth_known);
    r->events = NULL;
    memset(s, 0, sizeof *s);
}

uint64_t rt_req(const struct rt_rank *r, uint64_t i)
{
    uint32_t v = r->events[i].req;
    return v == RT_WIDE ? column_get(&r->side.req, i) : v;
}

uint64_t rt_bytes(const struct rt_rank *r, uint64_t i)
{
    uint32_t v = r->events[i].bytes;
    return v == RT_WIDE ? column_get(&r->side.bytes, i) : v;
}

uint64_t rt_received(const struct rt_rank *r, uint64_t i)
{
    return r->side.received.n ? column_get(&r->side.received, i) : 0;
}

int rt_truth_known(const struct rt_rank *r, uint64_t i)
{
    return r->side.truth_known && (r->side.truth_known[i / 64] >> (i % 64) & 1);
}

uint64_t rt_truth(const struct rt_rank *r, uint64_t i)
{
    return r->side.truth && rt_truth_known(r, i) ? r->side.truth[i] : 0;
}

void rt_set_truth(struct rt_rank *r, uint64_t i, uint64_t truth)
{
    if (!r->side.truth)
        return;   /* only called with a neighbour's true time: the array is there */
    r->side.truth[i] = truth;
    r->side.truth_known[i / 64] |= UINT64_C(1) << (i % 64);
}

uint64_t *rt_take_truth(struct rt_rank *r)
{
    uint64_t *t = r->side.truth;
    r->side.truth = NULL;
    return t;
}

struct rt_event rt_event_at(const struct rt_rank *r, uint64_t i)
{
    const struct rt_slot *s = &r->events[i];
    struct rt_event e = {
        .time = s->time, .truth = rt_truth(r, i), .req = rt_req(r, i), .bytes = rt_bytes(r, i),
        .received = rt_received(r, i), .ref = s->ref, .peer = s->peer, .tag = s->tag, .kind = s->kind,
        .has_truth = (uint8_t)rt_truth_known(r, i),
    };
    return e;
}

void rt_facts(const struct rt_rank *r, struct rt_facts *f)
{
    if (!r->events) {   /* set aside, or none */
        *f = r->times ? r->spilled_facts : (struct rt_facts){ 0 };
        return;
    }
    memset(f, 0, sizeof *f);
    for (uint64_t i = 0; i < r->nevents; i++)
        if (r->events[i].kind == RT_ENTER && rt_bytes(r, i) > 1) {
            f->polling_regions++;
            f->polling_calls += rt_bytes(r, i);
        }
    for (size_t k = 0; k < r->nsources; k++) {
        uint64_t i = r->sources[k].index;
        uint8_t kind = i < r->nevents ? r->events[i].kind : RT_ENTER;
        if (kind != RT_COLL_END && kind != RT_NBC_COMPLETE)
            continue;
        uint32_t nslots;
        const uint64_t *bits = rt_sources_of(r, i, &nslots);
        if (!nslots)
            continue;
        uint32_t words = bits ? (nslots + 63) / 64 : 0;
        if (words > f->source_words)
            f->source_words = words;
        f->sparse_members = 1;
    }
}

struct rt_times *rt_times_of(const struct rt_rank *r)
{
    uint64_t n = r->nevents, nblocks = (n + RT_TIME_BLOCK - 1) / RT_TIME_BLOCK;
    struct rt_times *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->base = malloc(sizeof *t->base * (nblocks ? nblocks : 1));
    t->delta = malloc(sizeof *t->delta * (n ? n : 1));
    if (!t->base || !t->delta) {
        rt_times_free(t);
        return NULL;
    }
    size_t wide_cap = 0;
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t first = b * RT_TIME_BLOCK, end = first + RT_TIME_BLOCK < n ? first + RT_TIME_BLOCK : n;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint64_t i = first; i < end; i++) {
            uint64_t v = r->events[i].time;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        if (hi - lo <= UINT32_MAX && !(lo & RT_TIME_WIDE)) {
            t->base[b] = lo;
            for (uint64_t i = first; i < end; i++)
                t->delta[i] = (uint32_t)(r->events[i].time - lo);
            continue;
        }
        if (t->nwide + RT_TIME_BLOCK > wide_cap) {   /* rare: more than 4 s within 64 events */
            size_t cap = wide_cap ? wide_cap * 2 : 4 * RT_TIME_BLOCK;
            uint64_t *w = realloc(t->wide, sizeof *w * cap);
            if (!w) {
                rt_times_free(t);
                return NULL;
            }
            t->wide = w;
            wide_cap = cap;
        }
        t->base[b] = RT_TIME_WIDE | t->nwide;
        for (uint64_t i = first; i < end; i++) {
            t->wide[t->nwide + (i - first)] = r->events[i].time;
            t->delta[i] = 0;
        }
        t->nwide += RT_TIME_BLOCK;
    }
    return t;
}

void rt_times_free(struct rt_times *t)
{
    if (!t)
        return;
    free(t->base);
    free(t->delta);
    free(t->wide);
    free(t);
}

void rt_store_move(struct rt_rank *to, struct rt_rank *from)
{
    to->events = from->events;
    to->nevents = from->nevents;
    to->side = from->side;
    to->sources = from->sources;
    to->nsources = from->nsources;
    to->source_words = from->source_words;
    to->nsource_words = from->nsource_words;
    from->events = NULL;
    from->nevents = 0;
    memset(&from->side, 0, sizeof from->side);
    from->sources = NULL;
    from->source_words = NULL;
    from->nsources = from->nsource_words = 0;
}
