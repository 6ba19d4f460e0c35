/* mtread.c — see mtread.h. */
#include "mtread.h"
#include "anchor_check.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct defs_ctx {
    struct mt_trace *t;
    char **strings;
    uint32_t nstrings;
    struct group { uint64_t *members; uint32_t n; int self; } *groups;
    uint32_t ngroups;
    struct loc { uint64_t id, events; uint32_t name; } *locs;
    uint32_t nlocs, caplocs;
    int failed;
};

/* Grow a by-reference table to hold `index` (definitions are few). */
static int ensure(void **v, uint32_t *n, uint32_t index, size_t elem)
{
    if (index < *n)
        return 0;
    if (index >= (1u << 24))
        return -1;   /* not a definition table we could have written */
    uint32_t nn = index + 1;
    void *nv = realloc(*v, nn * elem);
    if (!nv)
        return -1;
    memset((char *)nv + (size_t)*n * elem, 0, (size_t)(nn - *n) * elem);
    *v = nv;
    *n = nn;
    return 0;
}

static const char *str(const struct defs_ctx *c, uint32_t ref)
{
    return ref < c->nstrings && c->strings[ref] ? c->strings[ref] : "";
}

#define FAIL_IF(cond) do { if (cond) { c->failed = 1; return OTF2_CALLBACK_INTERRUPT; } } while (0)

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct defs_ctx *c = ud;
    FAIL_IF(ensure((void **)&c->strings, &c->nstrings, self, sizeof *c->strings) != 0);
    free(c->strings[self]);
    FAIL_IF(!(c->strings[self] = strdup(s)));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
    (void)offset; (void)realtime;
    struct defs_ctx *c = ud;
    c->t->resolution = res;
    c->t->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    (void)canonical; (void)description; (void)role; (void)paradigm; (void)flags; (void)file; (void)begin; (void)end;
    struct defs_ctx *c = ud;
    struct mt_trace *t = c->t;
    FAIL_IF(ensure((void **)&t->regions, &t->nregions, self, sizeof *t->regions) != 0);
    free(t->regions[self]);
    FAIL_IF(!(t->regions[self] = strdup(str(c, name))));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name; (void)paradigm; (void)flags;
    struct defs_ctx *c = ud;
    FAIL_IF(ensure((void **)&c->groups, &c->ngroups, self, sizeof *c->groups) != 0);
    free(c->groups[self].members);
    FAIL_IF(!(c->groups[self].members = malloc(sizeof *members * (n ? n : 1))));
    memcpy(c->groups[self].members, members, sizeof *members * n);
    c->groups[self].n = n;
    c->groups[self].self = type == OTF2_GROUP_TYPE_COMM_SELF;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent; (void)flags;
    struct defs_ctx *c = ud;
    struct mt_trace *t = c->t;
    FAIL_IF(ensure((void **)&t->comms, &t->ncomms, self, sizeof *t->comms) != 0);
    struct mt_comm *d = &t->comms[self];
    free(d->name);
    free(d->members);
    d->name = strdup(str(c, name));
    d->nmembers = group < c->ngroups ? c->groups[group].n : 0;
    d->members = malloc(sizeof *d->members * (d->nmembers ? d->nmembers : 1));
    FAIL_IF(!d->name || !d->members);
    if (d->nmembers)
        memcpy(d->members, c->groups[group].members, sizeof *d->members * d->nmembers);
    d->self = group < c->ngroups && c->groups[group].self;
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t *group_copy(struct defs_ctx *c, OTF2_GroupRef group, uint32_t *n)
{
    *n = group < c->ngroups ? c->groups[group].n : 0;
    uint64_t *v = malloc(sizeof *v * (*n ? *n : 1));
    if (v && *n)
        memcpy(v, c->groups[group].members, sizeof *v * *n);
    return v;
}

static OTF2_CallbackCode def_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group_a,
                                       OTF2_GroupRef group_b, OTF2_CommRef common, OTF2_CommFlag flags)
{
    (void)common; (void)flags;
    struct defs_ctx *c = ud;
    struct mt_trace *t = c->t;
    FAIL_IF(ensure((void **)&t->comms, &t->ncomms, self, sizeof *t->comms) != 0);
    struct mt_comm *d = &t->comms[self];
    free(d->name);
    free(d->members);
    free(d->members_b);
    d->name = strdup(str(c, name));
    d->inter = 1;
    d->members = group_copy(c, group_a, &d->nmembers);
    d->members_b = group_copy(c, group_b, &d->nmembers_b);
    FAIL_IF(!d->name || !d->members || !d->members_b);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    (void)type; (void)group;
    struct defs_ctx *c = ud;
    if (c->nlocs == c->caplocs) {
        uint32_t cap = c->caplocs ? c->caplocs * 2 : 64;
        struct loc *nv = realloc(c->locs, sizeof *nv * cap);
        FAIL_IF(!nv);
        c->locs = nv;
        c->caplocs = cap;
    }
    c->locs[c->nlocs++] = (struct loc){ self, nevents, name };
    return OTF2_CALLBACK_SUCCESS;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const struct loc *)a)->id, y = ((const struct loc *)b)->id;
    return (x > y) - (x < y);
}

