/* foreign_timemap.c — see foreign_timemap.h. */
#include <config.h>
#include "foreign_timemap.h"
#include "fsutil.h"
#include "merge.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* One location's modelled events: their positions, raw times and merged
 * times (input ticks), held two blocks at a time and read in order as the
 * copy goes, so that memory does not grow with the location's length. */
struct merged_location {
    uint64_t n;               /* events */
    uint32_t k;               /* the location's index */
    uint64_t first, held;     /* the events held: [first, first + held) */
    uint64_t *raw, *merged, *pos;   /* 2 blocks each */
    struct fr_kept_mark *marks;     /* one a block */
};

static void drop_location(struct merged_location *c)
{
    free(c->merged);
    free(c->raw);
    free(c->pos);
    free(c->marks);
    memset(c, 0, sizeof *c);
}

/* Where one copying thread is: the location whose times are loaded and
 * how far along its modelled events the copy has come. Each thread of the
 * copy has its own (thread_cursor); the map's own serves offset_range and
 * fm_offset_errors. */
struct fm_cursor {
    struct fm_timemap *m;
    uint64_t loc_id;          /* the location whose times are loaded */
    uint32_t loc_index;
    struct merged_location cur;
    uint64_t cursor;
    int borrowed;             /* cur is the process's main location's, mapped by time */
    int failed;
    char err[9000];
};

struct fm_timemap {
    const struct foreign_raw *fr;
    double scale;             /* input ticks per merged tick */
    int64_t shift;            /* input ticks: the merge's global time starts at 0 (its earliest event);
                               * the copy's starts where the reference rank's raw clock says */
    uint32_t reference;       /* rank */
    int64_t off_min, off_max; /* over every modelled event: merged - raw, input ticks */
    int others_failed;        /* shared: another process failed opening its part */
    struct fm_cursor own;
    /* a copying thread's failure, as its cursor is given back: the one of
     * the first location in the archive's order is said */
    pthread_mutex_t lock;
    int failed;
    uint32_t failed_index;
    /* The merge's times file (merge.h), read a location at a time (by
     * location: where its times lie, whether it has them) */
    int times_fd;
    uint64_t times_bytes, *times_at;
    uint8_t *cached;             /* read-only once open: the threads pread at times_at */
    uint64_t block;              /* events a block of a held location (SYNCTRACE_TIMEMAP_BLOCK) */
    char err[9000];
};

/* The rank archive location of input location k. */
static uint64_t raw_id(const struct foreign_defs *d, uint32_t k)
{
    const struct fd_location *l = &d->locs[k];
    uint64_t rank = (uint64_t)d->processes[l->process].rank;
    return l->thread == 0 ? rank : ((uint64_t)l->thread << 32) | rank;
}

static int by_raw_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The merge's times (merge.h, MERGE_TIMES_FILE), where each input
 * location's lie in it: the file is read a location at a time, as the
 * copy reaches it. */
