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

static uint64_t members_hash(int self, uint32_t n, const uint64_t *members)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)self;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ members[i]) * 1099511628211ULL;
    return h ^ (h >> 29) ^ (uint64_t)n;
}

static int same_members(const struct rf_group_def *g, int self, uint32_t n, const uint64_t *members)
{
    return g->self == self && g->n == n && (n == 0 || memcmp(g->members, members, sizeof *members * n) == 0);
}

/* Keep the group hash at most half full. */
static int group_rehash(struct rf_defs *d)
{
    uint32_t ns = d->ngroup_slots ? d->ngroup_slots * 2 : 64;
    if (ns == 0)
        return -1;
    uint32_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t g = 0; g < d->ngroups; g++) {
        uint32_t k = (uint32_t)(d->groups[g].hash & (ns - 1));
        while (slots[k])
            k = (k + 1) & (ns - 1);
        slots[k] = g + 1;
    }
    free(d->group_slots);
    d->group_slots = slots;
    d->ngroup_slots = ns;
    return 0;
}

uint32_t rf_defs_group(struct rf_defs *d, int self, uint32_t n, const uint64_t *members, int *added)
{
    *added = 0;
    self = self != 0;
    if (self)
        n = 0;
    if ((d->ngroups + 1) * 2 > d->ngroup_slots && group_rehash(d) != 0)
        goto fail;
    uint64_t h = members_hash(self, n, members);
    uint32_t k = (uint32_t)(h & (d->ngroup_slots - 1));
    for (; d->group_slots[k]; k = (k + 1) & (d->ngroup_slots - 1)) {
        const struct rf_group_def *g = &d->groups[d->group_slots[k] - 1];
        if (g->hash == h && same_members(g, self, n, members))
            return d->group_slots[k] - 1;
    }
    if (d->ngroups == d->groups_cap && st_grow((void **)&d->groups, &d->groups_cap, sizeof *d->groups) != 0)
        goto fail;
    struct rf_group_def *g = &d->groups[d->ngroups];
    if (!(g->members = malloc(sizeof *members * (n ? n : 1))))
        goto fail;
    if (n)
        memcpy(g->members, members, sizeof *members * n);
    g->hash = h;
    g->n = n;
    g->self = self;
    d->group_slots[k] = d->ngroups + 1;
    *added = 1;
    return d->ngroups++;
fail:
    d->strings.failed = 1;
    return UINT32_MAX;
}

uint32_t rf_defs_set_comm(struct rf_defs *d, uint32_t ref, const struct rf_comm_desc *desc)
{
    if (ref == OTF2_UNDEFINED_COMM || desc->local >= d->ngroups || (desc->inter && desc->remote >= d->ngroups))
        return OTF2_UNDEFINED_COMM;
    while (ref >= d->comms_cap)
        if (st_grow((void **)&d->comms, &d->comms_cap, sizeof *d->comms) != 0)
            goto fail;
    for (; d->ncomms <= ref; d->ncomms++)
        memset(&d->comms[d->ncomms], 0, sizeof *d->comms);
    struct rf_comm_def *c = &d->comms[ref];
    uint32_t s = rf_defs_string(d, desc->name ? desc->name : "");
    if (s == OTF2_UNDEFINED_STRING)
        goto fail;
    free(c->in);
    free(c->cart_sizes);
    free(c->cart_periodic);
    free(c->cart_coords);
    memset(c, 0, sizeof *c);
    c->set = 1;
    c->parent = OTF2_UNDEFINED_COMM;
    c->name = s;
    c->has_key = desc->has_key != 0;
    c->key = desc->key;
    c->inter = desc->inter != 0;
    c->local = desc->local;
    c->remote = c->inter ? desc->remote : 0;
    return ref;
fail:
    d->strings.failed = 1;
    return OTF2_UNDEFINED_COMM;
}

uint32_t rf_defs_add_comm(struct rf_defs *d, const struct rf_comm_desc *desc)
{
    return rf_defs_set_comm(d, d->ncomms, desc);
}

uint32_t rf_defs_add_plain_comm(struct rf_defs *d, const char *name, uint32_t n, const uint64_t *members)
{
    int added;
    struct rf_comm_desc desc = { .name = name, .local = rf_defs_group(d, 0, n, members, &added) };
    if (desc.local == UINT32_MAX)
        return OTF2_UNDEFINED_COMM;
    return rf_defs_add_comm(d, &desc);
}

int rf_defs_comm_name(struct rf_defs *d, uint32_t comm, const char *name)
{
    uint32_t s = comm < d->ncomms && d->comms[comm].set && name ? rf_defs_string(d, name) : OTF2_UNDEFINED_STRING;
    if (s == OTF2_UNDEFINED_STRING)
        return -1;
    d->comms[comm].name = s;
    return 0;
}

