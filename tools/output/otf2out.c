/* otf2out.c — see otf2out.h. Definitions are unified by name (regions,
 * hosts) or by the matcher's global ids (communicators); location ids stay
 * the world ranks. Times were made global by the caller. */
#include "otf2out.h"
#include "otf2_memory.h"
#include "rawformat.h"
#include "rma_flow.h"
#include "strtab.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u; (void)t; (void)l; (void)c; (void)f;
    return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

/* OTF2's encoded events held at once: beyond, a location's buffer goes to
 * its file (otf2_memory.h), so a location of many events is never held
 * whole. One location is written at a time: a few 1 MiB chunks do. */
#define OW_EVENT_BUDGET ((size_t)4 << 20)

/* A region's role when its archive did not say (an older or generated raw
 * archive): what the tracer would have written for it, as far as the name
 * tells -- an MPI function, or the tracer's own region. */
static OTF2_RegionRole fallback_role(const char *name)
{
    return strncmp(name, "MPI_", 4) == 0 ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_ARTIFICIAL;
}

/* The tracer's key of a communicator the program did not name is written
 * as its name ("comm" and 16 hex digits): no name for Vampir, which then
 * shows the paradigm's template ("Comm ${id}"), as for Score-P's unnamed
 * communicators. Any other name is the program's (MPI_Comm_set_name) or a
 * predefined one, kept. */
static const char *comm_display_name(const char *name)
{
    if (!name)
        return "";
    if (strncmp(name, "comm ", 5) == 0 && strlen(name) == 5 + 16 && strspn(name + 5, "0123456789abcdef") == 16)
        return "";
    return name;
}

/* Where each global communicator's Cartesian topology is described: the
 * first member (in rank order) that recorded one, src_rank[c] / src_ref[c]
 * (UINT32_MAX: none); and each member's own coordinates, by communicator:
 * coords[at[c] .. at[c + 1]) lists (rank, reference) pairs in rank order.
 * One pass over every rank's communicators: a run may make hundreds of
 * thousands, and a search per communicator would be quadratic. */
struct cart_index {
    uint32_t *src_rank, *src_ref;
    size_t *at;
    uint32_t (*coords)[2];
};

static void cart_index_free(struct cart_index *x)
{
    free(x->src_rank);
    free(x->src_ref);
    free(x->at);
    free(x->coords);
    memset(x, 0, sizeof *x);
}

static int cart_index_build(const struct rt_rank *ranks, uint32_t nranks, const struct mg_result *match,
                            struct cart_index *x)
{
    uint32_t n = match->ncomms;
    memset(x, 0, sizeof *x);
    x->src_rank = malloc(sizeof *x->src_rank * (n ? n : 1));
    x->src_ref = malloc(sizeof *x->src_ref * (n ? n : 1));
    x->at = calloc((size_t)n + 1, sizeof *x->at);
    if (!x->src_rank || !x->src_ref || !x->at)
        goto oom;
    for (uint32_t c = 0; c < n; c++)
        x->src_rank[c] = x->src_ref[c] = UINT32_MAX;
    for (uint32_t r = 0; r < nranks; r++) {
        if (ranks[r].thread)
            continue;
        for (uint32_t k = 0; k < ranks[r].ncomms; k++) {
            uint32_t c = match->rank_comm[r][k];
            if (c < n && ranks[r].comms[k].cart_ndims && x->src_rank[c] == UINT32_MAX) {
                x->src_rank[c] = r;
                x->src_ref[c] = k;
            }
        }
    }
    /* the members' coordinates, counted then placed (a counting sort by communicator) */
    for (int pass = 0; pass < 2; pass++) {
        size_t *fill = NULL;
        if (pass == 1) {
            for (uint32_t c = 0; c < n; c++)
                x->at[c + 1] += x->at[c];
            if (!(x->coords = malloc(sizeof *x->coords * (x->at[n] ? x->at[n] : 1)))
                || !(fill = malloc(sizeof *fill * (n ? n : 1)))) {
                free(fill);
                goto oom;
            }
            memcpy(fill, x->at, sizeof *fill * n);
        }
        for (uint32_t r = 0; r < nranks; r++) {
            if (ranks[r].thread)
                continue;
            for (uint32_t k = 0; k < ranks[r].ncomms; k++) {
                uint32_t c = match->rank_comm[r][k];
                const struct rt_comm *m = &ranks[r].comms[k];
                if (c >= n || x->src_rank[c] == UINT32_MAX || !m->has_cart_coords
                    || m->cart_ndims != ranks[x->src_rank[c]].comms[x->src_ref[c]].cart_ndims)
                    continue;
                if (pass == 0) {
                    x->at[c + 1]++;
                } else {
                    x->coords[fill[c]][0] = r;
                    x->coords[fill[c]++][1] = k;
                }
            }
        }
        free(fill);
    }
    return 0;
oom:
    cart_index_free(x);
    return -1;
}

