/* export_html.c — one self-contained HTML page from a merged archive: a
 * zoomable canvas timeline of the ranks with message lines, a switch
 * between the synchronised times and the raw ones (OUT/rawview.map: what
 * today's tools show) with tachyons in red, the precision figures and
 * per-clock offsets and drifts (OUT/report.json), and the cluster-timestamp
 * size plot (OUT/cluster_sizes.csv, when the causal index was built).
 *
 * Level of detail is computed here, so the page stays small and fast for
 * traces of millions of events. Two streaming passes over the archive:
 *   1. count slices by duration (log2 buckets) and messages (raw tachyons
 *      apart), to choose what fits the budgets below;
 *   2. per rank, time bins (how much of each bin each kind of MPI call
 *      took; the page sums bins per pixel at any zoom), every slice at
 *      least as long as the threshold pass 1 chose, every raw tachyon and
 *      an even sample of the other messages.
 * The embedded data is bounded whatever the trace's length:
 *   HTML_BIN_CELLS bins in all ranks (4 bytes each, base64),
 *   HTML_SLICES slices and HTML_MESSAGES messages (about 30 bytes each),
 *   HTML_RAW_POINTS points of the raw-view map (or 2 per rank), the map
 *   thinned to fit by a wider tolerance where it has more (a repaired
 *   trace's has a point nearly every few events), said in the page,
 * plus the report: about 10 MB at most for the events (bench/export.sh
 * measures it). Whether a message was a tachyon in raw time is decided
 * here, on the whole map, and embedded with it.
 * With OUT/waits-instances.bin (synctrace waits --json), the waits that
 * took time are embedded too, for the page to shade (a toggle): the
 * HTML_WAITS longest, and the totals per pattern and rank of all. */
#include "export.h"
#include "export_waits.h"
#include "export_html_page.h"
#include "flowmatch.h"
#include "workspan.h"
#include "location_order.h"
#include "mtread.h"
#include "progress.h"
#include "rawview.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef HTML_BIN_CELLS   /* tests/fuzz/build.sh makes it small: the bins dominate a small export's time */
#define HTML_BIN_CELLS (1u << 19)
#endif
#define HTML_SLICES 150000u
#define HTML_MESSAGES 50000u
#define HTML_RAW_POINTS 100000u
#define HTML_WAITS 50000u
#define MAX_DEPTH 64
#define NCLASSES 4

/* what the page colours: point-to-point, collective, other MPI, the tracer's own */
static const char *const class_names[NCLASSES] = { "point-to-point", "collective", "other MPI", "synctrace" };

static int class_of(const char *region)
{
    if (strncmp(region, "synctrace", 9) == 0)
        return 3;
    if (strncmp(region, "MPI_", 4) != 0)
        return 2;
    static const char *const coll[] = { "arrier", "cast", "ather", "catter", "educe", "lltoall", "can" };
    for (size_t i = 0; i < sizeof coll / sizeof coll[0]; i++)
        if (strstr(region, coll[i]))
            return 1;
    static const char *const p2p[] = { "Send", "Recv", "send", "recv", "Wait", "Test", "Probe", "probe", "Start",
                                       "Cancel" };
    for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++)
        if (strstr(region, p2p[i]))
            return 0;
    return 2;
}

/* ---------- messages in flight: (key, k) -> the end seen first ---------- */

struct flight {
    struct fm_key key;
    uint64_t k, time;
    double raw;               /* its raw time (rawview.map), when there is a map */
    uint32_t track;
    uint8_t used, is_send;
};

struct flights {
    struct flight *v;
    uint64_t cap, n;
};

static uint64_t flight_hash(const struct fm_key *key, uint64_t k)
{
    uint64_t h = k * 0x9e3779b97f4a7c15ULL;
    const uint32_t w[4] = { key->comm, key->src, key->dst, key->tag };
    for (int i = 0; i < 4; i++)
        h = (h ^ w[i]) * 0xbf58476d1ce4e5b9ULL, h ^= h >> 31;
    return h;
}