int rf_defs_comm_neighbours(struct rf_defs *d, uint32_t comm, uint32_t n, uint64_t *in)
{
    if (comm >= d->ncomms || !d->comms[comm].set) {
        free(in);
        return -1;
    }
    struct rf_comm_def *c = &d->comms[comm];
    free(c->in);
    c->in = in;
    c->nin = n;
    c->has_in = 1;
    return 0;
}

int rf_defs_comm_parent(struct rf_defs *d, uint32_t comm, uint32_t parent)
{
    if (comm >= d->ncomms || parent >= d->ncomms || parent == comm || !d->comms[comm].set || !d->comms[parent].set
        || d->comms[comm].inter)
        return -1;   /* an intercommunicator's two sides have different local parents */
    d->comms[comm].parent = parent;
    return 0;
}

int rf_defs_comm_events(struct rf_defs *d, uint32_t comm)
{
    if (comm >= d->ncomms || !d->comms[comm].set)
        return -1;
    d->comms[comm].events = 1;
    return 0;
}

/* Score-P's name of a topology: "MPI_Cartesian_2x2". */
static void cart_name(char *name, size_t len, uint32_t ndims, const uint32_t *sizes)
{
    size_t k = (size_t)snprintf(name, len, RF_CART_TOPOLOGY_PREFIX);
    for (uint32_t q = 0; q < ndims && k < len; q++)
        k += (size_t)snprintf(name + k, len - k, "%s%u", q ? "x" : "_", sizes[q]);
}

int rf_defs_comm_cart(struct rf_defs *d, uint32_t comm, uint32_t ndims, const uint32_t *sizes,
                      const uint8_t *periodic, const uint32_t *coords, uint32_t rank)
{
    if (comm >= d->ncomms || !d->comms[comm].set || ndims == 0 || ndims > RF_CART_MAX_DIMS)
        return -1;
    uint32_t *sz = malloc(sizeof *sz * ndims);
    uint8_t *per = malloc(ndims);
    uint32_t *co = malloc(sizeof *co * ndims);
    if (!sz || !per || !co) {
        free(sz);
        free(per);
        free(co);
        return -1;
    }
    memcpy(sz, sizes, sizeof *sz * ndims);
    memcpy(co, coords, sizeof *co * ndims);
    for (uint32_t q = 0; q < ndims; q++)
        per[q] = periodic[q] != 0;
    struct rf_comm_def *c = &d->comms[comm];
    free(c->cart_sizes);
    free(c->cart_periodic);
    free(c->cart_coords);
    c->cart_sizes = sz;
    c->cart_periodic = per;
    c->cart_coords = co;
    c->cart_ndims = ndims;
    c->cart_rank = rank;
    char name[RF_CART_MAX_DIMS * 11 + 32];
    cart_name(name, sizeof name, ndims, sz);
    rf_defs_string(d, name);
    for (uint32_t q = 0; q < ndims; q++) {
        snprintf(name, sizeof name, RF_CART_DIMENSION_FMT, q);
        rf_defs_string(d, name);
    }
    return 0;
}

uint32_t rf_defs_set_window(struct rf_defs *d, uint32_t ref, uint32_t comm)
{
    while (ref >= d->wins_cap)
        if (st_grow((void **)&d->wins, &d->wins_cap, sizeof *d->wins) != 0)
            return OTF2_UNDEFINED_RMA_WIN;
    uint32_t s = rf_defs_string(d, "");
    if (s == OTF2_UNDEFINED_STRING)
        return OTF2_UNDEFINED_RMA_WIN;
    for (; d->nwins <= ref; d->nwins++)
        memset(&d->wins[d->nwins], 0, sizeof *d->wins);
    d->wins[ref] = (struct rf_win_def){ 1, comm, s };
    return ref;
}

uint32_t rf_defs_add_window(struct rf_defs *d, uint32_t comm)
{
    return rf_defs_set_window(d, d->nwins, comm);
}

int rf_defs_window_name(struct rf_defs *d, uint32_t win, const char *name)
{
    uint32_t s = win < d->nwins && d->wins[win].set ? rf_defs_string(d, name) : OTF2_UNDEFINED_STRING;
    if (s == OTF2_UNDEFINED_STRING)
        return -1;
    d->wins[win].name = s;
    return 0;
}

void rf_defs_free(struct rf_defs *d)
{
    st_strtab_free(&d->strings);
    for (uint32_t g = 0; g < d->ngroups; g++)
        free(d->groups[g].members);
    free(d->groups);
    free(d->group_slots);
    for (uint32_t c = 0; c < d->ncomms; c++) {
        free(d->comms[c].in);
        free(d->comms[c].cart_sizes);
        free(d->comms[c].cart_periodic);
        free(d->comms[c].cart_coords);
    }
    free(d->comms);
    free(d->wins);
    memset(d, 0, sizeof *d);
}

