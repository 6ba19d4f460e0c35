/* rawtrace.c — see rawtrace.h. Definitions and events are gathered through
 * OTF2's callback readers into plain arrays. */
#include "rawtrace.h"
#include "rawformat.h"
#include "table.h"
#include "anchor_check.h"
#include "recover.h"
#include "defs_read.h"
#include "otf2_quiet.h"
#include "sumfile.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct ctx {
    struct rt_location *r;
    struct rt_event ev;       /* the event being read, stored once the next one begins (commit) */
    int pending;
    int failed;
    struct rt_event prev;     /* the location's event stored last (prev_set) */
    int prev_set;
    uint64_t last_time;       /* the latest time of any event (a flush's stop included) */
    uint32_t attr_true_time;
    int have_true_attr;
    uint32_t attr_calls;      /* collapsed_calls (have_calls_attr) */
    int have_calls_attr;
    uint32_t attr_freed[3];   /* freed_receive_comm, _source, _tag (have_freed_attrs) */
    int have_freed_attrs;
    struct rt_source_attrs src_attrs;   /* coll_sources_* (defs_write.h) */
    uint64_t *src_buf;
    size_t csrc_buf;
};

/* ---------- events ---------- */

/* A callback fills c->ev; it joins the location's events when the next
 * event begins or the location ends. */
static int commit(struct ctx *c)
{
    if (!c->pending)
        return 0;
    c->pending = 0;
    const struct rt_event *e = &c->ev;
    if (rt_store_event(c->r, e) != 0) {
        c->failed = 1;
        return -1;
    }
    /* OTF2 writes a BufferFlush record by itself, while writing the event
     * that filled the buffer, stamped with that event's time; it cannot
     * carry an attribute. Its start then has that event's true time: the
     * next event's, at the same timestamp. (Its stop has none: only the
     * start is a measurement.) */
    if (c->prev_set && c->prev.kind == RT_FLUSH && !c->prev.has_truth && e->has_truth && e->time == c->prev.time)
        rt_set_truth(c->r, c->r->nevents - 2, e->truth);
    uint64_t stop = e->kind == RT_FLUSH ? e->req : 0, t = stop > e->time ? stop : e->time;
    if (t > c->last_time)
        c->last_time = t;
    c->prev = *e;
    c->prev_set = 1;
    return 0;
}

/* The index the event being read will have. */
static uint64_t current_index(const struct ctx *c)
{
    return c->r->nevents + (uint64_t)c->pending - 1;
}

static struct rt_event *push(struct ctx *c, enum rt_kind kind, uint64_t time, OTF2_AttributeList *attrs)
{
    if (commit(c) != 0)
        return NULL;
    struct rt_event *e = &c->ev;
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->time = time;
    if (c->have_true_attr && attrs
        && OTF2_AttributeList_GetUint64(attrs, c->attr_true_time, &e->truth) == OTF2_SUCCESS)
        e->has_truth = 1;
    c->pending = 1;
    return e;
}

#define EV_HEAD OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud, OTF2_AttributeList *attrs
#define EV_UNUSED (void)loc; (void)pos
#define PUSH(kind) struct rt_event *e = push(ud, kind, time, attrs); if (!e) return OTF2_CALLBACK_INTERRUPT

