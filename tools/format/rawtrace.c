/* rawtrace.c — see rawtrace.h. Definitions and events are gathered through
 * OTF2's callback readers into plain arrays. */
#include "rawtrace.h"
#include "anchor_check.h"
#include "recover.h"
#include "sumfile.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct ctx {
    struct rt_rank *r;
    char **strings;
    uint32_t nstrings;
    struct group {
        uint64_t *members;
        uint32_t n;
        uint32_t in_of;
        uint64_t key;         /* from the name "synctrace key HEX" (has_key): the key of the
                               * communicators of this group (recovered archives), or, named
                               * "synctrace key of comm REF: HEX", of communicator key_of */
        int has_key, self;
        uint32_t key_of;
    } *groups;                /* by reference */
    uint32_t ngroups;
    size_t cap;
    int failed;
    uint32_t attr_true_time;
    int have_true_attr;
    uint32_t attr_freed[3];   /* freed_receive_comm, _source, _tag (have_freed_attrs) */
    int have_freed_attrs;
    struct rt_source_attrs src_attrs;   /* coll_sources_* (the tracer's src/writer.c) */
    uint64_t *src_buf;
    size_t csrc_buf;
    struct loc { uint64_t id, nevents; } *locs;   /* every location the archive defines */
    uint32_t nlocs;
    struct cart_dim { uint32_t size; uint8_t periodic; } *dims;   /* Cartesian dimensions by reference */
    uint32_t ndims;
    uint32_t *topo_comm;      /* Cartesian topology reference -> communicator reference */
    uint32_t ntopos;
};

/* Grow a by-reference table to hold `index`; *n is its length. Definitions
 * are few, so growing to exactly index + 1 keeps *n meaningful. A slot is
 * defined once: a second definition of a reference is corruption (and
 * would leak or replace the first). */
static int ensure(void **v, uint32_t *n, uint32_t index, size_t elem)
{
    if (index < *n)
        return 0;
    if (index >= (1u << 24))
        return -1;   /* no tracer defines that many (and index + 1 must not wrap): corrupt */
    uint32_t nn = index + 1;
    void *nv = realloc(*v, nn * elem);
    if (!nv)
        return -1;
    memset((char *)nv + (size_t)*n * elem, 0, (size_t)(nn - *n) * elem);
    *v = nv;
    *n = nn;
    return 0;
}

static const char *str(struct ctx *c, uint32_t ref)
{
    return ref < c->nstrings && c->strings[ref] ? c->strings[ref] : "";
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct ctx *c = ud;
    if (ensure((void **)&c->strings, &c->nstrings, self, sizeof *c->strings) != 0 || c->strings[self]
        || !(c->strings[self] = strdup(s))) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
    (void)realtime;
    struct ctx *c = ud;
    c->r->resolution = res;
    c->r->global_offset = offset;
    c->r->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    (void)canonical; (void)description; (void)paradigm; (void)flags; (void)file; (void)begin; (void)end;
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    if (ensure((void **)&r->regions, &r->nregions, self, sizeof *r->regions) != 0
        || ensure((void **)&r->region_roles, &r->nregion_roles, self, sizeof *r->region_roles) != 0 || r->regions[self]
        || !(r->regions[self] = strdup(str(c, name)))) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->region_roles[self] = (uint8_t)role;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)type; (void)paradigm; (void)flags;
    struct ctx *c = ud;
    if (ensure((void **)&c->groups, &c->ngroups, self, sizeof *c->groups) != 0 || c->groups[self].members
        || !(c->groups[self].members = malloc(sizeof *members * (n ? n : 1)))) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    memcpy(c->groups[self].members, members, sizeof *members * n);
    c->groups[self].n = n;
    /* the tracer's record of a topology communicator's in-neighbours */
    unsigned comm;
    char tail;
    c->groups[self].in_of = UINT32_MAX;
    if (sscanf(str(c, name), "synctrace in-neighbours of comm %u%c", &comm, &tail) == 1)
        c->groups[self].in_of = comm;
    /* a communicator's agreed key: the name of an empty group naming it, or
     * (recovered archives) of the communicator's own group */
    unsigned long long key;
    int used = 0;
    c->groups[self].key_of = UINT32_MAX;
    if (sscanf(str(c, name), "synctrace key of comm %u: %16llx%n", &comm, &key, &used) == 2
        && str(c, name)[used] == '\0' && used >= 16 && strspn(str(c, name) + used - 16, "0123456789abcdef") == 16) {
        c->groups[self].key_of = comm;
        c->groups[self].key = key;
    } else if (sscanf(str(c, name), "synctrace key %16llx%n", &key, &used) == 1 && used == 30
               && str(c, name)[used] == '\0') {
        c->groups[self].key = key;
        c->groups[self].has_key = 1;
    }
    c->groups[self].self = type == OTF2_GROUP_TYPE_COMM_SELF;
    return OTF2_CALLBACK_SUCCESS;
}

