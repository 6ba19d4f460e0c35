/* multiselect.c — see multiselect.h. */
#include "multiselect.h"

#include <math.h>
#include <stdlib.h>

enum { MS_COUNTING, MS_HISTOGRAM, MS_COLLECTING, MS_DONE };

int ms_init(struct multiselect *m, uint32_t n)
{
    m->n = n;
    m->s = calloc(n ? n : 1, sizeof *m->s);
    m->pool = malloc(sizeof *m->pool * 3 * MS_BINS * (n ? n : 1));
    if (!m->s || !m->pool) {
        ms_free(m);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        m->s[i].scratch = m->pool + (size_t)i * 3 * MS_BINS;
    return 0;
}

void ms_free(struct multiselect *m)
{
    free(m->s);
    free(m->pool);
    m->s = NULL;
    m->pool = NULL;
    m->n = 0;
}

/* The bin of v in [lo, hi] (lo < hi): monotone in v, lo in bin 0 and hi in
 * the last, so a histogram pass always splits the range. */
static unsigned bin_of(double v, double lo, double hi)
{
    double d = hi - lo, f;
    if (isfinite(d))
        f = (v - lo) / d;
    else   /* the range spans more than the largest double */
        f = (v / 2 - lo / 2) / (hi / 2 - lo / 2);
    unsigned b = (unsigned)(f * MS_BINS);
    return b < MS_BINS ? b : MS_BINS - 1;
}

void ms_feed(struct multiselect *m, uint32_t id, double v)
{
    if (id >= m->n || !isfinite(v))
        return;
    struct ms_stream *s = &m->s[id];
    switch (s->stage) {
    case MS_COUNTING:
        if (!s->count || v < s->lo)
            s->lo = v;
        if (!s->count || v > s->hi)
            s->hi = v;
        s->count++;
        break;
    case MS_HISTOGRAM:
        if (v >= s->lo && v <= s->hi) {
            unsigned b = bin_of(v, s->lo, s->hi);
            double *cnt = s->scratch, *mn = cnt + MS_BINS, *mx = mn + MS_BINS;
            if (cnt[b] == 0 || v < mn[b])
                mn[b] = v;
            if (cnt[b] == 0 || v > mx[b])
                mx[b] = v;
            cnt[b]++;
        }
        break;
    case MS_COLLECTING:
        if (v >= s->lo && v <= s->hi && s->filled < MS_COLLECT)
            s->scratch[s->filled++] = v;
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
static void next_stage(struct ms_stream *s)
{
    if (s->lo == s->hi) {
        s->median = s->lo;
        s->stage = MS_DONE;
    } else if (s->cand <= MS_COLLECT) {
        s->stage = MS_COLLECTING;
        s->filled = 0;
    } else {
        s->stage = MS_HISTOGRAM;
        for (unsigned b = 0; b < MS_BINS; b++)
            s->scratch[b] = 0;
    }
}

static void end_stream_pass(struct ms_stream *s)
{
    uint64_t k = s->count / 2;
    switch (s->stage) {
    case MS_COUNTING:
        if (!s->count) {
            s->median = 0;
            s->stage = MS_DONE;
            return;
        }
        s->below = 0;
        s->cand = s->count;
        next_stage(s);
        break;
    case MS_HISTOGRAM: {
        const double *cnt = s->scratch, *mn = cnt + MS_BINS, *mx = mn + MS_BINS;
        uint64_t before = s->cand;
        for (unsigned b = 0; b < MS_BINS; b++) {
            uint64_t c = (uint64_t)cnt[b];
            if (s->below + c > k) {
                s->lo = mn[b];
                s->hi = mx[b];
                s->cand = c;
                break;
            }
            s->below += c;
        }
        if (s->cand >= before && s->lo != s->hi) {
            /* cannot happen (the range's ends fall in different bins); a
             * stream that changed between passes ends here, approximately */
            s->median = s->lo;
            s->stage = MS_DONE;
            return;
        }
        next_stage(s);
        break;
    }
    case MS_COLLECTING:
        if (s->filled == s->cand && k >= s->below && k - s->below < s->filled)
            s->median = kth_smallest(s->scratch, s->filled, k - s->below);
        else   /* the stream changed between passes */
            s->median = s->lo;
        s->stage = MS_DONE;
        break;
    default:
        break;
    }
}

int ms_end_pass(struct multiselect *m)
{
    int more = 0;
    for (uint32_t i = 0; i < m->n; i++) {
        end_stream_pass(&m->s[i]);
        more |= m->s[i].stage != MS_DONE;
    }
    return more;
}

int ms_wants(const struct multiselect *m, uint32_t id)
{
    return id < m->n && m->s[id].stage != MS_DONE;
}

uint64_t ms_count(const struct multiselect *m, uint32_t id)
{
    return id < m->n ? m->s[id].count : 0;
}

double ms_median(const struct multiselect *m, uint32_t id)
{
    return id < m->n && m->s[id].stage == MS_DONE ? m->s[id].median : 0;
}
