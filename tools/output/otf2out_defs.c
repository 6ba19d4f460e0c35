/* otf2out_defs.c — the merged archive's global definitions (ow_write's
 * last step, otf2out.c): strings, clock, paradigm, system tree, location
 * groups and locations, regions, attributes, groups and communicators,
 * Cartesian topologies, windows. Definitions are unified by name (regions,
 * hosts) or by the matcher's global ids (communicators); location ids stay
 * the world ranks. */
#include "otf2out_writing.h"
#include "rawformat.h"
#include "rma_flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int cart_index_build(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
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
static int write_cart_topologies(OTF2_GlobalDefWriter *gd, const struct rt_location *ranks, const struct mg_result *match,
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
static uint8_t *comm_life_flags(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match)
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
static uint32_t *comm_parents(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match)
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

/* The strings the definitions name, by reference: interned in the order
 * they are written, so that each one's reference is its place. */
struct def_strings {
    uint32_t machine, node, empty, world, true_time, true_desc, slots, slots_desc, bits_desc, freed[3], freed_desc,
        calls, calls_desc, mpi, comm_template, win_template, outside_node, main_thread;
    uint32_t *source;    /* [source word] */
    uint32_t *region;    /* [merged region] */
    uint32_t *host;      /* [location] */
    uint32_t *rank;      /* [location]: its process's name */
    uint32_t *thread;    /* [location]: its own name */
    uint32_t *comm;      /* [global communicator] */
    uint32_t *outside;   /* [process outside the trace] */
    uint32_t *win;       /* [merged window] */
};

static void def_strings_free(struct def_strings *s)
{
    free(s->source);
    free(s->region);
    free(s->host);
    free(s->rank);
    free(s->thread);
    free(s->comm);
    free(s->outside);
    free(s->win);
}

static void *array_of(size_t n, size_t size)
{
    return malloc(size * (n ? n : 1));
}

/* Every string, in order: fixed ones, regions, hosts, ranks,
 * communicators, the outside processes, windows, the Cartesian
 * topologies', and last the locations' names, so that the others keep the
 * references they had before locations were named as Score-P names them.
 * 0, or -1 when out of memory. */
static int intern_strings(struct writing *wr, struct st_strtab *strings, const struct cart_index *carts,
                          struct def_strings *s)
{
    const struct rt_location *ranks = wr->ranks;
    const struct mg_result *match = wr->match;
    const uint32_t nranks = wr->nranks, pre_words = wr->found.pre_words;
    const uint32_t noutside = match->outside ? match->outside->n : 0;
    s->machine = st_strtab_ref(strings, RF_SYSTEM_TREE_ROOT);
    s->node = st_strtab_ref(strings, RF_SYSTEM_TREE_NODE);
    s->empty = st_strtab_ref(strings, "");
    s->world = st_strtab_ref(strings, RF_GROUP_WORLD_NAME);
    s->true_time = st_strtab_ref(strings, RF_ATTR_TRUE_TIME_NAME);
    s->true_desc = st_strtab_ref(strings, "undistorted time of the event in ns (SYNCTRACE_SKEW)");
    s->slots = st_strtab_ref(strings, RF_ATTR_SOURCES_SLOTS_NAME);
    s->slots_desc = st_strtab_ref(strings, RF_ATTR_SOURCES_SLOTS_DESC);
    s->bits_desc = st_strtab_ref(strings, RF_ATTR_SOURCES_BITS_DESC);
    s->freed[0] = st_strtab_ref(strings, RF_ATTR_FREED_RECEIVE_COMM_NAME);
    s->freed[1] = st_strtab_ref(strings, RF_ATTR_FREED_RECEIVE_SOURCE_NAME);
    s->freed[2] = st_strtab_ref(strings, RF_ATTR_FREED_RECEIVE_TAG_NAME);
    s->freed_desc = st_strtab_ref(strings, RF_ATTR_FREED_RECEIVE_DESC);
    s->calls = st_strtab_ref(strings, RF_ATTR_COLLAPSED_CALLS_NAME);
    s->calls_desc = st_strtab_ref(strings, RF_ATTR_COLLAPSED_CALLS_DESC);
    if (!(s->source = array_of(pre_words, sizeof *s->source)))
        return -1;
    for (uint32_t k = 0; k < pre_words; k++) {
        char buf[32];
        snprintf(buf, sizeof buf, RF_ATTR_SOURCES_BITS_FMT, k);
        s->source[k] = st_strtab_ref(strings, buf);
    }
    /* as Score-P: MPI regions in the file "MPI", the paradigm's name templates */
    s->mpi = st_strtab_ref(strings, "MPI");
    s->comm_template = st_strtab_ref(strings, "Comm ${id}");
    s->win_template = st_strtab_ref(strings, "Win ${id}");
    s->region = array_of(wr->regions.n, sizeof *s->region);
    s->host = array_of(nranks, sizeof *s->host);
    s->rank = array_of(nranks, sizeof *s->rank);
    s->comm = array_of(match->ncomms, sizeof *s->comm);
    if (!s->region || !s->host || !s->rank || !s->comm)
        return -1;
    for (uint32_t k = 0; k < wr->regions.n; k++)
        s->region[k] = st_strtab_ref(strings, wr->regions.v[k]);
    for (uint32_t r = 0; r < nranks; r++) {
        char buf[64];
        s->host[r] = st_strtab_ref(strings, ranks[r].host ? ranks[r].host : "unknown");
        snprintf(buf, sizeof buf, RF_LOCATION_GROUP_FMT, ranks[r].rank);
        s->rank[r] = st_strtab_ref(strings, buf);
    }
    for (uint32_t c = 0; c < match->ncomms; c++)
        s->comm[c] = st_strtab_ref(strings, comm_display_name(match->comms[c].name));
    if (!(s->outside = array_of(noutside, sizeof *s->outside)))
        return -1;
    s->outside_node = st_strtab_ref(strings, RF_SYSTEM_TREE_OUTSIDE);
    for (uint32_t k = 0; k < noutside; k++) {
        char buf[320];
        snprintf(buf, sizeof buf, RF_LOCATION_GROUP_OUTSIDE_FMT, match->outside->labels[k]);
        s->outside[k] = st_strtab_ref(strings, buf);
    }
    if (!(s->win = array_of(wr->nwins, sizeof *s->win)))
        return -1;
    for (uint32_t k = 0; k < wr->nwins; k++)
        s->win[k] = st_strtab_ref(strings, wr->win_names[k]);
    if (write_cart_topologies(NULL, ranks, match, carts, strings, &wr->failed) != 0)
        return -1;
    /* Locations are named as Score-P names them ("Master thread", then its
     * thread names), never as their process: viewers such as ViTE name a
     * row "<name>_<id>", and a location and its group share the id. */
    s->main_thread = st_strtab_ref(strings, RF_MAIN_THREAD_NAME);
    if (!(s->thread = array_of(nranks, sizeof *s->thread)))
        return -1;
    for (uint32_t r = 0; r < nranks; r++) {
        char buf[64];
        snprintf(buf, sizeof buf, RF_THREAD_NAME_FMT, ranks[r].thread);
        s->thread[r] = ranks[r].thread ? st_strtab_ref(strings, buf) : s->main_thread;
    }
    /* a reference of UINT32_MAX would name no string */
    return strings->failed ? -1 : 0;
}

static void write_clock_and_paradigm(struct writing *wr, OTF2_GlobalDefWriter *gd, const struct def_strings *s)
{
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(gd, 1000000000ULL, 0, wr->last_time, OTF2_UNDEFINED_TIMESTAMP));
    CHECK(OTF2_GlobalDefWriter_WriteParadigm(gd, OTF2_PARADIGM_MPI, s->mpi, OTF2_PARADIGM_CLASS_PROCESS));
    OTF2_AttributeValue template;
    template.stringRef = s->comm_template;
    CHECK(OTF2_GlobalDefWriter_WriteParadigmProperty(gd, OTF2_PARADIGM_MPI, OTF2_PARADIGM_PROPERTY_COMM_NAME_TEMPLATE,
                                                     OTF2_TYPE_STRING, template));
    template.stringRef = s->win_template;
    CHECK(OTF2_GlobalDefWriter_WriteParadigmProperty(gd, OTF2_PARADIGM_MPI,
                                                     OTF2_PARADIGM_PROPERTY_RMA_WIN_NAME_TEMPLATE, OTF2_TYPE_STRING,
                                                     template));
}

