/* otf2out.c — see otf2out.h: ow_write in steps (the archive opened, the
 * regions and windows mapped, each location's events, the local
 * definitions, then the global ones: otf2out_defs.c), which with several
 * processes every process takes together. Times were made global by the
 * caller. */
#include "otf2out_writing.h"
#include "rawformat.h"
#include "rma_flow.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OTF2's encoded events held at once: beyond, a location's buffer goes to
 * its file (otf2_memory.h), so a location of many events is never held
 * whole. One location is written at a time: a few 1 MiB chunks do. */
#define OW_EVENT_BUDGET ((size_t)4 << 20)

/* A region's role when its archive did not say (an older or generated raw
 * archive): what the tracer would have written for it, as far as the name
 * tells -- an MPI function, or the tracer's own region. */
OTF2_RegionRole ow_fallback_role(const char *name)
{
    return strncmp(name, "MPI_", 4) == 0 ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_ARTIFICIAL;
}

/* A location's id in the merged archive: the rank for its main thread,
 * thread << 32 | rank for the others. */
uint64_t ow_location_id(const struct rt_location *r)
{
    return (uint64_t)r->thread << 32 | (uint32_t)r->rank;
}

/* Whether every process may go on (ok itself when writing alone). */
static int all_agree(const struct ow_parallel *par, int ok)
{
    return par ? par->agree(ok) : ok;
}

void ow_find_attributes(const struct rt_location *ranks, uint32_t nranks, const struct truth_store *truth,
                        struct ow_attributes *a)
{
    memset(a, 0, sizeof *a);
    for (uint32_t r = 0; r < nranks; r++) {
        struct rt_facts f;
        rt_facts(&ranks[r], &f);
        if (f.source_words > a->pre_words)
            a->pre_words = f.source_words;
        a->pre_sources |= f.sparse_members;
        a->any_truth |= ts_has(truth, r);
    }
}

/* The archive open for writing, its callbacks set: 0, or -1 (err set;
 * ar NULL when it need not be closed). */
static int open_archive(struct writing *wr)
{
    const struct ow_parallel *par = wr->par;
    /* Event chunks of OTF2's least size: a reader of the whole trace in
     * time order (Vampir, export, causal) holds one chunk per location at
     * once, 1 GB for 1000 locations at OTF2's default 1 MiB. */
    wr->ar = OTF2_Archive_Open(wr->dir, wr->name, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN, 4 * 1024 * 1024,
                               OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    /* With several processes each step below is taken by all or by none:
     * OTF2's collective calls wait for every process. */
    if (!all_agree(par, wr->ar && wr->region_map)) {
        snprintf(wr->err, wr->errlen, "%s/%s.otf2: cannot create the merged archive", wr->dir, wr->name);
        if (wr->ar)
            OTF2_Archive_Close(wr->ar);
        wr->ar = NULL;
        return -1;
    }
    CHECK(OTF2_Archive_SetFlushCallbacks(wr->ar, &om_flush_callbacks, NULL));
    CHECK(OTF2_Archive_SetMemoryCallbacks(wr->ar, &om_callbacks, &wr->chunks));
    if (par) {
        if (!par->agree(wr->failed == OTF2_SUCCESS)) {
            snprintf(wr->err, wr->errlen, "%s/%s.otf2: cannot set up the merged archive", wr->dir, wr->name);
            OTF2_Archive_Close(wr->ar);
            wr->ar = NULL;
            return -1;
        }
        if (par->collective(wr->ar) != 0)
            wr->failed = OTF2_ERROR_PROCESSED_WITH_FAULTS;
    } else {
        CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(wr->ar));
    }
    CHECK(OTF2_Archive_SetCreator(wr->ar, "synctrace merge"));
    CHECK(OTF2_Archive_SetDescription(wr->ar, "synchronised by synctrace: global time in ns, tachyon-free"));
    CHECK(OTF2_Archive_OpenEvtFiles(wr->ar));
    if (!all_agree(par, wr->failed == OTF2_SUCCESS)) {
        snprintf(wr->err, wr->errlen, "%s/%s.otf2: cannot set up the merged archive", wr->dir, wr->name);
        return -1;
    }
    return 0;
}

static void out_of_memory(struct writing *wr)
{
    snprintf(wr->err, wr->errlen, "%s/%s: out of memory while writing the merged archive", wr->dir, wr->name);
    wr->ok = 0;
}

/* Windows unified across locations (rma_flow.h); regions by name, the
 * first archive that defines one giving its role. A failure clears wr->ok
 * (the steps after it still run, as the other processes wait for them). */