/* Cartesian topologies as Score-P writes them: the dimensions, a topology
 * per communicator (named by its sizes), each member's coordinates by its
 * rank in the communicator. With gd NULL, only the strings it will use are
 * added to the table (they are written before every other definition).
 * Returns 0 (a record that could not be written sets *failed), or -1 when
 * a string could not be added. */
static int write_cart_topologies(OTF2_GlobalDefWriter *gd, const struct rt_rank *ranks, const struct mg_result *match,
                                 const struct cart_index *x, struct st_strtab *strings, OTF2_ErrorCode *failed)
{
#define CART_CHECK(call) do { OTF2_ErrorCode status_ = (call); if (status_ != OTF2_SUCCESS) *failed = status_; } while (0)
    char name[RF_CART_MAX_DIMS * 11 + 32];
    uint32_t dim = 0, topo = 0;
    for (uint32_t c = 0; c < match->ncomms; c++) {
        if (x->src_rank[c] == UINT32_MAX)
            continue;
        const struct rt_comm *d = &ranks[x->src_rank[c]].comms[x->src_ref[c]];
        for (uint32_t k = 0; k < d->cart_ndims; k++) {
            snprintf(name, sizeof name, RF_CART_DIMENSION_FMT, k);
            uint32_t s = st_strtab_ref(strings, name);
            if (s == UINT32_MAX)
                return -1;
            if (gd)
                CART_CHECK(OTF2_GlobalDefWriter_WriteCartDimension(gd, dim, s, d->cart_sizes[k],
                                                                   d->cart_periodic[k] ? OTF2_CART_PERIODIC_TRUE
                                                                                       : OTF2_CART_PERIODIC_FALSE));
            dim++;
        }
    }
    dim = 0;
    for (uint32_t c = 0; c < match->ncomms; c++) {
        if (x->src_rank[c] == UINT32_MAX)
            continue;
        const struct rt_comm *d = &ranks[x->src_rank[c]].comms[x->src_ref[c]];
        uint32_t dims[RF_CART_MAX_DIMS];
        uint32_t nd = d->cart_ndims < RF_CART_MAX_DIMS ? d->cart_ndims : RF_CART_MAX_DIMS;
        for (uint32_t k = 0; k < nd; k++)
            dims[k] = dim + k;
        dim += d->cart_ndims;
        size_t used = (size_t)snprintf(name, sizeof name, RF_CART_TOPOLOGY_PREFIX);
        for (uint32_t k = 0; k < nd && used < sizeof name; k++)
            used += (size_t)snprintf(name + used, sizeof name - used, "%s%u", k ? "x" : "_", d->cart_sizes[k]);
        uint32_t s = st_strtab_ref(strings, name);
        if (s == UINT32_MAX)
            return -1;
        if (!gd)
            continue;
        CART_CHECK(OTF2_GlobalDefWriter_WriteCartTopology(gd, topo, s, c, (uint8_t)nd, dims));
        /* every member's own coordinates (its first definition of c) */
        for (size_t i = x->at[c]; i < x->at[c + 1]; i++) {
            uint32_t r = x->coords[i][0];
            if (i > x->at[c] && x->coords[i - 1][0] == r)
                continue;
            const struct rt_comm *m = &ranks[r].comms[x->coords[i][1]];
            CART_CHECK(OTF2_GlobalDefWriter_WriteCartCoordinate(gd, topo, m->cart_rank, (uint8_t)nd, m->cart_coords));
        }
        topo++;
    }
    return 0;
#undef CART_CHECK
}

/* Which global communicators have CommCreate/CommDestroy events: those
 * every member's definition flags (the tracer saw them created); one that
 * some rank first met in use (no CommCreate there) is written unflagged,
 * its events kept as they are. NULL when out of memory. */
static uint8_t *comm_life_flags(const struct rt_rank *ranks, uint32_t nranks, const struct mg_result *match)
{
    uint8_t *seen = calloc(match->ncomms ? match->ncomms : 1, 1);   /* 0 unseen, 1 all flagged, 2 not */
    if (!seen)
        return NULL;
    for (uint32_t r = 0; r < nranks; r++) {
        if (ranks[r].thread)
            continue;
        for (uint32_t k = 0; k < ranks[r].ncomms; k++) {
            uint32_t c = match->rank_comm[r][k];
            if (c < match->ncomms && seen[c] != 2)
                seen[c] = ranks[r].comms[k].events ? 1 : 2;
        }
    }
    for (uint32_t c = 0; c < match->ncomms; c++)
        seen[c] = seen[c] == 1;
    return seen;
}

/* The communicator each global communicator was made from, as the first
 * member that recorded one says (a parent id before its own, so that the
 * definitions refer backwards), or OTF2_UNDEFINED_COMM: one pass over every
 * rank's communicators (a dup loop makes hundreds of thousands). NULL when
 * out of memory. */
