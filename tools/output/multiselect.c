/* multiselect.c — see multiselect.h. */
#include "multiselect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MS_COUNTING, MS_HISTOGRAM, MS_COLLECTING, MS_DONE };

/* From this many bins on, the first histogram spans every double. */
#define MS_WIDE_BINS 4096

/* An order-preserving integer for a double (its IEEE bits, sign-magnitude
 * made monotone; -0 was folded into +0 by the caller). */
static uint64_t key_of(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double value_of(uint64_t key)
{
    uint64_t u = key >> 63 ? key & ~(UINT64_C(1) << 63) : ~key;
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The bin of key in [lo, hi] (lo < hi): monotone, lo in bin 0 and hi in a
 * later one, so a histogram pass always splits the range. */
static unsigned bin_of(uint64_t key, uint64_t lo, uint64_t hi, uint32_t bins)
{
    uint64_t width = (hi - lo) / bins + 1;
    return (unsigned)((key - lo) / width);
}

static void start_histogram(struct msel_stream *s, uint32_t bins)
{
    s->stage = MS_HISTOGRAM;
    memset(s->bins, 0, sizeof *s->bins * bins);
}

int msel_init(struct multiselect *m, uint32_t n, uint32_t bins)
{
    m->n = n;
    m->bins = bins;
    m->s = NULL;
    m->pool = NULL;
    if (bins < 2 || bins > 65536)
        return -1;
    m->s = calloc(n ? n : 1, sizeof *m->s);
    m->pool = malloc(sizeof *m->pool * bins * (n ? n : 1));
    if (!m->s || !m->pool) {
        msel_free(m);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct msel_stream *s = &m->s[i];
        s->bins = m->pool + (size_t)i * bins;
        if (bins >= MS_WIDE_BINS) {   /* one bin per sign and exponent at first: no counting pass */
            s->lo = 0;
            s->hi = UINT64_MAX;
            s->cand = UINT64_MAX;
            start_histogram(s, bins);
        }
    }
    return 0;
}

void msel_free(struct multiselect *m)
{
    free(m->s);
    free(m->pool);
    m->s = NULL;
    m->pool = NULL;
    m->n = 0;
}

void msel_feed(struct multiselect *m, uint32_t id, double v)
{
    if (id >= m->n || !isfinite(v))
        return;
    struct msel_stream *s = &m->s[id];
    if (v == 0)
        v = 0;   /* -0 and +0 are one value */
    uint64_t key = key_of(v);
    if (!s->counted) {
        if (s->stage == MS_COUNTING) {
            if (!s->count || key < s->lo)
                s->lo = key;
            if (!s->count || key > s->hi)
                s->hi = key;
        }
        s->count++;
    }
    switch (s->stage) {
    case MS_HISTOGRAM:
        if (key >= s->lo && key <= s->hi) {
            struct msel_bin *b = &s->bins[bin_of(key, s->lo, s->hi, m->bins)];
            b->count++;
            if (b->count == 1 || key < b->lo)
                b->lo = key;
            if (b->count == 1 || key > b->hi)
                b->hi = key;
        }
        break;
    case MS_COLLECTING:
        if (key >= s->lo && key <= s->hi && s->filled < 3 * (uint64_t)m->bins)
            s->values[s->filled++] = v;
        break;
    default:
        break;
    }
}

/* The k-th smallest of v[0..n) (0-based), v reordered: Hoare's FIND. */
static double kth_smallest(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

/* After the range [lo, hi] holding cand values was found: what to do next. */
static void next_stage(struct msel_stream *s, uint32_t bins)
{
    if (s->lo == s->hi) {
        s->median = value_of(s->lo);
        s->stage = MS_DONE;
    } else if (s->cand <= 3 * (uint64_t)bins) {
        s->stage = MS_COLLECTING;
        s->filled = 0;
    } else {
        start_histogram(s, bins);
    }
}

static void end_stream_pass(struct msel_stream *s, uint32_t bins)
{
    s->counted = 1;
    if (s->stage != MS_DONE && !s->count) {
        s->median = 0;
        s->stage = MS_DONE;
        return;
    }
    uint64_t k = s->count / 2;
    switch (s->stage) {
    case MS_COUNTING:
        s->below = 0;
        s->cand = s->count;
        next_stage(s, bins);
        break;
    case MS_HISTOGRAM: {
        uint64_t before = s->cand;
        for (uint32_t b = 0; b < bins; b++) {
            uint64_t c = s->bins[b].count;
            if (s->below + c > k) {
                s->lo = s->bins[b].lo;
                s->hi = s->bins[b].hi;
                s->cand = c;
                break;
            }
            s->below += c;
        }
        if (s->cand >= before && s->lo != s->hi) {
            /* cannot happen (the range's ends fall in different bins); a
             * stream that changed between passes ends here, approximately */
            s->median = value_of(s->lo);
            s->stage = MS_DONE;
            return;
        }
        next_stage(s, bins);
        break;
    }
    case MS_COLLECTING:
        if (s->filled == s->cand && k >= s->below && k - s->below < s->filled)
            s->median = kth_smallest(s->values, s->filled, k - s->below);
        else   /* the stream changed between passes */
            s->median = value_of(s->lo);
        s->stage = MS_DONE;
        break;
    default:
        break;
    }
}

int msel_end_pass(struct multiselect *m)
{
    int more = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        end_stream_pass(&m->s[i], m->bins);
        more |= m->s[i].stage != MS_DONE;
    }
    return more;
}

int msel_wants(const struct multiselect *m, uint32_t id)
{
    return id < m->n && m->s[id].stage != MS_DONE;
}

uint64_t msel_count(const struct multiselect *m, uint32_t id)
{
    return id < m->n ? m->s[id].count : 0;
}

double msel_median(const struct multiselect *m, uint32_t id)
{
    return id < m->n && m->s[id].stage == MS_DONE ? m->s[id].median : 0;
}
