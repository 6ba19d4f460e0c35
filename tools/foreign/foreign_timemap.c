/* foreign_timemap.c — see foreign_timemap.h. */
#include <config.h>
#include "foreign_timemap.h"
#include "fsutil.h"
#include "otf2_quiet.h"

#include <inttypes.h>
#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


struct merged_location {
    uint64_t *raw, *merged;   /* of the modelled events, in input ticks, */
    uint64_t *pos;            /* and their positions (fr_kept_load's arrays) */
    uint64_t n;
};

static void drop_location(struct merged_location *c)
{
    free(c->merged);
    free(c->raw);
    free(c->pos);
    memset(c, 0, sizeof *c);
}

struct fm_timemap {
    const struct foreign_raw *fr;
    OTF2_Reader *merged_rd;   /* the merge's archive (ns) */
    double scale;             /* input ticks per merged tick */
    int64_t shift;            /* input ticks: the merge's global time starts at 0 (its earliest event);
                               * the copy's starts where the reference rank's raw clock says */
    uint32_t reference;       /* rank */
    int64_t off_min, off_max; /* over every modelled event: merged - raw, input ticks */
    uint64_t loc_id;          /* the location whose times are loaded */
    uint32_t loc_index;
    struct merged_location cur;
    uint64_t cursor;
    int borrowed;             /* cur is the process's main location's, mapped by time */
    int failed;
    /* The merged times, once read from the merge's archive, kept in a
     * nameless file for the later passes (by location: where, whether) */
    int times_fd;
    uint64_t times_bytes, *times_at;
    uint8_t *cached;
    char err[9000];
};

/* The rank archive location of input location k. */
static uint64_t raw_id(const struct foreign_defs *d, uint32_t k)
{
    const struct fd_location *l = &d->locs[k];
    uint64_t rank = (uint64_t)d->processes[l->process].rank;
    return l->thread == 0 ? rank : ((uint64_t)l->thread << 32) | rank;
}

struct times_read {
    uint64_t *t;
    uint64_t n, cap;
};

static OTF2_CallbackCode any_time(OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *u,
                                  OTF2_AttributeList *attrs)
{
    (void)loc; (void)pos; (void)attrs;
    struct times_read *r = u;
    if (r->n == r->cap) {
        uint64_t cap = r->cap ? 2 * r->cap : 1024;
        uint64_t *grown = realloc(r->t, sizeof *grown * cap);
        if (!grown)
            return OTF2_CALLBACK_INTERRUPT;
        r->t = grown;
        r->cap = cap;
    }
    r->t[r->n++] = time;
    return OTF2_CALLBACK_SUCCESS;
}

/* The merged archive holds the kinds foreign_raw.c writes, and no other:
 * one callback per kind, each noting the time. */
#define T_HEAD OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a
#define T_BODY { return any_time(l, t, p, u, a); }
static OTF2_CallbackCode t_ref(T_HEAD, uint32_t r) { (void)r; T_BODY }
static OTF2_CallbackCode t_msg(T_HEAD, uint32_t x, OTF2_CommRef c, uint32_t g, uint64_t n) { (void)x; (void)c; (void)g; (void)n; T_BODY }
static OTF2_CallbackCode t_imsg(T_HEAD, uint32_t x, OTF2_CommRef c, uint32_t g, uint64_t n, uint64_t q)
{ (void)x; (void)c; (void)g; (void)n; (void)q; T_BODY }
static OTF2_CallbackCode t_req(T_HEAD, uint64_t q) { (void)q; T_BODY }
static OTF2_CallbackCode t_none(T_HEAD) T_BODY
static OTF2_CallbackCode t_coll(T_HEAD, OTF2_CollectiveOp o, OTF2_CommRef c, uint32_t r, uint64_t s, uint64_t v)
{ (void)o; (void)c; (void)r; (void)s; (void)v; T_BODY }
static OTF2_CallbackCode t_nbc(T_HEAD, OTF2_CollectiveOp o, OTF2_CommRef c, uint32_t r, uint64_t s, uint64_t v, uint64_t q)
{ (void)o; (void)c; (void)r; (void)s; (void)v; (void)q; T_BODY }
static OTF2_CallbackCode t_flush(T_HEAD, OTF2_TimeStamp stop) { (void)stop; T_BODY }