static int read_times(struct fm_timemap *m, const char *merged)
{
    const struct foreign_defs *d = &m->fr->defs;
    char path[4500];
    snprintf(path, sizeof path, "%s/" MERGE_TIMES_FILE, merged);
    m->times_fd = open(path, O_RDONLY);
    struct stat sb;
    char magic[8];
    if (m->times_fd < 0 || fstat(m->times_fd, &sb) != 0) {
        snprintf(m->err, sizeof m->err, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (st_pread_exact(m->times_fd, magic, sizeof magic, 0) || memcmp(magic, MERGE_TIMES_MAGIC, sizeof magic) != 0) {
        snprintf(m->err, sizeof m->err, "%s: not the merge's times", path);
        return -1;
    }
    /* the input location of each raw location id, by id */
    uint64_t (*ids)[2] = malloc(sizeof *ids * (d->nlocs ? d->nlocs : 1));
    uint32_t nids = 0;
    if (!ids) {
        snprintf(m->err, sizeof m->err, "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < d->nlocs; k++)
        if (d->locs[k].process != FD_NONE) {
            ids[nids][0] = raw_id(d, k);
            ids[nids++][1] = k;
        }
    qsort(ids, nids, sizeof *ids, by_raw_id);
    uint64_t at = sizeof magic, head[2];
    int rc = 0;
    while (rc == 0 && at < (uint64_t)sb.st_size) {
        const char *why = st_pread_exact(m->times_fd, head, sizeof head, at);
        uint64_t bytes = head[1] * sizeof(uint64_t);
        if (why || head[1] > ((uint64_t)sb.st_size - at - sizeof head) / sizeof(uint64_t)) {
            snprintf(m->err, sizeof m->err, "%s: cut short at byte %" PRIu64, path, at);
            rc = -1;
            break;
        }
        const uint64_t (*hit)[2] = bsearch(&head[0], ids, nids, sizeof *ids, by_raw_id);
        if (hit) {   /* else a process outside the input (its events: none) */
            uint32_t k = (uint32_t)(*hit)[1];
            if (head[1] != m->fr->kept[k].n) {
                snprintf(m->err, sizeof m->err, "the merge has %" PRIu64 " events of location %" PRIu64
                         ", the raw trace %" PRIu64, head[1], d->locs[k].id, m->fr->kept[k].n);
                rc = -1;
                break;
            }
            m->times_at[k] = at + sizeof head;
            m->cached[k] = 1;
        }
        at += sizeof head + bytes;
    }
    free(ids);
    m->scale = (double)d->resolution / 1e9;   /* the merge's times are ns */
    return rc;
}

/* The merge's times of location k could not be had: why, into u->err. */
static void times_failed(struct fm_cursor *u, uint32_t k, const char *why)
{
    snprintf(u->err, sizeof u->err, "the merge's times of location %" PRIu64 ", set aside: %s",
             u->m->fr->defs.locs[k].id, why);
}

/* Location k's modelled events to be held: its marks; the first blocks
 * come at the first event asked for. 0, or -1 (u->err). */
static int load_location(struct fm_cursor *u, uint32_t k)
{
    const struct fm_timemap *m = u->m;
    drop_location(&u->cur);
    uint64_t n = m->fr->kept[k].n, b = m->block, cap = n < 2 * b ? n : 2 * b;   /* the most held */
    struct merged_location c = { .n = n, .k = k };
    const char *why = !m->cached[k] && n ? "not read" : NULL;
    if (!why && n
        && (!(c.raw = malloc(sizeof *c.raw * cap)) || !(c.merged = malloc(sizeof *c.merged * cap))
            || !(c.pos = malloc(sizeof *c.pos * cap))))
        why = "out of memory";
    if (why) {
        drop_location(&c);
        times_failed(u, k, why);
        return -1;
    }
    if (n && fr_kept_marks(m->fr, k, b, &c.marks, u->err, sizeof u->err) != 0) {
        drop_location(&c);
        return -1;
    }
    u->cur = c;
    u->loc_index = k;
    u->loc_id = m->fr->defs.locs[k].id;
    u->cursor = 0;
    u->borrowed = 0;
    return 0;
}

/* count events from event `from` (a block's first) into the held arrays
 * from slot `to`: their pairs, and their merged times read and put in
 * input ticks. 0, or -1 (u->err). */
static int read_block(struct fm_cursor *u, uint64_t from, uint64_t count, uint64_t to)
{
    const struct fm_timemap *m = u->m;
    struct merged_location *c = &u->cur;
    if (fr_kept_read(m->fr, c->k, &c->marks[from / m->block], count, c->pos + to, c->raw + to, u->err,
                     sizeof u->err) != 0)
        return -1;
    uint64_t *t = c->merged + to;
    const char *why = st_pread_exact(m->times_fd, t, sizeof *t * count, m->times_at[c->k] + sizeof *t * from);
    if (why) {
        times_failed(u, c->k, why);
        return -1;
    }
    for (uint64_t j = 0; j < count; j++)   /* ns ticks below 2^53: the scaling is exact, no rounding needed */
        t[j] = m->scale == 1.0 && t[j] < (1ull << 53) ? (uint64_t)((int64_t)t[j] + m->shift)
                                                       : (uint64_t)((int64_t)llround((double)t[j] * m->scale) + m->shift);
    return 0;
}

/* Event j (< n) held, with the one before it: the block before j's and
 * j's, or, going on in order, the next block read after the one held.
 * Its slot, or -1 when a read failed (u->failed, u->err). */
static int64_t hold(struct fm_cursor *u, uint64_t j)
{
    struct merged_location *c = &u->cur;
    uint64_t b = u->m->block;
    if (j >= c->first && j < c->first + c->held)
        return (int64_t)(j - c->first);
    if (u->failed)
        return -1;
    uint64_t blk = j / b, start = blk > 0 ? (blk - 1) * b : 0;
    int rc;
    if (c->held == 2 * b && start == c->first + b) {   /* the next block: the second half moves down */
        memmove(c->pos, c->pos + b, sizeof *c->pos * b);
        memmove(c->raw, c->raw + b, sizeof *c->raw * b);
        memmove(c->merged, c->merged + b, sizeof *c->merged * b);
        uint64_t count = c->n - blk * b < b ? c->n - blk * b : b;
        rc = read_block(u, blk * b, count, b);
        c->first = start;
        c->held = b + count;
    } else {
        uint64_t count = c->n - start < 2 * b ? c->n - start : 2 * b;
        uint64_t first_count = count < b ? count : b;
        rc = read_block(u, start, first_count, 0);
        if (rc == 0 && count > b)
            rc = read_block(u, start + b, count - b, b);
        c->first = start;
        c->held = count;
    }
    if (rc != 0) {
        c->held = 0;
        u->failed = 1;
        return -1;
    }
    return (int64_t)(j - c->first);
}

/* Event j's raw time, merged time and position (0 when a read failed:
 * the copy then fails, fm_timemap_failed). */
static uint64_t raw_of(struct fm_cursor *u, uint64_t j)
{
    int64_t s = hold(u, j);
    return s < 0 ? 0 : u->cur.raw[s];
}

static uint64_t merged_of(struct fm_cursor *u, uint64_t j)
{
    int64_t s = hold(u, j);
    return s < 0 ? 0 : u->cur.merged[s];
}

static uint64_t pos_of(struct fm_cursor *u, uint64_t j)
{
    int64_t s = hold(u, j);
    return s < 0 ? UINT64_MAX : u->cur.pos[s];
}

/* t + off, never below 0 (a damaged archive's event before its clock's start) */
static uint64_t shifted(uint64_t t, int64_t off)
{
    return off < 0 && (uint64_t)-off > t ? 0 : (uint64_t)((int64_t)t + off);
}

static int64_t offset_at(struct fm_cursor *u, uint64_t j)
{
    return (int64_t)(merged_of(u, j) - raw_of(u, j));
}

/* A raw time of the loaded location at event `position` (0: a definition)
 * on the synchronised timeline. */
static uint64_t map_time(struct fm_cursor *u, uint64_t position, uint64_t t)
{
    uint64_t n = u->cur.n;
    if (n == 0)
        return shifted(t, u->m->off_min);   /* nothing modelled: the earliest offset */
    uint64_t j = position == 1 ? 0 : u->cursor;   /* a location started over (otf2copy.h) */
    if (u->borrowed) {
        /* another location's modelled events, by time: its offset
         * interpolated, no clamp (these are not its neighbours) */
        if (position == 0)
            j = 0;
        while (j < n && raw_of(u, j) < t && !u->failed)
            j++;
        if (position > 0)
            u->cursor = j;
        if (j == 0 || j == n)
            return shifted(t, offset_at(u, j == 0 ? 0 : j - 1));
        uint64_t r0 = raw_of(u, j - 1), r1 = raw_of(u, j);
        int64_t o0 = offset_at(u, j - 1), o1 = offset_at(u, j);
        double span = (double)(r1 - r0);
        double f = span > 0 ? (double)(t - r0) / span : 0;
        return shifted(t, o0 + (int64_t)llround(f * (double)(o1 - o0)));
    }
    if (position > 0) {
        while (j < n && pos_of(u, j) < position)
            j++;
        u->cursor = j;
        if (j < n && pos_of(u, j) == position) {
            uint64_t g0 = merged_of(u, j);
            if (t == raw_of(u, j))
                return g0;
            /* a modelled event's other time (a BufferFlush's stop): on
             * the event's own offset, no later than the next modelled */
            uint64_t g = shifted(t, offset_at(u, j));
            if (g < g0)
                return g0;
            if (j + 1 < n) {
                uint64_t g1 = merged_of(u, j + 1);
                return g > g1 ? g1 : g;
            }
            return g;
        }
    } else {   /* by time */
        j = 0;
        while (j < n && raw_of(u, j) < t && !u->failed)
            j++;
    }
    /* between modelled events j - 1 and j */
    if (j == 0) {
        uint64_t g = shifted(t, offset_at(u, 0)), g0 = merged_of(u, 0);
        return g > g0 ? g0 : g;
    }
    if (j == n) {
        uint64_t g = shifted(t, offset_at(u, j - 1)), g0 = merged_of(u, j - 1);
        return g < g0 ? g0 : g;
    }
    uint64_t r0 = raw_of(u, j - 1), r1 = raw_of(u, j), g0 = merged_of(u, j - 1), g1 = merged_of(u, j);
    int64_t o0 = (int64_t)(g0 - r0), o1 = (int64_t)(g1 - r1);
    double span = (double)(r1 - r0);
    double f = span > 0 ? (double)(t - r0) / span : 0;
    uint64_t g = shifted(t, o0 + (int64_t)llround(f * (double)(o1 - o0)));
    if (g < g0)
        g = g0;
    if (g > g1)
        g = g1;
    return g;
}

static uint64_t time_cb(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    struct fm_cursor *u = ctx;
    const struct fm_timemap *m = u->m;
    if (u->failed)
        return t;
    if (location != u->loc_id) {
        const struct foreign_defs *d = &m->fr->defs;
        uint32_t k = 0;
        while (k < d->nlocs && d->locs[k].id != location)
            k++;
        if (k == d->nlocs || d->locs[k].process == FD_NONE) {
            /* a location of no process: on the earliest offset */
            drop_location(&u->cur);
            u->loc_id = location;
            return shifted(t, m->off_min);
        }
        /* a location with nothing modelled (an accelerator stream, a
         * metric location) reads its process's clock: its main
         * location's offsets, by time */
        uint32_t main = d->processes[d->locs[k].process].locs[0];
        int borrow = m->fr->kept[k].n == 0 && main != k && m->fr->kept[main].n > 0;
        if (load_location(u, borrow ? main : k) != 0) {
            u->failed = 1;
            u->loc_index = k;
            return t;
        }
        u->borrowed = borrow;
        u->loc_id = location;
    }
    return map_time(u, position, t);
}

/* A copying thread's own cursor (otf2copy.h's thread_ctx). */
static void *thread_cursor(void *ctx)
{
    struct fm_timemap *m = ctx;
    struct fm_cursor *u = calloc(1, sizeof *u);
    if (u) {
        u->m = m;
        u->loc_id = UINT64_MAX;
    }
    return u;
}

/* Its end: its failure, if any, kept for fm_timemap_failed. */
static void thread_cursor_done(void *ctx, void *thread_ctx)
{
    struct fm_timemap *m = ctx;
    struct fm_cursor *u = thread_ctx;
    if (!u)
        return;
    if (u->failed) {
        pthread_mutex_lock(&m->lock);
        if (!m->failed || u->loc_index < m->failed_index) {
            m->failed = 1;
            m->failed_index = u->loc_index;
            snprintf(m->err, sizeof m->err, "%s", u->err);
        }
        pthread_mutex_unlock(&m->lock);
    }
    drop_location(&u->cur);
    free(u);
}

/* The copy's clock: input ticks, starting and ending where the mapped
 * times can (every offset lies in [off_min, off_max]). */
static void clock_cb(void *ctx, uint64_t *resolution, uint64_t *global_offset, uint64_t *trace_length,
                     uint64_t *realtime)
{
    (void)resolution; (void)realtime;
    struct fm_timemap *m = ctx;
    uint64_t first = (uint64_t)((int64_t)*global_offset + m->off_min);
    uint64_t last = (uint64_t)((int64_t)(*global_offset + *trace_length) + m->off_max);
    *global_offset = first;
    *trace_length = last > first ? last - first : 0;
}

/* An int64 as a uint64 of the same order (for a maximum over processes). */
static uint64_t ordered(int64_t x)
{
    return (uint64_t)x ^ ((uint64_t)1 << 63);
}

static int64_t unordered(uint64_t u)
{
    return (int64_t)(u ^ ((uint64_t)1 << 63));
}

/* off_min and off_max over every modelled event: one pass over the
 * merged times, a location at a time; shared, each process's locations
 * (fr_place_of), the extremes and the reference's shift then taken over
 * every process, which all take part in even when one failed (ok 0, or
 * failing here). 0, or -1 (m->err, or m->others_failed). */
static int offset_range(struct fm_timemap *m, const struct fm_share *share, int ok)
{
    const struct foreign_defs *d = &m->fr->defs;
    int any = 0;
    uint32_t ref = d->processes[m->reference < d->nprocesses ? m->reference : 0].locs[0];
    uint32_t place = share ? share->place : 0;
    struct fm_cursor *u = &m->own;
    /* the offsets found with no shift; the shift added once it is known
     * (merged times and offsets move with it alike) */
    m->shift = 0;
    int64_t shift = 0;
    int has_ref = m->fr->kept[ref].n && fr_place_of(m->fr, ref) == place;
    if (ok && has_ref) {
        if (load_location(u, ref) != 0)
            ok = 0;
        else
            shift = -offset_at(u, 0);
    }
    for (uint32_t k = 0; ok && k < d->nlocs; k++) {
        if (d->locs[k].process == FD_NONE || m->fr->kept[k].n == 0 || fr_place_of(m->fr, k) != place)
            continue;
        if (load_location(u, k) != 0) {
            ok = 0;
            break;
        }
        for (uint64_t j = 0; j < u->cur.n && !u->failed; j++) {
            int64_t o = offset_at(u, j);
            if (!any || o < m->off_min)
                m->off_min = o;
            if (!any || o > m->off_max)
                m->off_max = o;
            any = 1;
        }
        if (u->failed)
            ok = 0;
    }
    if (u->failed) {   /* a block of the reference or of a location could not be read */
        ok = 0;
        snprintf(m->err, sizeof m->err, "%s", u->err);
    }
    u->failed = 0;
    drop_location(&u->cur);
    u->loc_id = UINT64_MAX;
    if (share) {
        int mine_ok = ok;
        ok = share->max_u64(!ok) == 0;
        m->others_failed = !ok && mine_ok;   /* the other process says why */
        shift = unordered(share->max_u64(has_ref ? ordered(shift) : 0));
        uint64_t lo = share->max_u64(any ? ~ordered(m->off_min) : 0), hi = share->max_u64(any ? ordered(m->off_max) : 0);
        any = share->max_u64((uint64_t)any) != 0;
        if (any) {
            m->off_min = unordered(~lo);
            m->off_max = unordered(hi);
        }
        if (!m->fr->kept[ref].n)
            shift = 0;
    }
    if (!ok)
        return -1;
    m->shift = shift;
    m->off_min += shift;
    m->off_max += shift;
    /* no time before 0 (an archive whose clock starts at 0, as ours do) */
    int64_t floor = (int64_t)d->global_offset + m->off_min;
    if (any && floor < 0) {
        m->shift -= floor;
        m->off_min -= floor;
        m->off_max -= floor;
    }
    return 0;
}

/* ---- how far the producer's offsets were from ours */

/* Linear interpolation of (t[i], v[i]) at x (ends held). */
static double interp(const uint64_t *t, const double *v, uint32_t n, uint64_t x)
{
    if (n == 0)
        return 0;
    if (n == 1 || x <= t[0])
        return v[0];
    for (uint32_t i = 1; i < n; i++)
        if (x <= t[i])
            return t[i] > t[i - 1] ? v[i - 1] + (v[i] - v[i - 1]) * (double)(x - t[i - 1]) / (double)(t[i] - t[i - 1])
                                   : v[i];
    return v[n - 1];
}

/* Per rank, the largest difference (ns) between the offset against rank
 * 0 that its ClockOffsets say and the one the merge found, at the times
 * they were measured; -1 for a rank without ClockOffsets. */
int fm_offset_errors(struct fm_timemap *m, double *err_ns, char *err, size_t errlen)
{
    const struct foreign_raw *fr = m->fr;
    const struct foreign_defs *d = &fr->defs;
    double tick_ns = 1e9 / (double)d->resolution;
    double *ours0 = NULL, *in0 = NULL;
    uint32_t n0 = fr->offsets[0].n;
    int rc = 0;
    for (uint32_t r = 0; rc == 0 && r < d->nprocesses; r++) {
        const struct fr_offsets *o = &fr->offsets[r];
        err_ns[r] = -1;
        double *ours = o->n ? malloc(sizeof *ours * o->n) : NULL, *in = o->n ? malloc(sizeof *in * o->n) : NULL;
        if (o->n && (!ours || !in)) {
            free(ours);
            free(in);
            rc = -1;
            break;
        }
        if (load_location(&m->own, d->processes[r].locs[0]) != 0) {
            free(ours);
            free(in);
            rc = -1;
            break;
        }
        for (uint32_t i = 0; i < o->n; i++) {
            ours[i] = (double)(int64_t)(map_time(&m->own, 0, o->time[i]) - o->time[i]);
            in[i] = (double)o->offset[i];
        }
        if (r == 0) {
            ours0 = ours;
            in0 = in;
            if (o->n)
                err_ns[0] = 0;
            continue;
        }
        for (uint32_t i = 0; i < o->n && n0; i++) {
            double e = (in[i] - interp(fr->offsets[0].time, in0, n0, o->time[i]))
                       - (ours[i] - interp(fr->offsets[0].time, ours0, n0, o->time[i]));
            if (fabs(e) * tick_ns > err_ns[r])
                err_ns[r] = fabs(e) * tick_ns;
        }
        free(ours);
        free(in);
    }
    free(ours0);
    free(in0);
    drop_location(&m->own.cur);
    m->own.loc_id = UINT64_MAX;
    if (m->own.failed)   /* a block could not be read */
        rc = -1;
    m->own.failed = 0;
    if (rc != 0)
        snprintf(err, errlen, "%s", m->own.err[0] ? m->own.err : "out of memory");
    return rc;
}


struct fm_timemap *fm_timemap_open(const struct foreign_raw *fr, const char *merged, uint32_t reference,
                                   const struct fm_share *share, struct oc_time_map *map, char *err, size_t errlen)
{
    struct fm_timemap *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        if (share)   /* the others' reductions need this process's part */
            for (int i = 0; i < 5; i++)
                share->max_u64(i == 0);
        return NULL;
    }
    m->fr = fr;
    m->own.m = m;
    m->own.loc_id = UINT64_MAX;
    m->reference = reference;
    /* 64 Ki events a block: 3 MB held a copying thread; smaller only to test the blocks' ends */
    const char *blk = getenv("SYNCTRACE_TIMEMAP_BLOCK");
    m->block = blk && strtoull(blk, NULL, 10) > 0 ? strtoull(blk, NULL, 10) : 65536;
    pthread_mutex_init(&m->lock, NULL);
    m->times_fd = -1;
    m->times_at = calloc(fr->defs.nlocs ? fr->defs.nlocs : 1, sizeof *m->times_at);
    m->cached = calloc(fr->defs.nlocs ? fr->defs.nlocs : 1, 1);
    int ok = m->times_at && m->cached;
    if (!ok)
        snprintf(m->err, sizeof m->err, "out of memory");
    ok = ok && read_times(m, merged) == 0;
    if (offset_range(m, share, ok) != 0) {
        if (m->others_failed)
            err[0] = '\0';
        else
            snprintf(err, errlen, "%s", m->err[0] ? m->err : m->own.err[0] ? m->own.err : "out of memory");
        fm_timemap_close(m);
        return NULL;
    }
    *map = (struct oc_time_map){ time_cb, clock_cb, m, 0, thread_cursor, thread_cursor_done };
    return m;
}

int fm_timemap_failed(const struct fm_timemap *m, char *err, size_t errlen)
{
    if (m->failed)
        snprintf(err, errlen, "%s", m->err);
    return m->failed;
}

void fm_timemap_close(struct fm_timemap *m)
{
    if (!m)
        return;
    drop_location(&m->own.cur);
    pthread_mutex_destroy(&m->lock);
    if (m->times_fd >= 0)
        close(m->times_fd);
    free(m->times_at);
    free(m->cached);
    free(m);
}
