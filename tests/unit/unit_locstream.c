/* unit_locstream.c — what the parallel merge's processes hand each other
 * (tools/parallel/locstream.h, cm_pack, rt_spill_times): every record kind
 * read back as written, pieces that are cut or lie about their lengths
 * refused, a clock model packed and unpacked to the same corrected times,
 * and times handed over as a chunk without events read back through
 * rt_time_read as the events' own, while their events cannot be brought
 * back. */
#include "tap.h"
#include "clockmodel.h"
#include "eventspill.h"
#include "locstream.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x10c5;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* n slots with times that mostly creep forward, some far apart (wide blocks). */
static struct rt_slot *slots_of(uint64_t n)
{
    struct rt_slot *s = calloc(n ? n : 1, sizeof *s);
    uint64_t t = 1000;
    for (uint64_t i = 0; s && i < n; i++) {
        t += rnd() % 5000;
        if (rnd() % 500 == 0)
            t += (uint64_t)5e9;   /* more than 2^32 ns within a block */
        s[i].time = t;
    }
    return s;
}

static void round_trip(void)
{
    struct agg a = { 0 };
    for (int round = 0; round < 40; round++) {
        struct ls_buf b = { 0 };
        uint64_t n = rnd() % 3000, first = rnd() % 100000;
        struct rt_slot *sl = slots_of(n);
        struct rt_times *t = rt_times_of(sl, n);
        uint64_t tn = rnd() % 300, raw[300], known[5];
        for (uint64_t k = 0; k < tn; k++)
            raw[k] = rnd();
        for (int k = 0; k < 5; k++)
            known[k] = rnd();
        struct rt_sources src[3] = { { 5, 70, 0 }, { 9, RT_SOURCES_UNKNOWN, 2 }, { 12, 3, 2 } };
        uint64_t words[3] = { rnd(), rnd(), rnd() };
        struct ls_location loc = { n, rnd(), rnd(), 3, 3, { 4, 9, 2, 1 }, 1, round & 1 };
        const char *msg = "x.raw/rank-000003.otf2: corrupt";
        uint8_t recs[56 * 3];
        for (size_t k = 0; k < sizeof recs; k++)
            recs[k] = (uint8_t)rnd();
        const void *rp = recs, *mp = msg;
        size_t rl = sizeof recs, ml = strlen(msg) + 1;
        check(&a, t && ls_put_times(&b, 7, first, t) == 0 && ls_put_truth(&b, 8, 64, tn, raw, known) == 0
                  && ls_put(&b, LS_SENDS, 9, 1, &rp, &rl) == 0 && ls_put_location(&b, 10, &loc, src, words) == 0
                  && ls_put(&b, LS_ERROR, 3, 1, &mp, &ml) == 0 && ls_put(&b, LS_END, 0, 0, NULL, NULL) == 0,
              "round %d: written", round);
        size_t at = 0;
        struct ls_record r;
        int kinds = 0;
        while (ls_next(b.v, b.n, &at, &r) == 1) {
            kinds++;
            if (r.kind == LS_TIMES) {
                uint64_t f;
                struct rt_times v;
                check(&a, r.loc == 7 && ls_get_times(&r, &f, &v) == 0 && f == first && v.n == n, "times header");
                for (uint64_t i = 0; i < n && v.n == n; i++)
                    check(&a, rt_times_get(&v, i) == sl[i].time, "time %llu", (unsigned long long)i);
            } else if (r.kind == LS_TRUTH) {
                uint64_t f, m;
                const uint64_t *rw, *kn;
                check(&a, r.loc == 8 && ls_get_truth(&r, &f, &m, &rw, &kn) == 0 && f == 64 && m == tn
                          && !memcmp(rw, raw, 8 * tn) && !memcmp(kn, known, 8 * ((tn + 63) / 64)), "truth");
            } else if (r.kind == LS_SENDS) {
                check(&a, r.loc == 9 && r.len == sizeof recs && !memcmp(r.p, recs, sizeof recs), "records");
            } else if (r.kind == LS_LOCATION) {
                struct ls_location l;
                const struct rt_sources *s;
                const uint64_t *w;
                check(&a, ls_get_location(&r, &l, &s, &w) == 0 && !memcmp(&l, &loc, sizeof l)
                          && !memcmp(s, src, sizeof src) && !memcmp(w, words, sizeof words), "location");
            } else if (r.kind == LS_ERROR) {
                check(&a, r.loc == 3 && !strcmp((const char *)r.p, msg), "error");
            } else {
                check(&a, r.kind == LS_END && at == b.n, "the end last");
            }
        }
        check(&a, kinds == 6 && at == b.n, "round %d: %d records read", round, kinds);
        /* a piece cut anywhere inside a record is refused, never read past */
        size_t cut = b.n > 16 ? 8 + rnd() % (b.n - 16) : 1;
        at = 0;
        int rc;
        while ((rc = ls_next(b.v, cut, &at, &r)) == 1)
            ;
        check(&a, rc == -1 || at == cut, "cut at %zu: refused or at a record's end", cut);
        rt_times_free(t);
        free(sl);
        ls_buf_free(&b);
    }
    report(&a, "every record kind read back as written; pieces cut short refused");
}

