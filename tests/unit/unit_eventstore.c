/* unit_eventstore.c — the 32-byte event slots and their side columns
 * (format/eventstore.c): every field of every event comes back as it
 * was stored, at the edges of the 32-bit slot fields too, whatever the
 * order in which true times appear; reserve, shrink, release and free;
 * set aside on disk (eventspill.c) and back, several locations in one
 * file, in another order than they went; a location set aside chunk by
 * chunk and brought back a chunk at a time. */
#include <config.h>
#include "eventspill.h"
#include "rawtrace.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

/* Values around the slot's 32-bit limit (RT_WIDE) and beyond. */
static const uint64_t edges[] = { 0, 1, UINT32_MAX - 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1, UINT64_MAX - 1,
                                  UINT64_MAX };
#define NEDGES (sizeof edges / sizeof edges[0])

/* Event i of the test sequence: fields drawn from the edges, kinds cycling,
 * a true time on events from `first_truth` on (none when UINT64_MAX),
 * every third of those without one. */
static struct rt_event event(uint64_t i, uint64_t first_truth)
{
    struct rt_event e = {
        .time = 1000 + 7 * i, .req = edges[i % NEDGES], .bytes = edges[(i / NEDGES) % NEDGES],
        .received = i % 5 == 0 ? edges[(i / 5) % NEDGES] : 0, .ref = (uint32_t)(i * 3),
        .peer = i % 11 == 0 ? RT_ANY : (uint32_t)i, .tag = (uint32_t)(UINT32_MAX - i),
        .kind = (uint8_t)(i % RT_KIND_COUNT),
    };
    if (i >= first_truth && i % 3 != 1) {
        e.has_truth = 1;
        e.truth = i == first_truth ? 0 : UINT64_MAX - i;   /* 0 is a true time too */
    }
    return e;
}

static int same(const struct rt_event *a, const struct rt_event *b)
{
    return a->time == b->time && a->truth == b->truth && a->req == b->req && a->bytes == b->bytes
           && a->received == b->received && a->ref == b->ref && a->peer == b->peer && a->tag == b->tag
           && a->kind == b->kind && a->has_truth == b->has_truth;
}

/* Store n events, then check them all (decoded and through each accessor). */
static void round_trip(uint64_t n, uint64_t first_truth, uint64_t reserve, const char *what)
{
    struct rt_location r;
    memset(&r, 0, sizeof r);
    int stored = rt_store_reserve(&r, reserve) == 0;
    for (uint64_t i = 0; stored && i < n; i++) {
        struct rt_event e = event(i, first_truth);
        stored = rt_store_event(&r, &e) == 0;
    }
    rt_store_shrink(&r);
    uint64_t bad = UINT64_MAX;
    for (uint64_t i = 0; stored && i < n && bad == UINT64_MAX; i++) {
        struct rt_event want = event(i, first_truth), got = rt_event_at(&r, i);
        if (!same(&want, &got) || rt_req(&r, i) != want.req || rt_bytes(&r, i) != want.bytes
            || rt_received(&r, i) != want.received || rt_truth_known(&r, i) != want.has_truth
            || rt_truth(&r, i) != want.truth || r.events[i].time != want.time || r.events[i].kind != want.kind)
            bad = i;
    }
    ok(stored && r.nevents == n && bad == UINT64_MAX, "%s: %llu events come back as stored%s", what,
       (unsigned long long)n, bad == UINT64_MAX ? "" : " (not all)");
    if (bad != UINT64_MAX)
        diag("first wrong event: %llu", (unsigned long long)bad);
    rt_store_free(&r);
    ok(r.events == NULL && r.nevents == 0 && r.side.truth == NULL && r.side.req.v == NULL, "%s: freed", what);
}

/* Locations of n events each (true times on one of them, sparse members'
 * sources on another) set aside into one file, checked while aside (times,
 * true-time flags, facts), brought back in reverse order and checked
 * event for event. */
