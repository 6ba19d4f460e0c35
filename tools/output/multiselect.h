/* multiselect.h — exact medians of many value streams in bounded memory.
 *
 * The report needs medians (of the truth errors, of each clock segment's
 * true offset) over every event: an array of all the values grows with the
 * events. Instead the caller replays its stream of (stream id, value)
 * pairs a few times; each pass narrows, per stream, the range of values
 * that holds the median. Ranges are over keys: a value's IEEE bit pattern
 * read as an order-preserving 64-bit integer, so bins are narrow where
 * values are dense in magnitude and every pass divides the key range by
 * about the number of bins B, whatever the distribution:
 *
 *   count       (B < 4096) count, min and max, exact;
 *   histogram   B bins over the range, each keeping its count and its
 *               smallest and largest key; the bin holding the median becomes
 *               the new range [its min, its max] (bins are monotone in the
 *               value, so the range holds exactly that bin's values in later
 *               passes). With B >= 4096 the first histogram spans every
 *               double (4096 bins: one per sign and binary exponent) and
 *               counts as it goes, so no counting pass;
 *   collect     once the range holds at most 3 B values (or one value), they
 *               are kept and the median picked among them.
 *
 * The result is the exact k-th smallest value, k = count / 2 (the upper
 * median, as a quickselect on the whole array gives), whatever the order
 * of the stream (-0 counts as +0). Memory: 3 B 64-bit words per stream,
 * whatever the count. Passes: at most 1 + ceil(64 / log2 B) + 1 (B = 64: 13;
 * B = 4096: 7); 3 for 10^7 smooth values with B = 4096. NaN and infinite
 * values are ignored. The stream must be the same in every pass. */
#ifndef SYNCTRACE_MULTISELECT_H
#define SYNCTRACE_MULTISELECT_H

#include <stddef.h>
#include <stdint.h>

/* A histogram bin: how many values, and the smallest and largest key. */
struct msel_bin {
    uint64_t count, lo, hi;
};

struct msel_stream {
    uint64_t count, below, cand;   /* values; values under the range; values in it */
    uint64_t lo, hi;               /* the range that holds the median, as keys (multiselect.c) */
    int stage;                     /* counting, histogram, collecting, done (multiselect.c) */
    int counted;                   /* count is final */
    uint64_t filled;
    double median;
    union {                        /* the bins, or up to 3 B values in the same bytes */
        struct msel_bin *bins;
        double *values;
    };
};

struct multiselect {
    uint32_t n, bins;
    struct msel_stream *s;
    struct msel_bin *pool;
};

/* n streams (ids 0 .. n-1) of `bins` bins each (2 to 65536). Returns 0, or
 * -1 when out of memory or bins is out of range. */
int msel_init(struct multiselect *m, uint32_t n, uint32_t bins);
void msel_free(struct multiselect *m);

/* One value of stream id, in the current pass. */
void msel_feed(struct multiselect *m, uint32_t id, double v);
/* Ends a pass: 1 if another pass over the same stream is needed, 0 when
 * every median is known. */
int msel_end_pass(struct multiselect *m);
/* Whether stream id still wants values (callers may skip costly values). */
int msel_wants(const struct multiselect *m, uint32_t id);

/* After the last pass: the values seen in stream id, and their median (0
 * without values). */
uint64_t msel_count(const struct multiselect *m, uint32_t id);
double msel_median(const struct multiselect *m, uint32_t id);

#endif
