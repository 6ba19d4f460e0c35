/* waits_read.c — the merged archive's events, read location after
 * location (one OTF2 reader and buffer at a time), into the compact
 * records the pattern rules need: every send with the entry of the call
 * that sent it, every receive with the entry of the call it completed in
 * (and of the call that posted it), every collective member with the
 * entry of its call, every MPI_Win_fence likewise, and the general
 * active target epochs (waits_epochs.c). Events of the tracer's own clock synchronisation
 * (inside a "synctrace: ..." region) are left out.
 *
 * Memory: some 100 bytes per message end and per collective member, plus
 * one location's call stack and outstanding receive requests. */
#include "waits.h"
#include "location_order.h"
#include "mtread.h"
#include "rawview.h"

#include <math.h>
#include <otf2/OTF2_Events.h>
#include <stdlib.h>
#include <string.h>

struct frame {
    uint32_t region;
    struct wt_moment enter;
    uint64_t id;
};

struct posted {
    uint64_t req;
    struct wt_moment at;
};

struct wt_trace {
    struct mt_trace t;
    struct rv_file *raw;
};

struct reader {
    struct wt_trace *wt;
    struct wt_records *rec;
    uint32_t location, rank;
    uint64_t index;           /* the location's next event's index (R:I) */
    struct frame *stack;
    size_t depth, cap;
    size_t internal;          /* frames of the tracer's own regions open */
    struct posted *posted;
    size_t nposted, capposted;
    uint64_t *coll_seq;       /* per communicator, this location's collectives so far */
    uint64_t *fence_seq;      /* per window, this location's fences so far */
    size_t capwins;
    uint64_t frames;
    uint8_t *region_internal, *region_blocking, *region_sync, *region_pscw;
    struct wt_epochs *epochs;
    int failed;
};

/* Room for one more element of a growing array; 0, or -1 when memory failed. */
static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*arr, c * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

static struct wt_moment moment_of(struct reader *rd, const struct rt_event *e)
{
    struct wt_moment m;
    m.g = (double)e->time;
    m.t = e->has_truth ? (double)e->truth : NAN;
    m.r = rd->wt->raw ? rv_file_raw(rd->wt->raw, rd->location, rd->index, m.g) : NAN;
    return m;
}

static const struct frame *top(const struct reader *rd)
{
    return rd->depth ? &rd->stack[rd->depth - 1] : NULL;
}

static int internal_comm(const struct reader *rd, uint32_t comm)
{
    const struct mt_trace *t = &rd->wt->t;
    return comm < t->ncomms && t->comms[comm].name && !strncmp(t->comms[comm].name, "synctrace", 9);
}

static int on_send(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    int dst = mt_peer_rank(&rd->wt->t, rd->rank, e->ref, e->peer);
    if (!f || dst < 0)
        return 0;             /* outside any call, or a peer outside the trace */
    if (grow((void **)&rd->rec->sends, rd->rec->nsends, &rd->rec->capsends, sizeof *rd->rec->sends) != 0)
        return -1;
    rd->rec->sends[rd->rec->nsends++] = (struct wt_send){
        .comm = e->ref, .src = rd->rank, .dst = (uint32_t)dst, .tag = e->tag, .seq = rd->index,
        .enter = f->enter, .region = f->region, .sync = rd->region_sync[f->region],
    };
    return 0;
}

static void on_post(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    if (!f || grow((void **)&rd->posted, rd->nposted, &rd->capposted, sizeof *rd->posted) != 0)
        return;               /* without it, the receive counts as posted where it completed */
    rd->posted[rd->nposted++] = (struct posted){ e->req, f->enter };
}

static int on_recv(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    int src = mt_peer_rank(&rd->wt->t, rd->rank, e->ref, e->peer);
    if (!f || src < 0)
        return 0;
    struct wt_moment post = f->enter;
    if (e->kind == RT_IRECV)
        for (size_t i = rd->nposted; i-- > 0;)
            if (rd->posted[i].req == e->req) {
                post = rd->posted[i].at;
                rd->posted[i] = rd->posted[--rd->nposted];
                break;
            }
    if (grow((void **)&rd->rec->recvs, rd->rec->nrecvs, &rd->rec->caprecvs, sizeof *rd->rec->recvs) != 0)
        return -1;
    rd->rec->recvs[rd->rec->nrecvs++] = (struct wt_recv){
        .comm = e->ref, .src = (uint32_t)src, .dst = rd->rank, .tag = e->tag, .seq = rd->index, .enter = f->enter,
        .post = post, .frame = f->id, .region = f->region, .blocking = rd->region_blocking[f->region],
    };
    return 0;
}