static void spill_round_trip(void)
{
    enum { NLOC = 3, N = 5000 };
    struct rt_location r[NLOC];
    struct rt_facts before[NLOC];
    memset(r, 0, sizeof r);
    int built = 1;
    for (int l = 0; l < NLOC; l++)
        for (uint64_t i = 0; built && i < N; i++) {
            struct rt_event e = event(i + (uint64_t)l, l == 1 ? 10 : UINT64_MAX);
            if (l == 2 && i % 50 == 7) {   /* a sparse member: a collective exit with its sources */
                e.kind = RT_COLL_END;
                struct rt_sources *s = realloc(r[l].sources, sizeof *s * (r[l].nsources + 1));
                uint64_t *w = realloc(r[l].source_words, sizeof *w * (r[l].nsource_words + 2));
                built = s && w;
                if (s)
                    r[l].sources = s;
                if (w)
                    r[l].source_words = w;
                if (!built)
                    break;
                s[r[l].nsources++] = (struct rt_sources){ i, 70 + (uint32_t)(i % 3), r[l].nsource_words };
                w[r[l].nsource_words++] = i;
                w[r[l].nsource_words++] = ~i;
            }
            built = rt_store_event(&r[l], &e) == 0;
        }
    for (int l = 0; l < NLOC; l++) {
        rt_store_shrink(&r[l]);
        rt_facts(&r[l], &before[l]);
    }
    char err[256] = "";
    struct rt_spill *sp = rt_spill_new("/tmp", err, sizeof err);
    ok(built && sp != NULL, "a spill file in /tmp%s%s", sp ? "" : ": ", err);
    if (!sp || !built)
        return;
    int out = 1;
    for (int l = 0; l < NLOC; l++)
        out &= rt_spill_out(sp, &r[l]) == 0;
    int aside = out;
    for (int l = 0; l < NLOC && aside; l++) {
        struct rt_facts f;
        rt_facts(&r[l], &f);
        aside = r[l].events == NULL && r[l].nevents == N && r[l].nspill_chunks == 1
                && !memcmp(&f, &before[l], sizeof f)
                && (l != 2 || r[l].nsources == N / 50);   /* the sources stay: the match reads them */
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, &r[l]);
        for (uint64_t i = 0; aside && i < N; i++) {
            struct rt_event want = event(i + (uint64_t)l, l == 1 ? 10 : UINT64_MAX);
            aside = rt_time_read(&tr, i) == want.time && rt_truth_known(&r[l], i) == want.has_truth;
        }
        rt_time_reader_free(&tr);
    }
    ok(aside, "set aside: the slots and their times leave memory; times (read back), true-time flags, "
       "sources and facts as they were (%s)", rt_spill_error(sp));
    ok(before[2].sparse_members && before[2].source_words == 2 && before[1].polling_regions > 0,
       "the facts: sparse members with 2 words of sources, polling regions (%llu)",
       (unsigned long long)before[1].polling_regions);
    ok(rt_spill_bytes(sp) >= (uint64_t)NLOC * N * sizeof(struct rt_slot), "%llu bytes written",
       (unsigned long long)rt_spill_bytes(sp));
    int back = 1;
    for (int l = NLOC - 1; l >= 0; l--)
        back &= rt_spill_in(sp, &r[l]) == 0;
    uint64_t bad = UINT64_MAX;
    for (int l = 0; l < NLOC && back; l++) {
        for (uint64_t i = 0; i < N && bad == UINT64_MAX; i++) {
            struct rt_event want = event(i + (uint64_t)l, l == 1 ? 10 : UINT64_MAX), got = rt_event_at(&r[l], i);
            if (l == 2 && i % 50 == 7)
                want.kind = RT_COLL_END;
            uint32_t nslots;
            const uint64_t *bits = rt_sources_of(&r[l], i, &nslots);
            int sparse = l == 2 && i % 50 == 7;
            if (!same(&want, &got) || (sparse && (!bits || nslots != 70 + i % 3 || bits[0] != i || bits[1] != ~i))
                || (!sparse && nslots))
                bad = (uint64_t)l << 32 | i;
        }
    }
    ok(back && bad == UINT64_MAX, "brought back in reverse order: every event, column and source as stored%s",
       bad == UINT64_MAX ? "" : " (not all)");
    /* brought back twice, then set aside again: nothing more is written */
    uint64_t written = rt_spill_bytes(sp);
    ok(rt_spill_in(sp, &r[0]) == 0 && rt_spill_out(sp, &r[0]) == 0 && r[0].nspill_chunks == 1 && r[0].events == NULL
       && rt_spill_bytes(sp) == written && rt_spill_in(sp, &r[0]) == 0 && rt_event_at(&r[0], 7).time == event(7, UINT64_MAX).time,
       "a location set aside again lets its events go without writing them twice; they still come back");
    for (int l = 0; l < NLOC; l++)
        rt_free_location(&r[l]);
    rt_spill_free(sp);
}

