/* otf2out.c — see otf2out.h. Definitions are unified by name (regions,
 * hosts) or by the matcher's global ids (communicators); location ids stay
 * the world ranks. Times were made global by the caller. */
#include "otf2out.h"
#include "rawformat.h"
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

static OTF2_RegionRole role_of(const char *name)
{
    if (strncmp(name, "MPI_", 4) != 0)
        return OTF2_REGION_ROLE_ARTIFICIAL;
    static const char *const p2p[] = { "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Test",
                                       "MPI_Sendrecv", "MPI_Bsend", "MPI_Ssend", "MPI_Rsend", "MPI_Ibsend",
                                       "MPI_Issend", "MPI_Irsend", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe",
                                       "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv", "MPI_Start" };
    for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++)
        if (strncmp(name, p2p[i], strlen(p2p[i])) == 0)
            return OTF2_REGION_ROLE_POINT2POINT;
    if (strcmp(name, "MPI_Barrier") == 0)
        return OTF2_REGION_ROLE_BARRIER;
    if (strstr(name, "gather") || strstr(name, "reduce") || strstr(name, "scatter") || strstr(name, "bcast")
        || strstr(name, "alltoall") || strstr(name, "scan") || strstr(name, "Ibarrier"))
        return OTF2_REGION_ROLE_COLL_OTHER;
    if (strncmp(name, "MPI_File_", 9) == 0)
        return OTF2_REGION_ROLE_FILE_IO;
    return OTF2_REGION_ROLE_FUNCTION;
}

/* A location's id in the merged archive: the rank for its main thread,
 * thread << 32 | rank for the others. */
uint64_t ow_location_id(const struct rt_rank *r)
{
    return (uint64_t)r->thread << 32 | (uint32_t)r->rank;
}

int ow_write(const char *dir, const char *name, const struct rt_rank *ranks, uint32_t nranks,
             const struct mg_result *match, uint64_t *const *gtime, uint64_t *const *truth_ns,
             char *err, size_t errlen)
{
    struct st_strtab strings = { 0 };
    struct st_strtab regions = { 0 };        /* region names; ref = index */
    uint32_t **region_map = calloc(nranks ? nranks : 1, sizeof *region_map);
    int rc = -1;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar || !region_map) {
        snprintf(err, errlen, "%s/%s.otf2: cannot create the merged archive", dir, name);
        goto done;
    }
    /* Every OTF2 call's status: an archive with a record missing is no output. */
    OTF2_ErrorCode failed = OTF2_SUCCESS;