static int on_coll_end(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    /* intercommunicators' collectives have no pattern of Scalasca's here */
    if (!f || e->ref >= rd->wt->t.ncomms || rd->wt->t.comms[e->ref].inter)
        return 0;
    uint64_t seq = rd->coll_seq[e->ref]++;
    int root = e->peer == UINT32_MAX ? -1 : mt_world_rank(&rd->wt->t, e->ref, e->peer);
    if (grow((void **)&rd->rec->members, rd->rec->nmembers, &rd->rec->capmembers, sizeof *rd->rec->members) != 0)
        return -1;
    rd->rec->members[rd->rec->nmembers++] = (struct wt_member){
        .comm = e->ref, .rank = rd->rank, .op = e->tag, .root = root < 0 ? UINT32_MAX : (uint32_t)root,
        .seq = seq, .enter = f->enter, .region = f->region,
    };
    return 0;
}

/* Room for window `win` in the per-window counters; 0, or -1. */
static int window_room(struct reader *rd, uint32_t win)
{
    if (win < rd->capwins)
        return 0;
    size_t cap = rd->capwins ? rd->capwins : 16;
    while (cap <= win)
        cap *= 2;
    uint64_t *seq = realloc(rd->fence_seq, cap * sizeof *seq);
    if (seq)
        rd->fence_seq = seq;
    uint32_t *size = realloc(rd->rec->win_size, cap * sizeof *size);
    if (size)
        rd->rec->win_size = size;
    if (!seq || !size)
        return -1;
    memset(seq + rd->capwins, 0, (cap - rd->capwins) * sizeof *seq);
    memset(size + rd->capwins, 0, (cap - rd->capwins) * sizeof *size);
    rd->capwins = cap;
    return 0;
}

/* Windows' creations count their members; fences (an RMA collective
 * BARRIER) are recorded like collective members, numbered per window. */
/* A window rank of window win as a world rank, or -1. */
static int window_world_rank(const struct reader *rd, uint32_t win, uint32_t local)
{
    const struct mt_trace *t = &rd->wt->t;
    return win < t->nwins ? mt_world_rank(t, t->win_comm[win], local) : -1;
}

/* Operations and PSCW notifications, for the epochs. */
static int on_rma_epoch(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    int remote = f ? window_world_rank(rd, e->ref, e->peer) : -1;
    if (remote < 0)
        return 0;
    if (e->tag == RT_RMA_PUT || e->tag == RT_RMA_GET || (e->tag & 0xff) == RT_RMA_ATOMIC)
        return wt_epochs_op(rd->epochs, e->ref, (uint32_t)remote, f->id, f->region, &f->enter);
    if (e->tag == RT_RMA_SYNC && (e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_OUT || e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_IN))
        return wt_epochs_sync(rd->epochs, e->ref, rd->wt->t.win_comm[e->ref], (uint32_t)remote, f->id,
                              e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_OUT);
    return 0;
}

static int on_rma(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    uint32_t win = e->ref;
    if (e->tag != RT_RMA_WIN_CREATE && e->tag != RT_RMA_COLL_END)
        return on_rma_epoch(rd, e);
    if (win == UINT32_MAX || (e->tag != RT_RMA_WIN_CREATE && e->tag != RT_RMA_COLL_END))
        return 0;
    if (window_room(rd, win) != 0)
        return -1;
    if (win + 1 > rd->rec->nwins)
        rd->rec->nwins = win + 1;
    if (e->tag == RT_RMA_WIN_CREATE) {
        rd->rec->win_size[win]++;
        return 0;
    }
    if ((uint32_t)(e->req >> 32) != OTF2_COLLECTIVE_OP_BARRIER || !f)
        return 0;             /* creation and free: no pattern */
    if (grow((void **)&rd->rec->fences, rd->rec->nfences, &rd->rec->capfences, sizeof *rd->rec->fences) != 0)
        return -1;
    rd->rec->fences[rd->rec->nfences++] = (struct wt_member){
        .comm = win, .rank = rd->rank, .op = OTF2_COLLECTIVE_OP_BARRIER, .root = UINT32_MAX,
        .seq = rd->fence_seq[win]++, .enter = f->enter, .region = f->region,
    };
    return 0;
}

