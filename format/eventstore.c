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

/* Room for slot_cap slots from events_from. */
static int grow_slots(struct rt_location *r, uint64_t slot_cap)
{
    struct rt_slot *nv = realloc(r->events, sizeof *nv * slot_cap);
    if (!nv)
        return -1;
    r->events = nv;
    r->side.slot_cap = slot_cap;
    return 0;
}

/* Room in the truth arrays for events [truth_from, cap) (cap > s->cap).
 * They are made at the first true time (rt_store_event): a trace without
 * any keeps nothing per event here. */
static int grow_side(struct rt_location *r, uint64_t cap)
{
    struct rt_store_side *s = &r->side;
    if (s->truth) {
        uint64_t had = s->cap - s->truth_from, want = cap - s->truth_from;
        uint64_t *known = realloc(s->truth_known, sizeof *known * ((want + 63) / 64));
        if (!known)
            return -1;
        memset(known + (had + 63) / 64, 0, sizeof *known * ((want + 63) / 64 - (had + 63) / 64));
        s->truth_known = known;
        uint64_t *t = realloc(s->truth, sizeof *t * want);
        if (!t)
            return -1;
        s->truth = t;
    }
    s->cap = cap;
    return 0;
}

int rt_store_reserve(struct rt_location *r, uint64_t n)
{
    if (n > r->side.cap && grow_side(r, n) != 0)
        return -1;
    return n > r->events_from + r->side.slot_cap ? grow_slots(r, n - r->events_from) : 0;
}

int rt_store_event(struct rt_location *r, const struct rt_event *e)
{
    struct rt_store_side *s = &r->side;
    if (r->nheld == s->slot_cap && grow_slots(r, s->slot_cap ? s->slot_cap * 2 : 64) != 0)
        return -1;
    /* the truth arrays' window doubles (their events since truth_from) */
    if (r->nevents == s->cap && grow_side(r, s->cap + (s->cap - s->truth_from > 64 ? s->cap - s->truth_from : 64)) != 0)
        return -1;
    uint64_t i = r->nevents;
    struct rt_slot *slot = &r->events[r->nheld];
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
            s->truth = calloc(s->cap - s->truth_from, sizeof *s->truth);
            s->truth_known = calloc((s->cap - s->truth_from + 63) / 64, sizeof *s->truth_known);
            if (!s->truth || !s->truth_known) {
                free(s->truth);
                free(s->truth_known);
                s->truth = s->truth_known = NULL;
                return -1;
            }
        }
        uint64_t w = i - s->truth_from;
        s->truth[w] = e->truth;
        s->truth_known[w / 64] |= UINT64_C(1) << (w % 64);
    } else if (s->truth) {
        s->truth[i - s->truth_from] = 0;
    }
    r->nevents++;
    r->nheld++;
    return 0;
}

void rt_store_shrink(struct rt_location *r)
{
    struct rt_store_side *s = &r->side;
    column_shrink(&s->req);
    column_shrink(&s->bytes);
    column_shrink(&s->received);
    if (r->nheld && r->nheld < s->slot_cap) {
        struct rt_slot *e = realloc(r->events, sizeof *e * r->nheld);
        if (e) {
            r->events = e;
            s->slot_cap = r->nheld;
        }
    }
    if (!r->nevents || r->nevents == s->cap)
        return;
    if (s->truth && r->nevents > s->truth_from) {
        uint64_t keep = r->nevents - s->truth_from;
        uint64_t *known = realloc(s->truth_known, sizeof *known * ((keep + 63) / 64));
        if (known)
            s->truth_known = known;
        uint64_t *t = realloc(s->truth, sizeof *t * keep);
        if (t)
            s->truth = t;
    }
    /* both hold at least nevents now, whichever realloc failed */
    s->cap = r->nevents;
}

void rt_store_free(struct rt_location *r)
{
    rt_store_release(r);
    r->nevents = 0;
}

void rt_store_release(struct rt_location *r)
{
    struct rt_store_side *s = &r->side;
    free(r->spill_chunks);
    r->spill_chunks = NULL;
    r->nspill_chunks = 0;
    free(r->events);
    free(s->req.v);
    free(s->bytes.v);
    free(s->received.v);
    free(s->truth);
    free(s->truth_known);
    r->events = NULL;
    r->events_from = r->nheld = 0;
    memset(s, 0, sizeof *s);
}

