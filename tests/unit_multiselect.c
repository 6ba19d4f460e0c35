/* unit_multiselect.c — the report's exact medians in passes
 * (tools/merge/multiselect.c) against sorting, on seeded streams: smooth,
 * heavy-tailed, ties, values spanning the whole double range, tiny spans,
 * NaN and infinities (ignored), empty and one-value streams; and memory that
 * stays bounded: passes, not storage, grow with the count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "multiselect.h"
#include "tap.h"

static uint64_t rng = 12345;
static double uniform(void)   /* [0, 1), xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median as the report defined it before: the element of rank n/2. */
static double sorted_median(const double *v, size_t n)
{
    if (!n)
        return 0;
    double *c = malloc(sizeof *c * n);
    if (!c)
        abort();
    memcpy(c, v, sizeof *c * n);
    qsort(c, n, sizeof *c, cmp);
    double m = c[n / 2];
    free(c);
    return m;
}

enum { KINDS = 9 };

static double value(int kind, size_t i)
{
    switch (kind) {
    case 0: return uniform() * 1000 - 500;                              /* smooth */
    case 1: return -log(1 - uniform()) * 100;                           /* exponential */
    case 2: return floor(uniform() * 5);                                /* many ties */
    case 3: return (uniform() < 0.5 ? -1 : 1) * pow(10, uniform() * 600 - 300);   /* all magnitudes */
    case 4: return i % 2 ? 1e308 : -1e308;                              /* range overflows */
    case 5: return 1e-320 * (double)(i % 7);                            /* subnormals */
    case 6: return 42;                                                  /* one value */
    case 7: return pow(2, (double)(i % 60));                            /* geometric */
    default: return 1 + (double)i * 2.220446049250313e-16;              /* adjacent doubles */
    }
}

int main(void)
{
    struct agg exact = { 0 }, bounded = { 0 };
    size_t sizes[] = { 0, 1, 2, 3, 95, 96, 97, 1000, 65537, 300000 };
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        size_t n = sizes[z];
        struct multiselect ms;
        if (ms_init(&ms, KINDS + 1) != 0)
            return 1;
        double *vals[KINDS];
        for (int k = 0; k < KINDS; k++) {
            vals[k] = malloc(sizeof **vals * (n ? n : 1));
            if (!vals[k])
                return 1;
            for (size_t i = 0; i < n; i++)
                vals[k][i] = value(k, i);
        }
        int passes = 0, more;
        do {   /* the streams interleaved, as the report feeds segments */
            for (size_t i = 0; i < n; i++)
                for (int k = 0; k < KINDS; k++) {
                    ms_feed(&ms, (uint32_t)k, vals[k][i]);
                    ms_feed(&ms, KINDS, i % 3 ? NAN : (i % 2 ? INFINITY : -INFINITY));   /* ignored */
                }
            passes++;
            more = ms_end_pass(&ms);
        } while (more && passes < 100);
        check(&bounded, passes <= 15, "n=%zu: %d passes", n, passes);
        for (int k = 0; k < KINDS; k++) {
            double want = sorted_median(vals[k], n), got = ms_median(&ms, (uint32_t)k);
            check(&exact, got == want && ms_count(&ms, (uint32_t)k) == n, "kind %d n=%zu: median %.17g, want %.17g",
                  k, n, got, want);
            free(vals[k]);
        }
        check(&exact, ms_count(&ms, KINDS) == 0 && ms_median(&ms, KINDS) == 0, "n=%zu: NaN and infinities counted", n);
        check(&exact, !ms_wants(&ms, 0), "n=%zu: a finished stream still wants values", n);
        ms_free(&ms);
    }
    report(&exact, "medians equal the sorted arrays' element n/2 (smooth, tailed, ties, huge and tiny spans)");
    report(&bounded, "at most 15 passes for up to 3e5 values with 3 x 32 doubles per stream");
    return tap_finish();
}
