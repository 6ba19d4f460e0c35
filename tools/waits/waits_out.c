/* waits_out.c — the totals per (pattern, rank, region, communicator),
 * OUT/waits.json and the table on stdout.
 *
 * An instance adds max(0, its merged difference) to seconds, and the same
 * of its bounds to lo and hi: the true total lies in [sum lo, sum hi]
 * (each true wait lies in its [lo, hi], and max(0, .) keeps the order).
 * Instances whose upper bound is 0 are no wait on any clock and are not
 * counted. A row whose lo is 0 is "possibly none": the clocks allow that
 * nobody waited. */
#include "table.h"
#include "waits.h"
#include <errno.h>
#include <unistd.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const pattern_names[WT_PATTERNS] = {
    "late_sender", "late_sender_wrong_order", "late_receiver", "wait_barrier", "wait_nxn",
    "late_broadcast", "late_scatter", "early_reduce", "early_gather", "early_scan", "wait_fence",
    "late_post", "early_wait", "late_complete",
};

const char *wt_pattern_name(enum wt_pattern p)
{
    return p < WT_PATTERNS ? pattern_names[p] : "?";
}

static size_t hash_key(uint32_t p, uint32_t rank, uint32_t region, uint32_t comm)
{
    uint64_t h = ((uint64_t)p * 0x9e3779b97f4a7c15u) ^ ((uint64_t)rank * 0xc2b2ae3d27d4eb4fu)
                 ^ ((uint64_t)region * 0x165667b19e3779f9u) ^ ((uint64_t)comm * 0x27d4eb2f165667c5u);
    return (size_t)(h ^ (h >> 29));
}

static int rehash(struct wt_table *tb, size_t nslots)
{
    size_t *slot = malloc(nslots * sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < nslots; i++)
        slot[i] = SIZE_MAX;
    for (size_t k = 0; k < tb->n; k++) {
        const struct wt_row *w = &tb->rows[k];
        size_t i = hash_key(w->pattern, w->rank, w->region, w->comm) & (nslots - 1);
        while (slot[i] != SIZE_MAX)
            i = (i + 1) & (nslots - 1);
        slot[i] = k;
    }
    free(tb->slot);
    tb->slot = slot;
    tb->nslots = nslots;
    return 0;
}

static double clamp0(double x)
{
    return x > 0 ? x : 0;
}

int wt_add(struct wt_table *tb, enum wt_pattern p, uint32_t rank, uint32_t region, uint32_t comm,
           const struct wt_diff *d)
{
    if (!(d->hi > 0))
        return 0;             /* no wait on any clock the bounds allow */
    if (tb->on_instance && tb->on_instance(tb->on_instance_ctx, p, rank, region, comm, d) != 0)
        return -1;
    if (2 * (tb->n + 1) > tb->nslots && rehash(tb, tb->nslots ? 2 * tb->nslots : 1024) != 0)
        return -1;
    size_t i = hash_key(p, rank, region, comm) & (tb->nslots - 1);
    struct wt_row *w = NULL;
    for (; tb->slot[i] != SIZE_MAX; i = (i + 1) & (tb->nslots - 1)) {
        struct wt_row *c = &tb->rows[tb->slot[i]];
        if (c->pattern == p && c->rank == rank && c->region == region && c->comm == comm) {
            w = c;
            break;
        }
    }
    if (!w) {
        if (ST_ROOM(tb->rows, tb->n, tb->cap) != 0)
            return -1;
        tb->slot[i] = tb->n;
        w = &tb->rows[tb->n++];
        *w = (struct wt_row){ .pattern = p, .rank = rank, .region = region, .comm = comm };
    }
    w->count += d->w > 0;
    w->count_sure += d->lo > 0;
    w->count_possible++;
    w->seconds += clamp0(d->w);
    w->lo += clamp0(d->lo);
    w->hi += clamp0(d->hi);
    w->t += clamp0(d->t);     /* NAN without true times: stays NAN */
    w->r += clamp0(d->r);
    if (isnan(d->t))
        w->t = NAN;
    if (isnan(d->r))
        w->r = NAN;
    return 0;
}

void wt_table_free(struct wt_table *tb)
{
    free(tb->rows);
    free(tb->slot);
    memset(tb, 0, sizeof *tb);
}