static int same_flight(const struct flight *f, const struct fm_key *key, uint64_t k)
{
    return f->k == k && f->key.comm == key->comm && f->key.src == key->src && f->key.dst == key->dst
           && f->key.tag == key->tag;
}

static int flights_grow(struct flights *fl)
{
    uint64_t cap = fl->cap ? fl->cap * 2 : 1024;
    struct flight *v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    for (uint64_t i = 0; i < fl->cap; i++)
        if (fl->v[i].used) {
            uint64_t s = flight_hash(&fl->v[i].key, fl->v[i].k) & (cap - 1);
            while (v[s].used)
                s = (s + 1) & (cap - 1);
            v[s] = fl->v[i];
        }
    free(fl->v);
    fl->v = v;
    fl->cap = cap;
    return 0;
}

/* One end of a message arrives: if the other end is waiting, take it out
 * (*other gets it, returns 1); else leave this one waiting (0); -1: memory. */
static int flights_meet(struct flights *fl, const struct flight *end, struct flight *other)
{
    if ((fl->n + 1) * 2 > fl->cap && flights_grow(fl) != 0)
        return -1;
    uint64_t mask = fl->cap - 1, s = flight_hash(&end->key, end->k) & mask;
    for (; fl->v[s].used; s = (s + 1) & mask)
        if (same_flight(&fl->v[s], &end->key, end->k) && fl->v[s].is_send != end->is_send) {
            *other = fl->v[s];
            /* backward-shift deletion keeps probe chains whole */
            uint64_t hole = s, j = s;
            for (;;) {
                j = (j + 1) & mask;
                if (!fl->v[j].used)
                    break;
                uint64_t home = flight_hash(&fl->v[j].key, fl->v[j].k) & mask;
                if (((j - home) & mask) >= ((j - hole) & mask)) {
                    fl->v[hole] = fl->v[j];
                    hole = j;
                }
            }
            fl->v[hole].used = 0;
            fl->n--;
            return 1;
        }
    fl->v[s] = *end;
    fl->v[s].used = 1;
    fl->n++;
    return 0;
}

/* ---------- durations in buckets of an eighth of an octave ---------- */

/* Bucket of a duration: 8 per power of two of dur + 1, so the slice budget
 * is filled to within an eighth of the longest left out. */
#define DURATION_BUCKETS (64 * 8)

static int duration_bucket(uint64_t dur)
{
    uint64_t d1 = dur == UINT64_MAX ? dur : dur + 1;
    int e = 63;
    while (e > 0 && !(d1 >> e))
        e--;
    int m = e >= 3 ? (int)((d1 >> (e - 3)) & 7) : (int)((d1 << (3 - e)) & 7);
    return e * 8 + m;
}

/* The shortest duration in bucket b, if any duration falls in it
 * (duration_bucket(bucket_floor(b)) == b; below 8 ns some buckets are empty). */
static uint64_t bucket_floor(int b)
{
    if (b >= DURATION_BUCKETS)
        return UINT64_MAX;
    int e = b / 8, m = b % 8;
    uint64_t d1 = e >= 3 ? (uint64_t)(8 + m) << (e - 3) : (uint64_t)(8 + m) >> (3 - e);
    return d1 - 1;
}

/* ---------- the two passes ---------- */

struct open_slice {
    uint64_t start;
    uint32_t region;
};

struct track {
    uint64_t count;           /* events seen on the location in this pass: the next one's index */
    struct open_slice stack[MAX_DEPTH];
    uint32_t depth, overflow;  /* regions deeper than MAX_DEPTH are not drawn */
    uint64_t last;             /* time of the previous event */
};

struct html {
    FILE *to, *msgs;           /* msgs: pass 2's messages, copied in after the slices */
    struct mt_trace t;
    struct rv_file *raw;
    struct track *tracks;
    struct fm_matcher *fm;
    struct flights fl;
    int pass;
    int *region_class;
    struct workspan work;      /* the span the page opens on (pass 1) */
    /* pass 1 */
    uint64_t slices_by_bucket[DURATION_BUCKETS], messages, raw_tachyons, raw_near, events, total_events, end;
    /* pass 2 */
    uint32_t nbins;
    float *bins;               /* [track][bin][class]: ns */
    uint64_t min_slice_ns, slices_kept, stride, others_seen, messages_kept, tachyons_kept;
    int first_slice, first_msg;
    char *err;
    size_t errlen;
    int failed;
};