#define CHECK(call) do { if ((call) != OTF2_SUCCESS) ok = 0; } while (0)

/* Cartesian topologies as Score-P writes them: a CartDimension per
 * dimension, a CartTopology on the communicator, this rank's
 * CartCoordinate; dimensions first, then topologies, then coordinates,
 * each kind with dense ids. Their names are in the string table
 * (rf_defs_comm_cart). Returns 0, or -1. */
static int write_cart_topologies(OTF2_GlobalDefWriter *gd, struct rf_defs *d)
{
    int ok = 1;
    char name[RF_CART_MAX_DIMS * 11 + 32];
    uint32_t dim = 0;
    for (uint32_t c = 0; c < d->ncomms; c++)
        for (uint32_t q = 0; d->comms[c].set && q < d->comms[c].cart_ndims; q++) {
            snprintf(name, sizeof name, RF_CART_DIMENSION_FMT, q);
            CHECK(OTF2_GlobalDefWriter_WriteCartDimension(gd, dim++, rf_defs_string(d, name),
                                                          d->comms[c].cart_sizes[q],
                                                          d->comms[c].cart_periodic[q] ? OTF2_CART_PERIODIC_TRUE
                                                                                       : OTF2_CART_PERIODIC_FALSE));
        }
    uint32_t dims[RF_CART_MAX_DIMS];
    uint32_t topo = 0;
    dim = 0;
    for (uint32_t c = 0; c < d->ncomms; c++) {
        const struct rf_comm_def *cd = &d->comms[c];
        if (!cd->set || !cd->cart_ndims)
            continue;
        for (uint32_t q = 0; q < cd->cart_ndims; q++)
            dims[q] = dim + q;
        dim += cd->cart_ndims;
        cart_name(name, sizeof name, cd->cart_ndims, cd->cart_sizes);
        CHECK(OTF2_GlobalDefWriter_WriteCartTopology(gd, topo, rf_defs_string(d, name), c, (uint8_t)cd->cart_ndims,
                                                     dims));
        CHECK(OTF2_GlobalDefWriter_WriteCartCoordinate(gd, topo, cd->cart_rank, (uint8_t)cd->cart_ndims,
                                                       cd->cart_coords));
        topo++;
    }
    return ok ? 0 : -1;
}

static OTF2_CommFlag comm_flags(const struct rf_comm_def *c)
{
    return c->events ? OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS : OTF2_COMM_FLAG_NONE;
}

void rf_attr_layout(struct rf_attr_layout *l, int true_time)
{
    uint32_t n = 0;
    l->true_time = true_time ? n++ : OTF2_UNDEFINED_ATTRIBUTE;
    l->slots = n++;
    for (int k = 0; k < 3; k++)
        l->freed_receive[k] = n++;
    l->collapsed_calls = n++;
    l->sources = n;
}

static const char *const freed_name[3] = { RF_ATTR_FREED_RECEIVE_COMM_NAME, RF_ATTR_FREED_RECEIVE_SOURCE_NAME,
                                           RF_ATTR_FREED_RECEIVE_TAG_NAME };
static const OTF2_Type freed_type[3] = { OTF2_TYPE_COMM, OTF2_TYPE_INT32, OTF2_TYPE_INT32 };

/* The attributes' names and descriptions, into the string table before it
 * is written (the writers below only look them up). */
static void intern_attribute_strings(struct rf_defs *d, const struct rf_rank_defs *r)
{
    char buf[64];
    rf_defs_string(d, RF_ATTR_SOURCES_SLOTS_NAME);
    rf_defs_string(d, RF_ATTR_SOURCES_SLOTS_DESC);
    rf_defs_string(d, RF_ATTR_SOURCES_BITS_DESC);
    uint32_t n = r->world_attrs ? RF_SOURCE_WORDS(r->world_size) : r->nsource_words;
    for (uint32_t j = 0; j < n; j++) {
        snprintf(buf, sizeof buf, RF_ATTR_SOURCES_BITS_FMT, r->world_attrs ? j : r->source_words[j]);
        rf_defs_string(d, buf);
    }
    for (int k = 0; k < 3; k++)
        rf_defs_string(d, freed_name[k]);
    rf_defs_string(d, RF_ATTR_FREED_RECEIVE_DESC);
    rf_defs_string(d, RF_ATTR_COLLAPSED_CALLS_NAME);
    rf_defs_string(d, RF_ATTR_COLLAPSED_CALLS_DESC);
}

/* The attributes in the world-sized layout of older tracers (rawformat.h):
 * what a journal of format 1 describes. */