/* A copy of a group's members; NULL (and *n = 0) when it is not defined. */
static uint64_t *group_copy(struct ctx *c, OTF2_GroupRef group, uint32_t *n)
{
    *n = 0;
    if (group >= c->ngroups || !c->groups[group].members)
        return NULL;
    *n = c->groups[group].n;
    uint64_t *v = malloc(sizeof *v * (*n ? *n : 1));
    if (v && *n)
        memcpy(v, c->groups[group].members, sizeof *v * *n);
    return v;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)flags;
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    if (ensure((void **)&r->comms, &r->ncomms, self, sizeof *r->comms) != 0 || r->comms[self].name) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    struct rt_comm *d = &r->comms[self];
    free(d->name);
    free(d->members);
    d->parent = parent == OTF2_UNDEFINED_COMM ? UINT32_MAX : parent;
    d->name = strdup(str(c, name));
    d->members = group_copy(c, group, &d->nmembers);
    if (d->members && c->groups[group].has_key) {
        d->key = c->groups[group].key;
        d->has_key = 1;
    }
    if (d->members && c->groups[group].self) {
        /* OTF2's COMM_SELF group names no one: it is each rank's own */
        d->self = 1;
        d->nmembers = 1;
        d->members[0] = (uint64_t)r->rank;
    }
    if (!d->name || !d->members) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The tracer writes group A as the local group (it carries the key) and B
 * as the remote one, whose ranks point-to-point peers name. */