/* A run of polling calls written as one region carries their number. */
static OTF2_CallbackCode ev_enter(EV_HEAD, OTF2_RegionRef region)
{
    EV_UNUSED; PUSH(RT_ENTER);
    e->ref = region;
    struct ctx *c = ud;
    uint64_t calls;
    if (c->have_calls_attr && attrs && OTF2_AttributeList_GetUint64(attrs, c->attr_calls, &calls) == OTF2_SUCCESS
        && calls > 1)
        e->bytes = calls;
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode ev_leave(EV_HEAD, OTF2_RegionRef region) { EV_UNUSED; PUSH(RT_LEAVE); e->ref = region; return OTF2_CALLBACK_SUCCESS; }

/* One-sided records: their fields as rawtrace.h maps them (rt_rma_*). */
static OTF2_CallbackCode ev_rma_win_create(EV_HEAD, OTF2_RmaWinRef win)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_fields(e, RT_RMA_WIN_CREATE, win);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_win_destroy(EV_HEAD, OTF2_RmaWinRef win)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_fields(e, RT_RMA_WIN_DESTROY, win);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_coll_begin(EV_HEAD)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_fields(e, RT_RMA_COLL_BEGIN, OTF2_UNDEFINED_RMA_WIN);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                         uint32_t root, uint64_t sent, uint64_t received)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_coll_end(e, win, op, level, root, sent, received);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_put(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_access(e, RT_RMA_PUT, win, remote, bytes, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_get(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_access(e, RT_RMA_GET, win, remote, bytes, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_atomic(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type,
                                       uint64_t sent, uint64_t received, uint64_t id)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_atomic(e, win, remote, type, sent, received, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_complete_remote(EV_HEAD, OTF2_RmaWinRef win, uint64_t id)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_complete(e, RT_RMA_OP_COMPLETE_REMOTE, win, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_complete_non_blocking(EV_HEAD, OTF2_RmaWinRef win, uint64_t id)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_complete(e, RT_RMA_OP_COMPLETE_NON_BLOCKING, win, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_request_lock(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock,
                                             OTF2_LockType type)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_lock(e, RT_RMA_REQUEST_LOCK, win, remote, lock, type);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_release_lock(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_lock(e, RT_RMA_RELEASE_LOCK, win, remote, lock, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_sync(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaSyncType type)
{
    EV_UNUSED; PUSH(RT_RMA); rt_rma_sync(e, win, remote, type);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_comm_create(EV_HEAD, OTF2_CommRef comm)
{
    EV_UNUSED; PUSH(RT_COMM_CREATE);
    e->ref = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_comm_destroy(EV_HEAD, OTF2_CommRef comm)
{
    EV_UNUSED; PUSH(RT_COMM_DESTROY);
    e->ref = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_send(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_UNUSED; PUSH(RT_SEND);
    e->peer = peer; e->ref = comm; e->tag = tag; e->bytes = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_UNUSED; PUSH(RT_ISEND);
    e->peer = peer; e->ref = comm; e->tag = tag; e->bytes = len; e->req = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_recv(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_UNUSED; PUSH(RT_RECV);
    e->peer = peer; e->ref = comm; e->tag = tag; e->bytes = len;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_UNUSED; PUSH(RT_IRECV);
    e->peer = peer; e->ref = comm; e->tag = tag; e->bytes = len; e->req = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_req(void *ud, enum rt_kind kind, uint64_t time, OTF2_AttributeList *attrs, uint64_t req)
{
    PUSH(kind);
    e->req = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend_complete(EV_HEAD, uint64_t req) { EV_UNUSED; return ev_req(ud, RT_ISEND_COMPLETE, time, attrs, req); }
static OTF2_CallbackCode ev_irecv_request(EV_HEAD, uint64_t req) { EV_UNUSED; return ev_req(ud, RT_IRECV_REQUEST, time, attrs, req); }
static OTF2_CallbackCode ev_cancelled(EV_HEAD, uint64_t req) { EV_UNUSED; return ev_req(ud, RT_CANCELLED, time, attrs, req); }
static OTF2_CallbackCode ev_nbc_request(EV_HEAD, uint64_t req) { EV_UNUSED; return ev_req(ud, RT_NBC_REQUEST, time, attrs, req); }

/* An MpiRequestTest is only kept when it is the tracer's record of a
 * receive request released by MPI_Request_free (its freed_receive_*
 * attributes); a test that found a request incomplete says nothing else. */
static OTF2_CallbackCode ev_request_test(EV_HEAD, uint64_t req)
{
    EV_UNUSED;
    struct ctx *c = ud;
    OTF2_CommRef comm;
    int32_t source, tag;
    if (c->have_freed_attrs != 7 || !attrs
        || OTF2_AttributeList_GetCommRef(attrs, c->attr_freed[0], &comm) != OTF2_SUCCESS
        || OTF2_AttributeList_GetInt32(attrs, c->attr_freed[1], &source) != OTF2_SUCCESS
        || OTF2_AttributeList_GetInt32(attrs, c->attr_freed[2], &tag) != OTF2_SUCCESS)
        return OTF2_CALLBACK_SUCCESS;
    PUSH(RT_IRECV_FREED);
    e->ref = comm;
    e->peer = source < 0 ? RT_ANY : (uint32_t)source;
    e->tag = tag < 0 ? RT_ANY : (uint32_t)tag;
    e->req = req;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_begin(EV_HEAD) { EV_UNUSED; PUSH(RT_COLL_BEGIN); (void)e; return OTF2_CALLBACK_SUCCESS; }

int rt_source_attr_def(struct rt_source_attrs *a, uint32_t self, const char *name, int type)
{
    unsigned k;
    int used = 0;
    if (strcmp(name, RF_ATTR_SOURCES_SLOTS_NAME) == 0 && type == OTF2_TYPE_UINT32) {
        a->slots_ref = self;
        a->have_slots = 1;
    } else if (sscanf(name, RF_ATTR_SOURCES_BITS_FMT "%n", &k, &used) == 1 && name[used] == 0
               && type == OTF2_TYPE_UINT64 && k < (1u << 20) && self < (1u << 20)) {
        if (st_table_ensure((void **)&a->word_of, &a->nword_of, &a->word_of_cap, self, 1u << 20,
                            sizeof *a->word_of) != 0)
            return -1;
        a->word_of[self] = k + 1;
    }
    return 0;
}

void rt_source_attr_free(struct rt_source_attrs *a)
{
    free(a->word_of);
    memset(a, 0, sizeof *a);
}

int rt_source_attr_read(const struct rt_source_attrs *a, void *otf2_attrs, uint64_t **buf, size_t *cap,
                        uint32_t *nslots)
{
    OTF2_AttributeList *attrs = otf2_attrs;
    *nslots = 0;
    if (!a->have_slots || !attrs || OTF2_AttributeList_GetUint32(attrs, a->slots_ref, nslots) != OTF2_SUCCESS)
        return 0;
    uint32_t words = *nslots == RT_SOURCES_UNKNOWN ? 0 : (*nslots + 63) / 64;
    if (words > (1u << 20)) {
        *nslots = RT_SOURCES_UNKNOWN;   /* not what the tracer writes: say nothing */
        words = 0;
    }
    if (words > *cap) {
        uint64_t *nv = realloc(*buf, sizeof *nv * words);
        if (!nv)
            return -1;
        *buf = nv;
        *cap = words;
    }
    if (words)
        memset(*buf, 0, sizeof **buf * words);
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(attrs);
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(attrs, i, &ref, &type, &v) != OTF2_SUCCESS)
            continue;
        uint32_t k = ref < a->nword_of ? a->word_of[ref] : 0;
        if (k && k - 1 < words && type == OTF2_TYPE_UINT64)
            (*buf)[k - 1] = v.uint64;
    }
    return 0;
}

int rt_add_sources(struct rt_location *r, uint64_t index, uint32_t nslots, const uint64_t *bits)
{
    uint32_t words = nslots == RT_SOURCES_UNKNOWN || !bits ? 0 : (nslots + 63) / 64;
    struct rt_sources *ns = realloc(r->sources, sizeof *ns * (r->nsources + 1));
    if (!ns)
        return -1;
    r->sources = ns;
    uint64_t *nw = realloc(r->source_words, sizeof *nw * (r->nsource_words + words + 1));
    if (!nw)
        return -1;
    r->source_words = nw;
    if (words)
        memcpy(nw + r->nsource_words, bits, sizeof *nw * words);
    ns[r->nsources++] = (struct rt_sources){ index, words || nslots == RT_SOURCES_UNKNOWN ? nslots
                                                                                        : RT_SOURCES_UNKNOWN,
                                             r->nsource_words };
    r->nsource_words += words;
    return 0;
}

/* A sparse alltoallv/w member's source slots into r's side table. */
static int note_sources(struct ctx *c, OTF2_AttributeList *attrs)
{
    uint32_t nslots;
    if (rt_source_attr_read(&c->src_attrs, attrs, &c->src_buf, &c->csrc_buf, &nslots) != 0)
        return -1;
    return nslots ? rt_add_sources(c->r, current_index(c), nslots, c->src_buf) : 0;
}

static OTF2_CallbackCode ev_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    EV_UNUSED; PUSH(RT_COLL_END);
    e->tag = op; e->ref = comm; e->peer = root; e->bytes = sent; e->received = received;
    if (note_sources(ud, attrs) != 0) {
        ((struct ctx *)ud)->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_nbc_complete(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                         uint64_t sent, uint64_t received, uint64_t req)
{
    EV_UNUSED; PUSH(RT_NBC_COMPLETE);
    e->tag = op; e->ref = comm; e->peer = root; e->bytes = sent; e->received = received; e->req = req;
    if (note_sources(ud, attrs) != 0) {
        ((struct ctx *)ud)->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_flush(EV_HEAD, OTF2_TimeStamp stop)
{
    EV_UNUSED; PUSH(RT_FLUSH);
    e->req = stop;
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------- properties ---------- */

static char *property(OTF2_Reader *rd, const char *name)
{
    char *value = NULL;
    if (OTF2_Reader_GetProperty(rd, name, &value) != OTF2_SUCCESS)
        return NULL;
    return value;   /* allocated by OTF2 with malloc */
}

static int int_property(OTF2_Reader *rd, const char *name, int *out)
{
    char *v = property(rd, name);
    if (!v)
        return -1;
    char *end;
    long x = strtol(v, &end, 10);
    int ok = *v && !*end;
    free(v);
    if (!ok)
        return -1;
    *out = (int)x;
    return 0;
}

static double double_property(OTF2_Reader *rd, const char *name)
{
    char *v = property(rd, name);
    double x = v ? strtod(v, NULL) : 0;
    free(v);
    return x;
}

static int by_location(const void *a, const void *b)
{
    uint64_t x = ((const struct rf_read_location *)a)->id, y = ((const struct rf_read_location *)b)->id;
    return (x > y) - (x < y);
}

/* The rank's k-th location (k > 0), one of its other threads. */
static void set_thread(struct rt_location *out, uint32_t k, const struct rf_read_location *loc)
{
    struct rt_location *dst = &out->threads[k - 1];
    dst->location = loc->id;
    dst->declared_events = loc->nevents;
    /* the tracer's N-th thread has id N << 32 | rank: keep N (a recovered
     * archive lacks the threads that never flushed) */
    uint64_t id = loc->id;
    dst->thread = (id & 0xffffffffu) == (uint32_t)out->rank && (id >> 32) > 0 && (id >> 32) < UINT32_MAX
                  ? (uint32_t)(id >> 32) : k;
    out->nthreads = k;
}

enum { READ_ALL = 0, READ_DEFS = 1 };

/* Events read straight into a reader's locations (rt_read_rank_events),
 * handed to its sink as they come. */
struct into {
    struct rt_location *const *locs;
    uint32_t nlocs;
    const struct rt_event_sink *sink;
};

/* The location of thread number `thread` (0: the main one), if it has no
 * events yet; else NULL. */
static struct rt_location *into_target(const struct into *into, uint32_t thread)
{
    uint32_t at = 0;
    while (thread > 0 && at < into->nlocs && (at == 0 || into->locs[at]->thread != thread))
        at++;
    if (at == into->nlocs || into->locs[at]->nevents || into->locs[at]->events)
        return NULL;
    return into->locs[at];
}

/* What read_archive's steps share: the open reader, the archive's anchor
 * file (path) and the name messages give it (anchor), the rank being
 * filled, the event callbacks' context, the global definitions (whose
 * tables become the rank's; what is left is freed once), and where a
 * failure is said. */
struct reading {
    OTF2_Reader *rd;
    const char *path, *anchor;
    int exact;
    const struct into *into;
    struct rt_location *out;
    struct ctx c;
    struct rf_read_defs d;
    int sink_failed;          /* the sink said why: OTF2 has nothing to add */
    char *err;
    size_t errlen;
};

/* The rank's properties (rawformat.h): who it is, its clock domain (its
 * own without one), where and how it ran, the skew a test gave its clock,
 * and the sets of processes outside the trace it talked to. */
static int read_properties(struct reading *g)
{
    OTF2_Reader *rd = g->rd;
    struct rt_location *out = g->out;
    if (int_property(rd, RF_PROP_RANK, &out->rank) != 0
        || int_property(rd, RF_PROP_WORLD_SIZE, &out->world_size) != 0) {
        snprintf(g->err, g->errlen, "%s: not a synctrace raw archive (no SYNCTRACE::RANK property)", g->anchor);
        return -1;
    }
    if (int_property(rd, RF_PROP_CLOCK_DOMAIN, &out->domain) != 0)
        out->domain = out->rank;
    out->host = property(rd, RF_PROP_HOST);
    out->clock = property(rd, RF_PROP_CLOCK);
    out->run_id = property(rd, RF_PROP_RUN_ID);
    out->version = property(rd, RF_PROP_VERSION);
    out->skew_offset_us = double_property(rd, RF_PROP_SKEW_OFFSET_US);
    out->skew_drift_ppm = double_property(rd, RF_PROP_SKEW_DRIFT_PPM);
    for (uint32_t k = 0; k < RF_OUTSIDE_MAX_SETS; k++) {   /* numbered from 0 without gaps */
        char name[64];
        snprintf(name, sizeof name, RF_PROP_OUTSIDE_FMT, k);
        char *v = property(rd, name);
        char **grown = v ? realloc(out->outside, sizeof *grown * (k + 1)) : NULL;
        if (!grown) {
            free(v);
            break;
        }
        out->outside = grown;
        out->outside[out->noutside++] = v;
    }
    return 0;
}

/* The clock's properties, the attributes the event callbacks look for,
 * and the region tables, which become the rank's. */
static int take_attrs_and_regions(struct reading *g)
{
    struct rf_read_defs *d = &g->d;
    struct ctx *c = &g->c;
    struct rt_location *out = g->out;
    out->resolution = d->resolution;
    out->global_offset = d->global_offset;
    out->trace_length = d->trace_length;
    c->attr_true_time = d->true_time;
    c->have_true_attr = d->have_true_time;
    c->attr_calls = d->collapsed_calls;
    c->have_calls_attr = d->have_collapsed_calls;
    memcpy(c->attr_freed, d->freed_receive, sizeof c->attr_freed);
    c->have_freed_attrs = d->have_freed_receive;
    for (uint32_t k = 0; k < d->nattrs; k++)
        if (rt_source_attr_def(&c->src_attrs, d->attrs[k].ref, d->attrs[k].name, d->attrs[k].type) != 0) {
            snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
            return -1;
        }
    /* the tables become the rank's */
    out->regions = d->regions;
    out->nregions = d->nregions;
    out->region_roles = d->region_roles;
    out->nregion_roles = d->nregion_roles;
    d->regions = NULL;
    d->nregions = 0;
    d->region_roles = NULL;
    d->nregion_roles = 0;
    return 0;
}

/* Communicator k of the definitions becomes the rank's: its name, members
 * and topology move (the definitions keep nothing of it to free). A
 * reference the definitions leave undefined (no name) stays empty, with
 * no parent. */
static int take_comm(struct reading *g, uint32_t k)
{
    struct rf_read_comm *dc = &g->d.comms[k];
    struct rt_comm *oc = &g->out->comms[k];
    oc->parent = UINT32_MAX;
    if (!dc->name)
        return 0;
    if (!dc->has_group) {
        snprintf(g->err, g->errlen, "%s: corrupt global definitions (communicator %u has no group)", g->anchor, k);
        return -1;
    }
    oc->name = dc->name;
    oc->key = dc->key;
    oc->has_key = dc->has_key;
    if (dc->inter) {
        /* group A is the local group (the writer's), B the remote one,
         * whose ranks point-to-point peers name */
        oc->inter = 1;
        oc->local = dc->members;
        oc->nlocal = dc->nmembers;
        oc->members = dc->remote;
        oc->nmembers = dc->nremote;
        dc->remote = NULL;
    } else if (dc->self) {
        /* OTF2's COMM_SELF group names no one: it is each rank's own */
        uint64_t *me = realloc(dc->members, sizeof *me);
        if (!me) {
            snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
            return -1;
        }
        me[0] = (uint64_t)g->out->rank;
        oc->self = 1;
        oc->members = me;
        oc->nmembers = 1;
    } else {
        oc->members = dc->members;
        oc->nmembers = dc->nmembers;
    }
    /* an intercommunicator's two sides have different local parents */
    oc->parent = dc->parent == OTF2_UNDEFINED_COMM || dc->inter ? UINT32_MAX : dc->parent;
    /* the tracer's record of a topology communicator's in-neighbours */
    oc->has_in = dc->has_in;
    oc->nin = dc->nin;
    oc->in = dc->in;
    dc->in = NULL;
    oc->events = dc->events;
    oc->cart_ndims = dc->cart_ndims;
    oc->cart_sizes = dc->cart_sizes;
    oc->cart_periodic = dc->cart_periodic;
    oc->has_cart_coords = dc->has_cart_coords;
    oc->cart_rank = dc->cart_rank;
    oc->cart_coords = dc->cart_coords;
    /* now the rank's */
    dc->name = NULL;
    dc->members = NULL;
    dc->cart_sizes = dc->cart_coords = NULL;
    dc->cart_periodic = NULL;
    return 0;
}

/* The communicators and RMA windows, by reference, become the rank's. */
static int take_comms_and_wins(struct reading *g)
{
    struct rf_read_defs *d = &g->d;
    struct rt_location *out = g->out;
    if (d->ncomms && !(out->comms = calloc(d->ncomms, sizeof *out->comms))) {
        snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
        return -1;
    }
    out->ncomms = d->ncomms;
    for (uint32_t k = 0; k < d->ncomms; k++)
        if (take_comm(g, k) != 0)
            return -1;
    if (d->nwins && !(out->wins = calloc(d->nwins, sizeof *out->wins))) {
        snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
        return -1;
    }
    out->nwins = d->nwins;
    for (uint32_t k = 0; k < d->nwins; k++) {
        out->wins[k].comm = d->wins[k].comm;
        if (!(out->wins[k].name = d->wins[k].name ? d->wins[k].name : strdup(""))) {
            snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
            return -1;
        }
        d->wins[k].name = NULL;
    }
    return 0;
}

/* The main location (the thread that called MPI_Init) has the rank as
 * its id; the others, the rank's other threads, follow in id order (in
 * d.locs, reordered so). All are selected for reading. */
static int order_locations(struct reading *g)
{
    struct rf_read_location *locs = g->d.locs;
    uint32_t nlocs = g->d.nlocs;
    struct rt_location *out = g->out;
    if (nlocs == 0) {
        snprintf(g->err, g->errlen, "%s: the archive defines no location", g->anchor);
        return -1;
    }
    for (uint32_t k = 0; k < nlocs; k++)
        if (locs[k].id == (uint64_t)out->rank) {
            struct rf_read_location t = locs[0];
            locs[0] = locs[k];
            locs[k] = t;
        }
    qsort(locs + 1, nlocs - 1, sizeof *locs, by_location);
    if (nlocs > 1 && !(out->threads = calloc(nlocs - 1, sizeof *out->threads))) {
        snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
        return -1;
    }
    for (uint32_t k = 0; k < nlocs; k++)
        OTF2_Reader_SelectLocation(g->rd, locs[k].id);
    out->location = locs[0].id;
    out->declared_events = locs[0].nevents;
    return 0;
}

/* The clock offsets: every location has the rank's, the main one's are
 * read; a rank without them would be merged unsynchronised. */
static int read_offsets(struct reading *g)
{
    OTF2_Reader *rd = g->rd;
    struct rt_location *out = g->out;
    if (OTF2_Reader_OpenDefFiles(rd) != OTF2_SUCCESS) {
        snprintf(g->err, g->errlen, "%s: cannot open the local definition files", g->anchor);
        return -1;
    }
    struct rf_read_offset *offsets;
    uint32_t noffsets;
    int offsets_read = rf_read_clock_offsets(rd, g->path, out->location, g->anchor, &offsets, &noffsets, g->err,
                                             g->errlen);
    for (uint32_t k = 1; k < g->d.nlocs; k++) {   /* the others' must be read (or closed) too */
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, g->d.locs[k].id);
        if (dr)
            OTF2_Reader_CloseDefReader(rd, dr);
    }
    OTF2_Reader_CloseDefFiles(rd);
    if (offsets_read != 0)
        return -1;
    if (noffsets && !(out->offsets = malloc(sizeof *out->offsets * noffsets))) {
        free(offsets);
        snprintf(g->err, g->errlen, "%s: out of memory", g->anchor);
        return -1;
    }
    for (uint32_t i = 0; i < noffsets; i++)
        out->offsets[i] = (struct rt_offset){ offsets[i].time, offsets[i].offset, offsets[i].stddev };
    out->noffsets = noffsets;
    free(offsets);
    return 0;
}

/* A callback for every kind of record the tracer writes. */
static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, ev_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, ev_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(ecb, ev_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(ecb, ev_request_test);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(ecb, ev_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(ecb, ev_nbc_complete);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(ecb, ev_flush);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(ecb, ev_rma_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(ecb, ev_rma_win_destroy);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(ecb, ev_rma_coll_begin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(ecb, ev_rma_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(ecb, ev_rma_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(ecb, ev_rma_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(ecb, ev_rma_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(ecb, ev_rma_complete_remote);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(ecb, ev_rma_complete_non_blocking);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(ecb, ev_rma_request_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(ecb, ev_rma_release_lock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(ecb, ev_rma_sync);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(ecb, ev_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(ecb, ev_comm_destroy);
    return ecb;
}

/* The events of location k (k > 0: a thread, numbered here), into the
 * rank or, with `into`, the reader's location of that thread: all at
 * once, or chunk by chunk, each handed to the sink. -1 (err says why)
 * when the location is not there to read; a read that fails sets *status,
 * c.failed or sink_failed instead. */
static int read_location(struct reading *g, OTF2_EvtReaderCallbacks *ecb, uint32_t k, OTF2_ErrorCode *status)
{
    const struct rf_read_location *loc = &g->d.locs[k];
    const struct into *into = g->into;
    struct rt_location *dst = k == 0 ? g->out : &g->out->threads[k - 1];
    if (k > 0)
        set_thread(g->out, k, loc);
    if (into && !(dst = into_target(into, k == 0 ? 0 : dst->thread))) {
        snprintf(g->err, g->errlen, "%s: location %llu changed while the trace was read", g->anchor,
                 (unsigned long long)loc->id);
        return -1;
    }
    g->c.r = dst;
    g->c.prev_set = 0;
    uint64_t chunk = into && into->sink->chunk ? into->sink->chunk(into->sink->ctx, dst) : 0;
    OTF2_EvtReader *er = NULL;
    if (!g->exact || loc->nevents > 0) {
        if (!(er = OTF2_Reader_GetEvtReader(g->rd, loc->id))) {
            snprintf(g->err, g->errlen, "%s: no event data for location %llu", g->anchor,
                     (unsigned long long)loc->id);
            return -1;
        }
        /* The raw times are what we want: the merge does the correcting. */
        OTF2_EvtReader_ApplyClockOffsets(er, false);
        OTF2_Reader_RegisterEvtCallbacks(g->rd, er, ecb, &g->c);
    }
    for (int last = 0; !last && *status == OTF2_SUCCESS && !g->c.failed && !g->sink_failed;) {
        uint64_t want = g->exact ? loc->nevents - dst->nevents : chunk ? chunk : UINT64_MAX, n = 0;
        if (chunk && want > chunk)
            want = chunk;
        if (er && want > 0)
            *status = OTF2_Reader_ReadLocalEvents(g->rd, er, want, &n);
        commit(&g->c);
        if (*status == OTF2_SUCCESS && g->exact && n != want)
            *status = OTF2_ERROR_INVALID_DATA;
        last = n < want || (g->exact && dst->nevents == loc->nevents);
        if (last)
            rt_store_shrink(dst);
        if (into && into->sink->done && *status == OTF2_SUCCESS && !g->c.failed
            && into->sink->done(into->sink->ctx, dst, last, g->err, g->errlen) != 0)
            g->sink_failed = 1;
    }
    if (er)
        OTF2_Reader_CloseEvtReader(g->rd, er);
    return 0;
}

/* Every location's events, the main one's first, until one fails. */
static int read_events(struct reading *g)
{
    if (OTF2_Reader_OpenEvtFiles(g->rd) != OTF2_SUCCESS) {
        snprintf(g->err, g->errlen, "%s: cannot open the event files", g->anchor);
        return -1;
    }
    OTF2_EvtReaderCallbacks *ecb = event_callbacks();
    OTF2_ErrorCode status = OTF2_SUCCESS;
    int missing = 0;   /* a location was not there: err says so */
    for (uint32_t k = 0; k < g->d.nlocs && status == OTF2_SUCCESS && !g->c.failed && !g->sink_failed; k++)
        if ((missing = read_location(g, ecb, k, &status)) != 0)
            break;
    uint64_t read_so_far = g->c.r ? g->c.r->nevents : 0;   /* of the location read last */
    g->c.r = g->out;
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseEvtFiles(g->rd);
    if (missing || g->sink_failed)
        return -1;
    if (status != OTF2_SUCCESS || g->c.failed) {
        snprintf(g->err, g->errlen, "%s: corrupt or truncated event data after %llu events", g->anchor,
                 (unsigned long long)read_so_far);
        return -1;
    }
    g->out->last_time = g->c.last_time;
    return 0;
}

/* The threads read the rank's clock and share its definitions. */
static void share_with_threads(struct rt_location *out)
{
    for (uint32_t k = 0; k < out->nthreads; k++) {
        struct rt_location *t = &out->threads[k];
        struct rt_location keep = *t;
        *t = *out;
        t->threads = NULL;
        t->nthreads = 0;
        t->borrowed = 1;
        rt_store_move(t, &keep);
        t->location = keep.location;
        t->declared_events = keep.declared_events;
        t->thread = keep.thread;
    }
}

/* Read the archive of anchor file `path`; messages name `anchor` (the
 * original one when `path` is a recovered copy). With `exact`, read of
 * each location exactly the number of events its definition declares, no
 * more (a recovered event file has no end-of-file record; a location
 * declaring none has no event file). With mode READ_DEFS, definitions and
 * locations only, no events. */
static int read_archive(const char *path, const char *anchor, int exact, int mode, const struct into *into,
                        struct rt_location *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!(out->path = strdup(anchor))) {
        snprintf(err, errlen, "%s: out of memory", anchor);
        return -1;
    }
    struct reading g = { .path = path, .anchor = anchor, .exact = exact, .into = into, .out = out,
                         .c = { .r = out }, .err = err, .errlen = errlen };
    rf_otf2_quiet();
    if (anchor_check(path, err, errlen) != 0)
        return -1;
    if (!(g.rd = OTF2_Reader_Open(path))) {
        snprintf(err, errlen, "%s: not a readable OTF2 archive", anchor);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(g.rd);
    int rc = -1;
    if (read_properties(&g) != 0 || rf_read_global_defs(g.rd, path, anchor, &g.d, err, errlen) != 0
        || take_attrs_and_regions(&g) != 0 || take_comms_and_wins(&g) != 0 || order_locations(&g) != 0
        || read_offsets(&g) != 0)
        goto done;
    if (mode == READ_DEFS) {   /* the locations, without their events */
        for (uint32_t k = 1; k < g.d.nlocs; k++)
            set_thread(out, k, &g.d.locs[k]);
    } else if (read_events(&g) != 0) {
        goto done;
    }
    share_with_threads(out);
    rc = 0;
done:
    if (rc && !g.sink_failed)
        rf_otf2_explain(err, errlen);
    rf_read_defs_free(&g.d);
    rt_source_attr_free(&g.c.src_attrs);
    free(g.c.src_buf);
    OTF2_Reader_Close(g.rd);
    return rc;
}

/* A rank killed before it closed its archive: rebuild the archive from the
 * journal, read it, and drop it. */
static int read_recovered(const char *anchor, int mode, const struct into *into, struct rt_location *out, char *err,
                          size_t errlen)
{
    struct rc_archive a;
    rf_otf2_quiet();
    if (rc_rebuild(anchor, &a, err, errlen) != 0) {
        rf_otf2_explain(err, errlen);
        memset(out, 0, sizeof *out);
        out->path = strdup(anchor);
        return -1;
    }
    int rc = read_archive(a.anchor, anchor, 1, mode, into, out, err, errlen);
    uint64_t from_records = a.from_records;
    int records_file = a.records_file;
    char *note = a.records_note[0] ? strdup(a.records_note) : NULL;
    rc_remove(&a);
    if (rc != 0) {
        free(note);
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " (archive rebuilt from the journal of a killed rank)");
        return -1;
    }
    out->recovered_from_records = from_records;
    out->recovered_records_file = records_file;
    out->recovered_note = note;
    /* The length is not journaled: the events of all locations tell it. */
    uint64_t last = out->last_time > out->global_offset ? out->last_time : out->global_offset;
    out->recovered = 1;
    out->trace_length = last - out->global_offset;
    for (uint32_t k = 0; k < out->nthreads; k++) {
        out->threads[k].recovered = 1;
        out->threads[k].trace_length = out->trace_length;
    }
    return 0;
}

static int read_rank(const char *anchor, int mode, const struct into *into, struct rt_location *out, char *err,
                     size_t errlen)
{
    /* A closed archive (it has its checksum file) is read only when every
     * byte of it verifies, and then as it is: no journal, no recovery. */
    int sealed = sum_verify_archive(anchor, err, errlen);
    if (sealed < 0) {
        memset(out, 0, sizeof *out);
        out->path = strdup(anchor);
        return -1;
    }
    /* Exactly the events its definitions declare: a file whose writing had
     * to stop (disk full) may lack its end-of-file chunk, and OTF2's reader
     * would read on past its last chunk without end. */
    if (sealed == 0) {
        int rc = read_archive(anchor, anchor, 1, mode, into, out, err, errlen);
        out->verified_seal = rc == 0;
        return rc;
    }
    int journal = rc_has_journal(anchor);
    if (rc_anchor_complete(anchor) || !journal) {
        struct stat st;
        if (!journal && stat(anchor, &st) != 0) {
            memset(out, 0, sizeof *out);
            out->path = strdup(anchor);
            snprintf(err, errlen, "%s: missing: this rank left neither an archive nor a recovery journal", anchor);
            return -1;
        }
        int rc = read_archive(anchor, anchor, 0, mode, into, out, err, errlen);
        if (rc == 0 || !journal)
            return rc;
        /* Killed while closing, with the anchor cut short: the journal is
         * still there (it is removed last), so rebuild. */
        rt_free_location(out);
    }
    /* No anchor, or an empty one (the rank died as OTF2 began writing it). */
    return read_recovered(anchor, mode, into, out, err, errlen);
}

int rt_read_rank(const char *anchor, struct rt_location *out, char *err, size_t errlen)
{
    return read_rank(anchor, READ_ALL, NULL, out, err, errlen);
}

int rt_read_rank_defs(const char *anchor, struct rt_location *out, char *err, size_t errlen)
{
    return read_rank(anchor, READ_DEFS, NULL, out, err, errlen);
}

int rt_read_rank_events(struct rt_location *const *locs, uint32_t nlocs, const struct rt_event_sink *sink, char *err,
                        size_t errlen)
{
    struct rt_location *main = locs[0];
    const char *anchor = main->path;
    for (uint32_t k = 0; k < nlocs; k++)
        if (locs[k]->nevents || locs[k]->events) {
            snprintf(err, errlen, "%s: location %llu was read before", anchor, (unsigned long long)locs[k]->location);
            return -1;
        }
    static const struct rt_event_sink none = { NULL, NULL, NULL };
    const struct into into = { locs, nlocs, sink ? sink : &none };
    struct rt_location full;
    int rc;
    /* the definitions again (cheap), the events into locs */
    if (main->verified_seal) {   /* its checksums held when its definitions were read */
        rc = read_archive(anchor, anchor, 1, READ_ALL, &into, &full, err, errlen);
    } else if (!rc_has_journal(anchor)) {
        rc = read_rank(anchor, READ_ALL, &into, &full, err, errlen);
    } else {
        /* A killed rank may be read twice (its archive, then rebuilt from
         * its journal when that fails): read whole, then handed over. */
        rc = read_rank(anchor, READ_ALL, NULL, &full, err, errlen);
        for (uint32_t k = 0; rc == 0 && k <= full.nthreads; k++) {
            struct rt_location *l = k == 0 ? &full : &full.threads[k - 1], *to = into_target(&into, l->thread);
            if (!to) {
                snprintf(err, errlen, "%s: location %llu changed while the trace was read", anchor,
                         (unsigned long long)l->location);
                rc = -1;
                break;
            }
            rt_store_move(to, l);
            if (sink && sink->done && sink->done(sink->ctx, to, 1, err, errlen) != 0)
                rc = -1;
        }
    }
    for (uint32_t k = 0; rc == 0 && k < nlocs; k++)
        locs[k]->trace_length = full.trace_length;   /* a recovered rank's: what its events tell */
    if (rc == 0 && full.recovered) {   /* what its events tell: its length, which they extend */
        main->recovered_from_records = full.recovered_from_records;
        main->recovered_records_file = full.recovered_records_file;
    }
    rt_free_location(&full);
    return rc;
}

void rt_free_location(struct rt_location *r)
{
    for (uint32_t k = 0; k < r->nthreads; k++)
        rt_free_location(&r->threads[k]);
    free(r->threads);
    rt_store_free(r);
    free(r->sources);
    free(r->source_words);
    if (!r->borrowed) {
        free(r->path);
        free(r->host);
        free(r->clock);
        free(r->run_id);
        free(r->version);
        for (uint32_t i = 0; i < r->nregions; i++)
            free(r->regions[i]);
        free(r->regions);
        free(r->region_roles);
        for (uint32_t i = 0; i < r->ncomms; i++) {
            free(r->comms[i].name);
            if (!r->comms[i].shared_members)
                free(r->comms[i].members);
            free(r->comms[i].local);
            free(r->comms[i].in);
            free(r->comms[i].cart_sizes);
            free(r->comms[i].cart_periodic);
            free(r->comms[i].cart_coords);
        }
        free(r->comms);
        for (uint32_t i = 0; i < r->noutside; i++)
            free(r->outside[i]);
        free(r->outside);
        for (uint32_t i = 0; i < r->nwins; i++)
            free(r->wins[i].name);
        free(r->wins);
        free(r->offsets);
        free(r->recovered_note);
    }
    memset(r, 0, sizeof *r);
}

uint32_t rt_take_threads(struct rt_location *r, struct rt_location **out)
{
    uint32_t n = r->nthreads;
    *out = r->threads;
    r->threads = NULL;
    r->nthreads = 0;
    return n;
}

const uint64_t *rt_peer_group(const struct rt_location *r, const struct rt_comm *c, uint32_t *n)
{
    const uint64_t *v = c->members;
    *n = c->nmembers;
    if (c->inter && c->both_groups) {
        int in_b = 0;
        for (uint32_t i = 0; i < c->nmembers && !in_b; i++)
            in_b = c->members[i] == (uint64_t)r->rank;
        if (in_b) {
            v = c->local;
            *n = c->nlocal;
        }
    }
    return v;
}

int rt_world_rank(const struct rt_location *r, uint32_t comm, uint32_t local)
{
    if (comm >= r->ncomms)
        return -1;
    const struct rt_comm *c = &r->comms[comm];
    if (c->self)   /* MPI_COMM_SELF: its one rank is this one */
        return local == 0 ? r->rank : -1;
    uint32_t n;
    const uint64_t *v = rt_peer_group(r, c, &n);
    if (local >= n)
        return -1;
    uint64_t w = v[local];
    return w == UINT64_MAX ? -1 : (int)w;
}

const char *rt_kind_name(enum rt_kind kind)
{
    static const char *names[RT_KIND_COUNT] = {
        "ENTER", "LEAVE", "SEND", "ISEND", "ISEND_COMPLETE", "IRECV_REQUEST", "RECV", "IRECV",
        "CANCELLED", "COLL_BEGIN", "COLL_END", "NBC_REQUEST", "NBC_COMPLETE", "FLUSH", "IRECV_FREED", "RMA",
        "COMM_CREATE", "COMM_DESTROY"
    };
    return kind < RT_KIND_COUNT ? names[kind] : "?";
}

const char *rt_collective_name(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return "barrier";
    case OTF2_COLLECTIVE_OP_BCAST: return "bcast";
    case OTF2_COLLECTIVE_OP_GATHER: return "gather";
    case OTF2_COLLECTIVE_OP_GATHERV: return "gatherv";
    case OTF2_COLLECTIVE_OP_SCATTER: return "scatter";
    case OTF2_COLLECTIVE_OP_SCATTERV: return "scatterv";
    case OTF2_COLLECTIVE_OP_ALLGATHER: return "allgather";
    case OTF2_COLLECTIVE_OP_ALLGATHERV: return "allgatherv";
    case OTF2_COLLECTIVE_OP_ALLTOALL: return "alltoall";
    case OTF2_COLLECTIVE_OP_ALLTOALLV: return "alltoallv";
    case OTF2_COLLECTIVE_OP_ALLTOALLW: return "alltoallw";
    case OTF2_COLLECTIVE_OP_ALLREDUCE: return "allreduce";
    case OTF2_COLLECTIVE_OP_REDUCE: return "reduce";
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: return "reduce_scatter";
    case OTF2_COLLECTIVE_OP_SCAN: return "scan";
    case OTF2_COLLECTIVE_OP_EXSCAN: return "exscan";
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return "reduce_scatter_block";
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE: return "create_handle";
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE: return "destroy_handle";
    default: return "other";
    }
}