/* The machine, a node per distinct host (in order of first appearance)
 * and one for the processes outside the trace; a process per rank (named
 * by its main location) and a location per thread, then the outside
 * processes'. *nworld: the processes MPI's communicators name, the
 * trace's and the outside ones. 0, or -1 when out of memory. */
static int write_system_tree_and_locations(struct writing *wr, OTF2_GlobalDefWriter *gd, const struct def_strings *s,
                                           uint32_t *nworld)
{
    const struct rt_location *ranks = wr->ranks;
    const uint32_t nranks = wr->nranks, noutside = wr->match->outside ? wr->match->outside->n : 0;
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, 0, s->machine, s->machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    uint32_t *node_of = array_of(nranks, sizeof *node_of);
    uint32_t nnodes = 0;
    if (!node_of)
        return -1;
    for (uint32_t r = 0; r < nranks; r++) {
        uint32_t q = 0;
        while (q < r && s->host[q] != s->host[r])
            q++;
        node_of[r] = q < r ? node_of[q] : ++nnodes;
        if (q == r)
            CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, node_of[r], s->host[r], s->node, 0));
    }
    if (noutside)
        CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(gd, nnodes + 1, s->outside_node, s->node, 0));
    uint32_t n = 0;
    for (uint32_t r = 0; r < nranks; r++)
        if (!ranks[r].thread) {
            CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(gd, (uint32_t)ranks[r].rank, s->rank[r],
                                                          OTF2_LOCATION_GROUP_TYPE_PROCESS, node_of[r],
                                                          OTF2_UNDEFINED_LOCATION_GROUP));
            n++;
        }
    for (uint32_t k = 0; k < noutside; k++)
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(gd, n + k, s->outside[k], OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                      nnodes + 1, OTF2_UNDEFINED_LOCATION_GROUP));
    for (uint32_t r = 0; r < nranks; r++)
        CHECK(OTF2_GlobalDefWriter_WriteLocation(gd, ow_location_id(&ranks[r]), s->thread[r],
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, ranks[r].nevents, (uint32_t)ranks[r].rank));
    for (uint32_t k = 0; k < noutside; k++)
        CHECK(OTF2_GlobalDefWriter_WriteLocation(gd, (uint64_t)n + k, s->main_thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                 0, n + k));
    free(node_of);
    *nworld = n + noutside;
    return 0;
}