static uint32_t *comm_parents(const struct rt_rank *ranks, uint32_t nranks, const struct mg_result *match)
{
    uint32_t *parent = malloc(sizeof *parent * (match->ncomms ? match->ncomms : 1));
    if (!parent)
        return NULL;
    for (uint32_t c = 0; c < match->ncomms; c++)
        parent[c] = OTF2_UNDEFINED_COMM;
    for (uint32_t r = 0; r < nranks; r++) {
        if (ranks[r].thread)
            continue;
        for (uint32_t k = 0; k < ranks[r].ncomms; k++) {
            uint32_t c = match->rank_comm[r][k], p = ranks[r].comms[k].parent;
            if (c < match->ncomms && parent[c] == OTF2_UNDEFINED_COMM && p < ranks[r].ncomms
                && match->rank_comm[r][p] < c)
                parent[c] = match->rank_comm[r][p];
        }
    }
    return parent;
}

/* A location's id in the merged archive: the rank for its main thread,
 * thread << 32 | rank for the others. */
uint64_t ow_location_id(const struct rt_rank *r)
{
    return (uint64_t)r->thread << 32 | (uint32_t)r->rank;
}

/* Whether every process may go on (ok itself when writing alone). */
static int all_agree(const struct ow_parallel *par, int ok)
{
    return par ? par->agree(ok) : ok;
}