static int on_location_start(struct reader *rd, uint32_t location);

static int on_event(void *user, uint32_t location, const struct rt_event *e)
{
    struct reader *rd = user;
    if (location != rd->location)   /* (done() starts each location; this keeps to the reader's word) */
        on_location_start(rd, location);
    int rc = 0;
    if (e->has_truth)
        rd->rec->have_truth = 1;
    rd->rec->events++;
    switch (e->kind) {
    case RT_ENTER:
        if (grow((void **)&rd->stack, rd->depth, &rd->cap, sizeof *rd->stack) != 0) {
            rc = -1;
            break;
        }
        if (e->ref < rd->rec->nregions && rd->region_internal[e->ref])
            rd->internal++;
        rd->stack[rd->depth++] = (struct frame){ e->ref < rd->rec->nregions ? e->ref : 0, moment_of(rd, e),
                                                 ++rd->frames };
        if (!rd->internal) {
            const struct frame *f = top(rd);
            rc = wt_epochs_enter(rd->epochs, rd->region_pscw[f->region], f->id, f->region, &f->enter);
        }
        break;
    case RT_LEAVE:
        if (rd->depth) {
            const struct frame *f = &rd->stack[--rd->depth];
            if (!rd->internal) {
                struct wt_moment at = moment_of(rd, e);
                rc = wt_epochs_leave(rd->epochs, rd->rec, rd->region_pscw[f->region], f->id, &at);
            }
            if (rd->region_internal[f->region] && rd->internal)
                rd->internal--;
        }
        break;
    case RT_SEND:
    case RT_ISEND:
        if (!rd->internal && !internal_comm(rd, e->ref))
            rc = on_send(rd, e);
        break;
    case RT_IRECV_REQUEST:
        if (!rd->internal && !internal_comm(rd, e->ref))
            on_post(rd, e);
        break;
    case RT_RECV:
    case RT_IRECV:
        if (!rd->internal && !internal_comm(rd, e->ref))
            rc = on_recv(rd, e);
        break;
    case RT_COLL_END:
        if (!rd->internal && !internal_comm(rd, e->ref))
            rc = on_coll_end(rd, e);
        break;
    case RT_RMA:
        if (!rd->internal)
            rc = on_rma(rd, e);
        break;
    default:
        break;
    }
    rd->index++;
    if (rc != 0)
        rd->failed = 1;
    return rc;
}

static int on_location_start(struct reader *rd, uint32_t location)
{
    rd->location = location;
    rd->rank = loc_id_rank(rd->wt->t.locations[location]);
    rd->index = 0;
    rd->depth = rd->internal = rd->nposted = 0;
    if (rd->capwins)
        memset(rd->fence_seq, 0, rd->capwins * sizeof *rd->fence_seq);
    memset(rd->coll_seq, 0, sizeof *rd->coll_seq * (rd->wt->t.ncomms ? rd->wt->t.ncomms : 1));
    wt_epochs_reset(rd->epochs, rd->rank);
    return 0;
}

static int on_location_done(void *user, uint32_t location)
{
    struct reader *rd = user;
    if (location + 1 < rd->wt->t.nlocations)
        on_location_start(rd, location + 1);
    return 0;
}

static int starts(const char *s, const char *prefix)
{
    return s && !strncmp(s, prefix, strlen(prefix));
}

