/* multiselect.h — exact medians of many value streams in bounded memory.
 *
 * The report needs medians (of the truth errors, of each clock segment's
 * true offset) over every event: an array of all the values grows with the
 * events. Instead the caller replays its stream of (stream id, value)
 * pairs a few times; each pass narrows, per stream, the value range that
 * holds the median:
 *
 *   pass 1      count, min and max (exact);
 *   histogram   MS_BINS bins over the range, each keeping its count, min
 *               and max; the bin holding the median becomes the new range
 *               [its min, its max] (bins are monotone in the value, so the
 *               range holds exactly that bin's values in later passes).
 *               Bins split the range of the values' IEEE bit patterns read
 *               as ordered 64-bit integers, not of the values: each pass
 *               divides that range by about MS_BINS whatever the
 *               distribution, so at most 13 histogram passes;
 *   collect     once the range holds at most MS_COLLECT values (or min ==
 *               max), they are kept and the median picked among them.
 *
 * The result is the exact k-th smallest value, k = count / 2 (the upper
 * median, as a quickselect on the whole array gives), whatever the order
 * of the stream (-0 counts as +0). Memory: 3 MS_BINS 64-bit words per
 * stream, whatever the count; passes: the count, then about
 * log_{MS_BINS}(count / MS_COLLECT) histograms for smooth data, at most 13,
 * then the collection: at most 15 in all. NaN and infinite values are
 * ignored. The stream must be the same in every pass. */
#ifndef SYNCTRACE_MULTISELECT_H
#define SYNCTRACE_MULTISELECT_H

#include <stddef.h>
#include <stdint.h>

#define MS_BINS 32
#define MS_COLLECT (3 * MS_BINS)

/* A histogram bin: how many values, and the smallest and largest key. */
struct ms_bin {
    uint64_t count, lo, hi;
};

struct ms_stream {
    uint64_t count, below, cand;   /* values; values under the range; values in it */
    uint64_t lo, hi;               /* the range that holds the median, as keys (multiselect.c) */
    int stage;                     /* 0 counting, 1 histogram, 2 collecting, 3 done */
    uint64_t filled;
    double median;
    union {                        /* MS_BINS bins, or up to MS_COLLECT values in the same bytes */
        struct ms_bin *bins;
        double *values;
    };
};

struct multiselect {
    uint32_t n;
    struct ms_stream *s;
    struct ms_bin *pool;
};

/* n streams (ids 0 .. n-1). Returns 0, or -1 when out of memory. */
int ms_init(struct multiselect *m, uint32_t n);
void ms_free(struct multiselect *m);

/* One value of stream id, in the current pass. */
void ms_feed(struct multiselect *m, uint32_t id, double v);
/* Ends a pass: 1 if another pass over the same stream is needed, 0 when
 * every median is known. */
int ms_end_pass(struct multiselect *m);
/* Whether stream id still wants values (callers may skip costly values). */
int ms_wants(const struct multiselect *m, uint32_t id);

/* After the last pass: the values seen in stream id, and their median (0
 * without values). */
uint64_t ms_count(const struct multiselect *m, uint32_t id);
double ms_median(const struct multiselect *m, uint32_t id);

#endif