static OTF2_EvtReaderCallbacks *time_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, t_ref);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, t_ref);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, t_msg);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, t_msg);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, t_imsg);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, t_imsg);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, t_req);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, t_req);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, t_req);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, t_req);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, t_req);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, t_none);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, t_coll);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, t_nbc);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, t_ref);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, t_ref);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, t_flush);
    return cb;
}

/* Every event time of location `id` of an open archive (its locations
 * selected, its event files open): 0, or -1. */
static int read_times(OTF2_Reader *rd, uint64_t id, struct times_read *out)
{
    memset(out, 0, sizeof *out);
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, id);
    OTF2_EvtReaderCallbacks *cb = time_callbacks();
    OTF2_ErrorCode e = er && cb ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    if (er)
        OTF2_EvtReader_ApplyClockOffsets(er, false);
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, out);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
    if (er)
        OTF2_Reader_CloseEvtReader(rd, er);
    if (e != OTF2_SUCCESS || n != out->n) {
        free(out->t);
        out->t = NULL;
        return -1;
    }
    return 0;
}

/* Location k's modelled events: their raw times (as converted) and merged
 * times (read, in input ticks). 0, or -1 (m->err). */
static int load_location(struct fm_timemap *m, uint32_t k)
{
    drop_location(&m->cur);
    struct fr_kept_arrays kept;
    if (fr_kept_load(m->fr, k, &kept, m->err, sizeof m->err) != 0)
        return -1;
    struct times_read got = { NULL, 0, 0 };
    const char *why = NULL;
    if (m->cached[k]) {   /* read before: from the file */
        got.n = kept.n;
        if (!(got.t = malloc(sizeof *got.t * (got.n ? got.n : 1))))
            why = "out of memory";
        else if (got.n)
            why = st_pread_exact(m->times_fd, got.t, sizeof *got.t * got.n, m->times_at[k]);
    } else if (read_times(m->merged_rd, raw_id(&m->fr->defs, k), &got) != 0 || got.n != kept.n) {
        why = "";
    } else if (got.n && m->times_fd >= 0
               && st_pwrite_all(m->times_fd, got.t, sizeof *got.t * got.n, m->times_bytes) == 0) {
        m->times_at[k] = m->times_bytes;
        m->times_bytes += sizeof *got.t * got.n;
        m->cached[k] = 1;
    }
    if (why) {
        free(got.t);
        fr_kept_free(&kept);
        if (*why)
            snprintf(m->err, sizeof m->err, "the merge's times, set aside: %s", why);
        else
            snprintf(m->err, sizeof m->err, "the merge's archive has not the events of location %" PRIu64,
                     m->fr->defs.locs[k].id);
        return -1;
    }
    for (uint64_t j = 0; j < got.n; j++)
        got.t[j] = (uint64_t)((int64_t)llround((double)got.t[j] * m->scale) + m->shift);
    m->cur = (struct merged_location){ kept.raw, got.t, kept.pos, got.n };
    m->loc_index = k;
    m->loc_id = m->fr->defs.locs[k].id;
    m->cursor = 0;
    m->borrowed = 0;
    return 0;
}

/* t + off, never below 0 (a damaged archive's event before its clock's start) */
static uint64_t shifted(uint64_t t, int64_t off)
{
    return off < 0 && (uint64_t)-off > t ? 0 : (uint64_t)((int64_t)t + off);
}

static int64_t offset_at(const struct merged_location *c, uint64_t j)
{
    return (int64_t)(c->merged[j] - c->raw[j]);
}

/* A raw time of the loaded location at event `position` (0: a definition)
 * on the synchronised timeline. */