/* OTF2 prints its errors on stderr, several lines deep: keep the first
 * reason for our one-line message instead. */
static char otf2_reason[256];

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
    if (otf2_reason[0] && used + 4 < errlen)
        snprintf(err + used, errlen - used, " (%s)", otf2_reason);
}

static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    (void)description;
    struct defs_ctx *c = ud;
    if (rt_source_attr_def(&c->t->source_attrs, self, str(c, name), type) != 0) {
        c->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    /* the attributes of a receive released by MPI_Request_free (src/writer.c) */
    static const char *const freed[3] = { "freed_receive_comm", "freed_receive_source", "freed_receive_tag" };
    static const OTF2_Type freed_type[3] = { OTF2_TYPE_COMM, OTF2_TYPE_INT32, OTF2_TYPE_INT32 };
    for (int k = 0; k < 3; k++)
        if (strcmp(str(c, name), freed[k]) == 0 && type == freed_type[k]) {
            c->t->freed_attr[k] = self;
            c->t->freed_attrs |= 1 << k;
        }
    return OTF2_CALLBACK_SUCCESS;
}

void mt_close(struct mt_trace *t)
{
    rt_source_attr_free(&t->source_attrs);
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
    }
    free(t->location_names);
    free(t->location_events);
    free(t->locations);
    free(t->regions);
    free(t->comms);
    free(t->path);
    memset(t, 0, sizeof *t);
}