static int by_seconds(const void *pa, const void *pb)
{
    const struct wt_row *a = pa, *b = pb;
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? 1 : -1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? 1 : -1;
    if (a->pattern != b->pattern)
        return a->pattern < b->pattern ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* seconds from ns; null for an infinite or unknown figure */
static void json_seconds(FILE *f, const char *key, double ns)
{
    if (isfinite(ns))
        fprintf(f, ", \"%s\": %.9f", key, ns * 1e-9);
    else
        fprintf(f, ", \"%s\": null", key);
}

static const char *region_name(const struct wt_records *rec, uint32_t region)
{
    return region < rec->nregions && rec->regions[region] ? rec->regions[region] : "?";
}

static const char *comm_name(const struct wt_records *rec, uint32_t comm)
{
    return comm < rec->ncomms && rec->comms[comm] ? rec->comms[comm] : "?";
}

static void json_row(FILE *f, const struct wt_records *rec, const struct wt_row *w, int totals)
{
    fprintf(f, "    {\"pattern\": \"%s\"", wt_pattern_name(w->pattern));
    if (!totals) {
        fprintf(f, ", \"rank\": %u, \"region\": ", w->rank);
        json_string(f, region_name(rec, w->region));
        fputs(", \"communicator\": ", f);
        json_string(f, comm_name(rec, w->comm));
    }
    fprintf(f, ", \"count\": %llu, \"count_sure\": %llu, \"count_possible\": %llu",
            (unsigned long long)w->count, (unsigned long long)w->count_sure, (unsigned long long)w->count_possible);
    json_seconds(f, "seconds", w->seconds);
    json_seconds(f, "lo", w->lo);
    json_seconds(f, "hi", w->hi);
    fprintf(f, ", \"possibly_none\": %s", w->lo > 0 ? "false" : "true");
    if (rec->have_truth)
        json_seconds(f, "true_seconds", w->t);
    if (rec->have_raw)
        json_seconds(f, "raw_seconds", w->r);
    fputs("}", f);
}

/* Per pattern, the rows summed. */
static void pattern_totals(const struct wt_table *tb, struct wt_row *tot)
{
    for (uint32_t p = 0; p < WT_PATTERNS; p++)
        tot[p] = (struct wt_row){ .pattern = p };
    for (size_t k = 0; k < tb->n; k++) {
        const struct wt_row *w = &tb->rows[k];
        struct wt_row *t = &tot[w->pattern];
        t->count += w->count;
        t->count_sure += w->count_sure;
        t->count_possible += w->count_possible;
        t->seconds += w->seconds;
        t->lo += w->lo;
        t->hi += w->hi;
        t->t += w->t;
        t->r += w->r;
    }
}

int wt_write_json(const char *outdir, const struct wt_records *rec, const struct wt_bounds *bd,
                  const struct wt_table *tb, double seconds, char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/waits.json", outdir);
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        return -1;
    }
    struct wt_row *rows = malloc((tb->n ? tb->n : 1) * sizeof *rows);
    if (!rows) {
        fclose(f);
        unlink(tmp);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(rows, tb->rows, tb->n * sizeof *rows);
    qsort(rows, tb->n, sizeof *rows, by_seconds);
    fprintf(f, "{\n  \"format\": 1,\n  \"events\": %llu, \"messages_unmatched\": %llu, "
               "\"collectives_incomplete\": %llu, \"collectives_unknown_neighbours\": %llu, "
               "\"epochs_unpaired\": %llu,\n",
            (unsigned long long)rec->events, (unsigned long long)rec->unmatched,
            (unsigned long long)rec->incomplete_collectives, (unsigned long long)rec->unknown_neighbours,
            (unsigned long long)rec->epochs_unpaired);
    /* what sorting the records wrote to spill files (0: all fitted in --memory) */
    fprintf(f, "  \"spilled_bytes\": %llu,\n", (unsigned long long)rec->spilled_bytes);
    fprintf(f, "  \"bounds\": {\"from\": \"%s\", \"method\": \"per-run clock envelope\"", 
            bd->have ? "report.json" : "none");
    json_seconds(f, "widest_clock_interval", bd->widest_ns);
    json_seconds(f, "repair_widening", bd->repair_ns);
    fprintf(f, "},\n  \"seconds_analysis\": %.6f,\n  \"totals\": [\n", seconds);
    struct wt_row tot[WT_PATTERNS];
    pattern_totals(tb, tot);
    for (uint32_t p = 0; p < WT_PATTERNS; p++) {
        json_row(f, rec, &tot[p], 1);
        fputs(p + 1 < WT_PATTERNS ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"waits\": [\n", f);
    for (size_t k = 0; k < tb->n; k++) {
        json_row(f, rec, &rows[k], 0);
        fputs(k + 1 < tb->n ? ",\n" : "\n", f);
    }
    fputs("  ]\n}\n", f);
    free(rows);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void human(char *buf, size_t n, double ns)
{
    if (!isfinite(ns))
        snprintf(buf, n, "inf");
    else if (ns >= 1e9)
        snprintf(buf, n, "%.3f s", ns * 1e-9);
    else if (ns >= 1e6)
        snprintf(buf, n, "%.3f ms", ns * 1e-6);
    else
        snprintf(buf, n, "%.1f us", ns * 1e-3);
}

static void print_row(FILE *to, const struct wt_row *w, const char *who)
{
    char v[32], lo[32], hi[32];
    human(v, sizeof v, w->seconds);
    human(lo, sizeof lo, w->lo);
    human(hi, sizeof hi, w->hi);
    fprintf(to, "  %-24s %-28s %10s [%s, %s] x%llu%s\n", wt_pattern_name(w->pattern), who, v, lo, hi,
            (unsigned long long)w->count, w->lo > 0 ? "" : "  possibly none");
}

void wt_print_table(FILE *to, const struct wt_records *rec, const struct wt_bounds *bd, const struct wt_table *tb,
                    size_t top)
{
    struct wt_row tot[WT_PATTERNS];
    pattern_totals(tb, tot);
    qsort(tot, WT_PATTERNS, sizeof *tot, by_seconds);
    fprintf(to, "synctrace waits: %llu events; time waited [bounds from the clocks]%s\n",
            (unsigned long long)rec->events, bd->have ? "" : " (no report.json: unbounded)");
    for (uint32_t p = 0; p < WT_PATTERNS; p++)
        if (tot[p].count_possible)
            print_row(to, &tot[p], "all ranks");
    struct wt_row *rows = malloc((tb->n ? tb->n : 1) * sizeof *rows);
    if (!rows)
        return;
    memcpy(rows, tb->rows, tb->n * sizeof *rows);
    qsort(rows, tb->n, sizeof *rows, by_seconds);
    if (tb->n)
        fprintf(to, "biggest:\n");
    for (size_t k = 0; k < tb->n && k < top; k++) {
        char who[64];
        snprintf(who, sizeof who, "rank %u %s", rows[k].rank, region_name(rec, rows[k].region));
        print_row(to, &rows[k], who);
    }
    free(rows);
}