/* What the rules need to know of each region, by name. */
static int classify_regions(struct reader *rd)
{
    uint32_t n = rd->rec->nregions ? rd->rec->nregions : 1;
    rd->region_internal = calloc(n, 1);
    rd->region_blocking = calloc(n, 1);
    rd->region_sync = calloc(n, 1);
    rd->region_pscw = calloc(n, 1);
    if (!rd->region_internal || !rd->region_blocking || !rd->region_sync || !rd->region_pscw)
        return -1;
    for (uint32_t i = 0; i < rd->rec->nregions; i++) {
        const char *name = rd->rec->regions[i];
        rd->region_internal[i] = starts(name, "synctrace");
        /* a receive completed by MPI_Test* or posted by MPI_I* did not block */
        rd->region_blocking[i] = starts(name, "MPI_") && !starts(name, "MPI_Test") && !starts(name, "MPI_I")
                                 && !starts(name, "MPI_Request_get_status");
        rd->region_sync[i] = name && !strcmp(name, "MPI_Ssend");
        static const char *const pscw[] = { [WT_CALL_START] = "MPI_Win_start", [WT_CALL_COMPLETE] = "MPI_Win_complete",
                                            [WT_CALL_POST] = "MPI_Win_post", [WT_CALL_WAIT] = "MPI_Win_wait",
                                            [WT_CALL_TEST] = "MPI_Win_test" };
        for (int k = WT_CALL_START; k <= WT_CALL_TEST; k++)
            if (name && !strcmp(name, pscw[k]))
                rd->region_pscw[i] = (uint8_t)k;
    }
    return 0;
}

int wt_read(const char *outdir, int want_raw, struct wt_records *rec, struct wt_trace **keep, char *err,
            size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    *keep = NULL;
    struct wt_trace *wt = calloc(1, sizeof *wt);
    if (!wt) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/traces.otf2", outdir);
    if (mt_open(path, &wt->t, err, errlen) != 0) {
        free(wt);
        return -1;
    }
    *keep = wt;
    if (want_raw) {
        char rawerr[4400];
        snprintf(path, sizeof path, "%s/rawview.map", outdir);
        wt->raw = rv_open(path, wt->t.nlocations, NULL, rawerr, sizeof rawerr);
        if (!wt->raw) {
            snprintf(err, errlen, "%s", rawerr);
            return -1;
        }
        rec->have_raw = 1;
    }
    rec->regions = wt->t.regions;
    rec->nregions = wt->t.nregions;
    rec->ncomms = wt->t.ncomms;
    rec->comms = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rec->comms);
    rec->comm_size = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rec->comm_size);
    rec->comm_members = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rec->comm_members);
    for (uint32_t l = 0; l < wt->t.nlocations; l++)
        if (loc_id_rank(wt->t.locations[l]) + 1 > rec->nranks)
            rec->nranks = loc_id_rank(wt->t.locations[l]) + 1;
    struct reader rd = { .wt = wt, .rec = rec };
    rd.coll_seq = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rd.coll_seq);
    rd.epochs = wt_epochs_new();
    int rc = -1;
    if (!rec->comms || !rec->comm_size || !rec->comm_members || !rd.coll_seq || !rd.epochs
        || classify_regions(&rd) != 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t c = 0; c < wt->t.ncomms; c++) {
        rec->comms[c] = wt->t.comms[c].name;
        rec->comm_size[c] = wt->t.comms[c].self ? 1 : wt->t.comms[c].nmembers;
        rec->comm_members[c] = wt->t.comms[c].self || wt->t.comms[c].inter ? NULL : wt->t.comms[c].members;
    }
    if (wt->t.nlocations)
        on_location_start(&rd, 0);
    if (mt_read_location_events(&wt->t, on_event, on_location_done, &rd, err, errlen) != 0) {
        if (rd.failed)
            snprintf(err, errlen, "%s/traces.otf2: out of memory for its records", outdir);
        goto done;
    }
    if (wt->raw && *rv_file_error(wt->raw)) {
        snprintf(err, errlen, "%s", rv_file_error(wt->raw));
        goto done;
    }
    rc = 0;
done:
    free(rd.stack);
    free(rd.posted);
    free(rd.coll_seq);
    free(rd.fence_seq);
    free(rd.region_internal);
    free(rd.region_blocking);
    free(rd.region_sync);
    free(rd.region_pscw);
    wt_epochs_free(rd.epochs);
    return rc;
}

void wt_records_free(struct wt_records *rec, struct wt_trace *keep)
{
    free(rec->sends);
    free(rec->recvs);
    free(rec->members);
    free(rec->fences);
    free(rec->epochs);
    free(rec->ops);
    free(rec->win_size);
    free(rec->comms);
    free(rec->comm_size);
    free(rec->comm_members);
    memset(rec, 0, sizeof *rec);
    if (keep) {
        rv_close(keep->raw);
        mt_close(&keep->t);
        free(keep);
    }
}