/* Times set aside in 32-bit distances from a block's base: blocks that
 * span 2^32 ns or more, times that go back, times at the top of the range
 * and a last block cut short all come back exactly through rt_time. */
static void compact_times(void)
{
    enum { N = 64 * 9 + 17 };
    struct rt_location r;
    memset(&r, 0, sizeof r);
    uint64_t want[N];
    for (uint64_t i = 0; i < N; i++) {
        uint64_t t = 1000000 + 10 * i;
        if (i / 64 == 2 && i % 64 == 40)
            t += (uint64_t)UINT32_MAX + 5;    /* a jump over 4 s inside block 2: its times kept whole */
        if (i / 64 == 3)
            t = 5000000 - 7 * (i % 64);       /* going back */
        if (i / 64 == 5)
            t = UINT64_MAX - 3 * (i % 64);    /* the top bit set */
        if (i / 64 == 7 && i % 64 == 63)
            t = (uint64_t)1 << 40;            /* one far time ends a block */
        want[i] = t;
        struct rt_event e = { .time = t, .kind = RT_LEAVE };
        if (rt_store_event(&r, &e) != 0)
            abort();
    }
    char err[256] = "";
    struct rt_spill *sp = rt_spill_new("/tmp", err, sizeof err);
    int out = sp && rt_spill_out(sp, &r) == 0;
    uint64_t bad = UINT64_MAX;
    struct rt_time_reader tr;
    rt_time_reader_init(&tr, &r);
    for (uint64_t i = 0; out && i < N && bad == UINT64_MAX; i++)
        if (rt_time_read(&tr, i) != want[i])
            bad = i;
    ok(out && bad == UINT64_MAX && tr.t.nwide == 3 * 64,
       "compact times: %d events, 3 wide blocks (%zu times kept whole), every time exact from the file%s", N,
       out ? tr.t.nwide : 0, bad == UINT64_MAX ? "" : " (not all)");
    rt_time_reader_free(&tr);
    rt_free_location(&r);
    rt_spill_free(sp);
}

/* One location read and set aside chunk by chunk, in chunks of uneven
 * sizes (blocks of times left partial and completed by the next chunk),
 * with wide blocks, times going back, true times and sparse members: its
 * times, facts and true-time flags are those of the location set aside
 * whole; any event comes back with its chunk (rt_spill_in_at), in any
 * order, and the whole location with rt_spill_in. */
static uint64_t chunk_time(uint64_t i)
{
    uint64_t t = 1000000 + 10 * i;
    if (i % 700 == 650)
        t += (uint64_t)UINT32_MAX + 5;   /* wide blocks, some across a chunk's end */
    if (i / 64 % 9 == 4)
        t = 9000000 - 7 * (i % 64);      /* going back */
    return t;
}