static void add_busy(struct html *h, uint32_t track, int cls, uint64_t from, uint64_t to)
{
    if (to <= from || h->end == 0)
        return;
    double width = (double)h->end / h->nbins;
    uint64_t b = (uint64_t)(from / width), last = (uint64_t)(to / width);
    if (last >= h->nbins)
        last = h->nbins - 1;
    for (; b <= last; b++) {
        double lo = fmax((double)from, b * width), hi = fmin((double)to, (b + 1) * width);
        if (b == last)
            hi = (double)to;
        if (hi > lo)
            h->bins[((size_t)track * h->nbins + b) * NCLASSES + cls] += (float)(hi - lo);
    }
}

static void message_done(struct html *h, const struct flight *s, const struct flight *r)
{
    int tachyon = h->raw && r->raw < s->raw;
    if (h->pass == 1) {
        h->messages++;
        h->raw_tachyons += tachyon;
        /* rawview.map gives raw times within RV_TOLERANCE_NS: a message
         * this close to a tie may count otherwise than in the report */
        h->raw_near += h->raw && fabs(r->raw - s->raw) < 2 * RV_TOLERANCE_NS;
        return;
    }
    int keep = tachyon ? h->tachyons_kept < HTML_MESSAGES : (h->others_seen++ % h->stride) == 0;
    if (!keep || h->messages_kept >= HTML_MESSAGES)
        return;
    h->messages_kept++;
    h->tachyons_kept += tachyon;
    fprintf(h->msgs, "%s%u,%llu,%u,%llu,%d", h->first_msg ? "" : ",", s->track, (unsigned long long)s->time, r->track,
            (unsigned long long)r->time, tachyon);
    h->first_msg = 0;
}

static int meet(struct html *h, const struct flight *end)
{
    struct flight other;
    int rc = flights_meet(&h->fl, end, &other);
    if (rc < 0) {
        snprintf(h->err, h->errlen, "out of memory while pairing messages");
        h->failed = 1;
        return -1;
    }
    /* a receive released by MPI_Request_free has no known end: no message shown */
    if (rc == 1 && end->time != FM_TIME_UNKNOWN && other.time != FM_TIME_UNKNOWN)
        message_done(h, end->is_send ? end : &other, end->is_send ? &other : end);
    return 0;
}

static void on_end(void *user, int is_send, const struct fm_key *key, uint64_t k, uint32_t rank, uint64_t time,
                   uint64_t cookie)
{
    struct html *h = user;
    /* its raw time now, while the map's reading is near the event */
    double raw = h->raw && time != FM_TIME_UNKNOWN ? rv_file_raw(h->raw, rank, cookie, (double)time) : 0;
    struct flight end = { *key, k, time, raw, rank, 1, (uint8_t)is_send };
    if (!h->failed)
        meet(h, &end);
}

