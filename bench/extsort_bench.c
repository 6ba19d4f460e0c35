/*
 * extsort_bench.c — the external sort (tools/util/extsort.c) against
 * qsort of the whole array in memory, on the same records.
 *
 *   extsort_bench [RECORDS [RECORD_BYTES [BUDGET_MB [REPEAT]]]]   (default 10000000 40 16 3)
 *
 * Records: a 64-bit key with duplicates (RECORDS / 4 values), a unique
 * 64-bit id breaking ties, random bytes to RECORD_BYTES (at least 16).
 * Timed, REPEAT times in turn, the fastest kept:
 *   spilled     put every record, finish, read every record back, within
 *               BUDGET_MB, spilling to $EXTSORT_SPILL_DIR ($TMPDIR, /tmp);
 *               first, so that its peak RSS growth is its own;
 *   qsort       qsort of a copy of the array;
 *   in memory   as spilled, with a budget holding all records.
 * Both outputs are then checked against qsort's, record by record
 * (rewind, untimed). One JSON line on stdout; exit 1 on a failure.
 */
#include "extsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static size_t rec;
static volatile uint64_t sink;   /* what the timed loops read goes somewhere */

static int cmp(const void *a, const void *b)
{
    uint64_t x[2], y[2];
    memcpy(x, a, 16);
    memcpy(y, b, 16);
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Sort in[0..n): the seconds of put, finish and reading every record, or -1. */
static double timed_sort(struct st_extsort *s, const char *in, size_t n)
{
    double t = now();
    for (size_t i = 0; i < n; i++)
        if (st_extsort_put(s, in + i * rec) != 0)
            return -1;
    if (st_extsort_finish(s) != 0)
        return -1;
    uint64_t sum = 0, k;
    size_t got = 0;
    for (const char *r; (r = st_extsort_next(s)); got++) {
        memcpy(&k, r, 8);
        sum += k;
    }
    t = now() - t;
    sink = sum;
    return st_extsort_failed(s) || got != n ? -1 : t;
}

/* The sorter's records again, against want[0..n). */
static int same(struct st_extsort *s, const char *want, size_t n)
{
    if (st_extsort_rewind(s) != 0)
        return 0;
    size_t i = 0;
    for (const char *r; (r = st_extsort_next(s)); i++)
        if (i >= n || memcmp(r, want + i * rec, rec) != 0)
            return 0;
    return i == n && !st_extsort_failed(s);
}

static int fail(const char *what, struct st_extsort *s, const char *err)
{
    fprintf(stderr, "extsort_bench: %s: %s\n", what, s ? st_extsort_error(s) : err);
    st_extsort_free(s);
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    rec = argc > 2 ? strtoull(argv[2], NULL, 10) : 40;
    size_t budget = (argc > 3 ? strtoull(argv[3], NULL, 10) : 16) << 20;
    int repeat = argc > 4 ? atoi(argv[4]) : 3;
    if (n == 0 || rec < 16 || rec > 4096 || budget == 0 || repeat < 1) {
        fprintf(stderr, "usage: extsort_bench [RECORDS [RECORD_BYTES (16 to 4096) [BUDGET_MB [REPEAT]]]]\n");
        return 2;
    }
    const char *dir = getenv("EXTSORT_SPILL_DIR");
    char *in = malloc(n * rec), *sorted = malloc(n * rec), err[512];
    if (!in || !sorted) {
        fprintf(stderr, "extsort_bench: out of memory for %zu records\n", n);
        return 1;
    }
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        char *r = in + i * rec;
        for (size_t j = 0; j < rec; j += 8) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t v = j == 0 ? x % (n / 4 + 1) : j == 8 ? i : x;
            memcpy(r + j, &v, rec - j < 8 ? rec - j : 8);
        }
    }

    /* each variant REPEAT times in turn, the fastest kept: the machine's
     * load moves single runs by tens of percent */
    double t_spill = 1e300, t_qsort = 1e300, t_mem = 1e300;
    long rss0 = maxrss_kb(), rss_spill = 0;
    struct st_extsort *sp = NULL, *mem = NULL;
    for (int r = 0; r < repeat; r++) {
        st_extsort_free(sp);
        if (!(sp = st_extsort_new(rec, cmp, budget, dir, err, sizeof err)))
            return fail("spilled", NULL, err);
        double t = timed_sort(sp, in, n);
        if (t < 0)
            return fail("spilled", sp, NULL);
        t_spill = t < t_spill ? t : t_spill;
        if (r == 0)
            rss_spill = maxrss_kb() - rss0;

        memcpy(sorted, in, n * rec);
        t = now();
        qsort(sorted, n, rec, cmp);
        t = now() - t;
        t_qsort = t < t_qsort ? t : t_qsort;

        /* twice the records: the run buffer is half the budget */
        st_extsort_free(mem);
        if (!(mem = st_extsort_new(rec, cmp, 2 * n * rec, dir, err, sizeof err)))
            return fail("in memory", NULL, err);
        t = timed_sort(mem, in, n);
        if (t < 0 || st_extsort_runs(mem) != 0)
            return fail("in memory", mem, NULL);
        t_mem = t < t_mem ? t : t_mem;
    }

    int ok = same(sp, sorted, n) && same(mem, sorted, n);
    printf("{\"bench\":\"extsort\",\"records\":%zu,\"record_bytes\":%zu,\"budget_bytes\":%zu,\"repeat\":%d,"
           "\"runs\":%u,\"merges\":%u,\"spilled_bytes\":%llu,\"qsort_seconds\":%.3f,"
           "\"extsort_memory_seconds\":%.3f,\"extsort_spilled_seconds\":%.3f,"
           "\"memory_over_qsort\":%.3f,\"spilled_over_qsort\":%.3f,"
           "\"spilled_rss_growth_kb\":%ld,\"same_order\":%s}\n",
           n, rec, budget, repeat, st_extsort_runs(sp), st_extsort_merges(sp),
           (unsigned long long)st_extsort_spilled_bytes(sp), t_qsort, t_mem, t_spill,
           t_mem / t_qsort, t_spill / t_qsort, rss_spill, ok ? "true" : "false");
    st_extsort_free(sp);
    st_extsort_free(mem);
    free(in);
    free(sorted);
    return ok ? 0 : 1;
}