void ow_find_attributes(const struct rt_rank *ranks, uint32_t nranks, const struct truth_store *truth,
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

int ow_write(const char *dir, const char *name, const struct rt_rank *ranks, uint32_t nranks,
             const struct mg_result *match, const struct gtime_map *gtime, struct truth_store *truth,
             const struct ow_hooks *hooks, char *err, size_t errlen)
{
    static const struct ow_hooks none = { NULL, NULL, NULL, NULL };
    if (!hooks)
        hooks = &none;
    const struct ow_parallel *par = hooks->par;
    int ok = 1;                           /* no failure here so far (the processes agree at each step) */
    struct st_strtab strings = { 0 };
    struct st_strtab regions = { 0 };     /* region names; ref = index */
    struct rt_time_reader tr = { 0 };     /* the location being written: its times (a flush's next event's
                                           * may be in the chunk after the one held) */
    uint8_t *roles = NULL;                /* OTF2_RegionRole by region ref */
    uint32_t nroles = 0;
    uint32_t **win_map = NULL;            /* [rank][window ref] -> merged window id */
    uint32_t nwins = 0, *win_comm = NULL;
    const char **win_names = NULL;
    uint32_t **region_map = calloc(nranks ? nranks : 1, sizeof *region_map);
    struct cart_index carts = { 0 };
    uint8_t *life = NULL;                 /* by global communicator: CREATE_DESTROY_EVENTS */
    int rc = -1;
    struct om_pool chunks = { NULL, 0, OW_EVENT_BUDGET };
    /* Event chunks of OTF2's least size: a reader of the whole trace in
     * time order (Vampir, export, causal) holds one chunk per location at
     * once, 1 GB for 1000 locations at OTF2's default 1 MiB. */
    OTF2_Archive *ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    /* With several processes each step below is taken by all or by none:
     * OTF2's collective calls wait for every process. */
    if (!all_agree(par, ar && region_map)) {
        snprintf(err, errlen, "%s/%s.otf2: cannot create the merged archive", dir, name);
        if (ar)
            OTF2_Archive_Close(ar);
        ar = NULL;
        goto done;
    }
    /* Every OTF2 call's status: an archive with a record missing is no output. */
    OTF2_ErrorCode failed = OTF2_SUCCESS;
#define CHECK(call) do { OTF2_ErrorCode status_ = (call); if (status_ != OTF2_SUCCESS) failed = status_; } while (0)
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL));
    CHECK(OTF2_Archive_SetMemoryCallbacks(ar, &om_callbacks, &chunks));
    if (par) {
        if (!par->agree(failed == OTF2_SUCCESS)) {
            snprintf(err, errlen, "%s/%s.otf2: cannot set up the merged archive", dir, name);
            OTF2_Archive_Close(ar);
            ar = NULL;
            goto done;
        }
        if (par->collective(ar) != 0)
            failed = OTF2_ERROR_PROCESSED_WITH_FAULTS;
    } else {
        CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    }
    CHECK(OTF2_Archive_SetCreator(ar, "synctrace merge"));
    CHECK(OTF2_Archive_SetDescription(ar, "synchronised by synctrace: global time in ns, tachyon-free"));
    CHECK(OTF2_Archive_OpenEvtFiles(ar));
    if (!all_agree(par, failed == OTF2_SUCCESS)) {
        snprintf(err, errlen, "%s/%s.otf2: cannot set up the merged archive", dir, name);
        goto done;
    }

    win_map = calloc(nranks ? nranks : 1, sizeof *win_map);
    for (uint32_t r = 0; win_map && r < nranks && ok; r++)
        if (!(win_map[r] = malloc(sizeof **win_map * (ranks[r].nwins ? ranks[r].nwins : 1))))
            ok = 0;
    if (!ok || !win_map || rf_unify_windows(ranks, nranks, match, win_map, &nwins, &win_names, &win_comm) != 0) {
        snprintf(err, errlen, "%s/%s: out of memory while writing the merged archive", dir, name);
        ok = 0;
    }
    /* Attributes numbered densely (otf2-print warns of a gap; readers find
     * them by name, rawformat.h): true_time (0), then the collective
     * source ones (coll_sources_slots, coll_sources_<k>), when there are
     * any, then the freed_receive_* and collapsed_calls. With several
     * processes, what process 0 found over every location: the
     * attributes are numbered alike everywhere. */
    struct ow_attributes found;
    if (par)
        found = par->attrs;
    else
        ow_find_attributes(ranks, nranks, truth, &found);
    const int any_truth = found.any_truth, pre_sources = found.pre_sources;
    const uint32_t pre_words = found.pre_words;
    const uint32_t src_slots = any_truth ? 1 : 0, src_bits = src_slots + 1;
    const uint32_t freed = pre_sources ? src_bits + pre_words : src_slots;
    uint64_t last_time = 0;
    for (uint32_t r = 0; r < nranks && ok; r++) {
        const struct rt_rank *rk = &ranks[r];
        region_map[r] = malloc(sizeof **region_map * (rk->nregions ? rk->nregions : 1));
        if (!region_map[r])
            goto oom_events;
        for (uint32_t k = 0; k < rk->nregions; k++) {
            const char *rn = rk->regions[k] ? rk->regions[k] : "?";
            if ((region_map[r][k] = st_strtab_ref(&regions, rn)) == UINT32_MAX)
                goto oom_events;
            /* the first archive that defines a region gives its role */
            uint32_t u = region_map[r][k];
            if (u >= nroles) {
                uint32_t cap = regions.cap ? regions.cap : u + 1;
                uint8_t *nr = realloc(roles, cap);
                if (!nr)
                    goto oom_events;
                memset(nr + nroles, 0, cap - nroles);
                roles = nr;
                nroles = cap;
            }
            if (roles[u] == OTF2_REGION_ROLE_UNKNOWN)
                roles[u] = k < rk->nregion_roles && rk->region_roles[k] != OTF2_REGION_ROLE_UNKNOWN
                           ? rk->region_roles[k] : fallback_role(rn);
        }
        if (par && !par->mine[r])
            continue;   /* another process writes its events */
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, ow_location_id(rk));
        OTF2_AttributeList *attrs = OTF2_AttributeList_New();
        if (!w || !attrs) {
            OTF2_AttributeList_Delete(attrs);
            goto oom_events;
        }
        const uint32_t *cm = match->rank_comm[r];
        rt_time_reader_free(&tr);
        rt_time_reader_init(&tr, rk);
        struct ts_cursor tc;   /* the location's true times, in order */
        ts_cursor_init(&tc, truth, r);
        for (uint64_t i = 0; i < rk->nevents; i++) {
            /* set aside: brought back chunk by chunk */
            int held = rk->events && i >= rk->events_from && i < rk->events_from + rk->nheld;
            if (!held && hooks->load && hooks->load(hooks->ctx, r, i, err, errlen) != 0) {
                ok = 0;
                break;
            }
            const struct rt_event ev = rt_event_at(rk, i), *e = &ev;
            uint64_t t = gt_read(gtime, r, &tr, i);
            if (t > last_time)
                last_time = t;
            OTF2_AttributeList *a = NULL;
            uint64_t tt = ts_has(truth, r) ? ts_cursor_get(&tc, i) : TS_UNKNOWN;
            if (tt != TS_UNKNOWN) {
                CHECK(OTF2_AttributeList_AddUint64(attrs, RF_ATTR_TRUE_TIME, tt));
                a = attrs;
            }
            uint32_t comm = e->ref < rk->ncomms ? cm[e->ref] : OTF2_UNDEFINED_COMM;
            if (e->kind == RT_COLL_END || e->kind == RT_NBC_COMPLETE) {
                /* a sparse member's sources, as the tracer wrote them (rawformat.h) */
                uint32_t nslots;
                const uint64_t *bits = rt_sources_of(rk, i, &nslots);
                if (nslots) {
                    uint32_t words = bits ? (nslots + 63) / 64 : 0;
                    CHECK(OTF2_AttributeList_AddUint32(attrs, src_slots, nslots));
                    for (uint32_t k = 0; k < words && k < pre_words; k++)
                        if (bits[k])
                            CHECK(OTF2_AttributeList_AddUint64(attrs, src_bits + k, bits[k]));
                    a = attrs;
                }
            }
            switch (e->kind) {
            case RT_ENTER:
                if (e->bytes > 1) {   /* polling calls recorded as one region, as the tracer wrote them */
                    CHECK(OTF2_AttributeList_AddUint64(attrs, freed + 3, e->bytes));
                    a = attrs;
                }
                CHECK(OTF2_EvtWriter_Enter(w, a, t, region_map[r][e->ref < rk->nregions ? e->ref : 0]));
                break;
            case RT_LEAVE:
                CHECK(OTF2_EvtWriter_Leave(w, a, t, region_map[r][e->ref < rk->nregions ? e->ref : 0]));
                break;
            case RT_SEND: CHECK(OTF2_EvtWriter_MpiSend(w, a, t, e->peer, comm, e->tag, e->bytes)); break;
            case RT_ISEND: CHECK(OTF2_EvtWriter_MpiIsend(w, a, t, e->peer, comm, e->tag, e->bytes, e->req)); break;
            case RT_ISEND_COMPLETE: CHECK(OTF2_EvtWriter_MpiIsendComplete(w, a, t, e->req)); break;
            case RT_IRECV_REQUEST: CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, a, t, e->req)); break;
            case RT_RECV: CHECK(OTF2_EvtWriter_MpiRecv(w, a, t, e->peer, comm, e->tag, e->bytes)); break;
            case RT_IRECV: CHECK(OTF2_EvtWriter_MpiIrecv(w, a, t, e->peer, comm, e->tag, e->bytes, e->req)); break;
            case RT_CANCELLED: CHECK(OTF2_EvtWriter_MpiRequestCancelled(w, a, t, e->req)); break;
            case RT_IRECV_FREED:   /* as the tracer records it, on the merged communicator */
                CHECK(OTF2_AttributeList_AddCommRef(attrs, freed, comm));
                CHECK(OTF2_AttributeList_AddInt32(attrs, freed + 1, e->peer == RT_ANY ? -1 : (int32_t)e->peer));
                CHECK(OTF2_AttributeList_AddInt32(attrs, freed + 2, e->tag == RT_ANY ? -1 : (int32_t)e->tag));
                CHECK(OTF2_EvtWriter_MpiRequestTest(w, attrs, t, e->req));
                break;
            case RT_COLL_BEGIN: CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w, a, t)); break;
            case RT_COLL_END:
                CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w, a, t, e->tag, comm, e->peer, e->bytes, e->received));
                break;
            case RT_NBC_REQUEST: CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, a, t, e->req)); break;
            case RT_NBC_COMPLETE:
                CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(w, a, t, e->tag, comm, e->peer, e->bytes,
                                                                   e->received, e->req));
                break;
            case RT_RMA: {
                uint32_t win = e->ref < rk->nwins ? win_map[r][e->ref] : OTF2_UNDEFINED_RMA_WIN;
                if (e->tag != RT_RMA_COLL_BEGIN && win == OTF2_UNDEFINED_RMA_WIN)
                    break;   /* a window the archive does not define (a recovered rank) */
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
                case RT_RMA_OP_COMPLETE_NON_BLOCKING:
                    CHECK(OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, a, t, win, e->req));
                    break;
                case RT_RMA_REQUEST_LOCK:
                    CHECK(OTF2_EvtWriter_RmaRequestLock(w, a, t, win, e->peer, e->req, (OTF2_LockType)e->bytes));
                    break;
                case RT_RMA_RELEASE_LOCK: CHECK(OTF2_EvtWriter_RmaReleaseLock(w, a, t, win, e->peer, e->req)); break;
                case RT_RMA_SYNC: CHECK(OTF2_EvtWriter_RmaSync(w, a, t, win, e->peer, (OTF2_RmaSyncType)e->bytes)); break;
                default: break;
                }
                break;
            }
            /* on the merged communicator, flagged when every member saw it created */
            case RT_COMM_CREATE: CHECK(OTF2_EvtWriter_CommCreate(w, a, t, comm)); break;
            case RT_COMM_DESTROY: CHECK(OTF2_EvtWriter_CommDestroy(w, a, t, comm)); break;
            case RT_FLUSH: {
                /* the stop time moves with the rank's clock like any other */
                uint64_t stop = i + 1 < rk->nevents ? gt_read(gtime, r, &tr, i + 1) : t;
                CHECK(OTF2_EvtWriter_BufferFlush(w, a, t, stop > t ? stop : t));
                break;
            }
            default:
                break;
            }
            if (a)
                CHECK(OTF2_AttributeList_RemoveAllAttributes(attrs));
            if (failed != OTF2_SUCCESS)
                break;
        }
        OTF2_AttributeList_Delete(attrs);
        if ((OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS || failed != OTF2_SUCCESS) && ok) {
            snprintf(err, errlen, "%s/%s: cannot write the events of rank %d", dir, name, rk->rank);
            ok = 0;
        }
        if (ok && hooks->written)
            hooks->written(hooks->ctx, r);
    }
    goto events_written;