static void map_windows_and_regions(struct writing *wr)
{
    const struct rt_location *ranks = wr->ranks;
    wr->win_map = calloc(wr->nranks ? wr->nranks : 1, sizeof *wr->win_map);
    for (uint32_t r = 0; wr->win_map && r < wr->nranks && wr->ok; r++)
        if (!(wr->win_map[r] = malloc(sizeof **wr->win_map * (ranks[r].nwins ? ranks[r].nwins : 1))))
            wr->ok = 0;
    if (!wr->ok || !wr->win_map
        || rma_unify_windows(ranks, wr->nranks, wr->match, wr->win_map, &wr->nwins, &wr->win_names, &wr->win_comm) != 0) {
        out_of_memory(wr);
        return;
    }
    for (uint32_t r = 0; r < wr->nranks; r++) {
        const struct rt_location *rk = &ranks[r];
        if (!(wr->region_map[r] = malloc(sizeof **wr->region_map * (rk->nregions ? rk->nregions : 1))))
            goto oom;
        for (uint32_t k = 0; k < rk->nregions; k++) {
            const char *rn = rk->regions[k] ? rk->regions[k] : "?";
            uint32_t u = wr->region_map[r][k] = st_strtab_ref(&wr->regions, rn);
            if (u == UINT32_MAX)
                goto oom;
            if (u >= wr->nroles) {
                uint32_t cap = wr->regions.cap ? wr->regions.cap : u + 1;
                uint8_t *grown = realloc(wr->roles, cap);
                if (!grown)
                    goto oom;
                memset(grown + wr->nroles, 0, cap - wr->nroles);
                wr->roles = grown;
                wr->nroles = cap;
            }
            if (wr->roles[u] == OTF2_REGION_ROLE_UNKNOWN)
                wr->roles[u] = k < rk->nregion_roles && rk->region_roles[k] != OTF2_REGION_ROLE_UNKNOWN
                               ? rk->region_roles[k] : ow_fallback_role(rn);
        }
    }
    return;
oom:
    out_of_memory(wr);
}

/* One one-sided event on window `win` (rawtrace.h, enum rt_rma). */
static void write_rma(struct writing *wr, OTF2_EvtWriter *w, OTF2_AttributeList *a, uint64_t t,
                      const struct rt_event *e, uint32_t win)
{
    switch (e->tag & 0xff) {
    case RT_RMA_WIN_CREATE: CHECK(OTF2_EvtWriter_RmaWinCreate(w, a, t, win)); break;
    case RT_RMA_WIN_DESTROY: CHECK(OTF2_EvtWriter_RmaWinDestroy(w, a, t, win)); break;
    case RT_RMA_COLL_BEGIN: CHECK(OTF2_EvtWriter_RmaCollectiveBegin(w, a, t)); break;
    case RT_RMA_COLL_END:
        CHECK(OTF2_EvtWriter_RmaCollectiveEnd(w, a, t, (OTF2_CollectiveOp)(e->req >> 32),
                                              (OTF2_RmaSyncLevel)(e->req & 0xffffffffu), win, e->peer, e->bytes,
                                              e->received));
        break;
    case RT_RMA_PUT: CHECK(OTF2_EvtWriter_RmaPut(w, a, t, win, e->peer, e->bytes, e->req)); break;
    case RT_RMA_GET: CHECK(OTF2_EvtWriter_RmaGet(w, a, t, win, e->peer, e->bytes, e->req)); break;
    case RT_RMA_ATOMIC:
        CHECK(OTF2_EvtWriter_RmaAtomic(w, a, t, win, e->peer, (OTF2_RmaAtomicType)(e->tag >> 8), e->bytes,
                                       e->received, e->req));
        break;
    case RT_RMA_OP_COMPLETE_REMOTE: CHECK(OTF2_EvtWriter_RmaOpCompleteRemote(w, a, t, win, e->req)); break;
    case RT_RMA_OP_COMPLETE_NON_BLOCKING: CHECK(OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, a, t, win, e->req)); break;
    case RT_RMA_REQUEST_LOCK:
        CHECK(OTF2_EvtWriter_RmaRequestLock(w, a, t, win, e->peer, e->req, (OTF2_LockType)e->bytes));
        break;
    case RT_RMA_RELEASE_LOCK: CHECK(OTF2_EvtWriter_RmaReleaseLock(w, a, t, win, e->peer, e->req)); break;
    case RT_RMA_SYNC: CHECK(OTF2_EvtWriter_RmaSync(w, a, t, win, e->peer, (OTF2_RmaSyncType)e->bytes)); break;
    default: break;
    }
}