static void chunked(uint64_t first_truth, const char *what)
{
    enum { N = 20000 };
    static const uint64_t sizes[] = { 1000, 37, 64, 3001, 1, 128, 5000, 63, 65 };
    struct rt_location whole, part;
    memset(&whole, 0, sizeof whole);
    memset(&part, 0, sizeof part);
    char err[256] = "";
    struct rt_spill *sp = rt_spill_new("/tmp", err, sizeof err);
    int built = sp != NULL;
    uint64_t chunks = 0;
    for (uint64_t i = 0, k = 0, upto = sizes[0]; built && i < N; i++) {
        struct rt_event e = event(i, first_truth);
        e.time = chunk_time(i);
        built = rt_store_event(&whole, &e) == 0 && rt_store_event(&part, &e) == 0;
        if (built && (i + 1 == upto || i + 1 == N)) {   /* a chunk read: set it aside */
            built = part.events_from + part.nheld == i + 1 && rt_spill_out(sp, &part) == 0 && !part.events
                    && part.events_from == i + 1;
            chunks++;
            k = (k + 1) % (sizeof sizes / sizeof *sizes);
            upto = i + 1 + sizes[k];
        }
    }
    struct rt_facts fw, fp;
    rt_facts(&whole, &fw);
    int aside = built && rt_spill_out(sp, &whole) == 0;
    rt_facts(&part, &fp);
    uint64_t bad = UINT64_MAX;
    struct rt_time_reader tp, tw;   /* forwards, then backwards (a chunk's times loaded again) */
    rt_time_reader_init(&tp, &part);
    rt_time_reader_init(&tw, &whole);
    for (uint64_t n = 0; aside && n < 2 * N && bad == UINT64_MAX; n++) {
        uint64_t i = n < N ? n : 2 * N - 1 - n;
        if (rt_time_read(&tp, i) != chunk_time(i) || rt_time_read(&tw, i) != chunk_time(i)
            || rt_truth_known(&part, i) != rt_truth_known(&whole, i) || rt_truth(&part, i) != rt_truth(&whole, i))
            bad = i;
    }
    rt_time_reader_free(&tp);
    rt_time_reader_free(&tw);
    ok(aside && bad == UINT64_MAX && part.nspill_chunks == chunks && whole.nspill_chunks == 1
           && !memcmp(&fw, &fp, sizeof fw) && fp.polling_regions > 0,
       "%s: %d events set aside in %llu chunks of uneven sizes: times (read back forwards and backwards), "
       "true times and facts as set aside whole%s%s", what, N, (unsigned long long)chunks,
       bad == UINT64_MAX ? "" : " (not all)", rt_spill_error(sp));
    /* any event back with its chunk, in a scattered order */
    int back = aside;
    uint64_t loads = 0;
    for (uint64_t n = 0; back && n < 3000; n++) {
        uint64_t i = (n * 7919 + (n % 3) * 13) % N;
        uint64_t from = part.events_from, held = part.events ? part.nheld : 0;
        if (rt_spill_in_at(sp, &part, i) != 0)
            back = 0;
        loads += !(held && i >= from && i < from + held);
        struct rt_event want = event(i, first_truth), got;
        want.time = chunk_time(i);
        got = back ? rt_event_at(&part, i) : want;
        back = back && same(&want, &got) && i >= part.events_from && i < part.events_from + part.nheld
               && part.nheld <= 5000;
    }
    ok(back, "%s: 3000 events brought back each with its chunk alone (%llu chunk loads), as stored", what,
       (unsigned long long)loads);
    int all = back && rt_spill_in(sp, &part) == 0 && part.events_from == 0 && part.nheld == N;
    for (uint64_t i = 0; all && i < N; i++) {
        struct rt_event want = event(i, first_truth), got = rt_event_at(&part, i);
        want.time = chunk_time(i);
        all = same(&want, &got);
    }
    ok(all, "%s: the whole location back from its %llu chunks, as stored", what, (unsigned long long)chunks);
    rt_free_location(&whole);
    rt_free_location(&part);
    rt_spill_free(sp);
}

/* rt_truth_hand: true times handed over in chunks as a reader stores the
 * events (64-aligned, the last event kept) come out as stored, and what
 * stays in memory is the window since the last hand, not every event. */
struct handed {
    uint64_t *v;
    uint8_t *known;
    uint64_t next;            /* the next event expected */
    int order, started;       /* chunks came in order, without gaps, from the first */
};

static int take(void *ctx, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known)
{
    struct handed *h = ctx;
    h->order &= !h->started || from == h->next;
    h->started = 1;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t b = k;
        h->known[from + k] = (uint8_t)(known[b / 64] >> (b % 64) & 1);
        h->v[from + k] = h->known[from + k] ? raw[k] : 0;
    }
    h->next = from + n;
    return 0;
}