int mt_open(const char *anchor, struct mt_trace *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    struct defs_ctx c = { .t = t };
    int rc = -1;
    OTF2_Error_RegisterCallback(quiet_error, NULL);
    otf2_reason[0] = '\0';
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
        explain(err, errlen);
        mt_close(t);
        return -1;
    }
    t->reader = rd;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !gcb) {
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
        snprintf(err, errlen, "%s: cannot read the global definitions", anchor);
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
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, &c);
    uint64_t n = 0;
    OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (status != OTF2_SUCCESS || c.failed) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions", anchor);
        goto done;
    }
    if (c.nlocs == 0) {
        snprintf(err, errlen, "%s: no locations: not a merged synctrace archive", anchor);
        goto done;
    }
    if (t->resolution == 0) {
        snprintf(err, errlen, "%s: no clock properties", anchor);
        goto done;
    }
    qsort(c.locs, c.nlocs, sizeof *c.locs, by_id);
    t->nlocations = c.nlocs;
    t->locations = malloc(sizeof *t->locations * c.nlocs);
    t->location_events = malloc(sizeof *t->location_events * c.nlocs);
    t->location_names = calloc(c.nlocs, sizeof *t->location_names);
    if (!t->locations || !t->location_events || !t->location_names) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < c.nlocs; i++) {
        t->locations[i] = c.locs[i].id;
        t->location_events[i] = c.locs[i].events;
        if (!(t->location_names[i] = strdup(str(&c, c.locs[i].name)))) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
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
    int stopped, bad_location;
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
    if (c->fn(c->user, k, e) != 0) {
        c->stopped = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

#define EV_HEAD OTF2_LocationRef loc, OTF2_TimeStamp time, void *ud, OTF2_AttributeList *attrs
#define EV_BEGIN(kind_) (void)attrs; struct rt_event e = { .time = time, .kind = (kind_) }

static OTF2_CallbackCode ev_enter(EV_HEAD, OTF2_RegionRef region)
{
    EV_BEGIN(RT_ENTER);
    e.ref = region;
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
    return message(loc, time, ud, attrs, RT_SEND, peer, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_isend(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    return message(loc, time, ud, attrs, RT_ISEND, peer, comm, tag, len, req);
}

static OTF2_CallbackCode ev_recv(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    return message(loc, time, ud, attrs, RT_RECV, peer, comm, tag, len, 0);
}

static OTF2_CallbackCode ev_irecv(EV_HEAD, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    return message(loc, time, ud, attrs, RT_IRECV, peer, comm, tag, len, req);
}

static OTF2_CallbackCode request(EV_HEAD, enum rt_kind kind, uint64_t req)
{
    EV_BEGIN(kind);
    e.req = req;
    return deliver(ud, loc, &e);
}

static OTF2_CallbackCode ev_isend_complete(EV_HEAD, uint64_t req) { return request(loc, time, ud, attrs, RT_ISEND_COMPLETE, req); }
static OTF2_CallbackCode ev_irecv_request(EV_HEAD, uint64_t req) { return request(loc, time, ud, attrs, RT_IRECV_REQUEST, req); }
static OTF2_CallbackCode ev_cancelled(EV_HEAD, uint64_t req) { return request(loc, time, ud, attrs, RT_CANCELLED, req); }
static OTF2_CallbackCode ev_nbc_request(EV_HEAD, uint64_t req) { return request(loc, time, ud, attrs, RT_NBC_REQUEST, req); }

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
    if (rc != OTF2_CALLBACK_SUCCESS || !c->t->on_sources)
        return rc;
    if (rt_source_attr_read(&c->t->source_attrs, attrs, &c->src_buf, &c->csrc_buf, &nslots) != 0
        || (nslots && c->t->on_sources(c->user, track_of(c, loc), nslots,
                                       nslots == RT_SOURCES_UNKNOWN ? NULL : c->src_buf) != 0)) {
        c->stopped = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    return collective(loc, time, ud, attrs, RT_COLL_END, op, comm, root, sent, received, 0);
}

static OTF2_CallbackCode ev_nbc_complete(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                         uint64_t sent, uint64_t received, uint64_t req)
{
    return collective(loc, time, ud, attrs, RT_NBC_COMPLETE, op, comm, root, sent, received, req);
}

static OTF2_CallbackCode ev_flush(EV_HEAD, OTF2_TimeStamp stop)
{
    EV_BEGIN(RT_FLUSH);
    e.req = stop;
    return deliver(ud, loc, &e);
}

int mt_read_events(struct mt_trace *t, mt_event_fn fn, void *user, char *err, size_t errlen)
{
    OTF2_Error_RegisterCallback(quiet_error, NULL);
    otf2_reason[0] = '\0';
    /* OTF2 reads a location's events only once per reader: a new pass
     * needs a new reader (definitions are kept). */
    if (t->reader)
        OTF2_Reader_Close(t->reader);
    OTF2_Reader *rd = t->reader = OTF2_Reader_Open(t->path);
    if (!rd) {
        snprintf(err, errlen, "%s: not a readable OTF2 archive", t->path);
        explain(err, errlen);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    for (uint32_t i = 0; i < t->nlocations; i++)
        OTF2_Reader_SelectLocation(rd, t->locations[i]);
    /* Every location's local definitions must be read before its events. */
    int have_defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: cannot open the event files", t->path);
        explain(err, errlen);
        return -1;
    }
    for (uint32_t i = 0; i < t->nlocations; i++) {
        if (have_defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, t->locations[i]);
            if (dr) {
                uint64_t n;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        if (!OTF2_Reader_GetEvtReader(rd, t->locations[i])) {
            snprintf(err, errlen, "%s: no event data for location %llu", t->path,
                     (unsigned long long)t->locations[i]);
            explain(err, errlen);
            OTF2_Reader_CloseEvtFiles(rd);
            return -1;
        }
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (!ger || !cb) {
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        snprintf(err, errlen, "%s: cannot read the events", t->path);
        explain(err, errlen);
        OTF2_Reader_CloseEvtFiles(rd);
        return -1;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_complete);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(cb, ev_request_test);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_request);
    OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_complete);
    OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback(cb, ev_flush);
    struct evt_ctx c = { t, fn, user, 0, 0, NULL, 0 };
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, &c);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalEvents(rd, ger, &n);
    OTF2_Reader_CloseGlobalEvtReader(rd, ger);
    OTF2_Reader_CloseEvtFiles(rd);
    free(c.src_buf);
    if (c.stopped)
        return -1;   /* the callback said why */
    if (c.bad_location) {
        snprintf(err, errlen, "%s: an event of an undefined location", t->path);
        return -1;
    }
    if (status != OTF2_SUCCESS && status != OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
        snprintf(err, errlen, "%s: corrupt or truncated event data after %llu events", t->path,
                 (unsigned long long)n);
        explain(err, errlen);
        return -1;
    }
    return 0;
}
