/* unit_causal_aside.c — what the causal build sets aside on disk
 * (tools/causal/causal_aside.c): records put in causal order (ranks
 * interleaved) come back rank by rank in order, through each rank's window
 * and in one walk, also when the sort spills runs; cluster entries filled
 * over several passes (each its own columns, spans straddling the 1 MB
 * block and one larger than it) read back whole; going back within a pass
 * and reading past a rank's records are one-line errors, never a crash. */
#include <config.h>
#include "causal_aside.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#define RANKS 7
#define PER_RANK 20000

/* Record k of rank r: every field a function of (r, k). */
static struct ci_rec rec_of(uint32_t r, uint32_t k)
{
    struct ci_rec x = { 0 };
    x.rank = r;
    x.start = 3 * k + r % 3;
    x.cluster = (r * 31 + k) % 101;
    x.size = k % 9 + 1;
    x.level = k % 3;
    x.vec = ((uint64_t)r << 40) + k * 977ull;
    x.gcr[0] = k * 2 + 1;
    x.gcr[1] = k ^ r;
    return x;
}

static int same(const struct ci_rec *a, const struct ci_rec *b, uint32_t nlevels)
{
    int ok = a->rank == b->rank && a->start == b->start && a->cluster == b->cluster && a->size == b->size
             && a->level == b->level && a->vec == b->vec;
    for (uint32_t k = 0; k < nlevels; k++)
        ok = ok && a->gcr[k] == b->gcr[k];
    return ok;
}

static void records(size_t sort_memory, const char *how)
{
    char err[600];
    const uint32_t L = 2;
    struct ci_recs *s = ci_recs_new(RANKS, L, "/tmp", sort_memory, err, sizeof err);
    ok(s != NULL, "records (%s): made%s%s", how, s ? "" : ": ", s ? "" : err);
    if (!s)
        return;
    /* causal order: ranks interleaved unevenly, each rank's in order; rank 4 has none */
    uint32_t next[RANKS] = { 0 };
    int good = 1;
    for (uint64_t step = 0; good; step++) {
        uint32_t r = (uint32_t)((step * 2654435761u) >> 7) % RANKS, tries = 0;
        while ((next[r] >= PER_RANK || r == 4) && tries++ < RANKS)
            r = (r + 1) % RANKS;
        if (tries > RANKS)
            break;
        struct ci_rec x = rec_of(r, next[r]++);
        good = ci_recs_put(s, &x) == 0;
    }
    good = good && ci_recs_seal(s) == 0;
    ok(good, "records (%s): %d put in causal order and sealed%s%s", how, (RANKS - 1) * PER_RANK, good ? "" : ": ",
       good ? "" : ci_recs_error(s));
    /* each rank in order through its window, ranks taking turns */
    int windows = good;
    for (uint32_t k = 0; windows && k < PER_RANK; k++)
        for (uint32_t r = 0; windows && r < RANKS; r++) {
            if (r == 4) {
                windows = ci_recs_count(s, r) == 0;
                continue;
            }
            const struct ci_rec *x = ci_recs_at(s, r, k), want = rec_of(r, k);
            windows = x && same(x, &want, L) && ci_recs_count(s, r) == PER_RANK;
        }
    ok(windows, "records (%s): every rank's come back in order through its window", how);
    /* one walk, rank after rank */
    static struct ci_rec batch[4096];
    uint64_t at = 0, total = (uint64_t)(RANKS - 1) * PER_RANK;
    int walk = good;
    for (uint32_t r = 0; walk && r < RANKS; r++)
        for (uint32_t k = 0; walk && k < ci_recs_count(s, r);) {
            size_t m = ci_recs_count(s, r) - k < 4096 ? (size_t)(ci_recs_count(s, r) - k) : 4096;
            walk = ci_recs_read(s, at, batch, m) == 0;
            for (size_t q = 0; walk && q < m; q++) {
                struct ci_rec want = rec_of(r, k + (uint32_t)q);
                walk = same(&batch[q], &want, L);
            }
            k += (uint32_t)m;
            at += m;
        }
    ok(walk && at == total, "records (%s): one walk reads all %llu rank after rank", how, (unsigned long long)total);
    ci_recs_drop_windows(s);
    const struct ci_rec *past = ci_recs_at(s, 0, PER_RANK);
    ok(!past && strstr(ci_recs_error(s), "past"), "records (%s): reading past a rank's last is an error (%s)", how,
       ci_recs_error(s));
    ci_recs_free(s);
}

/* The value pass p leaves in entry e, for columns it owns (e % 3 == p). */
static uint32_t value(uint64_t e)
{
    return (uint32_t)(e * 2246822519u) | 1;
}

static void entries(void)
{
    char err[600];
    const uint64_t n = 700000;   /* several 1 MB blocks */
    struct ci_entries *e = ci_entries_new(n, "/tmp", err, sizeof err);
    ok(e != NULL, "entries: made%s%s", e ? "" : ": ", e ? "" : err);
    if (!e)
        return;
    /* spans of 1 to 2999 entries, then one of 300,000 (more than a block) */
    int good = 1;
    for (int pass = 0; pass < 3 && good; pass++) {
        if (pass > 0)
            good = ci_entries_rewind(e) == 0;
        uint64_t at = 0;
        for (uint32_t k = 0; good && at < n; k++) {
            uint32_t len = at < 300000 ? k * 7919 % 2999 + 1 : (uint32_t)(n - at < 300000 ? n - at : 300000);
            if (len > n - at)
                len = (uint32_t)(n - at);
            uint32_t *p = ci_entries_span(e, at, len);
            good = p != NULL;
            for (uint32_t j = 0; good && j < len; j++) {
                uint64_t x = at + j;
                /* earlier passes' columns are there; this pass's are still zero */
                if (x % 3 < (uint64_t)pass)
                    good = p[j] == value(x);
                else
                    good = p[j] == 0;
                if (x % 3 == (uint64_t)pass)
                    p[j] = value(x);
            }
            at += len;
        }
    }
    good = good && ci_entries_flush(e) == 0;
    ok(good, "entries: three passes, each filling its columns and reading the others' back%s%s", good ? "" : ": ",
       good ? "" : ci_entries_error(e));
    uint32_t *all = malloc(4 * n);
    int back = all && ci_entries_read(e, all, 4 * n, 0) == 0;
    for (uint64_t x = 0; back && x < n; x++)
        back = all[x] == value(x);
    ok(back, "entries: all %llu read back as the passes left them", (unsigned long long)n);
    free(all);
    ci_entries_rewind(e);
    int bad = ci_entries_span(e, 5000, 10) != NULL && ci_entries_span(e, 100, 10) == NULL;
    ok(bad && strstr(ci_entries_error(e), "out of order"), "entries: going back within a pass is an error (%s)",
       ci_entries_error(e));
    ci_entries_free(e);
}

int main(void)
{
    records((size_t)64 << 20, "held by the sort");
    records((size_t)200 << 10, "sorted in runs on disk");
    entries();
    return tap_finish();
}