static int on_event(void *user, uint32_t loc, const struct rt_event *e)
{
    struct html *h = user;
    struct track *tr = &h->tracks[loc];
    uint64_t index = tr->count++;
    uint32_t self = loc_id_rank(h->t.locations[loc]);
    if ((++h->events & 0xffff) == 0)
        progress_update(h->pass == 1 ? "exporting (pass 1 of 2)" : "exporting (pass 2 of 2)", h->events,
                        h->total_events);
    if (h->pass == 1 && e->time > h->end)
        h->end = e->time;
    if (h->pass == 2 && tr->depth && !tr->overflow) {
        const struct open_slice *top = &tr->stack[tr->depth - 1];
        add_busy(h, loc, h->region_class[top->region < h->t.nregions ? top->region : 0], tr->last, e->time);
    }
    tr->last = e->time;
    if (h->pass == 1)
        ws_note(&h->work, e);
    switch (e->kind) {
    case RT_ENTER:
        if (tr->depth == MAX_DEPTH || tr->overflow)
            tr->overflow++;
        else
            tr->stack[tr->depth++] = (struct open_slice){ e->time, e->ref };
        break;
    case RT_LEAVE: {
        if (tr->overflow) {
            tr->overflow--;
            break;
        }
        if (!tr->depth)
            break;   /* a leave without an enter: nothing to draw */
        struct open_slice s = tr->stack[--tr->depth];
        uint64_t dur = e->time - s.start;
        if (h->pass == 1) {
            h->slices_by_bucket[duration_bucket(dur)]++;
        } else if (dur >= h->min_slice_ns && h->slices_kept < HTML_SLICES) {
            fprintf(h->to, "%s%u,%llu,%llu,%u,%u", h->first_slice ? "" : ",", loc, (unsigned long long)s.start,
                    (unsigned long long)dur, s.region, tr->depth);
            h->first_slice = 0;
            h->slices_kept++;
        }
        break;
    }
    case RT_SEND:
    case RT_ISEND: {
        int dst = mt_peer_rank(&h->t, self, e->ref, e->peer);
        struct fm_key key = { e->ref, self, dst < 0 ? UINT32_MAX : (uint32_t)dst, e->tag };
        if (fm_send(h->fm, loc, e->kind == RT_ISEND, e->req, &key, e->time, index) != 0)
            goto oom;
        break;
    }
    case RT_ISEND_COMPLETE:
        fm_send_complete(h->fm, loc, e->req);
        break;
    case RT_IRECV_REQUEST:
        if (fm_post(h->fm, loc, e->req) != 0)
            goto oom;
        break;
    case RT_RECV:
    case RT_IRECV: {
        int src = mt_peer_rank(&h->t, self, e->ref, e->peer);
        struct fm_key key = { e->ref, src < 0 ? UINT32_MAX : (uint32_t)src, self, e->tag };
        if (fm_recv(h->fm, loc, e->kind == RT_IRECV, e->req, &key, e->time, index) != 0)
            goto oom;
        break;
    }
    case RT_IRECV_FREED: {
        int src = e->peer == RT_ANY ? -1 : mt_peer_rank(&h->t, self, e->ref, e->peer);
        struct fm_key key = { e->ref, src < 0 ? UINT32_MAX : (uint32_t)src, self, e->tag };
        fm_freed(h->fm, loc, e->req, src < 0 || e->tag == RT_ANY ? NULL : &key, index);
        break;
    }
    case RT_CANCELLED:
        fm_cancel(h->fm, loc, e->req);
        break;
    default:
        break;
    }
    return h->failed ? -1 : 0;
oom:
    snprintf(h->err, h->errlen, "out of memory while pairing messages");
    return -1;
}

static int run_pass(struct html *h, int pass)
{
    h->pass = pass;
    h->events = 0;
    memset(h->tracks, 0, sizeof *h->tracks * h->t.nlocations);
    fm_free(h->fm);
    free(h->fl.v);
    h->fl = (struct flights){ 0 };
    if (!(h->fm = fm_new(h->t.nlocations, on_end, h))) {
        snprintf(h->err, h->errlen, "out of memory");
        return -1;
    }
    if (mt_read_events(&h->t, on_event, h, h->err, h->errlen) != 0)
        return -1;
    fm_finish(h->fm);
    if (!h->failed && h->raw && *rv_file_error(h->raw)) {
        snprintf(h->err, h->errlen, "%s", rv_file_error(h->raw));
        return -1;
    }
    return h->failed ? -1 : 0;
}

/* ---------- embedded files ---------- */

/* Copy a JSON file into the page ('<' only occurs in strings: escaped). */
static int embed_json_file(FILE *to, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '<')
            fputs("\\u003c", to);
        else
            fputc(c, to);
    }
    fclose(f);
    return 0;
}

/* OUT/cluster_sizes.csv: header max_cluster_size,self_organizing,contiguous,fidge_mattern
 * and rows of numbers. Writes "clusters": {...} or null plus a note. */
