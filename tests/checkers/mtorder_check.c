/* mtorder_check ARCHIVE DIR — checks mt_read_events (format/mtorder.c)
 * on a merged archive against a brute-force reference, printing "ok - " /
 * "not ok - " lines for tests/test-export-order.sh:
 *   1. the reference: every location read alone (mt_read_location_events),
 *      each event and each collective's sources kept in memory;
 *   2. mt_read_events with every location read at once (its own OTF2
 *      reader each) and 3. with one at a time (the events through a file
 *      in DIR), twice each (a second pass);
 * each delivery must be in (time, location) order, each location's events
 * must be the reference's in its order, field for field, sources included,
 * and the two ways must give the same sequence. */
#include "mtread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
    struct rt_event e;
    uint32_t nslots, has_sources;
    uint64_t digest;          /* of the source words (0 unknown) */
};

struct seq {
    struct rec *v;
    uint64_t n, cap;
};

struct check {
    struct seq all;           /* in delivery order */
    uint32_t *loc;            /* location of each delivery */
    uint64_t loccap;
    int out_of_order;
};

static struct rec *push(struct seq *s)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        if (!(s->v = realloc(s->v, sizeof *s->v * s->cap))) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    memset(&s->v[s->n], 0, sizeof *s->v);
    return &s->v[s->n++];
}

static uint64_t digest(uint32_t nslots, const uint64_t *bits)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t k = 0; bits && k < (nslots + 63) / 64; k++)
        h = (h ^ bits[k]) * 1099511628211ULL;
    return h;
}

/* the reference: per location */
static struct seq *ref;

static int ref_event(void *u, uint32_t loc, const struct rt_event *e)
{
    (void)u;
    push(&ref[loc])->e = *e;
    return 0;
}

static int ref_sources(void *u, uint32_t loc, uint32_t nslots, const uint64_t *bits)
{
    (void)u;
    struct rec *r = &ref[loc].v[ref[loc].n - 1];
    r->has_sources = 1;
    r->nslots = nslots;
    r->digest = digest(nslots, bits);
    return 0;
}

static int on_event(void *u, uint32_t loc, const struct rt_event *e)
{
    struct check *c = u;
    if (c->all.n) {
        uint64_t pt = c->all.v[c->all.n - 1].e.time;
        uint32_t pl = c->loc[c->all.n - 1];
        if (e->time < pt || (e->time == pt && loc < pl))
            c->out_of_order = 1;
    }
    if (c->all.n == c->loccap) {
        c->loccap = c->loccap ? 2 * c->loccap : 1024;
        if (!(c->loc = realloc(c->loc, sizeof *c->loc * c->loccap)))
            exit(2);
    }
    c->loc[c->all.n] = loc;
    push(&c->all)->e = *e;
    return 0;
}

static int on_sources(void *u, uint32_t loc, uint32_t nslots, const uint64_t *bits)
{
    struct check *c = u;
    struct rec *r = &c->all.v[c->all.n - 1];
    if (c->loc[c->all.n - 1] != loc)
        return -1;
    r->has_sources = 1;
    r->nslots = nslots;
    r->digest = digest(nslots, bits);
    return 0;
}

static int same_rec(const struct rec *a, const struct rec *b)
{
    return a->e.time == b->e.time && a->e.truth == b->e.truth && a->e.req == b->e.req && a->e.bytes == b->e.bytes
           && a->e.received == b->e.received && a->e.ref == b->e.ref && a->e.peer == b->e.peer
           && a->e.tag == b->e.tag && a->e.kind == b->e.kind && a->e.has_truth == b->e.has_truth
           && a->has_sources == b->has_sources && a->nslots == b->nslots && a->digest == b->digest;
}

/* Every location's deliveries are the reference's, in its order. */
static int matches_reference(const struct check *c, uint32_t nloc, char *why, size_t len)
{
    uint64_t *at = calloc(nloc, sizeof *at);
    if (!at)
        exit(2);
    int ok = 1;
    for (uint64_t k = 0; k < c->all.n && ok; k++) {
        uint32_t l = c->loc[k];
        if (l >= nloc || at[l] >= ref[l].n || !same_rec(&c->all.v[k], &ref[l].v[at[l]])) {
            snprintf(why, len, "delivery %llu (location %u, its event %llu) differs",
                     (unsigned long long)k, l, (unsigned long long)(l < nloc ? at[l] : 0));
            ok = 0;
        } else {
            at[l]++;
        }
    }
    for (uint32_t l = 0; l < nloc && ok; l++)
        if (at[l] != ref[l].n) {
            snprintf(why, len, "location %u: %llu of its %llu events delivered", l, (unsigned long long)at[l],
                     (unsigned long long)ref[l].n);
            ok = 0;
        }
    free(at);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mtorder_check ARCHIVE SPILL_DIR\n");
        return 2;
    }
    char err[4400];
    struct mt_trace t;
    if (mt_open(argv[1], &t, err, sizeof err) != 0) {
        printf("not ok - open: %s\n", err);
        return 1;
    }
    uint32_t nloc = t.nlocations;
    ref = calloc(nloc, sizeof *ref);
    t.on_sources = ref_sources;
    if (!ref || mt_read_location_events(&t, ref_event, NULL, NULL, err, sizeof err) != 0) {
        printf("not ok - the reference read: %s\n", err);
        return 1;
    }
    uint64_t total = 0, with_sources = 0;
    for (uint32_t l = 0; l < nloc; l++) {
        total += ref[l].n;
        for (uint64_t k = 0; k < ref[l].n; k++)
            with_sources += ref[l].v[k].has_sources;
    }
    t.on_sources = on_sources;
    t.spill_dir = argv[2];
    struct check runs[4];
    memset(runs, 0, sizeof runs);
    const char *names[4] = { "every location at once", "every location at once, second pass",
                             "one location at a time (through a file)",
                             "one location at a time (through a file), second pass" };
    int failed = 0;
    for (int r = 0; r < 4; r++) {
        t.max_open = r < 2 ? nloc : 1;
        if (r == 2) {   /* a new file for the other way */
            mt_close(&t);
            if (mt_open(argv[1], &t, err, sizeof err) != 0)
                return 1;
            t.on_sources = on_sources;
            t.spill_dir = argv[2];
            t.max_open = 1;
        }
        char why[256] = "";
        int rc = mt_read_events(&t, on_event, &runs[r], err, sizeof err);
        int ok = rc == 0 && !runs[r].out_of_order && matches_reference(&runs[r], nloc, why, sizeof why);
        printf("%s - %s: %llu events in (time, location) order, each location's as read alone%s%s%s%s\n",
               ok ? "ok" : "not ok", names[r], (unsigned long long)runs[r].all.n, rc ? ": " : "", rc ? err : "",
               runs[r].out_of_order ? " (out of order)" : "", why[0] ? why : "");
        failed |= !ok;
    }
    int same = runs[0].all.n == runs[2].all.n;
    for (uint64_t k = 0; same && k < runs[0].all.n; k++)
        same = runs[0].loc[k] == runs[2].loc[k] && same_rec(&runs[0].all.v[k], &runs[2].all.v[k]);
    printf("%s - both ways the same sequence (%llu events, %llu in all, %llu with sources)\n", same ? "ok" : "not ok",
           (unsigned long long)runs[0].all.n, (unsigned long long)total, (unsigned long long)with_sources);
    mt_close(&t);
    for (int r = 0; r < 4; r++) {
        free(runs[r].all.v);
        free(runs[r].loc);
    }
    for (uint32_t l = 0; l < nloc; l++)
        free(ref[l].v);
    free(ref);
    return failed || !same;
}
