/* defs_read.c — see defs_read.h. */
#include "defs_read.h"
#include "rawformat.h"
#include "table.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* No table larger than this, whatever the file's size. */
#define MAX_REFS (1u << 30)

const char *rf_read_string(const struct rf_read_defs *d, uint32_t ref)
{
    return ref < d->nstrings && d->strings[ref] ? d->strings[ref] : "";
}

/* Stop reading with a reason. */
static OTF2_CallbackCode fail(struct rf_read_defs *d, const char *what, uint32_t ref)
{
    if (!d->problem[0]) {
        if (ref < d->limit)
            snprintf(d->problem, sizeof d->problem, "out of memory reading %s %u", what, ref);
        else
            snprintf(d->problem, sizeof d->problem, "%s reference %u, more than the definition file can hold", what,
                     ref);
    }
    return OTF2_CALLBACK_INTERRUPT;
}

#define REF_OK(d, ref) ((ref) < (d)->limit)

/* Stop reading: a definition that contradicts the others. */
static OTF2_CallbackCode bad(struct rf_read_defs *d, const char *what, uint32_t ref)
{
    if (!d->problem[0])
        snprintf(d->problem, sizeof d->problem, "%s %u", what, ref);
    return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *s)
{
    struct rf_read_defs *d = ud;
    if (st_table_ensure((void **)&d->strings, &d->nstrings, &d->strings_cap, self, d->limit, sizeof *d->strings) != 0)
        return fail(d, "string", self);
    char *copy = strdup(s);
    if (!copy)
        return fail(d, "string", self);
    free(d->strings[self]);   /* defined twice: the last one holds */
    d->strings[self] = copy;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *ud, uint64_t res, uint64_t offset, uint64_t length, uint64_t realtime)
{
    (void)realtime;
    struct rf_read_defs *d = ud;
    d->have_clock = 1;
    d->resolution = res;
    d->global_offset = offset;
    d->trace_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

/* A name used by a definition: OTF2's "undefined" (read as ""), or a
 * reference the file could hold. */
static int name_ok(const struct rf_read_defs *d, uint32_t ref)
{
    return ref == OTF2_UNDEFINED_STRING || REF_OK(d, ref);
}

static OTF2_CallbackCode def_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    (void)canonical; (void)description; (void)paradigm; (void)flags; (void)file; (void)begin; (void)end;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (st_table_ensure((void **)&d->regions, &d->nregions, &d->regions_cap, self, d->limit, sizeof *d->regions) != 0
        || st_table_ensure((void **)&d->region_roles, &d->nregion_roles, &d->region_roles_cap, self, d->limit,
                           sizeof *d->region_roles) != 0)
        return fail(d, "region", self);
    d->region_roles[self] = (uint8_t)role;
    char *copy = strdup(rf_read_string(d, name));
    if (!copy)
        return fail(d, "region", self);
    free(d->regions[self]);
    d->regions[self] = copy;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)paradigm; (void)flags;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (st_table_ensure((void **)&d->groups, &d->ngroups, &d->groups_cap, self, d->limit, sizeof *d->groups) != 0)
        return fail(d, "group", self);
    struct rf_read_group *g = &d->groups[self];
    free(g->name);
    free(g->members);
    g->members = malloc(sizeof *members * (n ? n : 1));
    g->name = strdup(rf_read_string(d, name));
    g->n = n;
    g->self = type == OTF2_GROUP_TYPE_COMM_SELF;
    if (!g->members || !g->name)
        return fail(d, "group", self);
    if (n)
        memcpy(g->members, members, sizeof *members * n);
    return OTF2_CALLBACK_SUCCESS;
}

/* A copy of group `group`'s members; 0, or -1 (out of memory). */
static int copy_group(const struct rf_read_group *g, uint64_t **out, uint32_t *n)
{
    *n = g->n;
    if (!(*out = malloc(sizeof **out * (g->n ? g->n : 1))))
        return -1;
    if (g->n)
        memcpy(*out, g->members, sizeof **out * g->n);
    return 0;
}

/* Archives recovered before keys had groups of their own named the
 * communicator's group RF_GROUP_KEY_PREFIX and the key's 16 hex digits. */