static OTF2_CallbackCode def_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group_a,
                                       OTF2_GroupRef group_b, OTF2_CommRef common, OTF2_CommFlag flags)
{
    (void)common; (void)flags;
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    if (ensure((void **)&r->comms, &r->ncomms, self, sizeof *r->comms) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    struct rt_comm *d = &r->comms[self];
    free(d->name);
    free(d->members);
    free(d->local);
    d->name = strdup(str(c, name));
    d->inter = 1;
    d->parent = UINT32_MAX;   /* its two sides have different local parents */
    d->local = group_copy(c, group_a, &d->nlocal);
    d->members = group_copy(c, group_b, &d->nmembers);
    if (d->local && c->groups[group_a].has_key) {
        d->key = c->groups[group_a].key;
        d->has_key = 1;
    }
    if (!d->name || !d->members || !d->local) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cart_dimension(void *ud, OTF2_CartDimensionRef self, OTF2_StringRef name, uint32_t size,
                                            OTF2_CartPeriodicity periodicity)
{
    (void)name;
    struct ctx *c = ud;
    if (ensure((void **)&c->dims, &c->ndims, self, sizeof *c->dims) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->dims[self] = (struct cart_dim){ size, periodicity == OTF2_CART_PERIODIC_TRUE };
    return OTF2_CALLBACK_SUCCESS;
}

/* A topology's dimensions are defined before it (the writer's order). */
static OTF2_CallbackCode def_cart_topology(void *ud, OTF2_CartTopologyRef self, OTF2_StringRef name,
                                           OTF2_CommRef comm, uint8_t ndims, const OTF2_CartDimensionRef *dims)
{
    (void)name;
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    if (comm >= r->ncomms || ndims == 0 || r->comms[comm].cart_ndims
        || ensure((void **)&c->topo_comm, &c->ntopos, self, sizeof *c->topo_comm) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    struct rt_comm *d = &r->comms[comm];
    d->cart_sizes = malloc(sizeof *d->cart_sizes * ndims);
    d->cart_periodic = malloc(ndims);
    if (!d->cart_sizes || !d->cart_periodic) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    for (uint8_t k = 0; k < ndims; k++) {
        if (dims[k] >= c->ndims) {
            c->failed = 1;
            return OTF2_CALLBACK_INTERRUPT;
        }
        d->cart_sizes[k] = c->dims[dims[k]].size;
        d->cart_periodic[k] = c->dims[dims[k]].periodic;
    }
    d->cart_ndims = ndims;
    c->topo_comm[self] = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cart_coordinate(void *ud, OTF2_CartTopologyRef topo, uint32_t rank, uint8_t ndims,
                                             const uint32_t *coords)
{
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    if (topo >= c->ntopos || c->topo_comm[topo] >= r->ncomms) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    struct rt_comm *d = &r->comms[c->topo_comm[topo]];
    if (ndims != d->cart_ndims || d->has_cart_coords || !(d->cart_coords = malloc(sizeof *d->cart_coords * ndims))) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    memcpy(d->cart_coords, coords, sizeof *coords * ndims);
    d->cart_rank = rank;
    d->has_cart_coords = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_rma_win(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                     OTF2_RmaWinFlag flags)
{
    (void)flags;
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    if (ensure((void **)&r->wins, &r->nwins, self, sizeof *r->wins) != 0 || r->wins[self].name
        || !(r->wins[self].name = strdup(str(c, name)))) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    r->wins[self].comm = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    (void)name; (void)type; (void)group;
    struct ctx *c = ud;
    struct loc *nv = realloc(c->locs, sizeof *nv * (c->nlocs + 1));
    if (!nv) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->locs = nv;
    c->locs[c->nlocs++] = (struct loc){ self, nevents };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    (void)description;
    struct ctx *c = ud;
    if (strcmp(str(c, name), "true_time") == 0 && type == OTF2_TYPE_UINT64) {
        c->attr_true_time = self;
        c->have_true_attr = 1;
    }
    static const char *const freed[3] = { "freed_receive_comm", "freed_receive_source", "freed_receive_tag" };
    static const OTF2_Type freed_type[3] = { OTF2_TYPE_COMM, OTF2_TYPE_INT32, OTF2_TYPE_INT32 };
    for (int k = 0; k < 3; k++)
        if (strcmp(str(c, name), freed[k]) == 0 && type == freed_type[k]) {
            c->attr_freed[k] = self;
            c->have_freed_attrs |= 1 << k;
        }
    if (rt_source_attr_def(&c->src_attrs, self, str(c, name), type) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double stddev)
{
    struct ctx *c = ud;
    struct rt_rank *r = c->r;
    uint32_t n = r->noffsets;
    struct rt_offset *nv = realloc(r->offsets, sizeof *nv * (n + 1));
    if (!nv) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    nv[n] = (struct rt_offset){ time, offset, stddev };
    r->offsets = nv;
    r->noffsets = n + 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------- events ---------- */

static struct rt_event *push(struct ctx *c, enum rt_kind kind, uint64_t time, OTF2_AttributeList *attrs)
{
    struct rt_rank *r = c->r;
    if (r->nevents == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 4096;
        struct rt_event *nv = realloc(r->events, sizeof *nv * cap);
        if (!nv) {
            c->failed = 1;
            return NULL;
        }
        r->events = nv;
        c->cap = cap;
    }
    struct rt_event *e = &r->events[r->nevents++];
    memset(e, 0, sizeof *e);
    e->kind = (uint8_t)kind;
    e->time = time;
    if (c->have_true_attr && attrs
        && OTF2_AttributeList_GetUint64(attrs, c->attr_true_time, &e->truth) == OTF2_SUCCESS)
        e->has_truth = 1;
    return e;
}

/* OTF2 writes a BufferFlush record by itself, while writing the event that
 * filled the buffer, stamped with that event's time; it cannot carry an
 * attribute. Its start then has that event's true time: the next event, at
 * the same timestamp. (Its stop has none: only the start is a measurement.) */
static void flush_truth(struct rt_rank *r)
{
    for (uint64_t i = 0; i + 1 < r->nevents; i++) {
        struct rt_event *e = &r->events[i], *next = &r->events[i + 1];
        if (e->kind == RT_FLUSH && !e->has_truth && next->has_truth && next->time == e->time) {
            e->truth = next->truth;
            e->has_truth = 1;
        }
    }
}

#define EV_HEAD OTF2_LocationRef loc, OTF2_TimeStamp time, uint64_t pos, void *ud, OTF2_AttributeList *attrs
#define EV_UNUSED (void)loc; (void)pos
#define PUSH(kind) struct rt_event *e = push(ud, kind, time, attrs); if (!e) return OTF2_CALLBACK_INTERRUPT

static OTF2_CallbackCode ev_enter(EV_HEAD, OTF2_RegionRef region) { EV_UNUSED; PUSH(RT_ENTER); e->ref = region; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode ev_leave(EV_HEAD, OTF2_RegionRef region) { EV_UNUSED; PUSH(RT_LEAVE); e->ref = region; return OTF2_CALLBACK_SUCCESS; }

#define RMA(which) PUSH(RT_RMA); e->tag = (which); e->ref = win
static OTF2_CallbackCode ev_rma_win_create(EV_HEAD, OTF2_RmaWinRef win)
{
    EV_UNUSED; RMA(RT_RMA_WIN_CREATE);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_win_destroy(EV_HEAD, OTF2_RmaWinRef win)
{
    EV_UNUSED; RMA(RT_RMA_WIN_DESTROY);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_coll_begin(EV_HEAD)
{
    EV_UNUSED; PUSH(RT_RMA); e->tag = RT_RMA_COLL_BEGIN; e->ref = OTF2_UNDEFINED_RMA_WIN;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                         uint32_t root, uint64_t sent, uint64_t received)
{
    EV_UNUSED; RMA(RT_RMA_COLL_END);
    e->req = (uint64_t)op << 32 | level; e->peer = root; e->bytes = sent; e->received = received;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_put(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    EV_UNUSED; RMA(RT_RMA_PUT);
    e->peer = remote; e->bytes = bytes; e->req = id;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_get(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    EV_UNUSED; RMA(RT_RMA_GET);
    e->peer = remote; e->bytes = bytes; e->req = id;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_atomic(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type,
                                       uint64_t sent, uint64_t received, uint64_t id)
{
    EV_UNUSED; RMA(RT_RMA_ATOMIC);
    e->tag |= (uint32_t)type << 8; e->peer = remote; e->bytes = sent; e->received = received; e->req = id;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_complete_remote(EV_HEAD, OTF2_RmaWinRef win, uint64_t id)
{
    EV_UNUSED; RMA(RT_RMA_OP_COMPLETE_REMOTE);
    e->req = id;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_request_lock(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock,
                                             OTF2_LockType type)
{
    EV_UNUSED; RMA(RT_RMA_REQUEST_LOCK);
    e->peer = remote; e->req = lock; e->bytes = type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_release_lock(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock)
{
    EV_UNUSED; RMA(RT_RMA_RELEASE_LOCK);
    e->peer = remote; e->req = lock;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_rma_sync(EV_HEAD, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaSyncType type)
{
    EV_UNUSED; RMA(RT_RMA_SYNC);
    e->peer = remote; e->bytes = type;
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
    if (strcmp(name, "coll_sources_slots") == 0 && type == OTF2_TYPE_UINT32) {
        a->slots_ref = self;
        a->have_slots = 1;
    } else if (sscanf(name, "coll_sources_%u%n", &k, &used) == 1 && name[used] == 0 && type == OTF2_TYPE_UINT64
               && k < (1u << 20) && self < (1u << 20)) {
        if (ensure((void **)&a->word_of, &a->nword_of, self, sizeof *a->word_of) != 0)
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

int rt_add_sources(struct rt_rank *r, uint64_t index, uint32_t nslots, const uint64_t *bits)
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
    return nslots ? rt_add_sources(c->r, c->r->nevents - 1, nslots, c->src_buf) : 0;
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

/* ---------- OTF2's own error reports ---------- */

/* OTF2 prints every error on stderr, several lines deep; keep the first
 * reason instead, for our one-line message. */
static _Thread_local char otf2_reason[256];   /* per reading thread (merge --jobs) */

static OTF2_ErrorCode quiet_error(void *ud, const char *file, uint64_t line, const char *function,
                                  OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud; (void)file; (void)line; (void)function;
    if (!otf2_reason[0] && fmt)
        vsnprintf(otf2_reason, sizeof otf2_reason, fmt, va);
    return code;
}

static void explain(char *err, size_t errlen)
{
    size_t used = strlen(err);
    if (otf2_reason[0] && used < errlen)
        snprintf(err + used, errlen - used, " (%s)", otf2_reason);
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
    uint64_t x = ((const struct loc *)a)->id, y = ((const struct loc *)b)->id;
    return (x > y) - (x < y);
}

/* Read the archive of anchor file `path`; messages name `anchor` (the
 * original one when `path` is a recovered copy). With `exact`, read of
 * each location exactly the number of events its definition declares, no
 * more (a recovered event file has no end-of-file record; a location
 * declaring none has no event file). */
static int read_archive(const char *path, const char *anchor, int exact, struct rt_rank *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->path = strdup(anchor);
    struct ctx c = { .r = out };
    OTF2_Error_RegisterCallback(quiet_error, NULL);
    otf2_reason[0] = '\0';
    if (anchor_check(path, err, errlen) != 0)
        return -1;
    OTF2_Reader *rd = OTF2_Reader_Open(path);
    if (!rd) {
        snprintf(err, errlen, "%s: not a readable OTF2 archive", anchor);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    int rc = -1;
    if (int_property(rd, "SYNCTRACE::RANK", &out->rank) != 0
        || int_property(rd, "SYNCTRACE::WORLD_SIZE", &out->world_size) != 0) {
        snprintf(err, errlen, "%s: not a synctrace raw archive (no SYNCTRACE::RANK property)", anchor);
        goto done;
    }
    if (int_property(rd, "SYNCTRACE::CLOCK_DOMAIN", &out->domain) != 0)
        out->domain = out->rank;
    out->host = property(rd, "SYNCTRACE::HOST");
    out->clock = property(rd, "SYNCTRACE::CLOCK");
    out->run_id = property(rd, "SYNCTRACE::RUN_ID");
    out->version = property(rd, "SYNCTRACE::VERSION");
    out->skew_offset_us = double_property(rd, "SYNCTRACE::SKEW_OFFSET_US");
    out->skew_drift_ppm = double_property(rd, "SYNCTRACE::SKEW_DRIFT_PPM");

    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !gcb) {
        snprintf(err, errlen, "%s: cannot read the global definitions", anchor);
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
        goto done;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(gcb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(gcb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(gcb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(gcb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(gcb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(gcb, def_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(gcb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(gcb, def_rma_win);
    OTF2_GlobalDefReaderCallbacks_SetCartDimensionCallback(gcb, def_cart_dimension);
    OTF2_GlobalDefReaderCallbacks_SetCartTopologyCallback(gcb, def_cart_topology);
    OTF2_GlobalDefReaderCallbacks_SetCartCoordinateCallback(gcb, def_cart_coordinate);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &c);
    uint64_t n = 0;
    OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (status != OTF2_SUCCESS || c.failed) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions", anchor);
        goto done;
    }
    for (uint32_t g = 0; g < c.ngroups; g++) {
        uint32_t k = c.groups[g].in_of;
        if (!c.groups[g].members || k == UINT32_MAX)
            continue;
        if (k >= out->ncomms || out->comms[k].has_in) {
            snprintf(err, errlen, "%s: in-neighbours of communicator %u, which is not defined", anchor, k);
            goto done;
        }
        out->comms[k].has_in = 1;
        out->comms[k].nin = c.groups[g].n;
        out->comms[k].in = c.groups[g].members;
        c.groups[g].members = NULL;   /* now the communicator's */
    }
    for (uint32_t g = 0; g < c.ngroups; g++) {
        uint32_t k = c.groups[g].key_of;
        if (k == UINT32_MAX)
            continue;
        if (k >= out->ncomms || !out->comms[k].members || out->comms[k].has_key) {
            snprintf(err, errlen, "%s: a key for communicator %u, which is not defined or has one", anchor, k);
            goto done;
        }
        out->comms[k].key = c.groups[g].key;
        out->comms[k].has_key = 1;
    }

    /* The main location (the thread that called MPI_Init) has the rank as
     * its id; the others, the rank's other threads, follow in id order. */
    if (c.nlocs == 0) {
        snprintf(err, errlen, "%s: the archive defines no location", anchor);
        goto done;
    }
    for (uint32_t k = 0; k < c.nlocs; k++)
        if (c.locs[k].id == (uint64_t)out->rank) {
            struct loc t = c.locs[0];
            c.locs[0] = c.locs[k];
            c.locs[k] = t;
        }
    qsort(c.locs + 1, c.nlocs - 1, sizeof *c.locs, by_location);
    if (c.nlocs > 1 && !(out->threads = calloc(c.nlocs - 1, sizeof *out->threads))) {
        snprintf(err, errlen, "%s: out of memory", anchor);
        goto done;
    }
    for (uint32_t k = 0; k < c.nlocs; k++)
        OTF2_Reader_SelectLocation(rd, c.locs[k].id);
    out->location = c.locs[0].id;
    out->declared_events = c.locs[0].nevents;
    if (OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS) {
        /* the clock offsets: every location has the rank's, the main one's are read */
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, out->location);
        if (dr) {
            OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
            OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, def_clock_offset);
            OTF2_Reader_RegisterDefCallbacks(rd, dr, dcb, &c);
            OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
            OTF2_DefReaderCallbacks_Delete(dcb);
            OTF2_Reader_CloseDefReader(rd, dr);
        }
        for (uint32_t k = 1; k < c.nlocs; k++)   /* the others' must be read (or closed) too */
            if ((dr = OTF2_Reader_GetDefReader(rd, c.locs[k].id)) != NULL)
                OTF2_Reader_CloseDefReader(rd, dr);
        OTF2_Reader_CloseDefFiles(rd);
    }

    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: cannot open the event files", anchor);
        goto done;
    }
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
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(ecb, ev_rma_request_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(ecb, ev_rma_release_lock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(ecb, ev_rma_sync);
    status = OTF2_SUCCESS;
    for (uint32_t k = 0; k < c.nlocs && status == OTF2_SUCCESS && !c.failed; k++) {
        struct rt_rank *dst = k == 0 ? out : &out->threads[k - 1];
        if (k > 0) {
            dst->location = c.locs[k].id;
            dst->declared_events = c.locs[k].nevents;
            /* the tracer's N-th thread has id N << 32 | rank: keep N (a
             * recovered archive lacks the threads that never flushed) */
            uint64_t id = c.locs[k].id;
            dst->thread = (id & 0xffffffffu) == (uint32_t)out->rank && (id >> 32) > 0 && (id >> 32) < UINT32_MAX
                          ? (uint32_t)(id >> 32) : k;
            out->nthreads = k;
        }
        c.r = dst;
        c.cap = 0;
        if (exact && c.locs[k].nevents == 0)
            continue;
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, dst->location);
        if (!er) {
            snprintf(err, errlen, "%s: no event data for location %llu", anchor, (unsigned long long)dst->location);
            OTF2_EvtReaderCallbacks_Delete(ecb);
            OTF2_Reader_CloseEvtFiles(rd);
            goto done;
        }
        /* The raw times are what we want: the merge does the correcting. */
        OTF2_EvtReader_ApplyClockOffsets(er, false);
        OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, &c);
        if (exact) {
            status = OTF2_Reader_ReadLocalEvents(rd, er, c.locs[k].nevents, &n);
            if (status == OTF2_SUCCESS && n != c.locs[k].nevents)
                status = OTF2_ERROR_INVALID_DATA;
        } else {
            status = OTF2_Reader_ReadAllLocalEvents(rd, er, &n);
        }
        OTF2_Reader_CloseEvtReader(rd, er);
    }
    c.r = out;
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseEvtFiles(rd);
    if (status != OTF2_SUCCESS || c.failed) {
        snprintf(err, errlen, "%s: corrupt or truncated event data after %llu events", anchor,
                 (unsigned long long)out->nevents);
        goto done;
    }
    flush_truth(out);
    for (uint32_t k = 0; k < out->nthreads; k++)
        flush_truth(&out->threads[k]);
    /* The threads read the rank's clock and share its definitions. */
    for (uint32_t k = 0; k < out->nthreads; k++) {
        struct rt_rank *t = &out->threads[k];
        struct rt_rank keep = *t;
        *t = *out;
        t->threads = NULL;
        t->nthreads = 0;
        t->borrowed = 1;
        t->events = keep.events;
        t->nevents = keep.nevents;
        t->sources = keep.sources;
        t->nsources = keep.nsources;
        t->source_words = keep.source_words;
        t->nsource_words = keep.nsource_words;
        t->location = keep.location;
        t->declared_events = keep.declared_events;
        t->thread = keep.thread;
    }
    rc = 0;
done:
    if (rc)
        explain(err, errlen);
    for (uint32_t i = 0; i < c.nstrings; i++)
        free(c.strings[i]);
    free(c.strings);
    for (uint32_t i = 0; i < c.ngroups; i++)
        free(c.groups[i].members);
    free(c.groups);
    free(c.locs);
    rt_source_attr_free(&c.src_attrs);
    free(c.src_buf);
    free(c.dims);
    free(c.topo_comm);
    OTF2_Reader_Close(rd);
    return rc;
}

/* A rank killed before it closed its archive: rebuild the archive from the
 * journal, read it, and drop it. */
static int read_recovered(const char *anchor, struct rt_rank *out, char *err, size_t errlen)
{
    struct rc_archive a;
    OTF2_Error_RegisterCallback(quiet_error, NULL);
    otf2_reason[0] = '\0';
    if (rc_rebuild(anchor, &a, err, errlen) != 0) {
        explain(err, errlen);
        memset(out, 0, sizeof *out);
        out->path = strdup(anchor);
        return -1;
    }
    int rc = read_archive(a.anchor, anchor, 1, out, err, errlen);
    rc_remove(&a);
    if (rc != 0) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " (archive rebuilt from the journal of a killed rank)");
        return -1;
    }
    /* The length is not journaled: the events of all locations tell it. */
    uint64_t last = out->global_offset;
    for (uint32_t k = 0; k <= out->nthreads; k++) {
        const struct rt_rank *l = k == 0 ? out : &out->threads[k - 1];
        for (uint64_t i = 0; i < l->nevents; i++) {
            const struct rt_event *e = &l->events[i];
            uint64_t t = e->kind == RT_FLUSH && e->req > e->time ? e->req : e->time;
            if (t > last)
                last = t;
        }
    }
    out->recovered = 1;
    out->trace_length = last - out->global_offset;
    for (uint32_t k = 0; k < out->nthreads; k++) {
        out->threads[k].recovered = 1;
        out->threads[k].trace_length = out->trace_length;
    }
    return 0;
}

int rt_read_rank(const char *anchor, struct rt_rank *out, char *err, size_t errlen)
{
    /* A closed archive (it has its checksum file) is read only when every
     * byte of it verifies, and then as it is: no journal, no recovery. */
    int sealed = sum_verify_archive(anchor, err, errlen);
    if (sealed < 0) {
        memset(out, 0, sizeof *out);
        out->path = strdup(anchor);
        return -1;
    }
    if (sealed == 0)
        return read_archive(anchor, anchor, 0, out, err, errlen);
    int journal = rc_has_journal(anchor);
    if (rc_anchor_complete(anchor) || !journal) {
        struct stat st;
        if (!journal && stat(anchor, &st) != 0) {
            memset(out, 0, sizeof *out);
            out->path = strdup(anchor);
            snprintf(err, errlen, "%s: missing: this rank left neither an archive nor a recovery journal", anchor);
            return -1;
        }
        int rc = read_archive(anchor, anchor, 0, out, err, errlen);
        if (rc == 0 || !journal)
            return rc;
        /* Killed while closing, with the anchor cut short: the journal is
         * still there (it is removed last), so rebuild. */
        rt_free_rank(out);
    }
    /* No anchor, or an empty one (the rank died as OTF2 began writing it). */
    return read_recovered(anchor, out, err, errlen);
}

void rt_free_rank(struct rt_rank *r)
{
    for (uint32_t k = 0; k < r->nthreads; k++)
        rt_free_rank(&r->threads[k]);
    free(r->threads);
    free(r->events);
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
            free(r->comms[i].members);
            free(r->comms[i].local);
            free(r->comms[i].in);
            free(r->comms[i].cart_sizes);
            free(r->comms[i].cart_periodic);
            free(r->comms[i].cart_coords);
        }
        free(r->comms);
        for (uint32_t i = 0; i < r->nwins; i++)
            free(r->wins[i].name);
        free(r->wins);
        free(r->offsets);
    }
    memset(r, 0, sizeof *r);
}

uint32_t rt_take_threads(struct rt_rank *r, struct rt_rank **out)
{
    uint32_t n = r->nthreads;
    *out = r->threads;
    r->threads = NULL;
    r->nthreads = 0;
    return n;
}

int rt_world_rank(const struct rt_rank *r, uint32_t comm, uint32_t local)
{
    if (comm >= r->ncomms)
        return -1;
    const struct rt_comm *c = &r->comms[comm];
    if (c->self)   /* MPI_COMM_SELF: its one rank is this one */
        return local == 0 ? r->rank : -1;
    const uint64_t *v = c->members;
    uint32_t n = c->nmembers;
    if (c->inter && c->both_groups) {
        int in_b = 0;
        for (uint32_t i = 0; i < c->nmembers && !in_b; i++)
            in_b = c->members[i] == (uint64_t)r->rank;
        if (in_b) {
            v = c->local;
            n = c->nlocal;
        }
    }
    if (local >= n)
        return -1;
    uint64_t w = v[local];
    return w == UINT64_MAX ? -1 : (int)w;
}

const uint64_t *rt_sources_of(const struct rt_rank *r, uint64_t index, uint32_t *nslots)
{
    size_t lo = 0, hi = r->nsources;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->sources[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->nsources || r->sources[lo].index != index) {
        *nslots = 0;
        return NULL;
    }
    *nslots = r->sources[lo].nslots;
    return *nslots == RT_SOURCES_UNKNOWN ? NULL : r->source_words + r->sources[lo].first;
}

const char *rt_kind_name(enum rt_kind kind)
{
    static const char *names[RT_KIND_COUNT] = {
        "ENTER", "LEAVE", "SEND", "ISEND", "ISEND_COMPLETE", "IRECV_REQUEST", "RECV", "IRECV",
        "CANCELLED", "COLL_BEGIN", "COLL_END", "NBC_REQUEST", "NBC_COMPLETE", "FLUSH", "IRECV_FREED", "RMA"
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
    default: return "other";
    }
}