void rt_store_drop(struct rt_location *r)
{
    struct rt_store_side *s = &r->side;
    free(r->events);
    free(s->req.v);
    free(s->bytes.v);
    free(s->received.v);
    memset(&s->req, 0, sizeof s->req);
    memset(&s->bytes, 0, sizeof s->bytes);
    memset(&s->received, 0, sizeof s->received);
    r->events = NULL;
    s->slot_cap = 0;
    r->events_from = r->nevents;
    r->nheld = 0;
}

uint64_t rt_req(const struct rt_location *r, uint64_t i)
{
    uint32_t v = r->events[i - r->events_from].req;
    return v == RT_WIDE ? column_get(&r->side.req, i) : v;
}

uint64_t rt_bytes(const struct rt_location *r, uint64_t i)
{
    uint32_t v = r->events[i - r->events_from].bytes;
    return v == RT_WIDE ? column_get(&r->side.bytes, i) : v;
}

uint64_t rt_received(const struct rt_location *r, uint64_t i)
{
    return r->side.received.n ? column_get(&r->side.received, i) : 0;
}

int rt_truth_known(const struct rt_location *r, uint64_t i)
{
    const struct rt_store_side *s = &r->side;
    if (!s->truth_known || i < s->truth_from)
        return 0;
    uint64_t w = i - s->truth_from;
    return s->truth_known[w / 64] >> (w % 64) & 1;
}

uint64_t rt_truth(const struct rt_location *r, uint64_t i)
{
    return r->side.truth && rt_truth_known(r, i) ? r->side.truth[i - r->side.truth_from] : 0;
}

void rt_set_truth(struct rt_location *r, uint64_t i, uint64_t truth)
{
    struct rt_store_side *s = &r->side;
    if (!s->truth || i < s->truth_from)
        return;   /* only called with a neighbour's true time: the array is there */
    uint64_t w = i - s->truth_from;
    s->truth[w] = truth;
    s->truth_known[w / 64] |= UINT64_C(1) << (w % 64);
}

int rt_truth_hand(struct rt_location *r, int last,
                  int (*put)(void *ctx, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known),
                  void *ctx)
{
    struct rt_store_side *s = &r->side;
    /* all when the location ends; else whole words of flags, the last
     * event kept: a buffer flush before it takes the next one's true
     * time (rawtrace.c) */
    uint64_t upto = last ? r->nevents : r->nevents ? (r->nevents - 1) / 64 * 64 : 0;
    if (upto <= s->truth_from)
        return 0;
    uint64_t gone = upto - s->truth_from, keep = r->nevents - upto;
    if (s->truth) {
        if (put(ctx, s->truth_from, gone, s->truth, s->truth_known) != 0)
            return -1;
        /* what is kept moves to the front: gone is a multiple of 64 unless
         * nothing is kept */
        if (!keep) {   /* the location read whole: nothing of it stays */
            free(s->truth);
            free(s->truth_known);
            s->truth = s->truth_known = NULL;
            s->cap = s->truth_from = upto;
            return 0;
        }
        uint64_t kept_words = (keep + 63) / 64;
        memmove(s->truth, s->truth + gone, sizeof *s->truth * keep);
        memmove(s->truth_known, s->truth_known + gone / 64, sizeof *s->truth_known * kept_words);
        /* the room shrinks to what is kept (the next event grows it again,
         * doubling): a window, not the events handed over */
        uint64_t *t = realloc(s->truth, sizeof *t * keep);
        uint64_t *k = realloc(s->truth_known, sizeof *k * kept_words);
        if (t)   /* (a shrink that failed keeps the larger block: room enough) */
            s->truth = t;
        if (k)
            s->truth_known = k;
        s->truth_from = upto;
        s->cap = upto + keep;
        return 0;
    }
    s->cap += gone;   /* the same room, from upto on */
    s->truth_from = upto;
    return 0;
}

struct rt_event rt_event_at(const struct rt_location *r, uint64_t i)
{
    const struct rt_slot *s = &r->events[i - r->events_from];
    struct rt_event e = {
        .time = s->time, .truth = rt_truth(r, i), .req = rt_req(r, i), .bytes = rt_bytes(r, i),
        .received = rt_received(r, i), .ref = s->ref, .peer = s->peer, .tag = s->tag, .kind = s->kind,
        .has_truth = (uint8_t)rt_truth_known(r, i),
    };
    return e;
}

