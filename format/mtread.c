/* mtread.c — see mtread.h. */
#include "mtread.h"
#include "mtread_events.h"
#include "defs_read.h"
#include "otf2_quiet.h"
#include "anchor_check.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a user calls a location: its process ("MPI Rank 3") for the
 * process's main location (the one whose id is the group's, as Score-P and
 * the merge number them), "MPI Rank 3 thread 1" for the thread with id
 * 1 << 32 | 3, else the process and the location's own name. */
static char *location_label(const struct rf_read_defs *d, const struct rf_read_location *l)
{
    const char *group = rf_read_location_group(d, l->group);
    if (!group || !group[0])
        return strdup(l->name);
    size_t n = strlen(group) + strlen(l->name) + 32;
    char *label = malloc(n);
    if (!label)
        return NULL;
    if (l->id == l->group)
        snprintf(label, n, "%s", group);
    else if (l->id >> 32 && (uint32_t)l->id == l->group)
        snprintf(label, n, "%s thread %u", group, (unsigned)(l->id >> 32));
    else
        snprintf(label, n, "%s %s", group, l->name);
    return label;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const struct rf_read_location *)a)->id, y = ((const struct rf_read_location *)b)->id;
    return (x > y) - (x < y);
}


void mt_close(struct mt_trace *t)
{
    rt_source_attr_free(&t->source_attrs);
    mt_order_free(t->order);
    if (t->reader)
        OTF2_Reader_Close(t->reader);
    for (uint32_t i = 0; i < t->nlocations; i++)
        free(t->location_names ? t->location_names[i] : NULL);
    for (uint32_t i = 0; i < t->nregions; i++)
        free(t->regions[i]);
    for (uint32_t i = 0; i < t->ncomms; i++) {
        free(t->comms[i].name);
        free(t->comms[i].members);
        free(t->comms[i].members_b);
        free(t->comms[i].cart_sizes);
        free(t->comms[i].cart_periodic);
    }
    free(t->location_names);
    free(t->location_events);
    free(t->location_skipped);
    free(t->locations);
    free(t->regions);
    free(t->comms);
    free(t->win_comm);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int mt_open(const char *anchor, struct mt_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    struct rf_read_defs d = { 0 };
    int rc = -1;
    rf_otf2_quiet();
    if (!(t->path = strdup(anchor))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (anchor_check(anchor, err, errlen) != 0) {
        mt_close(t);
        return -1;
    }
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        snprintf(err, errlen, "%s: not a readable OTF2 archive", anchor);
        rf_otf2_explain(err, errlen);
        mt_close(t);
        return -1;
    }
    t->reader = rd;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    if (rf_read_global_defs(rd, anchor, anchor, &d, err, errlen) != 0)
        goto done;
    if (d.nlocs == 0) {
        snprintf(err, errlen, "%s: no locations: not a merged synctrace archive", anchor);
        goto done;
    }
    if (d.resolution == 0) {
        snprintf(err, errlen, "%s: no clock properties", anchor);
        goto done;
    }
    t->resolution = d.resolution;
    t->trace_length = d.trace_length;
    memcpy(t->freed_attr, d.freed_receive, sizeof t->freed_attr);
    t->freed_attrs = d.have_freed_receive;
    t->calls_attr = d.collapsed_calls;
    t->have_calls_attr = d.have_collapsed_calls;
    t->truth_attr = d.true_time;
    t->have_truth_attr = d.have_true_time;
    for (uint32_t k = 0; k < d.nattrs; k++)
        if (rt_source_attr_def(&t->source_attrs, d.attrs[k].ref, d.attrs[k].name, d.attrs[k].type) != 0) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    /* the tables become the trace's */
    t->regions = d.regions;
    t->nregions = d.nregions;
    d.regions = NULL;
    d.nregions = 0;
    if (d.ncomms && !(t->comms = calloc(d.ncomms, sizeof *t->comms))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    t->ncomms = d.ncomms;
    for (uint32_t k = 0; k < d.ncomms; k++) {
        struct rf_read_comm *dc = &d.comms[k];
        if (!dc->name)
            continue;
        t->comms[k].name = dc->name;
        t->comms[k].nmembers = dc->nmembers;   /* 0 without a group */
        t->comms[k].members = dc->members ? dc->members : calloc(1, sizeof *t->comms[k].members);
        t->comms[k].self = dc->self;
        t->comms[k].inter = dc->inter;
        t->comms[k].events = dc->events;
        if (dc->inter) {   /* members: group A, members_b: group B */
            t->comms[k].nmembers_b = dc->nremote;
            t->comms[k].members_b = dc->remote;
            dc->remote = NULL;
        }
        if (dc->cart_ndims && dc->cart_sizes && dc->cart_periodic) {
            t->comms[k].cart_ndims = dc->cart_ndims;
            t->comms[k].cart_sizes = dc->cart_sizes;
            t->comms[k].cart_periodic = dc->cart_periodic;
            dc->cart_sizes = NULL;
            dc->cart_periodic = NULL;
        }
        dc->name = NULL;
        dc->members = NULL;
        if (!t->comms[k].members) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    if (d.nwins && !(t->win_comm = malloc(sizeof *t->win_comm * d.nwins))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    t->nwins = d.nwins;
    for (uint32_t w = 0; w < d.nwins; w++)
        t->win_comm[w] = d.wins[w].name ? d.wins[w].comm : UINT32_MAX;
    qsort(d.locs, d.nlocs, sizeof *d.locs, by_id);
    /* OTF2 keeps one event reader per location: a location defined twice
     * would be read through a reader freed when its twin closes */
    for (uint32_t i = 1; i < d.nlocs; i++)
        if (d.locs[i].id == d.locs[i - 1].id) {
            snprintf(err, errlen, "%s: location %llu is defined twice: corrupt definitions", anchor,
                     (unsigned long long)d.locs[i].id);
            goto done;
        }
    t->nlocations = d.nlocs;
    t->locations = malloc(sizeof *t->locations * d.nlocs);
    t->location_events = malloc(sizeof *t->location_events * d.nlocs);
    t->location_skipped = calloc(d.nlocs ? d.nlocs : 1, sizeof *t->location_skipped);
    t->location_names = calloc(d.nlocs, sizeof *t->location_names);
    if (!t->locations || !t->location_events || !t->location_skipped || !t->location_names) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < d.nlocs; i++) {
        t->locations[i] = d.locs[i].id;
        t->location_events[i] = d.locs[i].nevents;
        if (!(t->location_names[i] = location_label(&d, &d.locs[i]))) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    rc = 0;
done:
    if (rc)
        rf_otf2_explain(err, errlen);
    rf_read_defs_free(&d);
    if (rc)
        mt_close(t);
    return rc;
}

int mt_world_rank(const struct mt_trace *t, uint32_t comm, uint32_t local)
{
    if (comm >= t->ncomms || local >= t->comms[comm].nmembers)
        return -1;
    return (int)t->comms[comm].members[local];
}

int mt_peer_rank(const struct mt_trace *t, uint32_t me, uint32_t comm, uint32_t local)
{
    if (comm >= t->ncomms)
        return -1;
    const struct mt_comm *c = &t->comms[comm];
    if (c->self)
        return local == 0 ? (int)me : -1;
    if (!c->inter)
        return mt_world_rank(t, comm, local);
    /* the peer is in the other group than me */
    int in_a = 0;
    for (uint32_t i = 0; i < c->nmembers && !in_a; i++)
        in_a = c->members[i] == me;
    const uint64_t *v = in_a ? c->members_b : c->members;
    uint32_t n = in_a ? c->nmembers_b : c->nmembers;
    return local < n ? (int)v[local] : -1;
}

const char *mt_region(const struct mt_trace *t, uint32_t region)
{
    return region < t->nregions && t->regions[region] ? t->regions[region] : "?";
}

/* ---------- events ---------- */

struct evt_ctx {
    const struct mt_trace *t;
    mt_event_fn fn;
    void *user;
    mt_sources_fn sources;    /* t->on_sources, or the time order's own (mtorder.c) */
    int stopped, bad_location;
    uint64_t delivered;       /* events handed to fn (the rest of those read are skipped) */
    uint64_t *src_buf;        /* a collective's sources (on_sources) */
    size_t csrc_buf;
};

static uint32_t track_of(struct evt_ctx *c, OTF2_LocationRef loc)
{
    uint32_t lo = 0, hi = c->t->nlocations;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->t->locations[mid] < loc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->t->nlocations && c->t->locations[lo] == loc ? lo : UINT32_MAX;
}

static OTF2_CallbackCode deliver(struct evt_ctx *c, OTF2_LocationRef loc, struct rt_event *e)
{
    uint32_t k = track_of(c, loc);
    if (k == UINT32_MAX) {
        c->bad_location = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->delivered++;
    if (c->fn(c->user, k, e) != 0) {
        c->stopped = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A location's own reader's callbacks (the event's position is not used). */
#define EV_HEAD OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud, OTF2_AttributeList *attrs
#define EV_ARGS loc, time, pos, ud, attrs
#define EV_BEGIN(kind_) (void)pos; struct rt_event e = { .time = time, .kind = (kind_) }; ev_truth(ud, attrs, &e)

/* The true_time attribute of a trace taken with SYNCTRACE_SKEW. */
static void ev_truth(void *ud, OTF2_AttributeList *attrs, struct rt_event *e)
{
    const struct evt_ctx *c = ud;
    if (c->t->have_truth_attr && attrs
        && OTF2_AttributeList_GetUint64(attrs, c->t->truth_attr, &e->truth) == OTF2_SUCCESS)
        e->has_truth = 1;
}

static OTF2_CallbackCode ev_enter(EV_HEAD, OTF2_RegionRef region)
{
    EV_BEGIN(RT_ENTER);
    e.ref = region;
    struct evt_ctx *c = ud;
    uint64_t calls;   /* a run of polling calls written as one region */
    if (c->t->have_calls_attr && attrs
        && OTF2_AttributeList_GetUint64(attrs, c->t->calls_attr, &calls) == OTF2_SUCCESS && calls > 1)
        e.bytes = calls;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode ev_leave(EV_HEAD, OTF2_RegionRef region)
{
    EV_BEGIN(RT_LEAVE);
    e.ref = region;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode message(EV_HEAD, enum rt_kind kind, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len, uint64_t req)
{
    EV_BEGIN(kind);
    e.peer = peer;
    e.ref = comm;
    e.tag = tag;
    e.bytes = len;
    e.req = req;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode ev_send(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    return message(EV_ARGS, RT_SEND, peer, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_isend(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    return message(EV_ARGS, RT_ISEND, peer, comm, tag, len, req);
}

static OTF2_CallbackCode ev_recv(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    return message(EV_ARGS, RT_RECV, peer, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_irecv(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    return message(EV_ARGS, RT_IRECV, peer, comm, tag, len, req);
}

static OTF2_CallbackCode request(EV_HEAD, enum rt_kind kind, uint64_t req)
{
    EV_BEGIN(kind);
    e.req = req;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode ev_isend_complete(EV_HEAD, uint64_t req) { return request(EV_ARGS, RT_ISEND_COMPLETE, req); }
static OTF2_CallbackCode ev_irecv_request(EV_HEAD, uint64_t req) { return request(EV_ARGS, RT_IRECV_REQUEST, req); }
static OTF2_CallbackCode ev_cancelled(EV_HEAD, uint64_t req) { return request(EV_ARGS, RT_CANCELLED, req); }
static OTF2_CallbackCode ev_nbc_request(EV_HEAD, uint64_t req) { return request(EV_ARGS, RT_NBC_REQUEST, req); }

/* Kept only as the tracer's record of a receive released by MPI_Request_free. */
static OTF2_CallbackCode ev_request_test(EV_HEAD, uint64_t req)
{
    struct evt_ctx *c = ud;
    OTF2_CommRef comm;
    int32_t source, tag;
    if (c->t->freed_attrs != 7 || !attrs
        || OTF2_AttributeList_GetCommRef(attrs, c->t->freed_attr[0], &comm) != OTF2_SUCCESS
        || OTF2_AttributeList_GetInt32(attrs, c->t->freed_attr[1], &source) != OTF2_SUCCESS
        || OTF2_AttributeList_GetInt32(attrs, c->t->freed_attr[2], &tag) != OTF2_SUCCESS)
        return OTF2_CALLBACK_SUCCESS;
    EV_BEGIN(RT_IRECV_FREED);
    e.ref = comm;
    e.peer = source < 0 ? RT_ANY : (uint32_t)source;
    e.tag = tag < 0 ? RT_ANY : (uint32_t)tag;
    e.req = req;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode ev_coll_begin(EV_HEAD)
{
    EV_BEGIN(RT_COLL_BEGIN);
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode collective(EV_HEAD, enum rt_kind kind, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                    uint32_t root, uint64_t sent, uint64_t received, uint64_t req)
{
    EV_BEGIN(kind);
    e.tag = op;
    e.ref = comm;
    e.peer = root;
    e.bytes = sent;
    e.received = received;
    e.req = req;
    OTF2_CallbackCode rc = deliver(ud, loc, &e);
    struct evt_ctx *c = ud;
    uint32_t nslots;
    if (rc != OTF2_CALLBACK_SUCCESS || !c->sources)
        return rc;
    if (rt_source_attr_read(&c->t->source_attrs, attrs, &c->src_buf, &c->csrc_buf, &nslots) != 0
        || (nslots && c->sources(c->user, track_of(c, loc), nslots,
                                 nslots == RT_SOURCES_UNKNOWN ? NULL : c->src_buf) != 0)) {
        c->stopped = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    return collective(EV_ARGS, RT_COLL_END, op, comm, root, sent, received, 0);
}

static OTF2_CallbackCode ev_nbc_complete(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                         uint64_t sent, uint64_t received, uint64_t req)
{
    return collective(EV_ARGS, RT_NBC_COMPLETE, op, comm, root, sent, received, req);
}

static OTF2_CallbackCode comm_life(EV_HEAD, enum rt_kind kind, OTF2_CommRef comm)
{
    EV_BEGIN(kind);
    e.ref = comm;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode ev_comm_create(EV_HEAD, OTF2_CommRef comm)
{
    return comm_life(EV_ARGS, RT_COMM_CREATE, comm);
}

static OTF2_CallbackCode ev_comm_destroy(EV_HEAD, OTF2_CommRef comm)
{
    return comm_life(EV_ARGS, RT_COMM_DESTROY, comm);
}

static OTF2_CallbackCode ev_flush(EV_HEAD, OTF2_TimeStamp stop)
{
    EV_BEGIN(RT_FLUSH);
    e.req = stop;
    return deliver(ud, loc, &e);
}

/* One-sided records, their fields as rawtrace.h maps them (rt_rma_*): the
 * index counts them as events of their location (its R:I numbering) and
 * the exporters pass them by. */
#define RMA_BEGIN EV_BEGIN(RT_RMA)
static OTF2_CallbackCode ev_rma_win_create(EV_HEAD, OTF2_RmaWinRef win)
{
    RMA_BEGIN;
    rt_rma_fields(&e, RT_RMA_WIN_CREATE, win);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_win_destroy(EV_HEAD, OTF2_RmaWinRef win)
{
    RMA_BEGIN;
    rt_rma_fields(&e, RT_RMA_WIN_DESTROY, win);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_coll_begin(EV_HEAD)
{
    RMA_BEGIN;
    rt_rma_fields(&e, RT_RMA_COLL_BEGIN, OTF2_UNDEFINED_RMA_WIN);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                         uint32_t root, uint64_t sent, uint64_t received)
{
    RMA_BEGIN;
    rt_rma_coll_end(&e, win, op, level, root, sent, received);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_put(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    RMA_BEGIN;
    rt_rma_access(&e, RT_RMA_PUT, win, remote, bytes, id);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_get(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    RMA_BEGIN;
    rt_rma_access(&e, RT_RMA_GET, win, remote, bytes, id);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_atomic(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type,
                                       uint64_t sent, uint64_t received, uint64_t id)
{
    RMA_BEGIN;
    rt_rma_atomic(&e, win, remote, type, sent, received, id);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_complete_remote(EV_HEAD, OTF2_RmaWinRef win, uint64_t id)
{
    RMA_BEGIN;
    rt_rma_complete(&e, RT_RMA_OP_COMPLETE_REMOTE, win, id);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_complete_non_blocking(EV_HEAD, OTF2_RmaWinRef win, uint64_t id)
{
    RMA_BEGIN;
    rt_rma_complete(&e, RT_RMA_OP_COMPLETE_NON_BLOCKING, win, id);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_request_lock(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock,
                                             OTF2_LockType type)
{
    RMA_BEGIN;
    rt_rma_lock(&e, RT_RMA_REQUEST_LOCK, win, remote, lock, type);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_release_lock(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock)
{
    RMA_BEGIN;
    rt_rma_lock(&e, RT_RMA_RELEASE_LOCK, win, remote, lock, 0);
    return deliver(ud, loc, &e);
}
static OTF2_CallbackCode ev_rma_sync(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaSyncType type)
{
    RMA_BEGIN;
    rt_rma_sync(&e, win, remote, type);
    return deliver(ud, loc, &e);
}

/* A new reader of every location, their local definitions read first:
 * OTF2 reads a location's events only once per reader, so each pass opens
 * its own (the archive's definitions stay read). NULL with a message. */
static OTF2_Reader *open_for_events(struct mt_trace *t, char *err, size_t errlen, int *have_defs)
{
    rf_otf2_quiet();
    if (t->reader)
        OTF2_Reader_Close(t->reader);
    OTF2_Reader *rd = t->reader = OTF2_Reader_Open(t->path);
    if (!rd) {
        snprintf(err, errlen, "%s: not a readable OTF2 archive", t->path);
        rf_otf2_explain(err, errlen);
        return NULL;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    for (uint32_t i = 0; i < t->nlocations; i++)
        OTF2_Reader_SelectLocation(rd, t->locations[i]);
    *have_defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: cannot open the event files", t->path);
        rf_otf2_explain(err, errlen);
        return NULL;
    }
    return rd;
}

static void read_local_defs(OTF2_Reader *rd, OTF2_LocationRef loc)
{
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, loc);
    if (dr) {
        uint64_t n;
        OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
        OTF2_Reader_CloseDefReader(rd, dr);
    }
}

/* The local callbacks, made once per reading. */
static OTF2_EvtReaderCallbacks *local_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, ev_request_test);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_complete);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, ev_flush);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, ev_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, ev_comm_destroy);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, ev_rma_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, ev_rma_win_destroy);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, ev_rma_coll_begin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, ev_rma_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, ev_rma_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, ev_rma_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, ev_rma_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, ev_rma_complete_remote);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, ev_rma_complete_non_blocking);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, ev_rma_request_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, ev_rma_release_lock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, ev_rma_sync);
    return cb;
}

struct mt_events {
    struct mt_trace *t;
    OTF2_Reader *rd;
    OTF2_EvtReaderCallbacks *cb;
    int have_defs;
    struct evt_ctx c;
    OTF2_EvtReader **open;    /* by location: its reader while open */
    uint8_t *ended;           /* by location: its last event was read */
};

struct mt_events *mt_events_begin(struct mt_trace *t, mt_event_fn fn, mt_sources_fn sources, void *user, char *err,
                                  size_t errlen)
{
    struct mt_events *ev = calloc(1, sizeof *ev);
    if (!ev || !(ev->open = calloc(t->nlocations ? t->nlocations : 1, sizeof *ev->open))
        || !(ev->ended = calloc(t->nlocations ? t->nlocations : 1, 1)) || !(ev->cb = local_callbacks())) {
        snprintf(err, errlen, "out of memory");
        if (ev) {
            free(ev->open);
            free(ev->ended);
        }
        free(ev);
        return NULL;
    }
    ev->t = t;
    ev->c = (struct evt_ctx){ .t = t, .fn = fn, .user = user, .sources = sources };
    if (!(ev->rd = open_for_events(t, err, errlen, &ev->have_defs))) {
        OTF2_EvtReaderCallbacks_Delete(ev->cb);
        free(ev->open);
        free(ev->ended);
        free(ev);
        return NULL;
    }
    return ev;
}

int mt_events_read(struct mt_events *ev, uint32_t i, uint64_t max, uint64_t *got, char *err, size_t errlen)
{
    struct mt_trace *t = ev->t;
    *got = 0;
    if (!ev->open[i]) {
        /* a location's local definitions are read before its events */
        if (ev->have_defs)
            read_local_defs(ev->rd, t->locations[i]);
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(ev->rd, t->locations[i]);
        if (!er || OTF2_Reader_RegisterEvtCallbacks(ev->rd, er, ev->cb, &ev->c) != OTF2_SUCCESS) {
            snprintf(err, errlen, "%s: no event data for location %llu", t->path, (unsigned long long)t->locations[i]);
            rf_otf2_explain(err, errlen);
            if (er)
                OTF2_Reader_CloseEvtReader(ev->rd, er);
            return -1;
        }
        ev->open[i] = er;
    }
    if (ev->ended[i])
        return 0;
    uint64_t delivered = ev->c.delivered;
    OTF2_ErrorCode status = OTF2_Reader_ReadLocalEvents(ev->rd, ev->open[i], max, got);
    /* records of kinds no callback takes (a foreign archive's
     * ProgramBegin, OpenMP, metrics): read, counted, not delivered */
    if (status == OTF2_SUCCESS && *got >= ev->c.delivered - delivered)
        t->location_skipped[i] += *got - (ev->c.delivered - delivered);
    /* OTF2 3.0 reads past a location's end if asked again (a record of
     * garbage and OTF2_ERROR_INVALID_DATA): a short read is the end */
    if (*got < max)
        ev->ended[i] = 1;
    if (ev->c.stopped)
        return -1;   /* the callback said why */
    if (ev->c.bad_location) {
        snprintf(err, errlen, "%s: an event of an undefined location", t->path);
        return -1;
    }
    if (status != OTF2_SUCCESS && status != OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
        snprintf(err, errlen, "%s: corrupt or truncated event data of location %llu", t->path,
                 (unsigned long long)t->locations[i]);
        rf_otf2_explain(err, errlen);
        return -1;
    }
    return 0;
}

void mt_events_close_location(struct mt_events *ev, uint32_t i)
{
    if (ev->open[i])
        OTF2_Reader_CloseEvtReader(ev->rd, ev->open[i]);
    ev->open[i] = NULL;
}

void mt_events_end(struct mt_events *ev)
{
    if (!ev)
        return;
    for (uint32_t i = 0; i < ev->t->nlocations; i++)
        mt_events_close_location(ev, i);
    OTF2_EvtReaderCallbacks_Delete(ev->cb);
    if (ev->have_defs)
        OTF2_Reader_CloseDefFiles(ev->rd);
    OTF2_Reader_CloseEvtFiles(ev->rd);
    free(ev->c.src_buf);
    free(ev->open);
    free(ev->ended);
    free(ev);
}

int mt_read_location_events(struct mt_trace *t, mt_event_fn fn, mt_location_fn done, void *user, char *err,
                            size_t errlen)
{
    struct mt_events *ev = mt_events_begin(t, fn, t->on_sources, user, err, errlen);
    if (!ev)
        return -1;
    int rc = 0;
    /* one location's reader (and its buffer) at a time */
    for (uint32_t i = 0; i < t->nlocations && !rc; i++) {
        uint64_t got;
        do
            rc = mt_events_read(ev, i, UINT64_MAX, &got, err, errlen);
        while (!rc && got);
        mt_events_close_location(ev, i);
        if (!rc && done && done(user, i) != 0)
            rc = -1;   /* the caller says why */
    }
    mt_events_end(ev);
    return rc;
}
