/* waits_sorted.c — records sorted in bounded memory by several threads:
 * each putter (a reading thread) has its own external sorter, as
 * extsort.h asks, and the sorted outputs are merged by the comparison.
 * With a total order the merged output is the same whatever the number of
 * putters, which locations each read, or the budget. There are few putters
 * (--jobs): the smallest head is found by a scan, not a heap. */
#include "waits.h"
#include "extsort.h"

#include <stdlib.h>
#include <string.h>

struct wt_sorted {
    struct st_extsort **s;
    const void **head;        /* each sorter's next record, NULL at its end */
    uint32_t n;
    uint32_t taken;           /* the sorter whose head was taken (refilled at the next call), or n */
    uint8_t *finished;        /* per sorter: its finish done (by its putter, or by wt_sorted_finish) */
    int (*cmp)(const void *, const void *);
    size_t rec, each;         /* record bytes; each sorter's budget */
    wt_sink_fn sink;          /* a sink's (wt_sorted_new_sink): no sorters */
    void *sink_ctx;
    uint32_t tag;
    char err[512];
};

struct wt_sorted *wt_sorted_new_sink(size_t record_bytes, wt_sink_fn sink, void *ctx, uint32_t tag, char *err,
                                     size_t errlen)
{
    struct wt_sorted *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->rec = record_bytes;
    s->sink = sink;
    s->sink_ctx = ctx;
    s->tag = tag;
    return s;
}

struct wt_sorted *wt_sorted_new(uint32_t nputters, size_t record_bytes, int (*cmp)(const void *, const void *),
                                size_t budget_bytes, const char *spill_dir, char *err, size_t errlen)
{
    struct wt_sorted *s = calloc(1, sizeof *s);
    uint32_t n = nputters ? nputters : 1;
    if (!s || !(s->s = calloc(n, sizeof *s->s)) || !(s->head = calloc(n, sizeof *s->head))
        || !(s->finished = calloc(n, 1))) {
        if (s) {
            free(s->s);
            free(s->head);
        }
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->n = n;
    s->taken = n;
    s->cmp = cmp;
    s->rec = record_bytes;
    s->each = budget_bytes / n;
    for (uint32_t k = 0; k < n; k++) {
        if (!(s->s[k] = st_extsort_new(record_bytes, cmp, s->each, spill_dir, err, errlen))) {
            wt_sorted_free(s);
            return NULL;
        }
        /* glibc sorts our records (over 32 bytes) through pointers: more
         * of the budget for them, fewer spills */
        st_extsort_pointer_scratch(s->s[k]);
    }
    return s;
}

static int failed(struct wt_sorted *s, uint32_t k)
{
    if (!*s->err)
        snprintf(s->err, sizeof s->err, "%s", st_extsort_error(s->s[k]));
    return -1;
}

int wt_sorted_put(struct wt_sorted *s, uint32_t k, const void *rec)
{
    if (s->sink)
        return s->sink(s->sink_ctx, k, s->tag, rec, s->rec);
    return st_extsort_put(s->s[k], rec) == 0 ? 0 : -1;
}

int wt_sorted_finish_part(struct wt_sorted *s, uint32_t k)
{
    if (s->sink)
        return s->sink(s->sink_ctx, k, s->tag, NULL, 0);
    if (!s->finished[k] && st_extsort_finish(s->s[k]) != 0)
        return -1;
    s->finished[k] = 1;
    return 0;
}

int wt_sorted_finish(struct wt_sorted *s)
{
    for (uint32_t k = 0; k < s->n; k++) {
        if (wt_sorted_finish_part(s, k) != 0)
            return failed(s, k);
        s->head[k] = st_extsort_next(s->s[k]);
        if (!s->head[k] && st_extsort_failed(s->s[k]))
            return failed(s, k);
    }
    return 0;
}

/* The sorter with the smallest head, or n at the end (or after an error). */
static uint32_t smallest(struct wt_sorted *s)
{
    if (*s->err)
        return s->n;
    if (s->taken < s->n) {
        uint32_t k = s->taken;
        s->taken = s->n;
        s->head[k] = st_extsort_next(s->s[k]);
        if (!s->head[k] && st_extsort_failed(s->s[k])) {
            failed(s, k);
            return s->n;
        }
    }
    uint32_t best = s->n;
    for (uint32_t k = 0; k < s->n; k++)
        if (s->head[k] && (best == s->n || s->cmp(s->head[k], s->head[best]) < 0))
            best = k;
    return best;
}

const void *wt_sorted_peek(struct wt_sorted *s)
{
    uint32_t k = smallest(s);
    return k < s->n ? s->head[k] : NULL;
}

const void *wt_sorted_next(struct wt_sorted *s)
{
    uint32_t k = smallest(s);
    if (k == s->n)
        return NULL;
    s->taken = k;             /* its head stays valid until the next call */
    return s->head[k];
}

const char *wt_sorted_error(const struct wt_sorted *s)
{
    if (*s->err)
        return s->err;
    for (uint32_t k = 0; k < s->n; k++)
        if (st_extsort_failed(s->s[k]))
            return st_extsort_error(s->s[k]);
    return "";
}

const char *wt_sorted_part_error(const struct wt_sorted *s, uint32_t k)
{
    if (s->sink)
        return "";            /* a sink's failures are its own to say */
    return st_extsort_error(s->s[k]);
}

uint64_t wt_sorted_count(const struct wt_sorted *s)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < s->n; k++)
        n += st_extsort_count(s->s[k]);
    return n;
}

uint64_t wt_sorted_held(const struct wt_sorted *s)
{
    uint64_t n = 0;
    for (uint32_t k = 0; s && k < s->n; k++) {
        /* in memory: the records; spilled: the runs' read buffers (at
         * most 4 MiB each) within the budget, or a buffer filling up */
        uint64_t runs = st_extsort_runs(s->s[k]);
        uint64_t most = runs * (4u << 20) < s->each ? runs * (4u << 20) : s->each;
        n += runs ? (s->finished[k] ? most : s->each) : st_extsort_count(s->s[k]) * s->rec;
    }
    return n;
}

uint64_t wt_sorted_spilled(const struct wt_sorted *s)
{
    uint64_t n = 0;
    for (uint32_t k = 0; s && k < s->n; k++)
        n += st_extsort_spilled_bytes(s->s[k]);
    return n;
}

void wt_sorted_free(struct wt_sorted *s)
{
    if (!s)
        return;
    for (uint32_t k = 0; s->s && k < s->n; k++)
        st_extsort_free(s->s[k]);
    free(s->s);
    free(s->head);
    free(s->finished);
    free(s);
}