static void legacy_key(struct rf_read_comm *c, const char *group_name)
{
    size_t k = strlen(RF_GROUP_KEY_PREFIX);
    if (strncmp(group_name, RF_GROUP_KEY_PREFIX, k) == 0 && strlen(group_name + k) == 16
        && strspn(group_name + k, "0123456789abcdef") == 16) {
        c->key = strtoull(group_name + k, NULL, 16);
        c->has_key = 1;
    }
}

static struct rf_read_comm *new_comm(struct rf_read_defs *d, uint32_t self, OTF2_StringRef name)
{
    if (st_table_ensure((void **)&d->comms, &d->ncomms, &d->comms_cap, self, d->limit, sizeof *d->comms) != 0)
        return NULL;
    struct rf_read_comm *c = &d->comms[self];
    free(c->name);   /* defined twice: the last one holds */
    free(c->members);
    free(c->remote);
    free(c->cart_sizes);
    free(c->cart_periodic);
    free(c->cart_coords);
    memset(c, 0, sizeof *c);
    c->parent = OTF2_UNDEFINED_COMM;
    if (!(c->name = strdup(rf_read_string(d, name))))
        return NULL;
    return c;
}

static OTF2_CallbackCode def_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)flags;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    struct rf_read_comm *c = new_comm(d, self, name);
    if (!c)
        return fail(d, "communicator", self);
    c->parent = parent;
    if (group < d->ngroups && d->groups[group].name) {
        const struct rf_read_group *g = &d->groups[group];
        c->has_group = 1;
        c->self = g->self;
        legacy_key(c, g->name);
        if (copy_group(g, &c->members, &c->nmembers) != 0)
            return fail(d, "communicator", self);
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* An intercommunicator: group A its local group (the writer's), B its remote one. */
static OTF2_CallbackCode def_intercomm(void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group_a,
                                       OTF2_GroupRef group_b, OTF2_CommRef common, OTF2_CommFlag flags)
{
    (void)common; (void)flags;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (group_a >= d->ngroups || !d->groups[group_a].name || group_b >= d->ngroups || !d->groups[group_b].name)
        return bad(d, "intercommunicator with an undefined group", self);
    struct rf_read_comm *c = new_comm(d, self, name);
    if (!c)
        return fail(d, "communicator", self);
    c->has_group = 1;
    c->inter = 1;
    legacy_key(c, d->groups[group_a].name);
    if (copy_group(&d->groups[group_a], &c->members, &c->nmembers) != 0
        || copy_group(&d->groups[group_b], &c->remote, &c->nremote) != 0)
        return fail(d, "communicator", self);
    return OTF2_CALLBACK_SUCCESS;
}

/* Keys in groups of their own (RF_COMM_KEY_FMT), defined before the
 * communicators they name: given to them once all are read. */
static int attach_keys(struct rf_read_defs *d)
{
    for (uint32_t g = 0; g < d->ngroups; g++) {
        const char *s = d->groups[g].name;
        unsigned comm;
        unsigned long long key;
        int used = 0;
        if (!s || sscanf(s, RF_COMM_KEY_SCAN, &comm, &key, &used) != 2 || s[used] != '\0'
            || used < 16 || strspn(s + used - 16, "0123456789abcdef") != 16)
            continue;
        if (comm >= d->ncomms || !d->comms[comm].name || d->comms[comm].has_key) {
            snprintf(d->problem, sizeof d->problem, "a key for communicator %u, which is not defined or has one",
                     comm);
            return -1;
        }
        d->comms[comm].key = key;
        d->comms[comm].has_key = 1;
    }
    return 0;
}

static OTF2_CallbackCode def_cart_dimension(void *ud, OTF2_CartDimensionRef self, OTF2_StringRef name, uint32_t size,
                                            OTF2_CartPeriodicity periodicity)
{
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (st_table_ensure((void **)&d->cart_dims, &d->ncart_dims, &d->cart_dims_cap, self, d->limit,
                        sizeof *d->cart_dims) != 0)
        return fail(d, "Cartesian dimension", self);
    d->cart_dims[self] = (struct rf_read_cart_dim){ 1, size, periodicity == OTF2_CART_PERIODIC_TRUE };
    return OTF2_CALLBACK_SUCCESS;
}

/* A topology's communicator and dimensions are defined before it (the
 * writers' order); a communicator has one. */
static OTF2_CallbackCode def_cart_topology(void *ud, OTF2_CartTopologyRef self, OTF2_StringRef name,
                                           OTF2_CommRef comm, uint8_t ndims, const OTF2_CartDimensionRef *dims)
{
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (comm >= d->ncomms || !d->comms[comm].name || d->comms[comm].cart_ndims || ndims == 0)
        return bad(d, "Cartesian topology on an undefined communicator or twice:", self);
    if (st_table_ensure((void **)&d->topo_comm, &d->ntopos, &d->topos_cap, self, d->limit, sizeof *d->topo_comm) != 0)
        return fail(d, "Cartesian topology", self);
    if (d->topo_comm[self])
        return bad(d, "Cartesian topology defined twice:", self);
    struct rf_read_comm *c = &d->comms[comm];
    c->cart_sizes = malloc(sizeof *c->cart_sizes * ndims);
    c->cart_periodic = malloc(ndims);
    if (!c->cart_sizes || !c->cart_periodic)
        return fail(d, "Cartesian topology", self);
    for (uint8_t k = 0; k < ndims; k++) {
        if (dims[k] >= d->ncart_dims || !d->cart_dims[dims[k]].set)
            return bad(d, "Cartesian topology with an undefined dimension:", self);
        c->cart_sizes[k] = d->cart_dims[dims[k]].size;
        c->cart_periodic[k] = d->cart_dims[dims[k]].periodic;
    }
    c->cart_ndims = ndims;
    d->topo_comm[self] = comm + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_cart_coordinate(void *ud, OTF2_CartTopologyRef topo, uint32_t rank, uint8_t ndims,
                                             const uint32_t *coords)
{
    struct rf_read_defs *d = ud;
    if (topo >= d->ntopos || !d->topo_comm[topo])
        return bad(d, "Cartesian coordinate of an undefined topology", topo);
    struct rf_read_comm *c = &d->comms[d->topo_comm[topo] - 1];
    if (ndims != c->cart_ndims)
        return bad(d, "Cartesian coordinate that does not fit its topology", topo);
    if (c->has_cart_coords)
        return OTF2_CALLBACK_SUCCESS;   /* a merged archive lists every member's: the first is kept */
    if (!(c->cart_coords = malloc(sizeof *c->cart_coords * ndims)))
        return fail(d, "Cartesian coordinate", topo);
    memcpy(c->cart_coords, coords, sizeof *coords * ndims);
    c->cart_rank = rank;
    c->has_cart_coords = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_rma_win(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                     OTF2_RmaWinFlag flags)
{
    (void)flags;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (st_table_ensure((void **)&d->wins, &d->nwins, &d->wins_cap, self, d->limit, sizeof *d->wins) != 0)
        return fail(d, "RMA window", self);
    if (d->wins[self].name)
        return bad(d, "RMA window defined twice:", self);
    if (!(d->wins[self].name = strdup(rf_read_string(d, name))))
        return fail(d, "RMA window", self);
    d->wins[self].comm = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t nevents, OTF2_LocationGroupRef group)
{
    (void)type; (void)group;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (d->nlocs >= d->limit)
        return fail(d, "location", d->nlocs);
    if (d->nlocs == d->locs_cap) {
        uint32_t cap = d->locs_cap ? d->locs_cap * 2 : 16;
        struct rf_read_location *nv = realloc(d->locs, sizeof *nv * cap);
        if (!nv)
            return fail(d, "location", d->nlocs);
        d->locs = nv;
        d->locs_cap = cap;
    }
    char *copy = strdup(rf_read_string(d, name));
    if (!copy)
        return fail(d, "location", d->nlocs);
    d->locs[d->nlocs++] = (struct rf_read_location){ self, nevents, copy };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    (void)description;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (strcmp(rf_read_string(d, name), RF_ATTR_TRUE_TIME_NAME) == 0 && type == OTF2_TYPE_UINT64) {
        d->true_time = self;
        d->have_true_time = 1;
    }
    if (strcmp(rf_read_string(d, name), RF_ATTR_COLLAPSED_CALLS_NAME) == 0 && type == OTF2_TYPE_UINT64) {
        d->collapsed_calls = self;
        d->have_collapsed_calls = 1;
    }
    static const char *const freed[3] = { RF_ATTR_FREED_RECEIVE_COMM_NAME, RF_ATTR_FREED_RECEIVE_SOURCE_NAME,
                                          RF_ATTR_FREED_RECEIVE_TAG_NAME };
    static const OTF2_Type freed_type[3] = { OTF2_TYPE_COMM, OTF2_TYPE_INT32, OTF2_TYPE_INT32 };
    for (int k = 0; k < 3; k++)
        if (strcmp(rf_read_string(d, name), freed[k]) == 0 && type == freed_type[k]) {
            d->freed_receive[k] = self;
            d->have_freed_receive |= 1 << k;
        }
    if (d->nattrs >= d->limit)
        return fail(d, "attribute", d->nattrs);
    if (d->nattrs == d->attrs_cap && st_grow((void **)&d->attrs, &d->attrs_cap, sizeof *d->attrs) != 0)
        return fail(d, "attribute", self);
    char *copy = strdup(rf_read_string(d, name));
    if (!copy)
        return fail(d, "attribute", self);
    d->attrs[d->nattrs++] = (struct rf_read_attr){ self, (int)type, copy };
    return OTF2_CALLBACK_SUCCESS;
}

/* OTF2 writes a definition file as whole chunks, each starting with a
 * chunk header record, the last one ending with its end-of-chunk and
 * end-of-file records. OTF2's reader does not stop at the end of a file
 * cut short (it reads past its buffer, or loops), so a file that does not
 * end so is not given to it. */
#define OTF2_CHUNK_HEADER_RECORD 3
#define OTF2_END_OF_CHUNK_RECORD 2
#define OTF2_END_OF_FILE_RECORD 1

/* 0: PATH looks whole (*size set); -1: it is cut short or not there. */
static int whole_definition_file(const char *path, off_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    unsigned char head, tail[2];
    int whole = fstat(fd, &st) == 0 && st.st_size >= 3 && pread(fd, &head, 1, 0) == 1
                && pread(fd, tail, 2, st.st_size - 2) == 2 && head == OTF2_CHUNK_HEADER_RECORD
                && tail[0] == OTF2_END_OF_CHUNK_RECORD && tail[1] == OTF2_END_OF_FILE_RECORD;
    close(fd);
    *size = st.st_size;
    return whole ? 0 : -1;
}

/* ".../NAME.otf2" -> ".../NAME" + rest; -1 when it does not fit. */
static int archive_path(const char *anchor, const char *rest, char *out, size_t len)
{
    size_t n = strlen(anchor), ext = strlen(RF_ANCHOR_SUFFIX);
    if (n >= ext && strcmp(anchor + n - ext, RF_ANCHOR_SUFFIX) == 0)
        n -= ext;
    return snprintf(out, len, "%.*s%s", (int)n, anchor, rest) < (int)len ? 0 : -1;
}

int rf_read_global_defs(void *reader, const char *anchor, const char *name, struct rf_read_defs *d, char *err,
                        size_t errlen)
{
    OTF2_Reader *rd = reader;
    memset(d, 0, sizeof *d);
    char path[4200];
    off_t size = 0;
    if (archive_path(anchor, RF_DEF_SUFFIX, path, sizeof path) != 0 || whole_definition_file(path, &size) != 0) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions (%s is cut short or missing)", name, path);
        return -1;
    }
    d->limit = size < (off_t)MAX_REFS ? (uint32_t)size : MAX_REFS;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !gcb) {
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
        snprintf(err, errlen, "%s: cannot read the global definitions", name);
        return -1;
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
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, d);
    uint64_t n = 0;
    OTF2_ErrorCode status = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    if (!d->problem[0] && status == OTF2_SUCCESS)
        attach_keys(d);
    if (d->problem[0]) {
        snprintf(err, errlen, "%s: corrupt global definitions (%s)", name, d->problem);
        rf_read_defs_free(d);
        return -1;
    }
    if (status != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions", name);
        rf_read_defs_free(d);
        return -1;
    }
    return 0;
}

void rf_read_defs_free(struct rf_read_defs *d)
{
    for (uint32_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    free(d->strings);
    for (uint32_t i = 0; i < d->nregions; i++)
        free(d->regions[i]);
    free(d->regions);
    free(d->region_roles);
    for (uint32_t i = 0; i < d->ngroups; i++) {
        free(d->groups[i].name);
        free(d->groups[i].members);
    }
    free(d->groups);
    for (uint32_t i = 0; i < d->ncomms; i++) {
        free(d->comms[i].name);
        free(d->comms[i].members);
        free(d->comms[i].remote);
        free(d->comms[i].cart_sizes);
        free(d->comms[i].cart_periodic);
        free(d->comms[i].cart_coords);
    }
    free(d->comms);
    for (uint32_t i = 0; i < d->nwins; i++)
        free(d->wins[i].name);
    free(d->wins);
    free(d->cart_dims);
    free(d->topo_comm);
    for (uint32_t i = 0; i < d->nlocs; i++)
        free(d->locs[i].name);
    free(d->locs);
    for (uint32_t i = 0; i < d->nattrs; i++)
        free(d->attrs[i].name);
    free(d->attrs);
    memset(d, 0, sizeof *d);
}

/* ---------- clock offsets ---------- */

struct offsets_ctx {
    struct rf_read_offset *v;
    uint32_t n, cap;
    int failed;
};

static OTF2_CallbackCode def_clock_offset(void *ud, OTF2_TimeStamp time, int64_t offset, double stddev)
{
    struct offsets_ctx *c = ud;
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 16;
        struct rf_read_offset *nv = cap > c->cap ? realloc(c->v, sizeof *nv * cap) : NULL;
        if (!nv) {
            c->failed = 1;
            return OTF2_CALLBACK_INTERRUPT;
        }
        c->v = nv;
        c->cap = cap;
    }
    c->v[c->n++] = (struct rf_read_offset){ time, offset, stddev };
    return OTF2_CALLBACK_SUCCESS;
}

int rf_read_clock_offsets(void *reader, const char *anchor, uint64_t location, const char *name,
                          struct rf_read_offset **out, uint32_t *n, char *err, size_t errlen)
{
    OTF2_Reader *rd = reader;
    *out = NULL;
    *n = 0;
    /* its local definition file: ".../NAME.otf2" -> ".../NAME/LOCATION.def" */
    char rest[64], path[4200], shown[4200];
    off_t size;
    snprintf(rest, sizeof rest, "/%llu" RF_DEF_SUFFIX, (unsigned long long)location);
    if (archive_path(anchor, rest, path, sizeof path) != 0 || archive_path(name, rest, shown, sizeof shown) != 0) {
        snprintf(err, errlen, "%s: path too long", name);
        return -1;
    }
    if (whole_definition_file(path, &size) != 0) {
        snprintf(err, errlen, "%s: corrupt or truncated local definitions (the clock offsets): cut short or missing",
                 shown);
        return -1;
    }
    struct offsets_ctx c = { 0 };
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, location);
    OTF2_DefReaderCallbacks *dcb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode status = OTF2_ERROR_MEM_ALLOC_FAILED;
    if (dr && dcb) {
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(dcb, def_clock_offset);
        OTF2_Reader_RegisterDefCallbacks(rd, dr, dcb, &c);
        uint64_t k = 0;
        status = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &k);
    }
    OTF2_DefReaderCallbacks_Delete(dcb);
    if (dr)
        OTF2_Reader_CloseDefReader(rd, dr);
    if (!dr || status != OTF2_SUCCESS || c.failed) {
        snprintf(err, errlen, "%s: %s local definitions (the clock offsets)", shown,
                 c.failed ? "out of memory reading the" : "corrupt or truncated");
        free(c.v);
        return -1;
    }
    *out = c.v;
    *n = c.n;
    return 0;
}