oom_events:
    snprintf(err, errlen, "%s/%s: out of memory while writing the merged archive", dir, name);
    ok = 0;
events_written:;
    /* Processes outside the trace (outside.c): a location each, without
     * events, after the trace's ranks (their ids are their ranks). */
    uint32_t nmain = 0;
    for (uint32_t r = 0; r < nranks; r++)
        nmain += !ranks[r].thread;
    const uint32_t noutside = match->outside ? match->outside->n : 0;
    for (uint32_t k = 0; k < noutside && failed == OTF2_SUCCESS && ok && (!par || par->primary); k++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)nmain + k);
        if (!w || OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS)
            failed = OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    CHECK(OTF2_Archive_CloseEvtFiles(ar));
    if (ok && failed != OTF2_SUCCESS)
        snprintf(err, errlen, "%s/%s: cannot write the events (%s)", dir, name, OTF2_Error_GetDescription(failed));
    if (!all_agree(par, ok && failed == OTF2_SUCCESS)) {
        if (ok && failed == OTF2_SUCCESS)
            snprintf(err, errlen, "%s/%s: another process could not write its events", dir, name);
        goto done;
    }
    /* Readers open every location's local definitions: write them (empty). */
    CHECK(OTF2_Archive_OpenDefFiles(ar));
    for (uint32_t r = 0; r < nranks + noutside && failed == OTF2_SUCCESS; r++) {
        if (par && (r < nranks ? !par->mine[r] : !par->primary))
            continue;
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, r < nranks ? ow_location_id(&ranks[r])
                                                                       : (uint64_t)nmain + (r - nranks));
        if (!dw)
            failed = OTF2_ERROR_MEM_ALLOC_FAILED;
        else
            CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(ar));
    if (!all_agree(par, failed == OTF2_SUCCESS)) {
        snprintf(err, errlen, "%s/%s: cannot write the local definitions", dir, name);
        goto done;
    }
    if (par) {   /* the clock's end over every process's events; the global definitions are process 0's */
        last_time = par->max_u64(last_time);
        if (!par->primary) {
            rc = 0;
            goto done;
        }
    }

    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!gd)
        goto oom;
    /* strings first: fixed ones, regions, hosts, ranks, communicators */
    uint32_t s_machine = st_strtab_ref(&strings, RF_SYSTEM_TREE_ROOT);
    uint32_t s_node = st_strtab_ref(&strings, RF_SYSTEM_TREE_NODE);
    uint32_t s_empty = st_strtab_ref(&strings, ""), s_world = st_strtab_ref(&strings, RF_GROUP_WORLD_NAME);
    uint32_t s_true = st_strtab_ref(&strings, RF_ATTR_TRUE_TIME_NAME);
    uint32_t s_true_desc = st_strtab_ref(&strings, "undistorted time of the event in ns (SYNCTRACE_SKEW)");
    uint32_t s_slots = st_strtab_ref(&strings, RF_ATTR_SOURCES_SLOTS_NAME);
    uint32_t s_slots_desc = st_strtab_ref(&strings, RF_ATTR_SOURCES_SLOTS_DESC);
    uint32_t s_bits_desc = st_strtab_ref(&strings, RF_ATTR_SOURCES_BITS_DESC);
    uint32_t s_freed[3] = { st_strtab_ref(&strings, RF_ATTR_FREED_RECEIVE_COMM_NAME),
                            st_strtab_ref(&strings, RF_ATTR_FREED_RECEIVE_SOURCE_NAME),
                            st_strtab_ref(&strings, RF_ATTR_FREED_RECEIVE_TAG_NAME) };
    uint32_t s_freed_desc = st_strtab_ref(&strings, RF_ATTR_FREED_RECEIVE_DESC);
    uint32_t s_calls = st_strtab_ref(&strings, RF_ATTR_COLLAPSED_CALLS_NAME);
    uint32_t s_calls_desc = st_strtab_ref(&strings, RF_ATTR_COLLAPSED_CALLS_DESC);
    uint32_t *source_str = malloc(sizeof *source_str * (pre_words ? pre_words : 1));
    if (!source_str)
        goto oom;
    for (uint32_t k = 0; k < pre_words; k++) {
        char buf[32];
        snprintf(buf, sizeof buf, RF_ATTR_SOURCES_BITS_FMT, k);
        source_str[k] = st_strtab_ref(&strings, buf);
    }
    /* as Score-P: MPI regions in the file "MPI", the paradigm's name templates */
    uint32_t s_mpi = st_strtab_ref(&strings, "MPI");
    uint32_t s_comm_template = st_strtab_ref(&strings, "Comm ${id}");
    uint32_t s_win_template = st_strtab_ref(&strings, "Win ${id}");
    uint32_t *region_str = malloc(sizeof *region_str * (regions.n ? regions.n : 1));
    uint32_t *host_str = malloc(sizeof *host_str * (nranks ? nranks : 1));
    uint32_t *rank_str = malloc(sizeof *rank_str * (nranks ? nranks : 1));
    uint32_t *comm_str = malloc(sizeof *comm_str * (match->ncomms ? match->ncomms : 1));
    if (!region_str || !host_str || !rank_str || !comm_str) {
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(source_str);
        goto oom;
    }
    for (uint32_t k = 0; k < regions.n; k++)
        region_str[k] = st_strtab_ref(&strings, regions.v[k]);
    for (uint32_t r = 0; r < nranks; r++) {
        char buf[64];
        host_str[r] = st_strtab_ref(&strings, ranks[r].host ? ranks[r].host : "unknown");
        snprintf(buf, sizeof buf, RF_LOCATION_GROUP_FMT, ranks[r].rank);
        rank_str[r] = st_strtab_ref(&strings, buf);
    }
    for (uint32_t c = 0; c < match->ncomms; c++)
        comm_str[c] = st_strtab_ref(&strings, comm_display_name(match->comms[c].name));
    uint32_t *outside_str = malloc(sizeof *outside_str * (noutside ? noutside : 1));
    uint32_t s_outside_node = st_strtab_ref(&strings, RF_SYSTEM_TREE_OUTSIDE);
    for (uint32_t k = 0; outside_str && k < noutside; k++) {
        char buf[320];
        snprintf(buf, sizeof buf, RF_LOCATION_GROUP_OUTSIDE_FMT, match->outside->labels[k]);
        outside_str[k] = st_strtab_ref(&strings, buf);
    }
    if (!outside_str) {
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(source_str);
        goto oom;
    }
    uint32_t *win_str = malloc(sizeof *win_str * (nwins ? nwins : 1));
    for (uint32_t k = 0; win_str && k < nwins; k++)
        win_str[k] = st_strtab_ref(&strings, win_names[k]);
    /* a reference of UINT32_MAX would name no string */
    if (!win_str || cart_index_build(ranks, nranks, match, &carts) != 0
        || write_cart_topologies(NULL, ranks, match, &carts, &strings, &failed) != 0 || strings.failed) {
        free(win_str);
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(source_str);
        goto oom;
    }
    /* Locations are named as Score-P names them ("Master thread", then its
     * thread names), never as their process: viewers such as ViTE name a
     * row "<name>_<id>", and a location and its group share the id.
     * Interned last, so that the other strings keep their references. */
    uint32_t s_main_thread = st_strtab_ref(&strings, RF_MAIN_THREAD_NAME);
    uint32_t *thread_str = malloc(sizeof *thread_str * (nranks ? nranks : 1));
    for (uint32_t r = 0; thread_str && r < nranks; r++) {
        char buf[64];
        snprintf(buf, sizeof buf, RF_THREAD_NAME_FMT, ranks[r].thread);
        thread_str[r] = ranks[r].thread ? st_strtab_ref(&strings, buf) : s_main_thread;
    }
    if (!thread_str || strings.failed) {
        free(thread_str); free(win_str);
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(source_str);
        goto oom;
    }
    for (uint32_t k = 0; k < strings.n; k++)
        CHECK(OTF2_GlobalDefWriter_WriteString(gd, k, strings.v[k]));

    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(gd, 1000000000ULL, 0, last_time, OTF2_UNDEFINED_TIMESTAMP));
    CHECK(OTF2_GlobalDefWriter_WriteParadigm(gd, OTF2_PARADIGM_MPI, s_mpi, OTF2_PARADIGM_CLASS_PROCESS));
    OTF2_AttributeValue template;
    template.stringRef = s_comm_template;
    CHECK(OTF2_GlobalDefWriter_WriteParadigmProperty(gd, OTF2_PARADIGM_MPI, OTF2_PARADIGM_PROPERTY_COMM_NAME_TEMPLATE,
                                                     OTF2_TYPE_STRING, template));
    template.stringRef = s_win_template;
    CHECK(OTF2_GlobalDefWriter_WriteParadigmProperty(gd, OTF2_PARADIGM_MPI,
                                                     OTF2_PARADIGM_PROPERTY_RMA_WIN_NAME_TEMPLATE, OTF2_TYPE_STRING,
                                                     template));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, 0, s_machine, s_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    /* one node per distinct host, in order of first appearance */
    uint32_t *node_of = malloc(sizeof *node_of * (nranks ? nranks : 1));
    uint32_t nnodes = 0;
    if (!node_of) {
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(source_str);
        goto oom;
    }
    for (uint32_t r = 0; r < nranks; r++) {
        uint32_t q = 0;
        while (q < r && host_str[q] != host_str[r])
            q++;
        node_of[r] = q < r ? node_of[q] : ++nnodes;
        if (q == r)
            CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, node_of[r], host_str[r], s_node, 0));
    }
    /* the processes outside the trace: under a node of their own */
    if (noutside)
        CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, nnodes + 1, s_outside_node, s_node, 0));
    /* a process per rank (named by its main location), a location per thread */
    uint32_t nworld = 0;
    for (uint32_t r = 0; r < nranks; r++)
        if (!ranks[r].thread) {
            CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(gd, (uint32_t)ranks[r].rank, rank_str[r],
                                                          OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of[r],
                                                          OTF2_UNDEFINED_LOCATION_GROUP));
            nworld++;
        }
    for (uint32_t k = 0; k < noutside; k++)
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(gd, nworld + k, outside_str[k], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                      nnodes + 1, OTF2_UNDEFINED_LOCATION_GROUP));
    for (uint32_t r = 0; r < nranks; r++)
        CHECK(OTF2_GlobalDefWriter_WriteLocation(gd, ow_location_id(&ranks[r]), thread_str[r],
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, ranks[r].nevents, (uint32_t)ranks[r].rank));
    for (uint32_t k = 0; k < noutside; k++)
        CHECK(OTF2_GlobalDefWriter_WriteLocation(gd, (uint64_t)nworld + k, s_main_thread,
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, 0, nworld + k));
    free(outside_str);
    free(thread_str);
    nworld += noutside;   /* the processes MPI's communicators name: the trace's and the outside ones */
    for (uint32_t k = 0; k < regions.n; k++) {
        int mpi = strncmp(regions.v[k], "MPI_", 4) == 0;
        CHECK(OTF2_GlobalDefWriter_WriteRegion(gd, k, region_str[k], region_str[k], s_empty,
                                               k < nroles && roles[k] ? roles[k] : fallback_role(regions.v[k]),
                                               mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                               OTF2_REGION_FLAG_NONE, mpi ? s_mpi : s_empty, 0, 0));
    }
    if (any_truth)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_TRUE_TIME, s_true, s_true_desc, OTF2_TYPE_UINT64));
    if (pre_sources) {
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, src_slots, s_slots, s_slots_desc, OTF2_TYPE_UINT32));
        for (uint32_t k = 0; k < pre_words; k++)
            CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, src_bits + k, source_str[k], s_bits_desc,
                                                      OTF2_TYPE_UINT64));
    }
    free(source_str);
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, freed, s_freed[0], s_freed_desc, OTF2_TYPE_COMM));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, freed + 1, s_freed[1], s_freed_desc, OTF2_TYPE_INT32));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, freed + 2, s_freed[2], s_freed_desc, OTF2_TYPE_INT32));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, freed + 3, s_calls, s_calls_desc, OTF2_TYPE_UINT64));
    uint64_t *world = malloc(sizeof *world * (nworld ? nworld : 1));
    if (!world) {
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(node_of);
        goto oom;
    }
    for (uint32_t r = 0; r < nworld; r++)   /* MPI ranks are the main locations */
        world[r] = r;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_WORLD, s_world, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nworld, world));
    free(world);
    /* Every group before the first communicator, as OTF2's readers expect,
     * in ascending order. MPI_COMM_SELF is OTF2's COMM_SELF group (no
     * members: each location's own rank), as Score-P writes it; an
     * intercommunicator is an InterComm of its two groups, so that a peer
     * names a rank of the group its location is not in. */
    uint32_t next_group = RF_GROUP_WORLD + 1;
    for (uint32_t c = 0; c < match->ncomms; c++) {
        const struct mg_comm *mc = &match->comms[c];
        CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, next_group++, s_empty,
                                              mc->self ? OTF2_GROUP_TYPE_COMM_SELF : OTF2_GROUP_TYPE_COMM_GROUP,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, mc->self ? 0 : mc->size,
                                              mc->members));
        if (mc->inter)
            CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, next_group++, s_empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, mc->size_b, mc->members_b));
    }
    uint32_t *parent = comm_parents(ranks, nranks, match);
    life = comm_life_flags(ranks, nranks, match);
    if (!parent || !life) {
        free(parent);
        free(win_str);
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(node_of);
        goto oom;
    }
    for (uint32_t c = 0, g = RF_GROUP_WORLD + 1; c < match->ncomms; c++) {
        const struct mg_comm *mc = &match->comms[c];
        if (mc->inter) {
            CHECK(OTF2_GlobalDefWriter_WriteInterComm(gd, c, comm_str[c], g, g + 1, OTF2_UNDEFINED_COMM,
                                                      life[c] ? OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS
                                                              : OTF2_COMM_FLAG_NONE));
            g += 2;
        } else {
            CHECK(OTF2_GlobalDefWriter_WriteComm(gd, c, comm_str[c], g, parent[c],
                                                 life[c] ? OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS : OTF2_COMM_FLAG_NONE));
            g += 1;
        }
    }
    free(parent);
    if (write_cart_topologies(gd, ranks, match, &carts, &strings, &failed) != 0) {
        free(region_str); free(host_str); free(rank_str); free(comm_str); free(node_of); free(win_str);
        goto oom;
    }
    for (uint32_t k = 0; k < nwins; k++)
        CHECK(OTF2_GlobalDefWriter_WriteRmaWin(gd, k, win_str[k],
                                               win_comm[k] < match->ncomms ? win_comm[k] : OTF2_UNDEFINED_COMM,
                                               OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
    free(win_str);
    free(region_str); free(host_str); free(rank_str); free(comm_str); free(node_of);
    CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, gd));
#undef CHECK
    if (failed != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s/%s: cannot write the global definitions (%s)", dir, name,
                 OTF2_Error_GetDescription(failed));
        goto done;
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "%s/%s: out of memory while writing the merged archive", dir, name);
done:
    if (ar && OTF2_Archive_Close(ar) != OTF2_SUCCESS && rc == 0) {
        snprintf(err, errlen, "%s/%s.otf2: cannot complete the merged archive", dir, name);
        rc = -1;
    }
    rt_time_reader_free(&tr);
    om_pool_free(&chunks);   /* the archive has given its chunks back */
    st_strtab_free(&strings);
    st_strtab_free(&regions);
    cart_index_free(&carts);
    free(life);
    free(roles);
    free(win_names);
    free(win_comm);
    if (win_map)
        for (uint32_t r = 0; r < nranks; r++)
            free(win_map[r]);
    free(win_map);
    if (region_map)
        for (uint32_t r = 0; r < nranks; r++)
            free(region_map[r]);
    free(region_map);
    return rc;
}
