/* unit_multiselect.c — the report's exact medians in passes
 * (tools/output/multiselect.c) against sorting, on seeded streams: smooth,
 * heavy-tailed, ties, values spanning the whole double range, tiny spans,
 * NaN and infinities (ignored), empty and one-value streams, from 2 to 4096
 * bins (wide histograms skip the counting pass); and passes within the
 * documented bound: memory is 3 x bins words per stream whatever the count. */
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
    struct agg exact = { 0 }, bounded = { 0 }, args = { 0 };
    size_t sizes[] = { 0, 1, 2, 3, 95, 96, 97, 192, 193, 1000, 12288, 12289, 65537, 300000 };
    uint32_t bin_counts[] = { 2, 32, 64, 4096 };
    /* at most: counting, ceil(64 / log2 B) histograms, collecting */
    int max_passes[] = { 66, 15, 13, 7 };
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes * 4; z++) {
        size_t n = sizes[z / 4];
        uint32_t bins = bin_counts[z % 4];
        if (bins == 2 && n > 1000)
            continue;
        struct multiselect ms;
        if (msel_init(&ms, KINDS + 1, bins) != 0)
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
                    msel_feed(&ms, (uint32_t)k, vals[k][i]);
                    msel_feed(&ms, KINDS, i % 3 ? NAN : (i % 2 ? INFINITY : -INFINITY));   /* ignored */
                }
            passes++;
            more = msel_end_pass(&ms);
        } while (more && passes < 100);
        check(&bounded, passes <= max_passes[z % 4], "n=%zu, %u bins: %d passes", n, bins, passes);
        for (int k = 0; k < KINDS; k++) {
            double want = sorted_median(vals[k], n), got = msel_median(&ms, (uint32_t)k);
            check(&exact, got == want && msel_count(&ms, (uint32_t)k) == n,
                  "kind %d n=%zu, %u bins: median %.17g, want %.17g", k, n, bins, got, want);
            free(vals[k]);
        }
        check(&exact, msel_count(&ms, KINDS) == 0 && msel_median(&ms, KINDS) == 0, "n=%zu: NaN and infinities counted", n);
        check(&exact, !msel_wants(&ms, 0), "n=%zu: a finished stream still wants values", n);
        msel_free(&ms);
    }
    struct multiselect bad;
    check(&args, msel_init(&bad, 1, 1) == -1 && msel_init(&bad, 1, 65537) == -1, "bins out of range accepted");
    report(&exact, "medians equal the sorted arrays' element n/2 (smooth, tailed, ties, huge and tiny spans; 2-4096 bins)");
    report(&bounded, "passes within 1 + ceil(64 / log2 bins) + 1 for up to 3e5 values (3 x bins words per stream)");
    report(&args, "bin counts outside 2..65536 refused");
    return tap_finish();
}