static void embed_clusters(FILE *to, const char *dir)
{
    char path[4300], line[512], note[4600] = "";
    snprintf(path, sizeof path, "%s/cluster_sizes.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fputs("\"clusters\":null,\"clustersNote\":\"no causal index\"", to);
        return;
    }
    static const char header[] = "max_cluster_size,self_organizing,contiguous,fidge_mattern";
    if (!fgets(line, sizeof line, f) || strncmp(line, header, sizeof header - 1) != 0
        || (line[sizeof header - 1] && line[sizeof header - 1] != '\n' && line[sizeof header - 1] != '\r')) {
        snprintf(note, sizeof note, "%s: not a cluster-size table (expected the header %s)", path, header);
    } else {
        fputs("\"clusters\":[", to);
        unsigned long lineno = 1, rows = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            double v[4];
            char extra;
            if (line[0] == '\n' || line[0] == '\r')
                continue;
            if (sscanf(line, "%lf,%lf,%lf,%lf %c", &v[0], &v[1], &v[2], &v[3], &extra) != 4 || !isfinite(v[0])
                || !isfinite(v[1]) || !isfinite(v[2]) || !isfinite(v[3])) {
                snprintf(note, sizeof note, "%s:%lu: expected four numbers; the plot stops before this line", path,
                         lineno);
                break;
            }
            fprintf(to, "%s[%.17g,%.17g,%.17g,%.17g]", rows++ ? "," : "", v[0], v[1], v[2], v[3]);
        }
        fputs("],", to);
        fclose(f);
        fputs("\"clustersNote\":", to);
        export_json_string(to, note);
        if (note[0])
            fprintf(stderr, "synctrace export: warning: %s\n", note);
        return;
    }
    fclose(f);
    fprintf(stderr, "synctrace export: warning: %s\n", note);
    fputs("\"clusters\":null,\"clustersNote\":", to);
    export_json_string(to, note);
}

/* The most points per rank that keeps the page's map within
 * HTML_RAW_POINTS (all of them when it is; at least 2). */
static uint32_t raw_points_per_rank(const struct html *h)
{
    uint32_t nt = h->t.nlocations, most = 0;
    uint64_t total = 0;
    for (uint32_t r = 0; r < nt; r++) {
        uint32_t c = rv_count(h->raw, r);
        total += c;
        most = c > most ? c : most;
    }
    if (total <= HTML_RAW_POINTS)
        return most;
    uint32_t lo = 2, hi = most;   /* the largest cap whose sum fits, by bisection */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t sum = 0;
        for (uint32_t r = 0; r < nt; r++) {
            uint32_t c = rv_count(h->raw, r);
            sum += c < mid ? c : mid;
        }
        if (sum <= HTML_RAW_POINTS)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

struct map_series {
    struct rv_file *m;
    uint32_t rank;
};

static void map_at(const void *ctx, uint64_t k, double *x, double *y)
{
    const struct map_series *ms = ctx;
    struct rv_point p = { 0, 0, 0 };
    rv_point_at(ms->m, ms->rank, (uint32_t)k, &p);   /* a failure sticks: looked at after */
    *x = p.g;
    *y = p.raw;
}

/* "raw": [[g,raw,...] per rank], thinned where a rank has more points
 * than its share, and the tolerance that took (0: the map as it is). */
static int embed_raw(FILE *to, struct html *h)
{
    uint32_t cap = raw_points_per_rank(h);
    double widest = 0;
    struct rv_points thin = { 0 };
    fputc('[', to);
    for (uint32_t r = 0; r < h->t.nlocations; r++) {
        uint32_t n = rv_count(h->raw, r);
        struct rv_point p;
        fputs(r ? ",[" : "[", to);
        if (n <= cap) {
            for (uint32_t k = 0; k < n && rv_point_at(h->raw, r, k, &p) == 0; k++)
                fprintf(to, "%s%.3f,%.3f", k ? "," : "", p.g, p.raw);
        } else {
            const struct map_series ms = { h->raw, r };
            const struct rv_series sr = { map_at, &ms };
            double tol;
            if (rv_simplify_within(&sr, n, cap, RV_TOLERANCE_NS, &thin, &tol) != 0) {
                snprintf(h->err, h->errlen, "out of memory while thinning the raw-view map");
                free(thin.v);
                return -1;
            }
            widest = tol > widest ? tol : widest;
            for (uint32_t k = 0; k < thin.n; k++)
                fprintf(to, "%s%.3f,%.3f", k ? "," : "", thin.v[k].g, thin.v[k].raw);
        }
        fputc(']', to);
        if (*rv_file_error(h->raw)) {
            snprintf(h->err, h->errlen, "%s", rv_file_error(h->raw));
            free(thin.v);
            return -1;
        }
    }
    free(thin.v);
    /* within the map's own tolerance of the events, plus the thinning's */
    fprintf(to, "],\"rawToleranceNs\":%.3f,\"rawNote\":\"\"", widest > 0 ? widest + RV_TOLERANCE_NS : 0.0);
    return 0;
}

static void ns_or_null(FILE *to, double ns)
{
    if (isfinite(ns))
        fprintf(to, ",%.0f", ns);
    else
        fputs(",null", to);
}

static int by_length_desc(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a < b) - (a > b);
}

