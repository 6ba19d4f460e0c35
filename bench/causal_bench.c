/* causal_bench.c — `causal_bench RAW_DIR LEVELS QUERIES`: build the causal
 * index of a raw trace (after matching, as the merge does) and time it,
 * write it and compare its size with Fidge/Mattern vectors, then time
 * queries on the index as read back from the file, same-cluster and
 * cross-cluster pairs apart. Prints one line of key=value pairs.
 * CAUSAL_BENCH_KEEP=FILE keeps the index there.
 *
 * `causal_bench --queries INDEX QUERIES ROUNDS`: only the query timing, on
 * an index kept so, ROUNDS times (one line each): to compare builds of the
 * reader on a loaded machine, alternated run by run.
 *
 * Baseline in the same run: filling fresh memory of the index's size
 * (mmap + memset, as the build must write every entry once), the floor of
 * any build that keeps the index in memory (first-touch page faults dominate
 * on virtual machines).
 *
 * Query latency: each query is timed alone (CLOCK_MONOTONIC, vDSO) and the
 * cost of an empty timing pair, measured in the same run, is subtracted. */
#include "causal.h"
#include "match.h"
#include "rawdir.h"
#include "rawtrace.h"
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Is rank q in the stored cluster of event (r, i)? */
static int same_cluster(const struct ci_index *x, uint32_t r, uint64_t i, uint32_t q)
{
    uint64_t lo = x->rec_first[r], hi = x->rec_first[r + 1];
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (x->rec_start[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t k = x->rec_level[lo];
    if (k >= x->nlevels)
        return 1;
    const uint32_t *map = x->map[k] + x->map_first[k][x->rec_cluster[lo]];
    for (uint32_t j = 0; j < x->rec_size[lo]; j++)
        if (map[j] == q)
            return 1;
    return 0;
}

volatile int sink;

/* A line of /proc/self/status in kB ("VmRSS", "VmHWM"), or -1. */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

/* Start a new peak of resident memory (VmHWM) from what is resident now. */
static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* Where the index's bytes go, as key=value pairs: bytes of each part of
 * the file (full vectors: chunk data and chunk table; cluster entries;
 * record tables; cluster maps), and what the full vectors would take as
 * 4-byte entries (format 1). */
static void breakdown(const struct ci_index *ix, const struct ci_stats *st)
{
    /* built into its file: the index has its counts, not its arrays */
    uint64_t top = st->top_records, maps = 0;
    for (uint32_t k = 0; k < ix->nlevels; k++)
        maps += 8 * ((uint64_t)ix->nranks + 1) + 4 * ix->nmap[k];
    uint64_t meta = ix->nrecords * (4 + 4 + 4 + 8 + 8 + 1 + 4 * (uint64_t)ix->nlevels) + 16 * (uint64_t)ix->nranks;
    printf("records=%llu top_records=%llu bytes_chunk_data=%llu bytes_chunk_table=%llu bytes_cluster_entries=%llu "
           "bytes_record_meta=%llu bytes_cluster_maps=%llu bytes_top_vectors_format1=%llu chunks_zero=%llu "
           "chunks_u8=%llu chunks_u16=%llu chunks_u32=%llu key_chunks=%llu passes=%u window=%u vector_bytes=%zu ",
           (unsigned long long)ix->nrecords, (unsigned long long)top, (unsigned long long)ix->nbytes,
           (unsigned long long)(sizeof(struct ci_line) * ix->nlines), (unsigned long long)(4 * ix->nentries),
           (unsigned long long)meta, (unsigned long long)maps, (unsigned long long)(4 * top * ix->nranks),
           (unsigned long long)st->chunks[0], (unsigned long long)st->chunks[1], (unsigned long long)st->chunks[2],
           (unsigned long long)st->chunks[3], (unsigned long long)st->key_chunks, st->passes, st->window,
           st->vector_bytes);
}

/* Median and 99th percentile in ns of n single queries of one kind. */
static void time_queries(const struct ci_index *ix, int want_same, long n, double overhead, double *med, double *p99)
{
    double *t = malloc(sizeof *t * (size_t)n);
    long got = 0, tries = 0;
    while (t && got < n && tries < 200 * n) {
        tries++;
        uint32_t rb = (uint32_t)(rnd() % ix->nranks), ra = (uint32_t)(rnd() % ix->nranks);
        uint64_t ib = rnd() % ix->nevents[rb], ia = rnd() % ix->nevents[ra];
        if (ra == rb || same_cluster(ix, rb, ib, ra) != want_same)
            continue;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        sink += ci_precedes(ix, ra, ia, rb, ib);
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[got++] = (double)(b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) - overhead;
    }
    if (!got) {
        *med = *p99 = -1;
        free(t);
        return;
    }
    qsort(t, (size_t)got, sizeof *t, cmp_double);
    *med = t[got / 2];
    *p99 = t[(size_t)(got * 0.99)];
    free(t);
}

/* The cost of timing nothing. */
static double timer_overhead(void)
{
    double *e = malloc(sizeof *e * 10001);
    if (!e)
        return 0;
    for (int k = 0; k < 10001; k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        e[k] = (double)(b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
    }
    qsort(e, 10001, sizeof *e, cmp_double);
    double overhead = e[5000];
    free(e);
    return overhead;
}

static int queries_only(const char *path, long q, int rounds)
{
    char err[4400];
    struct ci_index ix;
    if (ci_read(path, NULL, &ix, err, sizeof err) != 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 1;
    }
    for (int k = 0; k < rounds; k++) {
        double overhead = timer_overhead(), sm, sp, cm, cp;
        rng = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1);   /* other pairs each round, the same in every build */
        time_queries(&ix, 1, q, overhead, &sm, &sp);
        time_queries(&ix, 0, q, overhead, &cm, &cp);
        printf("round=%d same_cluster_median_ns=%.0f same_cluster_p99_ns=%.0f cross_cluster_median_ns=%.0f "
               "cross_cluster_p99_ns=%.0f\n", k, sm, sp, cm, cp);
        fflush(stdout);
    }
    ci_free(&ix);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--queries"))
        return queries_only(argv[2], atol(argv[3]), atoi(argv[4]));
    if (argc != 4) {
        fprintf(stderr, "usage: causal_bench RAW_DIR LEVELS QUERIES | --queries INDEX QUERIES ROUNDS\n");
        return 2;
    }
    char err[4400];
    char **anchors;
    int n = rawdir_list(argv[1], &anchors, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 1;
    }
    struct rt_location *ranks = calloc((size_t)n, sizeof *ranks);
    uint64_t *nev = malloc(sizeof *nev * (size_t)n), total = 0;
    for (int r = 0; r < n; r++) {
        if (rt_read_rank(anchors[r], &ranks[r], err, sizeof err) != 0) {
            fprintf(stderr, "causal_bench: %s\n", err);
            return 1;
        }
        total += nev[r] = ranks[r].nevents;
    }
    struct mg_result m;
    if (mg_match(ranks, (uint32_t)n, &m, err, sizeof err) != 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 1;
    }
    for (int r = 0; r < n; r++)
        rt_free_location(&ranks[r]);
    struct ci_config cfg = { 0 };
    if (ci_parse_levels(argv[2], &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 2;
    }
    /* built as the merge builds it: full vectors streamed into the file */
    char path[4200], entries_path[4300];
    const char *keep = getenv("CAUSAL_BENCH_KEEP");
    if (keep && *keep)
        snprintf(path, sizeof path, "%s", keep);
    else
        snprintf(path, sizeof path, "%s/causal-bench-%ld.idx", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (long)getpid());
    snprintf(entries_path, sizeof entries_path, "%s.tmp", path);
    cfg.entries_file = entries_path;
    if (getenv("CAUSAL_CHUNK_SHIFT"))
        cfg.chunk_shift = (uint32_t)atoi(getenv("CAUSAL_CHUNK_SHIFT"));
    if (getenv("CAUSAL_VECTOR_BUDGET_MB"))
        cfg.vector_budget = (size_t)atol(getenv("CAUSAL_VECTOR_BUDGET_MB")) << 20;
    struct ci_index ix;
    struct ci_stats st;
    reset_peak();
    long rss_before = status_kb("VmRSS");
    double t0 = st_now_s();
    if (ci_build(nev, (uint32_t)n, &m, &cfg, &ix, &st, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 1;
    }
    double build = st_now_s() - t0;
    /* the build's own peak: resident memory at its highest during the build
     * (the matches it reads were resident before: rss_before_build_kb) */
    printf("rss_before_build_kb=%ld build_peak_rss_kb=%ld ", rss_before, status_kb("VmHWM"));
    breakdown(&ix, &st);
    double fill = -1;
    {
        size_t bytes = (size_t)(ix.nbytes + ix.nlines * sizeof(struct ci_line) + ix.nentries * 4
                                + ix.nrecords * 30) + 4096;
        t0 = st_now_s();
        char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            madvise(p, bytes, MADV_HUGEPAGE);
            memset(p, 1, bytes);
            fill = st_now_s() - t0;
            munmap(p, bytes);
        }
    }
    uint64_t fp[2] = { 0, 0 };
    struct stat sb;
    t0 = st_now_s();
    if (ci_write_in_place(&ix, path, fp, err, sizeof err) != 0 || stat(path, &sb) != 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 1;
    }
    double write_s = st_now_s() - t0;
    ci_free(&ix);
    t0 = st_now_s();
    if (ci_read(path, NULL, &ix, err, sizeof err) != 0) {
        fprintf(stderr, "causal_bench: %s\n", err);
        return 1;
    }
    double open_s = st_now_s() - t0;
    if (!keep || !*keep)
        remove(path);
    double overhead = timer_overhead();
    long q = atol(argv[3]);
    double sm, sp, cm, cp;
    time_queries(&ix, 1, q, overhead, &sm, &sp);
    time_queries(&ix, 0, q, overhead, &cm, &cp);
    double fm_bytes = (double)total * n * 4;
    printf("ranks=%d events=%llu levels=%s build_s=%.4f build_events_per_s=%.0f entries_per_event=%.3f "
           "paper_ratio=%.4f index_bytes=%lld fm_bytes=%.0f index_ratio=%.5f open_s=%.4f "
           "same_cluster_median_ns=%.0f same_cluster_p99_ns=%.0f cross_cluster_median_ns=%.0f "
           "cross_cluster_p99_ns=%.0f timer_overhead_ns=%.0f peak_live_vectors=%zu fresh_memory_fill_s=%.4f "
           "build_to_fill_ratio=%.2f write_s=%.4f bytes_per_event=%.1f\n",
           n, (unsigned long long)total, argv[2], build, total / build, st.paper_entries / total,
           st.paper_entries / total / n, (long long)sb.st_size, fm_bytes, sb.st_size / fm_bytes, open_s, sm, sp, cm,
           cp, overhead, st.peak_live_vectors, fill, fill > 0 ? build / fill : -1, write_s,
           (double)sb.st_size / (double)total);
    ci_free(&ix);
    mg_free(&m);
    free(ranks);
    free(nev);
    rawdir_free(anchors, n);
    return 0;
}
