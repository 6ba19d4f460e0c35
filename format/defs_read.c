/* defs_read.c — see defs_read.h. */
#include "defs_read.h"
#include "members.h"
#include "rawformat.h"
#include "table.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

static OTF2_CallbackCode def_location_group(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                            OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                            OTF2_LocationGroupRef creator)
{
    (void)type; (void)parent; (void)creator;
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    if (st_table_ensure((void **)&d->location_groups, &d->nlocation_groups, &d->location_groups_cap, self, d->limit,
                        sizeof *d->location_groups) != 0)
        return fail(d, "location group", self);
    char *copy = strdup(rf_read_string(d, name));
    if (!copy)
        return fail(d, "location group", self);
    free(d->location_groups[self]);
    d->location_groups[self] = copy;
    return OTF2_CALLBACK_SUCCESS;
}

const char *rf_read_location_group(const struct rf_read_defs *d, uint32_t group)
{
    return group < d->nlocation_groups && d->location_groups[group] ? d->location_groups[group] : NULL;
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
    free(c->in);
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
    struct rf_read_defs *d = ud;
    if (!name_ok(d, name))
        return fail(d, "string", name);
    struct rf_read_comm *c = new_comm(d, self, name);
    if (!c)
        return fail(d, "communicator", self);
    c->parent = parent;
    c->events = (flags & OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS) != 0;
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
    (void)common;
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
    c->events = (flags & OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS) != 0;
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

/* Older archives: a topology communicator's in-neighbours in a group of
 * their own (RF_IN_NEIGHBOURS_FMT), given to it once all are read. */
static int attach_in_neighbours(struct rf_read_defs *d)
{
    for (uint32_t g = 0; g < d->ngroups; g++) {
        unsigned k;
        char tail;
        if (!d->groups[g].name || sscanf(d->groups[g].name, RF_IN_NEIGHBOURS_FMT "%c", &k, &tail) != 1)
            continue;
        if (k >= d->ncomms || !d->comms[k].name || d->comms[k].has_in) {
            snprintf(d->problem, sizeof d->problem, "in-neighbours of communicator %u, which is not defined", k);
            return -1;
        }
        d->comms[k].has_in = 1;
        d->comms[k].nin = d->groups[g].n;
        d->comms[k].in = d->groups[g].members;
        d->groups[g].members = NULL;   /* now the communicator's */
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
    (void)type;
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
    d->locs[d->nlocs++] = (struct rf_read_location){ self, nevents, copy, group };
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

static const char DEFS_CUT_SHORT[] = "cut short or missing";

/* NULL: PATH looks whole (*size set); else what is wrong with it:
 * DEFS_CUT_SHORT, or why it could not be read (a failing disk is not a
 * damaged trace). */
static const char *definition_file_problem(const char *path, off_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? DEFS_CUT_SHORT : strerror(errno);
    struct stat st;
    unsigned char head, tail[2];
    ssize_t h = -2, t = -2;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (st.st_size >= 3 && ((h = pread(fd, &head, 1, 0)) < 0 || (t = pread(fd, tail, 2, st.st_size - 2)) < 0))
        e = errno;
    close(fd);
    if (e)
        return strerror(e);
    *size = st.st_size;
    int whole = h == 1 && t == 2 && head == OTF2_CHUNK_HEADER_RECORD && tail[0] == OTF2_END_OF_CHUNK_RECORD
                && tail[1] == OTF2_END_OF_FILE_RECORD;
    return whole ? NULL : DEFS_CUT_SHORT;
}

/* ".../NAME.otf2" -> ".../NAME" + rest; -1 when it does not fit. */
static int archive_path(const char *anchor, const char *rest, char *out, size_t len)
{
    size_t n = strlen(anchor), ext = strlen(RF_ANCHOR_SUFFIX);
    if (n >= ext && strcmp(anchor + n - ext, RF_ANCHOR_SUFFIX) == 0)
        n -= ext;
    return snprintf(out, len, "%.*s%s", (int)n, anchor, rest) < (int)len ? 0 : -1;
}

/* ---------- the membership file (format/members.h) ---------- */

struct mb_group {
    uint32_t n;
    uint64_t *m;
};

struct mb_ctx {
    struct rf_read_defs *d;
    uint64_t world;
    struct mb_group *groups;
    uint32_t ngroups, groups_cap;
    uint8_t *seen;            /* by communicator */
    uint64_t total;           /* members decoded and copied: at most RF_MEMBERS_MAX_COPIES */
    char problem[160];
};

/* The next space-separated field of [*p, end): 1 with [*fs, *fe), or 0. */
static int field(const char **p, const char *end, const char **fs, const char **fe)
{
    const char *q = *p;
    if (q >= end)
        return 0;
    *fs = q;
    while (q < end && *q != ' ')
        q++;
    *fe = q;
    *p = q < end ? q + 1 : q;
    return *fe > *fs;
}

static int is_word(const char *fs, const char *fe, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(fe - fs) == n && memcmp(fs, word, n) == 0;
}

/* A decimal field of at most 10 digits, at most max. */
static int field_u32(const char *fs, const char *fe, uint64_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (fe - fs < 1 || fe - fs > 10)
        return -1;
    for (const char *q = fs; q < fe; q++) {
        if (*q < '0' || *q > '9')
            return -1;
        v = v * 10 + (uint64_t)(*q - '0');
    }
    if (v > max)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int mb_fail(struct mb_ctx *x, const char *what)
{
    if (!x->problem[0])
        snprintf(x->problem, sizeof x->problem, "%s", what);
    return -1;
}

/* Room for `n` more members in all. */
static int mb_count(struct mb_ctx *x, uint64_t n)
{
    if (n > RF_MEMBERS_MAX_COPIES - x->total) {
        snprintf(x->problem, sizeof x->problem, "more members in all than this reader takes (%u)",
                 RF_MEMBERS_MAX_COPIES);
        return -1;
    }
    x->total += n;
    return 0;
}

/* "N RUNS" at [*p, end): the members, malloc'd. */
static int mb_runs(struct mb_ctx *x, const char **p, const char *end, uint32_t *n, uint64_t **out)
{
    const char *fs, *fe, *rs, *re;
    if (!field(p, end, &fs, &fe) || field_u32(fs, fe, RF_MEMBERS_MAX_COPIES, n) != 0 || !field(p, end, &rs, &re))
        return mb_fail(x, "a member count and its runs expected");
    if (mb_count(x, *n) != 0)
        return -1;
    if (!(*out = malloc(sizeof **out * (*n ? *n : 1))))
        return mb_fail(x, "out of memory");
    if (rf_runs_decode(rs, re, *n, x->world, *out, x->problem, sizeof x->problem) != 0) {
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* A copy of group `g`'s members. */
static int mb_copy(struct mb_ctx *x, uint32_t g, uint64_t **out, uint32_t *n)
{
    if (mb_count(x, x->groups[g].n) != 0)
        return -1;
    *n = x->groups[g].n;
    if (!(*out = malloc(sizeof **out * (*n ? *n : 1))))
        return mb_fail(x, "out of memory");
    if (*n)
        memcpy(*out, x->groups[g].m, sizeof **out * *n);
    return 0;
}

static int mb_group_line(struct mb_ctx *x, const char *p, const char *end)
{
    const char *fs, *fe;
    uint32_t g;
    if (!field(&p, end, &fs, &fe) || field_u32(fs, fe, UINT32_MAX, &g) != 0 || g != x->ngroups)
        return mb_fail(x, "groups must be numbered 0, 1, ... in order");
    if (x->ngroups == x->groups_cap && st_grow((void **)&x->groups, &x->groups_cap, sizeof *x->groups) != 0)
        return mb_fail(x, "out of memory");
    struct mb_group *gr = &x->groups[x->ngroups];
    if (mb_runs(x, &p, end, &gr->n, &gr->m) != 0)
        return -1;
    x->ngroups++;
    return p == end ? 0 : mb_fail(x, "more fields than a group line has");
}

static int mb_group_ref(struct mb_ctx *x, const char *fs, const char *fe, uint32_t *g)
{
    return field_u32(fs, fe, UINT32_MAX, g) == 0 && *g < x->ngroups ? 0 : mb_fail(x, "a group not defined before");
}

static int mb_comm_line(struct mb_ctx *x, const char *p, const char *end)
{
    struct rf_read_defs *d = x->d;
    const char *fs, *fe;
    uint32_t c, g;
    if (!field(&p, end, &fs, &fe) || field_u32(fs, fe, UINT32_MAX, &c) != 0)
        return mb_fail(x, "a communicator number expected");
    if (c >= d->ncomms || !d->comms[c].name || !x->seen)
        return mb_fail(x, "a communicator the archive does not define");
    if (x->seen[c])
        return mb_fail(x, "a communicator listed twice");
    x->seen[c] = 1;
    struct rf_read_comm *rc = &d->comms[c];
    free(rc->members);
    free(rc->remote);
    rc->members = rc->remote = NULL;
    rc->nmembers = rc->nremote = 0;
    rc->self = rc->inter = 0;
    rc->has_group = 1;
    if (!field(&p, end, &fs, &fe))
        return mb_fail(x, "a communicator's group expected");
    if (is_word(fs, fe, RF_MB_SELF)) {
        rc->self = 1;
        if (!(rc->members = malloc(sizeof *rc->members)))
            return mb_fail(x, "out of memory");
    } else if (mb_group_ref(x, fs, fe, &g) != 0 || mb_copy(x, g, &rc->members, &rc->nmembers) != 0) {
        return -1;
    }
    int step = 0;   /* the optional fields, in their order */
    while (field(&p, end, &fs, &fe)) {
        if (is_word(fs, fe, RF_MB_REMOTE) && step < 1 && !rc->self) {
            step = 1;
            if (!field(&p, end, &fs, &fe) || mb_group_ref(x, fs, fe, &g) != 0
                || mb_copy(x, g, &rc->remote, &rc->nremote) != 0)
                return mb_fail(x, "a remote group expected");
            rc->inter = 1;
            rc->parent = OTF2_UNDEFINED_COMM;   /* an intercommunicator's two sides have different local parents */
        } else if (is_word(fs, fe, RF_MB_KEY) && step < 2) {
            step = 2;
            if (!field(&p, end, &fs, &fe) || fe - fs != 16 || strspn(fs, "0123456789abcdef") < 16)
                return mb_fail(x, "a key of 16 hex digits expected");
            rc->key = strtoull(fs, NULL, 16);
            rc->has_key = 1;
        } else if (is_word(fs, fe, RF_MB_IN) && step < 3) {
            step = 3;
            if (mb_runs(x, &p, end, &rc->nin, &rc->in) != 0)
                return -1;
            rc->has_in = 1;
        } else {
            return mb_fail(x, "an unknown or misplaced field in a communicator line");
        }
    }
    return 0;
}

/* Read membership file `path` (shown as `shown`) of the archive of rank
 * `rank` in a world of `world` ranks into d's communicators. */
static int read_members(const char *path, const char *shown, uint32_t rank, uint32_t world, struct rf_read_defs *d,
                        char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: missing or unreadable: %s (the archive says its communicators' members are in it)",
                 shown, strerror(errno));
        return -1;
    }
    struct stat st;
    char *buf = NULL;
    ssize_t got = 0;
    int read_errno = 0;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= (off_t)RF_MEMBERS_MAX_BYTES
        && (buf = malloc((size_t)st.st_size + 1)))
        while (got < st.st_size) {
            ssize_t k = pread(fd, buf + got, (size_t)(st.st_size - got), got);
            if (k < 0)
                read_errno = errno;
            if (k <= 0)
                break;
            got += k;
        }
    close(fd);
    if (read_errno) {   /* a failing disk, not a damaged file */
        snprintf(err, errlen, "%s: cannot read: %s", shown, strerror(read_errno));
        free(buf);
        return -1;
    }
    if (!buf || got != st.st_size || buf[got - 1] != '\n') {
        snprintf(err, errlen, "%s: corrupt or truncated membership file (%s)", shown,
                 !buf && st.st_size > (off_t)RF_MEMBERS_MAX_BYTES ? "too large" : !buf ? "empty or unreadable"
                                                                                      : "cut short");
        free(buf);
        return -1;
    }
    buf[got] = '\0';
    struct mb_ctx x = { .d = d, .world = world };
    x.seen = d->ncomms ? calloc(d->ncomms, 1) : NULL;
    uint32_t line = 0, ncomms = 0;
    int ended = 0, rc = 0, reported = 0;
    if (d->ncomms && !x.seen)
        rc = mb_fail(&x, "out of memory");
    for (const char *p = buf; rc == 0 && p < buf + got;) {
        const char *end = memchr(p, '\n', (size_t)(buf + got - p)), *fs, *fe;
        line++;
        if (memchr(p, '\0', (size_t)(end - p)) || ended) {
            rc = mb_fail(&x, ended ? "lines after the end line" : "a NUL byte");
        } else if (line == 1) {
            char want[64];
            snprintf(want, sizeof want, "%s %d", RF_MEMBERS_MAGIC, RF_MEMBERS_FORMAT);
            if ((size_t)(end - p) != strlen(want) || memcmp(p, want, strlen(want)) != 0)
                rc = mb_fail(&x, "not a synctrace membership file (format 1)");
        } else if (line == 2) {
            uint32_t r, w;
            const char *q = p, *as, *ae;
            if (!field(&q, end, &fs, &fe) || !is_word(fs, fe, RF_MB_RANK) || !field(&q, end, &as, &ae)
                || field_u32(as, ae, UINT32_MAX, &r) != 0 || !field(&q, end, &fs, &fe) || !is_word(fs, fe, RF_MB_WORLD)
                || !field(&q, end, &as, &ae) || field_u32(as, ae, UINT32_MAX, &w) != 0 || q != end)
                rc = mb_fail(&x, "its rank and world size expected");
            else if (r != rank || w != world)
                rc = mb_fail(&x, "the rank or world size differs from the archive's");
        } else if (!field(&p, end, &fs, &fe)) {
            rc = mb_fail(&x, "an empty line");
        } else if (is_word(fs, fe, RF_MB_GROUP)) {
            rc = mb_group_line(&x, p, end);
        } else if (is_word(fs, fe, RF_MB_COMM)) {
            rc = mb_comm_line(&x, p, end);
            ncomms++;
        } else if (is_word(fs, fe, RF_MB_END)) {
            uint32_t k;
            if (!field(&p, end, &fs, &fe) || field_u32(fs, fe, UINT32_MAX, &k) != 0 || p != end || k != ncomms)
                rc = mb_fail(&x, "an end line that does not count the communicators");
            ended = 1;
        } else {
            rc = mb_fail(&x, "an unknown record");
        }
        p = end + 1;
        if (rc != 0) {
            snprintf(err, errlen, "%s: corrupt membership file (line %u: %s)", shown, line, x.problem);
            reported = 1;
        }
    }
    if (rc == 0 && !ended)
        rc = mb_fail(&x, "no end line: cut short");
    for (uint32_t c = 0; rc == 0 && c < d->ncomms; c++)
        if (d->comms[c].name && !x.seen[c]) {
            snprintf(x.problem, sizeof x.problem, "communicator %u is not listed", c);
            rc = -1;
        }
    if (rc != 0 && !reported)
        snprintf(err, errlen, "%s: corrupt membership file (%s)", shown, x.problem);
    for (uint32_t g = 0; g < x.ngroups; g++)
        free(x.groups[g].m);
    free(x.groups);
    free(x.seen);
    free(buf);
    return rc;
}

/* A property as a number below max: 0, or -1. */
static int u32_property(OTF2_Reader *rd, const char *name, uint32_t max, uint32_t *out)
{
    char *v = NULL;
    if (OTF2_Reader_GetProperty(rd, name, &v) != OTF2_SUCCESS || !v)
        return -1;
    int rc = field_u32(v, v + strlen(v), max, out);
    free(v);
    return rc;
}

int rf_read_global_defs(void *reader, const char *anchor, const char *name, struct rf_read_defs *d, char *err,
                        size_t errlen)
{
    OTF2_Reader *rd = reader;
    memset(d, 0, sizeof *d);
    char path[4200];
    off_t size = 0;
    const char *problem = archive_path(anchor, RF_DEF_SUFFIX, path, sizeof path) != 0
                              ? DEFS_CUT_SHORT : definition_file_problem(path, &size);
    if (problem == DEFS_CUT_SHORT) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions (%s is cut short or missing)", name, path);
        return -1;
    }
    if (problem) {
        snprintf(err, errlen, "%s: cannot read: %s", path, problem);
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
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(gcb, def_location_group);
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
    char *format = NULL;
    int has_members = status == OTF2_SUCCESS
                      && OTF2_Reader_GetProperty(rd, RF_PROP_MEMBERS, &format) == OTF2_SUCCESS && format;
    /* groups of the rank's own without the property: the members are in a
     * membership file nobody declared, never the groups' */
    if (!d->problem[0] && status == OTF2_SUCCESS && !has_members && d->ngroups > RF_GROUP_OWN
        && d->groups[RF_GROUP_OWN].name && strcmp(d->groups[RF_GROUP_OWN].name, RF_GROUP_OWN_NAME) == 0)
        snprintf(d->problem, sizeof d->problem, "communicators without their members (no %s property)",
                 RF_PROP_MEMBERS);
    if (!d->problem[0] && status == OTF2_SUCCESS && !has_members && attach_keys(d) == 0)
        attach_in_neighbours(d);
    if (d->problem[0]) {
        free(format);
        snprintf(err, errlen, "%s: corrupt global definitions (%s)", name, d->problem);
        rf_read_defs_free(d);
        return -1;
    }
    if (status != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions", name);
        rf_read_defs_free(d);
        return -1;
    }
    if (!has_members)
        return 0;
    /* the communicators' members, beside the archive */
    char shown[4200];
    uint32_t rank, world;
    int rc = -1;
    char want[16];
    snprintf(want, sizeof want, "%d", RF_MEMBERS_FORMAT);
    if (strcmp(format, want) != 0)
        snprintf(err, errlen, "%s: membership file format '%.20s', this reader reads %d", name, format,
                 RF_MEMBERS_FORMAT);
    else if (u32_property(rd, RF_PROP_RANK, RF_MAX_RANK, &rank) != 0
             || u32_property(rd, RF_PROP_WORLD_SIZE, RF_MAX_WORLD_SIZE, &world) != 0 || world == 0 || rank >= world)
        snprintf(err, errlen, "%s: no valid rank and world size to read its membership file with", name);
    else if (archive_path(anchor, RF_MEMBERS_SUFFIX, path, sizeof path) != 0
             || archive_path(name, RF_MEMBERS_SUFFIX, shown, sizeof shown) != 0)
        snprintf(err, errlen, "%s: path too long", name);
    else
        rc = read_members(path, shown, rank, world, d, err, errlen);
    free(format);
    if (rc != 0)
        rf_read_defs_free(d);
    return rc;
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
        free(d->comms[i].in);
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
    for (uint32_t i = 0; i < d->nlocation_groups; i++)
        free(d->location_groups[i]);
    free(d->location_groups);
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
    const char *problem = definition_file_problem(path, &size);
    if (problem == DEFS_CUT_SHORT) {
        snprintf(err, errlen, "%s: corrupt or truncated local definitions (the clock offsets): cut short or missing",
                 shown);
        return -1;
    }
    if (problem) {
        snprintf(err, errlen, "%s: cannot read: %s", shown, problem);
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