/* "waits": the instances as [track, start, duration, pattern, region, lo,
 * hi] (ns; lo, hi null when unbounded), the HTML_WAITS longest when there
 * are more, and [pattern, rank, count, ns] totals of all; or null and why. */
static int embed_waits(FILE *to, const struct export_waits *w, char *err, size_t errlen)
{
    if (!w->v) {
        fputs("\"waits\":null,\"waitsNote\":", to);
        export_json_string(to, w->note);
        return 0;
    }
    double thr = 0;
    size_t ties = SIZE_MAX;   /* instances as long as thr still to embed */
    if (w->n > HTML_WAITS) {
        double *len = malloc(w->n * sizeof *len);
        if (!len) {
            snprintf(err, errlen, "out of memory for the waits");
            return -1;
        }
        for (size_t i = 0; i < w->n; i++)
            len[i] = w->v[i].w;
        qsort(len, w->n, sizeof *len, by_length_desc);
        thr = len[HTML_WAITS - 1];
        ties = 0;
        for (size_t i = 0; i < HTML_WAITS; i++)
            ties += len[i] == thr;
        free(len);
    }
    fputs("\"waits\":{\"patterns\":[", to);
    for (int p = 0; p < WT_PATTERNS; p++)
        fprintf(to, "%s\"%s\"", p ? "," : "", wt_pattern_name(p));
    fputs("],\"instances\":[", to);
    size_t shown = 0;
    for (size_t i = 0; i < w->n; i++) {
        const struct wt_instance *x = &w->v[i];
        if (x->w < thr || (x->w == thr && ties == 0))
            continue;
        if (x->w == thr && ties != SIZE_MAX)
            ties--;
        fprintf(to, "%s%u,%.0f,%.0f,%u,%u", shown++ ? "," : "", x->rank, x->from, x->w, x->pattern, x->region);
        ns_or_null(to, x->lo);
        ns_or_null(to, x->hi);
    }
    fputs("],\"totals\":[", to);
    size_t rows = 0;
    for (size_t i = 0; i < w->n;) {   /* by rank already: per rank, each pattern */
        size_t end = i;
        while (end < w->n && w->v[end].rank == w->v[i].rank)
            end++;
        for (int p = 0; p < WT_PATTERNS; p++) {
            uint64_t count = 0;
            double ns = 0;
            for (size_t k = i; k < end; k++)
                if (w->v[k].pattern == (uint32_t)p)
                    count++, ns += w->v[k].w;
            if (count)
                fprintf(to, "%s[%d,%u,%llu,%.0f]", rows++ ? "," : "", p, w->v[i].rank, (unsigned long long)count, ns);
        }
        i = end;
    }
    fprintf(to, "],\"shown\":%zu,\"total\":%zu,\"counted\":%llu},\"waitsNote\":\"\"", shown, w->n,
            (unsigned long long)w->counted);
    export_last.waits = shown;
    return 0;
}