static void lying_lengths(void)
{
    struct agg a = { 0 };
    struct ls_buf b = { 0 };
    uint64_t head[3] = { 0, 1000000, 0 };   /* says 10^6 times, holds none */
    const void *p = head;
    size_t l = sizeof head;
    ls_put(&b, LS_TIMES, 0, 1, &p, &l);
    size_t at = 0;
    struct ls_record r;
    uint64_t f;
    struct rt_times v;
    check(&a, ls_next(b.v, b.n, &at, &r) == 1 && ls_get_times(&r, &f, &v) == -1, "times that are not there");
    struct ls_location loc = { 0 };
    loc.nsources = UINT64_MAX / 8;
    p = &loc;
    l = sizeof loc;
    ls_put(&b, LS_LOCATION, 0, 1, &p, &l);
    const struct rt_sources *s;
    const uint64_t *w;
    struct ls_location got;
    check(&a, ls_next(b.v, b.n, &at, &r) == 1 && ls_get_location(&r, &got, &s, &w) == -1, "sources not there");
    uint64_t th[2] = { 0, UINT64_MAX / 4 };
    p = th;
    l = sizeof th;
    ls_put(&b, LS_TRUTH, 0, 1, &p, &l);
    const uint64_t *rw, *kn;
    uint64_t fr, m;
    check(&a, ls_next(b.v, b.n, &at, &r) == 1 && ls_get_truth(&r, &fr, &m, &rw, &kn) == -1, "truth not there");
    /* a header whose length runs past the piece */
    uint8_t bad[24] = { 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
    at = 0;
    check(&a, ls_next(bad, sizeof bad, &at, &r) == -1, "a record longer than its piece");
    ls_buf_free(&b);
    report(&a, "records whose lengths lie are refused");
}

static void model_packed(void)
{
    struct agg a = { 0 };
    struct cm_model m = { 0 };
    m.ndomains = 3;
    m.nranks = 5;
    m.windows = 2;
    m.max_drift = 2e-4;
    m.domains = calloc(3, sizeof *m.domains);
    m.domain_of = calloc(5, sizeof *m.domain_of);
    uint32_t seg = 0;
    for (uint32_t d = 0; d < 3; d++) {
        struct cm_domain *dom = &m.domains[d];
        dom->origin = 1000 * d;
        dom->resolution = 1e9;
        dom->nseg = d + 1;
        dom->first_seg = seg;
        seg += dom->nseg;
        dom->seg = calloc(dom->nseg, sizeof *dom->seg);
        for (uint32_t k = 0; k < dom->nseg; k++)
            dom->seg[k] = (struct cm_segment){ 100000 * k + dom->origin, 1e5 * k, 1e5 * k + 3, 1e5, 1e-6 * (d + k),
                                               0, 17.0 * d, 0 };
    }
    m.nsegments = seg;
    for (uint32_t r = 0; r < 5; r++)
        m.domain_of[r] = r % 3;
    void *buf;
    size_t len;
    struct cm_model u;
    check(&a, cm_pack(&m, &buf, &len) == 0 && cm_unpack(buf, len, &u) == 0, "packed and unpacked");
    for (uint32_t r = 0; r < 5 && u.domains; r++)
        for (uint64_t t = 0; t < 400000; t += 777)
            check(&a, cm_corrected(&m, r, t) == cm_corrected(&u, r, t) && cm_vertex(&m, r, t) == cm_vertex(&u, r, t),
                  "rank %u, tick %llu: the same corrected time and vertex", r, (unsigned long long)t);
    struct cm_model v;
    check(&a, cm_unpack(buf, len - 1, &v) == -1, "cut short: refused");
    ((struct cm_model *)buf)->nranks = 1u << 30;   /* more ranks than bytes */
    check(&a, cm_unpack(buf, len, &v) == -1, "too many ranks: refused");
    free(buf);
    cm_free(&u);
    cm_free(&m);
    report(&a, "a clock model packed (cm_pack) gives the same corrected times unpacked; damage refused");
}

static void times_only_chunks(void)
{
    struct agg a = { 0 };
    char err[256];
    struct rt_spill *s = rt_spill_new(".", err, sizeof err);
    struct rt_location r;
    memset(&r, 0, sizeof r);
    uint64_t n = 10000, at = 0;
    struct rt_slot *sl = slots_of(n);
    check(&a, s != NULL, "spill file: %s", s ? "" : err);
    while (s && at < n) {
        uint64_t k = 1 + rnd() % 3000;
        k = at + k > n ? n - at : k;
        struct rt_times *t = rt_times_of(sl + at, k);
        check(&a, t && rt_spill_times(s, &r, at, t) == 0, "chunk at %llu", (unsigned long long)at);
        rt_times_free(t);
        at += k;
    }
    r.nevents = n;
    struct rt_time_reader tr;
    rt_time_reader_init(&tr, &r);
    for (uint64_t i = 0; s && i < n; i += 1 + rnd() % 7)
        check(&a, rt_time_read(&tr, i) == sl[i].time, "time %llu", (unsigned long long)i);
    for (uint64_t i = n; s && i-- > 0;)   /* backwards: each chunk loaded again */
        check(&a, rt_time_read(&tr, i) == sl[i].time, "time %llu, backwards", (unsigned long long)i);
    rt_time_reader_free(&tr);
    struct rt_times *t = rt_times_of(sl, 10);
    check(&a, s && rt_spill_times(s, &r, 5, t) == -1, "times out of order refused");
    rt_times_free(t);
    struct rt_spill *s2 = rt_spill_new(".", err, sizeof err);
    struct rt_location r2;
    memset(&r2, 0, sizeof r2);
    t = rt_times_of(sl, 100);
    check(&a, s2 && rt_spill_times(s2, &r2, 0, t) == 0 && rt_spill_in_at(s2, &r2, 3) == -1
              && strstr(rt_spill_error(s2), "another process"),
          "their events cannot be brought back: %s", s2 ? rt_spill_error(s2) : "");
    rt_times_free(t);
    free(r.spill_chunks);
    free(r2.spill_chunks);
    rt_spill_free(s);
    rt_spill_free(s2);
    free(sl);
    report(&a, "times handed over without their events read back as theirs (rt_spill_times)");
}

int main(void)
{
    round_trip();
    lying_lengths();
    model_packed();
    times_only_chunks();
    return tap_finish();
}