/* Event i of location r at global time t, its attributes in attrs (a:
 * attrs when it has any, else NULL). Returns the list the event was
 * written with (NULL: none). */
static OTF2_AttributeList *write_event(struct writing *wr, OTF2_EvtWriter *w, OTF2_AttributeList *attrs, OTF2_AttributeList *a,
                        uint32_t r, uint64_t i, uint64_t t, const struct rt_event *e)
{
    const struct rt_location *rk = &wr->ranks[r];
    uint32_t comm = e->ref < rk->ncomms ? wr->match->rank_comm[r][e->ref] : OTF2_UNDEFINED_COMM;
    switch (e->kind) {
    case RT_ENTER:
        if (e->bytes > 1) {   /* polling calls recorded as one region, as the tracer wrote them */
            CHECK(OTF2_AttributeList_AddUint64(attrs, wr->freed + 3, e->bytes));
            a = attrs;
        }
        CHECK(OTF2_EvtWriter_Enter(w, a, t, wr->region_map[r][e->ref < rk->nregions ? e->ref : 0]));
        break;
    case RT_LEAVE: CHECK(OTF2_EvtWriter_Leave(w, a, t, wr->region_map[r][e->ref < rk->nregions ? e->ref : 0])); break;
    case RT_SEND: CHECK(OTF2_EvtWriter_MpiSend(w, a, t, e->peer, comm, e->tag, e->bytes)); break;
    case RT_ISEND: CHECK(OTF2_EvtWriter_MpiIsend(w, a, t, e->peer, comm, e->tag, e->bytes, e->req)); break;
    case RT_ISEND_COMPLETE: CHECK(OTF2_EvtWriter_MpiIsendComplete(w, a, t, e->req)); break;
    case RT_IRECV_REQUEST: CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, a, t, e->req)); break;
    case RT_RECV: CHECK(OTF2_EvtWriter_MpiRecv(w, a, t, e->peer, comm, e->tag, e->bytes)); break;
    case RT_IRECV: CHECK(OTF2_EvtWriter_MpiIrecv(w, a, t, e->peer, comm, e->tag, e->bytes, e->req)); break;
    case RT_CANCELLED: CHECK(OTF2_EvtWriter_MpiRequestCancelled(w, a, t, e->req)); break;
    case RT_IRECV_FREED:   /* as the tracer records it, on the merged communicator */
        CHECK(OTF2_AttributeList_AddCommRef(attrs, wr->freed, comm));
        CHECK(OTF2_AttributeList_AddInt32(attrs, wr->freed + 1, e->peer == RT_ANY ? -1 : (int32_t)e->peer));
        CHECK(OTF2_AttributeList_AddInt32(attrs, wr->freed + 2, e->tag == RT_ANY ? -1 : (int32_t)e->tag));
        CHECK(OTF2_EvtWriter_MpiRequestTest(w, attrs, t, e->req));
        break;
    case RT_COLL_BEGIN: CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w, a, t)); break;
    case RT_COLL_END:
        CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w, a, t, e->tag, comm, e->peer, e->bytes, e->received));
        break;
    case RT_NBC_REQUEST: CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, a, t, e->req)); break;
    case RT_NBC_COMPLETE:
        CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(w, a, t, e->tag, comm, e->peer, e->bytes, e->received,
                                                           e->req));
        break;
    case RT_RMA: {
        uint32_t win = e->ref < rk->nwins ? wr->win_map[r][e->ref] : OTF2_UNDEFINED_RMA_WIN;
        if (e->tag == RT_RMA_COLL_BEGIN || win != OTF2_UNDEFINED_RMA_WIN)   /* else a window the archive
                                                                              * does not define (a recovered rank) */
            write_rma(wr, w, a, t, e, win);
        break;
    }
    /* on the merged communicator, flagged when every member saw it created */
    case RT_COMM_CREATE: CHECK(OTF2_EvtWriter_CommCreate(w, a, t, comm)); break;
    case RT_COMM_DESTROY: CHECK(OTF2_EvtWriter_CommDestroy(w, a, t, comm)); break;
    case RT_FLUSH: {
        /* the stop time moves with the rank's clock like any other */
        uint64_t stop = i + 1 < rk->nevents ? gt_read(wr->gtime, r, &wr->tr, i + 1) : t;
        CHECK(OTF2_EvtWriter_BufferFlush(w, a, t, stop > t ? stop : t));
        break;
    }
    default:
        break;
    }
    return a;
}

/* Location r's events, in order, at their global times, with their true
 * times and a sparse member's collective sources as attributes. */