/* base64 of the bins, as fractions of each bin's width in 0..255 */
static void embed_bins(FILE *to, const struct html *h)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    double width = h->end ? (double)h->end / h->nbins : 1;
    size_t n = (size_t)h->t.nlocations * h->nbins * NCLASSES;
    unsigned char q[3];
    int k = 0;
    for (size_t i = 0; i < n; i++) {
        double f = h->bins[i] / width;
        q[k++] = (unsigned char)lround(fmin(1.0, fmax(0.0, f)) * 255);
        if (k == 3 || i + 1 == n) {
            if (k < 3)
                memset(q + k, 0, (size_t)(3 - k));
            char o[4] = { b64[q[0] >> 2], b64[((q[0] & 3) << 4) | (q[1] >> 4)],
                          k > 1 ? b64[((q[1] & 15) << 2) | (q[2] >> 6)] : '=', k > 2 ? b64[q[2] & 63] : '=' };
            fwrite(o, 1, 4, to);
            k = 0;
        }
    }
}

int export_html(const char *outdir, FILE *to, const struct export_reading *rd, char *err, size_t errlen)
{
    char path[4300], rawerr[4400] = "";
    struct html h = { .to = to, .err = err, .errlen = errlen, .first_slice = 1, .first_msg = 1 };
    struct export_waits waits = { 0 };
    snprintf(path, sizeof path, "%s/traces.otf2", outdir);
    if (mt_open(path, &h.t, err, errlen) != 0)
        return -1;
    if (rd) {
        h.t.max_open = rd->max_open;
        h.t.spill_dir = rd->spill_dir;
    }
    int rc = -1;
    uint32_t nt = h.t.nlocations;
    snprintf(path, sizeof path, "%s/rawview.map", outdir);
    h.raw = rv_open(path, nt, rd ? rd->spill_dir : NULL, rawerr, sizeof rawerr);
    if (!h.raw)
        fprintf(stderr, "synctrace export: warning: %s; the page has no raw view\n", rawerr);
    h.tracks = calloc(nt, sizeof *h.tracks);
    h.region_class = malloc(sizeof *h.region_class * (h.t.nregions ? h.t.nregions : 1));
    h.nbins = 64;
    while (h.nbins < 65536 && (uint64_t)h.nbins * 2 * nt <= HTML_BIN_CELLS)
        h.nbins *= 2;
    h.bins = calloc((size_t)nt * h.nbins * NCLASSES, sizeof *h.bins);
    h.msgs = tmpfile();
    if (!h.tracks || !h.region_class || ws_init(&h.work, &h.t) != 0 || !h.bins || !h.msgs) {
        snprintf(err, errlen, h.msgs ? "out of memory" : "cannot create a temporary file: %s", strerror(errno));
        goto done;
    }
    h.region_class[0] = 2;
    for (uint32_t r = 0; r < h.t.nregions; r++)
        h.region_class[r] = class_of(mt_region(&h.t, r));
    for (uint32_t i = 0; i < nt; i++)
        h.total_events += h.t.location_events[i];
    progress_begin("synctrace export");

    if (run_pass(&h, 1) != 0)
        goto done;
    /* the shortest slices go first when over budget */
    uint64_t kept = 0, slices_total = 0;
    for (int k = 0; k < DURATION_BUCKETS; k++)
        slices_total += h.slices_by_bucket[k];
    int b = DURATION_BUCKETS - 1;
    while (b >= 0 && kept + h.slices_by_bucket[b] <= HTML_SLICES)
        kept += h.slices_by_bucket[b--];
    int c = b + 1;   /* below 8 ns not every bucket holds a duration: the next one that does */
    while (b >= 0 && c < DURATION_BUCKETS && duration_bucket(bucket_floor(c)) != c)
        c++;
    h.min_slice_ns = b < 0 ? 0 : bucket_floor(c);
    uint64_t others = h.messages - h.raw_tachyons;
    uint64_t room = HTML_MESSAGES > h.raw_tachyons ? HTML_MESSAGES - h.raw_tachyons : 1;
    h.stride = others > room ? (others + room - 1) / room : 1;
    export_last.events = h.events;

    fputs(HTML_PAGE_HEAD, to);
    fputs("{\"version\":2,\"tracks\":[", to);
    for (uint32_t i = 0; i < nt; i++) {
        fputs(i ? "," : "", to);
        export_json_string(to, h.t.location_names[i][0] ? h.t.location_names[i] : "?");
    }
    fputs("],\"regions\":[", to);
    for (uint32_t r = 0; r < h.t.nregions; r++) {
        fputs(r ? "," : "", to);
        export_json_string(to, mt_region(&h.t, r));
    }
    fputs("],\"regionClass\":[", to);
    for (uint32_t r = 0; r < h.t.nregions; r++)
        fprintf(to, "%s%d", r ? "," : "", h.region_class[r]);
    fputs("],\"classes\":[", to);
    for (int c = 0; c < NCLASSES; c++)
        fprintf(to, "%s\"%s\"", c ? "," : "", class_names[c]);
    uint64_t work_begin, work_end;
    if (ws_span(&h.work, &work_begin, &work_end))
        fprintf(to, "],\"work\":[%llu,%llu", (unsigned long long)work_begin, (unsigned long long)work_end);
    fprintf(to, "],\"end\":%llu,\"events\":%llu,\"slicesTotal\":%llu,\"messagesTotal\":%llu,\"tachyonsRaw\":%llu,"
                "\"tachyonsRawNear\":%llu,\"minSliceNs\":%llu,\"messageStride\":%llu,"
                "\"bounds\":{\"binCells\":%u,\"slices\":%u,\"messages\":%u},\n\"slices\":[",
            (unsigned long long)h.end, (unsigned long long)h.events, (unsigned long long)slices_total,
            (unsigned long long)h.messages, (unsigned long long)h.raw_tachyons,
            (unsigned long long)h.raw_near, (unsigned long long)h.min_slice_ns, (unsigned long long)h.stride, HTML_BIN_CELLS, HTML_SLICES,
            HTML_MESSAGES);
    if (run_pass(&h, 2) != 0)
        goto done;
    fputs("],\n\"messages\":[", to);
    rewind(h.msgs);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, h.msgs)) > 0)
        fwrite(buf, 1, n, to);
    if (ferror(h.msgs)) {
        snprintf(err, errlen, "the temporary file of messages: read failed");
        goto done;
    }
    fprintf(to, "],\n\"nbins\":%u,\"bins\":\"", h.nbins);
    embed_bins(to, &h);
    fputs("\",\n\"raw\":", to);
    if (h.raw) {
        if (embed_raw(to, &h) != 0)
            goto done;
    } else {
        fputs("null,\"rawToleranceNs\":0,\"rawNote\":", to);
        export_json_string(to, rawerr);
    }
    fputs(",\n", to);
    export_waits_load(outdir, h.t.locations, nt, &waits);   /* location r is rank r (location_order.h) */
    if (embed_waits(to, &waits, err, errlen) != 0)
        goto done;
    fputs(",\n", to);
    embed_clusters(to, outdir);
    fputs("}\n</script>\n<script id=\"report\" type=\"application/json\">\n", to);
    /* apart from the data: the page copes with a report it cannot parse */
    snprintf(path, sizeof path, "%s/report.json", outdir);
    if (embed_json_file(to, path) != 0) {
        fprintf(stderr, "synctrace export: warning: %s: cannot read; the page has no precision figures\n", path);
        fputs("null", to);
    }
    fputs(HTML_PAGE_TAIL, to);
    export_last.slices = h.slices_kept;
    export_last.flows = h.messages_kept;
    rc = 0;
done:
    progress_end();
    export_waits_free(&waits);
    if (h.msgs)
        fclose(h.msgs);
    fm_free(h.fm);
    free(h.fl.v);
    free(h.bins);
    free(h.region_class);
    ws_free(&h.work);
    free(h.tracks);
    rv_close(h.raw);
    mt_close(&h.t);
    return rc;
}