static void write_regions_and_attributes(struct writing *wr, OTF2_GlobalDefWriter *gd, const struct def_strings *s)
{
    for (uint32_t k = 0; k < wr->regions.n; k++) {
        const char *name = wr->regions.v[k];
        int mpi = strncmp(name, "MPI_", 4) == 0;
        CHECK(OTF2_GlobalDefWriter_WriteRegion(gd, k, s->region[k], s->region[k], s->empty,
                                               k < wr->nroles && wr->roles[k] ? wr->roles[k] : ow_fallback_role(name),
                                               mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                                               OTF2_REGION_FLAG_NONE, mpi ? s->mpi : s->empty, 0, 0));
    }
    if (wr->found.any_truth)
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, RF_ATTR_TRUE_TIME, s->true_time, s->true_desc, OTF2_TYPE_UINT64));
    if (wr->found.pre_sources) {
        CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, wr->src_slots, s->slots, s->slots_desc, OTF2_TYPE_UINT32));
        for (uint32_t k = 0; k < wr->found.pre_words; k++)
            CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, wr->src_bits + k, s->source[k], s->bits_desc,
                                                      OTF2_TYPE_UINT64));
    }
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, wr->freed, s->freed[0], s->freed_desc, OTF2_TYPE_COMM));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, wr->freed + 1, s->freed[1], s->freed_desc, OTF2_TYPE_INT32));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, wr->freed + 2, s->freed[2], s->freed_desc, OTF2_TYPE_INT32));
    CHECK(OTF2_GlobalDefWriter_WriteAttribute(gd, wr->freed + 3, s->calls, s->calls_desc, OTF2_TYPE_UINT64));
}

/* MPI_COMM_WORLD's group, every other group before the first
 * communicator (as OTF2's readers expect, in ascending order), then the
 * communicators. MPI_COMM_SELF is OTF2's COMM_SELF group (no members:
 * each location's own rank), as Score-P writes it; an intercommunicator
 * is an InterComm of its two groups, so that a peer names a rank of the
 * group its location is not in. 0, or -1 when out of memory. */