static void write_location(struct writing *wr, uint32_t r)
{
    const struct rt_location *rk = &wr->ranks[r];
    const struct ow_hooks *hooks = wr->hooks;
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(wr->ar, ow_location_id(rk));
    OTF2_AttributeList *attrs = OTF2_AttributeList_New();
    if (!w || !attrs) {
        OTF2_AttributeList_Delete(attrs);
        out_of_memory(wr);
        return;
    }
    rt_time_reader_free(&wr->tr);
    rt_time_reader_init(&wr->tr, rk);
    struct ts_cursor tc;   /* the location's true times, in order */
    ts_cursor_init(&tc, wr->truth, r);
    const uint32_t pre_words = wr->found.pre_words;
    for (uint64_t i = 0; i < rk->nevents; i++) {
        /* set aside: brought back chunk by chunk */
        int held = rk->events && i >= rk->events_from && i < rk->events_from + rk->nheld;
        if (!held && hooks->load && hooks->load(hooks->ctx, r, i, wr->err, wr->errlen) != 0) {
            wr->ok = 0;
            break;
        }
        const struct rt_event e = rt_event_at(rk, i);
        uint64_t t = gt_read(wr->gtime, r, &wr->tr, i);
        if (t > wr->last_time)
            wr->last_time = t;
        OTF2_AttributeList *a = NULL;
        uint64_t tt = ts_has(wr->truth, r) ? ts_cursor_get(&tc, i) : TS_UNKNOWN;
        if (tt != TS_UNKNOWN) {
            CHECK(OTF2_AttributeList_AddUint64(attrs, RF_ATTR_TRUE_TIME, tt));
            a = attrs;
        }
        if (e.kind == RT_COLL_END || e.kind == RT_NBC_COMPLETE) {
            /* a sparse member's sources, as the tracer wrote them (rawformat.h) */
            uint32_t nslots;
            const uint64_t *bits = rt_sources_of(rk, i, &nslots);
            if (nslots) {
                uint32_t words = bits ? (nslots + 63) / 64 : 0;
                CHECK(OTF2_AttributeList_AddUint32(attrs, wr->src_slots, nslots));
                for (uint32_t k = 0; k < words && k < pre_words; k++)
                    if (bits[k])
                        CHECK(OTF2_AttributeList_AddUint64(attrs, wr->src_bits + k, bits[k]));
                a = attrs;
            }
        }
        if (write_event(wr, w, attrs, a, r, i, t, &e))
            CHECK(OTF2_AttributeList_RemoveAllAttributes(attrs));
        if (wr->failed != OTF2_SUCCESS)
            break;
    }
    OTF2_AttributeList_Delete(attrs);
    if ((OTF2_Archive_CloseEvtWriter(wr->ar, w) != OTF2_SUCCESS || wr->failed != OTF2_SUCCESS) && wr->ok) {
        snprintf(wr->err, wr->errlen, "%s/%s: cannot write the events of rank %d", wr->dir, wr->name, rk->rank);
        wr->ok = 0;
    }
    if (wr->ok && hooks->written)
        hooks->written(hooks->ctx, r);
}

/* The processes outside the trace (outside.c): a location each, without
 * events, after the trace's main locations (their ids are their ranks). */
static uint64_t first_outside_id(const struct writing *wr)
{
    uint64_t nmain = 0;
    for (uint32_t r = 0; r < wr->nranks; r++)
        nmain += !wr->ranks[r].thread;
    return nmain;
}

/* The event files closed, empty ones for the outside processes first:
 * 0 to go on, -1 (err set) when any process failed. */