static uint64_t map_time(struct fm_timemap *m, uint64_t position, uint64_t t)
{
    const struct merged_location *c = &m->cur;
    if (c->n == 0)
        return shifted(t, m->off_min);   /* nothing modelled: the earliest offset */
    uint64_t j = m->cursor;
    if (m->borrowed) {
        /* another location's modelled events, by time: its offset
         * interpolated, no clamp (these are not its neighbours) */
        if (position == 0)
            j = 0;
        while (j < c->n && c->raw[j] < t)
            j++;
        if (position > 0)
            m->cursor = j;
        if (j == 0 || j == c->n)
            return shifted(t, offset_at(c, j == 0 ? 0 : j - 1));
        double span = (double)(c->raw[j] - c->raw[j - 1]);
        double f = span > 0 ? (double)(t - c->raw[j - 1]) / span : 0;
        return shifted(t, offset_at(c, j - 1) + (int64_t)llround(f * (double)(offset_at(c, j) - offset_at(c, j - 1))));
    }
    if (position > 0) {
        while (j < c->n && c->pos[j] < position)
            j++;
        m->cursor = j;
        if (j < c->n && c->pos[j] == position)
            return c->merged[j];
    } else {   /* by time */
        j = 0;
        while (j < c->n && c->raw[j] < t)
            j++;
    }
    /* between modelled events j - 1 and j */
    if (j == 0)
        return shifted(t, offset_at(c, 0)) > c->merged[0] ? c->merged[0] : shifted(t, offset_at(c, 0));
    if (j == c->n)
        return shifted(t, offset_at(c, j - 1)) < c->merged[j - 1] ? c->merged[j - 1] : shifted(t, offset_at(c, j - 1));
    double span = (double)(c->raw[j] - c->raw[j - 1]);
    double f = span > 0 ? (double)(t - c->raw[j - 1]) / span : 0;
    int64_t off = offset_at(c, j - 1) + (int64_t)llround(f * (double)(offset_at(c, j) - offset_at(c, j - 1)));
    uint64_t g = shifted(t, off);
    if (g < c->merged[j - 1])
        g = c->merged[j - 1];
    if (g > c->merged[j])
        g = c->merged[j];
    return g;
}

static uint64_t time_cb(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    struct fm_timemap *m = ctx;
    if (m->failed)
        return t;
    if (location != m->loc_id) {
        const struct foreign_defs *d = &m->fr->defs;
        uint32_t k = 0;
        while (k < d->nlocs && d->locs[k].id != location)
            k++;
        if (k == d->nlocs || d->locs[k].process == FD_NONE) {
            /* a location of no process: on the earliest offset */
            drop_location(&m->cur);
            m->loc_id = location;
            return shifted(t, m->off_min);
        }
        /* a location with nothing modelled (an accelerator stream, a
         * metric location) reads its process's clock: its main
         * location's offsets, by time */
        uint32_t main = d->processes[d->locs[k].process].locs[0];
        int borrow = m->fr->kept[k].n == 0 && main != k && m->fr->kept[main].n > 0;
        if (load_location(m, borrow ? main : k) != 0) {
            m->failed = 1;
            return t;
        }
        m->borrowed = borrow;
        m->loc_id = location;
    }
    uint64_t g = map_time(m, position, t);
    return g;
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

/* off_min and off_max over every modelled event: one pass over the
 * merged archive, a location at a time. 0, or -1 (m->err). */
static int offset_range(struct fm_timemap *m)
{
    const struct foreign_defs *d = &m->fr->defs;
    int any = 0;
    uint32_t ref = d->processes[m->reference < d->nprocesses ? m->reference : 0].locs[0];
    m->shift = 0;
    if (m->fr->kept[ref].n) {
        if (load_location(m, ref) != 0)
            return -1;
        m->shift = (int64_t)(m->cur.raw[0] - m->cur.merged[0]);
    }
    for (uint32_t k = 0; k < d->nlocs; k++) {
        if (d->locs[k].process == FD_NONE || m->fr->kept[k].n == 0)
            continue;
        if (load_location(m, k) != 0)
            return -1;
        for (uint64_t j = 0; j < m->cur.n; j++) {
            int64_t o = offset_at(&m->cur, j);
            if (!any || o < m->off_min)
                m->off_min = o;
            if (!any || o > m->off_max)
                m->off_max = o;
            any = 1;
        }
    }
    /* no time before 0 (an archive whose clock starts at 0, as ours do) */
    int64_t floor = (int64_t)d->global_offset + m->off_min;
    if (any && floor < 0) {
        m->shift -= floor;
        m->off_min -= floor;
        m->off_max -= floor;
    }
    drop_location(&m->cur);
    m->loc_id = UINT64_MAX;
    return 0;
}

static OTF2_CallbackCode merged_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t rt)
{
    (void)offset; (void)length; (void)rt;
    *(uint64_t *)u = resolution;
    return OTF2_CALLBACK_SUCCESS;
}