static void truth_hand(uint64_t first_truth, const char *what)
{
    enum { N = 20000, CHUNK = 1000 };
    struct rt_location r;
    memset(&r, 0, sizeof r);
    struct handed h = { calloc(N, sizeof *h.v), calloc(N, 1), 0, 1, 0 };
    uint64_t widest = 0, bad = UINT64_MAX;
    for (uint64_t i = 0; i < N; i++) {
        struct rt_event e = event(i, first_truth);
        if (rt_store_event(&r, &e) != 0)
            abort();
        /* a flush's true time set from the next event's, across a hand */
        if (i > 0 && i % CHUNK == 0 && e.has_truth)
            rt_set_truth(&r, i - 1, e.truth + 1);
        if ((i + 1) % CHUNK == 0 || i + 1 == N) {
            if (rt_truth_hand(&r, i + 1 == N, take, &h) != 0)
                abort();
            uint64_t held = r.side.truth ? r.side.cap - r.side.truth_from : 0;
            widest = held > widest ? held : widest;
        }
    }
    for (uint64_t i = 0; i < N && bad == UINT64_MAX; i++) {
        struct rt_event want = event(i, first_truth);
        uint64_t v = want.truth;
        int k = want.has_truth;
        if ((i + 1) % CHUNK == 0 && i + 1 < N) {   /* set from the next event's */
            struct rt_event next = event(i + 1, first_truth);
            if (next.has_truth) {
                k = 1;
                v = next.truth + 1;
            }
        }
        if (h.known[i] != k || (k && h.v[i] != v))
            bad = i;
    }
    ok(h.order && h.next == (first_truth < N ? N : 0) && bad == UINT64_MAX && !rt_truth_known(&r, 5) && widest <= 4 * CHUNK
       && r.side.truth == NULL && r.side.truth_known == NULL,
       "%s: handed over in order, as stored (flushes' included), none left, the arrays freed at the end; at most "
       "%llu held at once", what, (unsigned long long)widest);
    if (bad != UINT64_MAX)
        diag("first wrong event: %llu", (unsigned long long)bad);
    rt_store_free(&r);
    free(h.v);
    free(h.known);
}

int main(void)
{
    spill_round_trip();
    compact_times();
    chunked(500, "true times from event 500");
    chunked(5000, "true times from event 5000 (after six chunks without)");
    chunked(UINT64_MAX, "no true times");
    round_trip(1000, 0, 0, "true times from the first event");
    round_trip(1000, 700, 0, "true times from event 700 (after the array grew)");
    round_trip(1000, UINT64_MAX, 0, "no true times");
    round_trip(1000, 5, 1000, "reserved room");
    truth_hand(0, "true times handed over from the first event");
    truth_hand(7000, "true times handed over from event 7000 (none in the first chunks)");
    truth_hand(UINT64_MAX, "no true times to hand over");

    /* A slot is 32 bytes: the point of it. */
    ok(sizeof(struct rt_slot) == 32, "a slot is %zu bytes", sizeof(struct rt_slot));

    /* Only what does not fit is in the columns. */
    struct rt_location r;
    memset(&r, 0, sizeof r);
    for (uint64_t i = 0; i < 100; i++) {
        struct rt_event e = event(i, UINT64_MAX);
        if (rt_store_event(&r, &e) != 0)
            abort();
    }
    size_t wide_req = 0, wide_bytes = 0, received = 0;
    for (uint64_t i = 0; i < 100; i++) {
        struct rt_event e = event(i, UINT64_MAX);
        wide_req += e.req >= UINT32_MAX;
        wide_bytes += e.bytes >= UINT32_MAX;
        received += e.received != 0;
    }
    ok(r.side.req.n == wide_req && r.side.bytes.n == wide_bytes && r.side.received.n == received
       && r.side.truth == NULL && r.side.truth_known == NULL,
       "the side columns hold only the wide values (%zu ids, %zu lengths), the non-zero received bytes (%zu) "
       "and nothing of true times, not even a bit per event", r.side.req.n, r.side.bytes.n, r.side.received.n);

    struct rt_event t = { .time = 1, .truth = 42, .has_truth = 1 };
    rt_store_event(&r, &t);

    /* rt_store_release: the count stays for readers that need only it. */
    rt_store_release(&r);
    ok(r.events == NULL && r.nevents == 101 && r.side.received.v == NULL,
       "rt_store_release frees the events and keeps their number");
    rt_store_free(&r);
    return tap_finish();
}