static int close_events(struct writing *wr)
{
    const struct ow_parallel *par = wr->par;
    const uint64_t outside = first_outside_id(wr);
    const uint32_t noutside = wr->match->outside ? wr->match->outside->n : 0;
    for (uint32_t k = 0; k < noutside && wr->failed == OTF2_SUCCESS && wr->ok && (!par || par->primary); k++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(wr->ar, outside + k);
        if (!w || OTF2_Archive_CloseEvtWriter(wr->ar, w) != OTF2_SUCCESS)
            wr->failed = OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    CHECK(OTF2_Archive_CloseEvtFiles(wr->ar));
    if (wr->ok && wr->failed != OTF2_SUCCESS)
        snprintf(wr->err, wr->errlen, "%s/%s: cannot write the events (%s)", wr->dir, wr->name,
                 OTF2_Error_GetDescription(wr->failed));
    if (!all_agree(par, wr->ok && wr->failed == OTF2_SUCCESS)) {
        if (wr->ok && wr->failed == OTF2_SUCCESS)
            snprintf(wr->err, wr->errlen, "%s/%s: another process could not write its events", wr->dir, wr->name);
        return -1;
    }
    return 0;
}

/* Readers open every location's local definitions: written, empty. 0 to
 * go on, -1 (err set) when any process failed. */
static int write_local_defs(struct writing *wr)
{
    const struct ow_parallel *par = wr->par;
    const uint64_t outside = first_outside_id(wr);
    const uint32_t noutside = wr->match->outside ? wr->match->outside->n : 0;
    CHECK(OTF2_Archive_OpenDefFiles(wr->ar));
    for (uint32_t r = 0; r < wr->nranks + noutside && wr->failed == OTF2_SUCCESS; r++) {
        if (par && (r < wr->nranks ? !par->mine[r] : !par->primary))
            continue;
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(wr->ar, r < wr->nranks ? ow_location_id(&wr->ranks[r])
                                                                               : outside + (r - wr->nranks));
        if (!dw)
            wr->failed = OTF2_ERROR_MEM_ALLOC_FAILED;
        else
            CHECK(OTF2_Archive_CloseDefWriter(wr->ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(wr->ar));
    if (!all_agree(par, wr->failed == OTF2_SUCCESS)) {
        snprintf(wr->err, wr->errlen, "%s/%s: cannot write the local definitions", wr->dir, wr->name);
        return -1;
    }
    return 0;
}

/* Attributes numbered densely (otf2-print warns of a gap; readers find
 * them by name, rawformat.h): true_time (0), then the collective source
 * ones (coll_sources_slots, coll_sources_<k>), when there are any, then
 * the freed_receive_* and collapsed_calls. With several processes, what
 * process 0 found over every location: the attributes are numbered alike
 * everywhere. */
static void number_attributes(struct writing *wr)
{
    if (wr->par)
        wr->found = wr->par->attrs;
    else
        ow_find_attributes(wr->ranks, wr->nranks, wr->truth, &wr->found);
    wr->src_slots = wr->found.any_truth ? 1 : 0;
    wr->src_bits = wr->src_slots + 1;
    wr->freed = wr->found.pre_sources ? wr->src_bits + wr->found.pre_words : wr->src_slots;
}

static void writing_free(struct writing *wr)
{
    rt_time_reader_free(&wr->tr);
    om_pool_free(&wr->chunks);   /* the archive has given its chunks back */
    st_strtab_free(&wr->regions);
    free(wr->roles);
    free(wr->win_names);
    free(wr->win_comm);
    for (uint32_t r = 0; wr->win_map && r < wr->nranks; r++)
        free(wr->win_map[r]);
    free(wr->win_map);
    for (uint32_t r = 0; wr->region_map && r < wr->nranks; r++)
        free(wr->region_map[r]);
    free(wr->region_map);
}

int ow_write(const char *dir, const char *name, const struct rt_location *ranks, uint32_t nranks,
             const struct mg_result *match, const struct gtime_map *gtime, struct truth_store *truth,
             const struct ow_hooks *hooks, char *err, size_t errlen)
{
    static const struct ow_hooks none = { NULL, NULL, NULL, NULL };
    struct writing writing = {
        .dir = dir, .name = name, .ranks = ranks, .nranks = nranks, .match = match, .gtime = gtime,
        .truth = truth, .hooks = hooks ? hooks : &none, .par = hooks ? hooks->par : NULL, .err = err,
        .errlen = errlen, .chunks = { NULL, 0, OW_EVENT_BUDGET }, .failed = OTF2_SUCCESS, .ok = 1,
        .region_map = calloc(nranks ? nranks : 1, sizeof *writing.region_map),
    };
    struct writing *wr = &writing;
    int rc = -1;
    if (open_archive(wr) != 0)
        goto done;
    map_windows_and_regions(wr);
    number_attributes(wr);
    for (uint32_t r = 0; r < nranks && wr->ok; r++)
        if (!wr->par || wr->par->mine[r])   /* else another process writes its events */
            write_location(wr, r);
    if (close_events(wr) != 0 || write_local_defs(wr) != 0)
        goto done;
    if (wr->par) {   /* the clock's end over every process's events; the global definitions are process 0's */
        wr->last_time = wr->par->max_u64(wr->last_time);
        if (!wr->par->primary) {
            rc = 0;
            goto done;
        }
    }
    rc = ow_write_global_defs(wr);
done:
    if (wr->ar && OTF2_Archive_Close(wr->ar) != OTF2_SUCCESS && rc == 0) {
        snprintf(err, errlen, "%s/%s.otf2: cannot complete the merged archive", dir, name);
        rc = -1;
    }
    writing_free(wr);
    return rc;
}