static int write_world_attributes(OTF2_GlobalDefWriter *gd, struct rf_defs *d, const struct rf_rank_defs *r)
{
    int ok = 1;
    char buf[64];
    uint32_t words = RF_SOURCE_WORDS(r->world_size);
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_SOURCES_SLOTS, rf_defs_string(d, RF_ATTR_SOURCES_SLOTS_NAME),
                                              rf_defs_string(d, RF_ATTR_SOURCES_SLOTS_DESC), OTF2_TYPE_UINT32));
    for (uint32_t k = 0; k < words; k++) {
        snprintf(buf, sizeof buf, RF_ATTR_SOURCES_BITS_FMT, k);
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_SOURCES_BITS + k, rf_defs_string(d, buf),
                                                  rf_defs_string(d, RF_ATTR_SOURCES_BITS_DESC), OTF2_TYPE_UINT64));
    }
    for (int k = 0; k < 3; k++)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_FREED_RECEIVE(r->world_size, k),
                                                  rf_defs_string(d, freed_name[k]),
                                                  rf_defs_string(d, RF_ATTR_FREED_RECEIVE_DESC), freed_type[k]));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_COLLAPSED_CALLS(r->world_size),
                                              rf_defs_string(d, RF_ATTR_COLLAPSED_CALLS_NAME),
                                              rf_defs_string(d, RF_ATTR_COLLAPSED_CALLS_DESC), OTF2_TYPE_UINT64));
    return ok;
}

/* The attributes in the dense layout (rf_attr_layout): only the source
 * words the events carry, so a rank that never was a sparse member of a
 * large group defines none (O(own), not O(world)). */
static int write_attributes(OTF2_GlobalDefWriter *gd, struct rf_defs *d, const struct rf_rank_defs *r)
{
    int ok = 1;
    char buf[64];
    struct rf_attr_layout l;
    rf_attr_layout(&l, r->true_time);
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, l.slots, rf_defs_string(d, RF_ATTR_SOURCES_SLOTS_NAME),
                                              rf_defs_string(d, RF_ATTR_SOURCES_SLOTS_DESC), OTF2_TYPE_UINT32));
    for (int k = 0; k < 3; k++)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, l.freed_receive[k], rf_defs_string(d, freed_name[k]),
                                                  rf_defs_string(d, RF_ATTR_FREED_RECEIVE_DESC), freed_type[k]));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, l.collapsed_calls, rf_defs_string(d, RF_ATTR_COLLAPSED_CALLS_NAME),
                                              rf_defs_string(d, RF_ATTR_COLLAPSED_CALLS_DESC), OTF2_TYPE_UINT64));
    for (uint32_t j = 0; j < r->nsource_words; j++) {
        snprintf(buf, sizeof buf, RF_ATTR_SOURCES_BITS_FMT, r->source_words[j]);
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, l.sources + j, rf_defs_string(d, buf),
                                                  rf_defs_string(d, RF_ATTR_SOURCES_BITS_DESC), OTF2_TYPE_UINT64));
    }
    return ok;
}

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
    uint32_t s_own_locations = rf_defs_string(d, RF_GROUP_OWN_LOCATIONS_NAME);
    uint32_t s_own = rf_defs_string(d, RF_GROUP_OWN_NAME);
    intern_attribute_strings(d, r);
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
    /* true_time is 0 in both layouts */
    if (r->true_time)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_TRUE_TIME, s_true, s_true_desc, OTF2_TYPE_UINT64));
    if (!(r->world_attrs ? write_world_attributes(gd, d, r) : write_attributes(gd, d, r)))
        ok = 0;

    /* Only this rank's own: the communicators' world-rank members, keys
     * and in-neighbours go to the membership file (rf_members_write), so
     * every location a group names is defined here and the definitions
     * cost the same whatever the world's size. The main location's id is
     * the rank; every communicator's group is that one member. */
    uint64_t own_location = (uint64_t)r->rank, own_rank = 0;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_OWN_LOCATIONS, s_own_locations, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 1, &own_location));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_OWN, s_own, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, 1, &own_rank));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_SELF, s_empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, 0, NULL));
    for (uint32_t c = 0; c < d->ncomms; c++) {
        const struct rf_comm_def *cd = &d->comms[c];
        if (!cd->set)
            continue;
        /* an intercommunicator too is a Comm here (its remote group is in
         * the membership file): OTF2 3.0's Python bindings cannot read
         * InterComm; its parent stays undefined (rf_defs_comm_parent) */
        CHECK(OTF2_GlobalDefWriter_WriteComm(gd, c, cd->name, d->groups[cd->local].self ? RF_GROUP_SELF : RF_GROUP_OWN,
                                             cd->parent, comm_flags(cd)));
    }
    if (write_cart_topologies(gd, d) != 0)
        ok = 0;
    for (uint32_t w = 0; w < d->nwins; w++)
        if (d->wins[w].set)
            CHECK(OTF2_GlobalDefWriter_WriteRmaWin(gd, w, d->wins[w].name, d->wins[w].comm,
                                                   OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
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