/* The facts of the slots held (a whole location's, or one chunk's). */
void rt_facts_held(const struct rt_location *r, struct rt_facts *f)
{
    memset(f, 0, sizeof *f);
    uint64_t from = r->events_from, end = from + r->nheld;
    for (uint64_t i = from; r->events && i < end; i++)
        if (r->events[i - from].kind == RT_ENTER && rt_bytes(r, i) > 1) {
            f->polling_regions++;
            f->polling_calls += rt_bytes(r, i);
        }
    for (size_t k = 0; r->events && k < r->nsources; k++) {
        uint64_t i = r->sources[k].index;
        if (i < from || i >= end)
            continue;
        uint8_t kind = r->events[i - from].kind;
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

void rt_facts_add(struct rt_facts *to, const struct rt_facts *f)
{
    to->polling_regions += f->polling_regions;
    to->polling_calls += f->polling_calls;
    if (f->source_words > to->source_words)
        to->source_words = f->source_words;
    to->sparse_members |= f->sparse_members;
}

void rt_facts(const struct rt_location *r, struct rt_facts *f)
{
    if (r->nspill_chunks)   /* set aside: as they were, whatever chunk is held again */
        *f = r->spilled_facts;
    else
        rt_facts_held(r, f);
}

/* Block b of t (its first event first) from the times v[0 .. n), whose
 * least is lo: as distances from lo, or whole at wide[wide_at ..]
 * (wide_at UINT64_MAX: not wide). */
static void put_block(struct rt_times *t, uint64_t b, const uint64_t *v, uint64_t n, uint64_t lo, uint64_t wide_at)
{
    uint64_t first = b * RT_TIME_BLOCK;
    if (wide_at == UINT64_MAX) {
        t->base[b] = lo;
        for (uint64_t k = 0; k < n; k++)
            t->delta[first + k] = (uint32_t)(v[k] - lo);
        return;
    }
    t->base[b] = RT_TIME_WIDE | wide_at;
    for (uint64_t k = 0; k < n; k++) {
        t->wide[wide_at + k] = v[k];
        t->delta[first + k] = 0;
    }
}

struct rt_times *rt_times_of(const struct rt_slot *slots, uint64_t n)
{
    uint64_t nblocks = (n + RT_TIME_BLOCK - 1) / RT_TIME_BLOCK;
    struct rt_times *t = calloc(1, sizeof *t);
    if (!t || !(t->delta = malloc(sizeof *t->delta * (n ? n : 1)))
        || !(t->base = malloc(sizeof *t->base * (nblocks ? nblocks : 1)))) {
        rt_times_free(t);
        return NULL;
    }
    t->n = t->cap = n;
    for (uint64_t b = 0; b < nblocks; b++) {
        uint64_t first = b * RT_TIME_BLOCK, end = first + RT_TIME_BLOCK < n ? first + RT_TIME_BLOCK : n;
        uint64_t v[RT_TIME_BLOCK], lo = UINT64_MAX, hi = 0;
        for (uint64_t i = first; i < end; i++) {
            v[i - first] = slots[i].time;
            lo = v[i - first] < lo ? v[i - first] : lo;
            hi = v[i - first] > hi ? v[i - first] : hi;
        }
        uint64_t at = UINT64_MAX;
        if (hi - lo > UINT32_MAX || (lo & RT_TIME_WIDE)) {   /* 32-bit distances cannot hold them */
            if (t->nwide + RT_TIME_BLOCK > t->cwide) {   /* rare: more than 4 s within 64 events */
                size_t cap = t->cwide ? t->cwide * 2 : 4 * RT_TIME_BLOCK;
                uint64_t *w = realloc(t->wide, sizeof *w * cap);
                if (!w) {
                    rt_times_free(t);
                    return NULL;
                }
                t->wide = w;
                t->cwide = cap;
            }
            at = t->nwide;
            t->nwide += RT_TIME_BLOCK;
        }
        put_block(t, b, v, end - first, lo, at);
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

void rt_store_move(struct rt_location *to, struct rt_location *from)
{
    to->events = from->events;
    to->nevents = from->nevents;
    to->events_from = from->events_from;
    to->nheld = from->nheld;
    to->side = from->side;
    to->sources = from->sources;
    to->nsources = from->nsources;
    to->source_words = from->source_words;
    to->nsource_words = from->nsource_words;
    from->events = NULL;
    from->nevents = from->events_from = from->nheld = 0;
    memset(&from->side, 0, sizeof from->side);
    from->sources = NULL;
    from->source_words = NULL;
    from->nsources = from->nsource_words = 0;
}

const uint64_t *rt_sources_of(const struct rt_location *r, uint64_t index, uint32_t *nslots)
{
    size_t lo = 0, hi = r->nsources;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->sources[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->nsources || r->sources[lo].index != index) {
        *nslots = 0;
        return NULL;
    }
    *nslots = r->sources[lo].nslots;
    return *nslots == RT_SOURCES_UNKNOWN ? NULL : r->source_words + r->sources[lo].first;
}