static int open_merged(struct fm_timemap *m, const char *anchor)
{
    rf_otf2_quiet();
    if (!(m->merged_rd = OTF2_Reader_Open(anchor))) {
        snprintf(m->err, sizeof m->err, "%s: cannot read the merge's archive", anchor);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(m->merged_rd);
    uint64_t res = 0;
    OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(m->merged_rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_ErrorCode e = gr && cb ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    if (cb)
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, merged_clock);
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_RegisterGlobalDefCallbacks(m->merged_rd, gr, cb, &res);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllGlobalDefinitions(m->merged_rd, gr, &n);
    if (gr)
        OTF2_Reader_CloseGlobalDefReader(m->merged_rd, gr);
    if (e != OTF2_SUCCESS || res == 0) {
        snprintf(m->err, sizeof m->err, "%s: cannot read the merge's definitions", anchor);
        return -1;
    }
    m->scale = (double)m->fr->defs.resolution / (double)res;
    const struct foreign_defs *d = &m->fr->defs;
    for (uint32_t k = 0; k < d->nlocs; k++)
        if (d->locs[k].process != FD_NONE)
            OTF2_Reader_SelectLocation(m->merged_rd, raw_id(d, k));
    if (OTF2_Reader_OpenEvtFiles(m->merged_rd) != OTF2_SUCCESS) {
        snprintf(m->err, sizeof m->err, "%s: cannot open the merge's event files", anchor);
        return -1;
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
        if (load_location(m, d->processes[r].locs[0]) != 0) {
            free(ours);
            free(in);
            rc = -1;
            break;
        }
        for (uint32_t i = 0; i < o->n; i++) {
            ours[i] = (double)(int64_t)(map_time(m, 0, o->time[i]) - o->time[i]);
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
    drop_location(&m->cur);
    m->loc_id = UINT64_MAX;
    if (rc != 0)
        snprintf(err, errlen, "%s", m->err[0] ? m->err : "out of memory");
    return rc;
}


struct fm_timemap *fm_timemap_open(const struct foreign_raw *fr, const char *merged_anchor, uint32_t reference,
                                   struct oc_time_map *map, char *err, size_t errlen)
{
    struct fm_timemap *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->fr = fr;
    m->loc_id = UINT64_MAX;
    m->reference = reference;
    m->times_at = calloc(fr->defs.nlocs ? fr->defs.nlocs : 1, sizeof *m->times_at);
    m->cached = calloc(fr->defs.nlocs ? fr->defs.nlocs : 1, 1);
    char dir[4400];
    snprintf(dir, sizeof dir, "%s", merged_anchor);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    /* without the file, every pass reads the merge's archive again */
    m->times_fd = st_nameless_file(slash ? dir : ".", "times");
    if (!m->times_at || !m->cached) {
        snprintf(err, errlen, "out of memory");
        fm_timemap_close(m);
        return NULL;
    }
    if (open_merged(m, merged_anchor) != 0 || offset_range(m) != 0) {
        snprintf(err, errlen, "%s", m->err[0] ? m->err : "out of memory");
        fm_timemap_close(m);
        return NULL;
    }
    *map = (struct oc_time_map){ time_cb, clock_cb, m, 0 };
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
    drop_location(&m->cur);
    if (m->times_fd >= 0)
        close(m->times_fd);
    free(m->times_at);
    free(m->cached);
    if (m->merged_rd) {
        OTF2_Reader_CloseEvtFiles(m->merged_rd);
        OTF2_Reader_Close(m->merged_rd);
    }
    free(m);
}
