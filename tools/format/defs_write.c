/* defs_write.c — see defs_write.h. */
#include "defs_write.h"
#include "rawformat.h"
#include "table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t rf_defs_string(struct rf_defs *d, const char *s)
{
    return st_strtab_ref(&d->strings, s);
}

uint32_t rf_defs_set_comm(struct rf_defs *d, uint32_t ref, const char *name, uint32_t n, uint64_t *members)
{
    while (ref >= d->comms_cap)
        if (st_grow((void **)&d->comms, &d->comms_cap, sizeof *d->comms) != 0)
            goto fail;
    for (; d->ncomms <= ref; d->ncomms++)
        memset(&d->comms[d->ncomms], 0, sizeof *d->comms);
    struct rf_comm_def *c = &d->comms[ref];
    uint32_t s = rf_defs_string(d, name);
    if (s == OTF2_UNDEFINED_STRING)
        goto fail;
    free(c->members);
    free(c->in);
    memset(c, 0, sizeof *c);
    c->set = 1;
    c->name = s;
    c->nmembers = n;
    c->members = members;
    return ref;
fail:
    d->strings.failed = 1;
    free(members);
    return OTF2_UNDEFINED_COMM;
}

uint32_t rf_defs_add_comm(struct rf_defs *d, const char *name, uint32_t n, uint64_t *members)
{
    return rf_defs_set_comm(d, d->ncomms, name, n, members);
}

int rf_defs_comm_neighbours(struct rf_defs *d, uint32_t comm, uint32_t n, uint64_t *in)
{
    char name[64];
    snprintf(name, sizeof name, RF_IN_NEIGHBOURS_FMT, comm);
    uint32_t s = comm < d->ncomms && d->comms[comm].set ? rf_defs_string(d, name) : OTF2_UNDEFINED_STRING;
    if (s == OTF2_UNDEFINED_STRING) {
        free(in);
        return -1;
    }
    struct rf_comm_def *c = &d->comms[comm];
    free(c->in);
    c->in = in;
    c->nin = n;
    c->in_name = s;
    c->has_in = 1;
    return 0;
}

void rf_defs_free(struct rf_defs *d)
{
    st_strtab_free(&d->strings);
    for (uint32_t c = 0; c < d->ncomms; c++) {
        free(d->comms[c].members);
        free(d->comms[c].in);
    }
    free(d->comms);
    memset(d, 0, sizeof *d);
}

#define CHECK(call) do { if ((call) != OTF2_SUCCESS) ok = 0; } while (0)