#define CHECK(call) do { OTF2_ErrorCode status_ = (call); if (status_ != OTF2_SUCCESS) failed = status_; } while (0)
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CHECK(OTF2_Archive_SetCreator(ar, "synctrace merge"));
    CHECK(OTF2_Archive_SetDescription(ar, "synchronised by synctrace: global time in ns, tachyon-free"));
    CHECK(OTF2_Archive_OpenEvtFiles(ar));
    if (failed != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s/%s.otf2: cannot set up the merged archive", dir, name);
        goto done;
    }

    int any_truth = 0;
    uint64_t last_time = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        const struct rt_rank *rk = &ranks[r];
        region_map[r] = malloc(sizeof **region_map * (rk->nregions ? rk->nregions : 1));
        if (!region_map[r])
            goto oom;
        for (uint32_t k = 0; k < rk->nregions; k++)
            if ((region_map[r][k] = st_strtab_ref(&regions, rk->regions[k] ? rk->regions[k] : "?")) == UINT32_MAX)
                goto oom;
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, ow_location_id(rk));
        OTF2_AttributeList *attrs = OTF2_AttributeList_New();
        if (!w || !attrs) {
            OTF2_AttributeList_Delete(attrs);
            goto oom;
        }
        const uint32_t *cm = match->rank_comm[r];
        for (uint64_t i = 0; i < rk->nevents; i++) {
            const struct rt_event *e = &rk->events[i];
            uint64_t t = gtime[r][i];
            if (t > last_time)
                last_time = t;
            OTF2_AttributeList *a = NULL;
            if (truth_ns && truth_ns[r] && e->has_truth) {
                CHECK(OTF2_AttributeList_AddUint64(attrs, RF_ATTR_TRUE_TIME, truth_ns[r][i]));
                a = attrs;
                any_truth = 1;
            }
            uint32_t comm = e->ref < rk->ncomms ? cm[e->ref] : OTF2_UNDEFINED_COMM;
            switch (e->kind) {
            case RT_ENTER:
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
            case RT_COLL_BEGIN: CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w, a, t)); break;
            case RT_COLL_END:
                CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w, a, t, e->tag, comm, e->peer, e->bytes, e->received));
                break;
            case RT_NBC_REQUEST: CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(w, a, t, e->req)); break;
            case RT_NBC_COMPLETE:
                CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(w, a, t, e->tag, comm, e->peer, e->bytes,
                                                                   e->received, e->req));
                break;
            case RT_FLUSH: {
                /* the stop time moves with the rank's clock like any other */
                uint64_t stop = i + 1 < rk->nevents ? gtime[r][i + 1] : t;
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
        if (OTF2_Archive_CloseEvtWriter(ar, w) != OTF2_SUCCESS || failed != OTF2_SUCCESS) {
            snprintf(err, errlen, "%s/%s: cannot write the events of rank %d", dir, name, rk->rank);
            goto done;
        }
    }
    CHECK(OTF2_Archive_CloseEvtFiles(ar));
    /* Readers open every location's local definitions: write them (empty). */
    CHECK(OTF2_Archive_OpenDefFiles(ar));
    for (uint32_t r = 0; r < nranks && failed == OTF2_SUCCESS; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, ow_location_id(&ranks[r]));
        if (!dw)
            failed = OTF2_ERROR_MEM_ALLOC_FAILED;
        else
            CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(ar));
    if (failed != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s/%s: cannot write the local definitions", dir, name);
        goto done;
    }

    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!gd)
        goto oom;
    /* strings first: fixed ones, regions, hosts, ranks, communicators */
    uint32_t s_machine = st_strtab_ref(&strings, RF_SYSTEM_TREE_ROOT), s_node = st_strtab_ref(&strings, RF_SYSTEM_TREE_NODE);
    uint32_t s_empty = st_strtab_ref(&strings, ""), s_world = st_strtab_ref(&strings, RF_GROUP_WORLD_NAME);
    uint32_t s_true = st_strtab_ref(&strings, RF_ATTR_TRUE_TIME_NAME);
    uint32_t s_true_desc = st_strtab_ref(&strings, "undistorted time of the event in ns (SYNCTRACE_SKEW)");
    uint32_t *region_str = malloc(sizeof *region_str * (regions.n ? regions.n : 1));
    uint32_t *host_str = malloc(sizeof *host_str * (nranks ? nranks : 1));
    uint32_t *rank_str = malloc(sizeof *rank_str * (nranks ? nranks : 1));
    uint32_t *comm_str = malloc(sizeof *comm_str * (match->ncomms ? match->ncomms : 1));
    if (!region_str || !host_str || !rank_str || !comm_str) {
        free(region_str); free(host_str); free(rank_str); free(comm_str);
        goto oom;
    }
    for (uint32_t k = 0; k < regions.n; k++)
        region_str[k] = st_strtab_ref(&strings, regions.v[k]);
    for (uint32_t r = 0; r < nranks; r++) {
        char buf[64];
        host_str[r] = st_strtab_ref(&strings, ranks[r].host ? ranks[r].host : "unknown");
        if (ranks[r].thread)
            snprintf(buf, sizeof buf, RF_LOCATION_GROUP_FMT " thread %u", ranks[r].rank, ranks[r].thread);
        else
            snprintf(buf, sizeof buf, RF_LOCATION_GROUP_FMT, ranks[r].rank);
        rank_str[r] = st_strtab_ref(&strings, buf);
    }
    for (uint32_t c = 0; c < match->ncomms; c++)
        comm_str[c] = st_strtab_ref(&strings, match->comms[c].name);
    if (strings.failed) {   /* a reference of UINT32_MAX would name no string */
        free(region_str); free(host_str); free(rank_str); free(comm_str);
        goto oom;
    }
    for (uint32_t k = 0; k < strings.n; k++)
        CHECK(OTF2_GlobalDefWriter_WriteString(gd, k, strings.v[k]));

    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(gd, 1000000000ULL, 0, last_time, OTF2_UNDEFINED_TIMESTAMP));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, 0, s_machine, s_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    /* one node per distinct host, in order of first appearance */
    uint32_t *node_of = malloc(sizeof *node_of * (nranks ? nranks : 1));
    uint32_t nnodes = 0;
    if (!node_of) {
        free(region_str); free(host_str); free(rank_str); free(comm_str);
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
    /* a process per rank (named by its main location), a location per thread */
    uint32_t nworld = 0;
    for (uint32_t r = 0; r < nranks; r++)
        if (!ranks[r].thread) {
            CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(gd, (uint32_t)ranks[r].rank, rank_str[r],
                                                          OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of[r],
                                                          OTF2_UNDEFINED_LOCATION_GROUP));
            nworld++;
        }
    for (uint32_t r = 0; r < nranks; r++)
        CHECK(OTF2_GlobalDefWriter_WriteLocation(gd, ow_location_id(&ranks[r]), rank_str[r],
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, ranks[r].nevents, (uint32_t)ranks[r].rank));
    for (uint32_t k = 0; k < regions.n; k++)
        CHECK(OTF2_GlobalDefWriter_WriteRegion(gd, k, region_str[k], region_str[k], s_empty, role_of(regions.v[k]),
                                               strncmp(regions.v[k], "MPI_", 4) == 0 ? OTF2_PARADIGM_MPI
                                                                                      : OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                               OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
    if (any_truth)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, 0, s_true, s_true_desc, OTF2_TYPE_UINT64));
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
    for (uint32_t c = 0; c < match->ncomms; c++) {
        const struct mg_comm *mc = &match->comms[c];
        CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_OF_COMM(c), comm_str[c], OTF2_GROUP_TYPE_COMM_GROUP,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, mc->size, mc->members));
        CHECK(OTF2_GlobalDefWriter_WriteComm(gd, c, comm_str[c], RF_GROUP_OF_COMM(c), OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE));
    }
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
    st_strtab_free(&strings);
    st_strtab_free(&regions);
    if (region_map)
        for (uint32_t r = 0; r < nranks; r++)
            free(region_map[r]);
    free(region_map);
    return rc;
}