static int write_groups_and_comms(struct writing *wr, OTF2_GlobalDefWriter *gd, const struct def_strings *s,
                                  uint32_t nworld)
{
    const struct mg_result *match = wr->match;
    uint64_t *world = array_of(nworld, sizeof *world);
    if (!world)
        return -1;
    for (uint32_t r = 0; r < nworld; r++)   /* MPI ranks are the main locations */
        world[r] = r;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, RF_GROUP_WORLD, s->world, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nworld, world));
    free(world);
    uint32_t next_group = RF_GROUP_WORLD + 1;
    for (uint32_t c = 0; c < match->ncomms; c++) {
        const struct mg_comm *mc = &match->comms[c];
        CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, next_group++, s->empty,
                                              mc->self ? OTF2_GROUP_TYPE_COMM_SELF : OTF2_GROUP_TYPE_COMM_GROUP,
                                              OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, mc->self ? 0 : mc->size,
                                              mc->members));
        if (mc->inter)
            CHECK(OTF2_GlobalDefWriter_WriteGroup(gd, next_group++, s->empty, OTF2_GROUP_TYPE_COMM_GROUP,
                                                  OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, mc->size_b, mc->members_b));
    }
    uint32_t *parent = comm_parents(wr->ranks, wr->nranks, match);
    uint8_t *life = comm_life_flags(wr->ranks, wr->nranks, match);   /* flagged when every member saw it created */
    if (!parent || !life) {
        free(parent);
        free(life);
        return -1;
    }
    for (uint32_t c = 0, g = RF_GROUP_WORLD + 1; c < match->ncomms; c++) {
        OTF2_CommFlag flags = life[c] ? OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS : OTF2_COMM_FLAG_NONE;
        if (match->comms[c].inter) {
            CHECK(OTF2_GlobalDefWriter_WriteInterComm(gd, c, s->comm[c], g, g + 1, OTF2_UNDEFINED_COMM, flags));
            g += 2;
        } else {
            CHECK(OTF2_GlobalDefWriter_WriteComm(gd, c, s->comm[c], g, parent[c], flags));
            g += 1;
        }
    }
    free(parent);
    free(life);
    return 0;
}

static void write_windows(struct writing *wr, OTF2_GlobalDefWriter *gd, const struct def_strings *s)
{
    for (uint32_t k = 0; k < wr->nwins; k++)
        CHECK(OTF2_GlobalDefWriter_WriteRmaWin(gd, k, s->win[k],
                                               wr->win_comm[k] < wr->match->ncomms ? wr->win_comm[k]
                                                                                   : OTF2_UNDEFINED_COMM,
                                               OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
}

int ow_write_global_defs(struct writing *wr)
{
    struct st_strtab strings = { 0 };
    struct cart_index carts = { 0 };
    struct def_strings s = { 0 };
    uint32_t nworld = 0;
    int rc = -1;
    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(wr->ar);
    if (!gd || cart_index_build(wr->ranks, wr->nranks, wr->match, &carts) != 0
        || intern_strings(wr, &strings, &carts, &s) != 0)
        goto oom;
    for (uint32_t k = 0; k < strings.n; k++)
        CHECK(OTF2_GlobalDefWriter_WriteString(gd, k, strings.v[k]));
    write_clock_and_paradigm(wr, gd, &s);
    if (write_system_tree_and_locations(wr, gd, &s, &nworld) != 0)
        goto oom;
    write_regions_and_attributes(wr, gd, &s);
    if (write_groups_and_comms(wr, gd, &s, nworld) != 0
        || write_cart_topologies(gd, wr->ranks, wr->match, &carts, &strings, &wr->failed) != 0)
        goto oom;
    write_windows(wr, gd, &s);
    CHECK(OTF2_Archive_CloseGlobalDefWriter(wr->ar, gd));
    if (ow_write_neighbours(wr->dir, wr->ranks, wr->nranks, wr->match, carts.src_rank, wr->err, wr->errlen) != 0)
        goto done;
    if (wr->failed != OTF2_SUCCESS)
        snprintf(wr->err, wr->errlen, "%s/%s: cannot write the global definitions (%s)", wr->dir, wr->name,
                 OTF2_Error_GetDescription(wr->failed));
    else
        rc = 0;
    goto done;
oom:
    snprintf(wr->err, wr->errlen, "%s/%s: out of memory while writing the merged archive", wr->dir, wr->name);
done:
    def_strings_free(&s);
    cart_index_free(&carts);
    st_strtab_free(&strings);
    return rc;
}