int rf_defs_write(OTF2_GlobalDefWriter *gd, struct rf_defs *d, const struct rf_rank_defs *r)
{
    int ok = 1;
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(gd, r->resolution, r->global_offset, r->trace_length,
                                                    OTF2_UNDEFINED_TIMESTAMP));
    char buf[64];
    uint32_t s_machine = rf_defs_string(d, RF_SYSTEM_TREE_ROOT);
    uint32_t s_node = rf_defs_string(d, RF_SYSTEM_TREE_NODE);
    uint32_t s_host = rf_defs_string(d, r->host);
    snprintf(buf, sizeof buf, RF_LOCATION_GROUP_FMT, r->rank);
    uint32_t s_rank = rf_defs_string(d, buf);
    uint32_t s_thread = rf_defs_string(d, RF_MAIN_THREAD_NAME);
    for (uint32_t k = 0; k < r->nlocs; k++)
        if (r->locs[k].thread) {
            snprintf(buf, sizeof buf, RF_THREAD_NAME_FMT, r->locs[k].thread);
            rf_defs_string(d, buf);
        }
    uint32_t s_empty = rf_defs_string(d, "");
    uint32_t s_true = rf_defs_string(d, RF_ATTR_TRUE_TIME_NAME);
    uint32_t s_true_desc = rf_defs_string(d, RF_ATTR_TRUE_TIME_DESC);
    uint32_t s_world = rf_defs_string(d, RF_GROUP_WORLD_NAME);
    for (uint32_t k = 0; k < r->nregions; k++)
        rf_defs_string(d, r->regions[k].name);
    /* Every string must be defined before the records that use it. */
    for (uint32_t i = 0; i < d->strings.n; i++)
        CHECK(OTF2_GlobalDefWriter_WriteString(gd, i, d->strings.v[i]));
    if (d->strings.failed)
        return -1;

    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, 0, s_machine, s_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, 1, s_host, s_node, 0));
    CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(gd, 0, s_rank, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                  OTF2_UNDEFINED_LOCATION_GROUP));
    for (uint32_t k = 0; k < r->nlocs; k++) {
        const struct rf_location *l = &r->locs[k];
        uint32_t name = s_thread;
        if (l->thread) {
            snprintf(buf, sizeof buf, RF_THREAD_NAME_FMT, l->thread);
            name = rf_defs_string(d, buf);
        }
        CHECK(OTF2_GlobalDefWriter_WriteLocation(gd, l->id, name, OTF2_LOCATION_TYPE_CPU_THREAD, l->nevents, 0));
    }
    for (uint32_t k = 0; k < r->nregions; k++) {
        uint32_t name = rf_defs_string(d, r->regions[k].name);
        CHECK(OTF2_GlobalDefWriter_WriteRegion(gd, k, name, name, s_empty, r->regions[k].role, r->regions[k].paradigm,
                                               OTF2_REGION_FLAG_NONE, s_empty, 0, 0));
    }
    if (r->true_time)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_TRUE_TIME, s_true, s_true_desc, OTF2_TYPE_UINT64));

    /* Location ids are world ranks (unique across the run's archives): a
     * communicator's member i is world rank members[i], whose location id
     * is that rank. */
    uint64_t *world = malloc(sizeof *world * (size_t)(r->world_size > 0 ? r->world_size : 1));
    if (world) {
        for (int i = 0; i < r->world_size; i++)
            world[i] = (uint64_t)i;
        CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_WORLD, s_world, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, (uint32_t)r->world_size, world));
        free(world);
    } else {
        ok = 0;
    }
    for (uint32_t c = 0; c < d->ncomms; c++) {
        const struct rf_comm_def *cd = &d->comms[c];
        if (!cd->set)
            continue;
        CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_OF_COMM(c), cd->name, OTF2_GROUP_TYPE_COMM_GROUP,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, cd->nmembers, cd->members));
        CHECK(OTF2_GlobalDefWriter_WriteComm(gd, c, cd->name, RF_GROUP_OF_COMM(c), OTF2_UNDEFINED_COMM,
                                             OTF2_COMM_FLAG_NONE));
    }
    for (uint32_t c = 0; c < d->ncomms; c++) {
        const struct rf_comm_def *cd = &d->comms[c];
        if (cd->set && cd->has_in)
            CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_IN_NEIGHBOURS(d->ncomms, c), cd->in_name,
                                                  OTF2_GROUP_TYPE_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                  cd->nin, cd->in));
    }
    return ok && !d->strings.failed ? 0 : -1;
}

int rf_defs_write_clock_offsets(OTF2_Archive *ar, const struct rf_location *locs, uint32_t nlocs,
                                const struct rf_clock_offset *offsets, uint32_t noffsets)
{
    if (OTF2_Archive_OpenDefFiles(ar) != OTF2_SUCCESS)
        return -1;
    int ok = 1;
    for (uint32_t k = 0; k < nlocs; k++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, locs[k].id);
        if (!dw) {
            ok = 0;
            continue;
        }
        for (uint32_t i = 0; i < noffsets; i++)
            CHECK(OTF2_DefWriter_WriteClockOffset(dw, offsets[i].time, offsets[i].offset, offsets[i].stddev));
        CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(ar));
    return ok ? 0 : -1;
}
