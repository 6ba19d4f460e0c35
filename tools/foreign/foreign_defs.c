/* foreign_defs.c — see foreign_defs.h. */
#include <config.h>
#include "foreign_defs.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* References index arrays: a producer's are dense, and one far beyond the
 * definition file's size is damage, not a trace. */
#define FD_MAX_REF (1u << 26)

struct reading {
    struct foreign_defs *d;
    int failed;               /* out of memory, or a reference too large */
    uint32_t locs_cap;
};

/* Grow *arr (elements of `size` bytes, *n of them) to hold index `ref`,
 * the new ones filled with bytes `fill`. 0, or -1. */
static int reserve(void **arr, uint32_t *n, uint32_t ref, size_t size, int fill)
{
    if (ref < *n)
        return 0;
    if (ref >= FD_MAX_REF)
        return -1;
    uint32_t want = ref + 1 > 2 * *n ? ref + 1 : 2 * *n;
    void *grown = realloc(*arr, size * want);
    if (!grown)
        return -1;
    memset((char *)grown + size * *n, fill, size * (want - *n));
    *arr = grown;
    *n = want;
    return 0;
}

#define RESERVE(r, arr, n, ref, fill)                                         \
    do {                                                                      \
        if (reserve((void **)&(r)->d->arr, &(r)->d->n, (ref), sizeof *(r)->d->arr, (fill)) != 0) { \
            (r)->failed = 1;                                                  \
            return OTF2_CALLBACK_INTERRUPT;                                   \
        }                                                                     \
    } while (0)

static OTF2_CallbackCode on_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    (void)realtime;
    struct foreign_defs *d = ((struct reading *)u)->d;
    d->resolution = resolution;
    d->global_offset = offset;
    d->trace_length = length;
    d->have_clock = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *s)
{
    struct reading *r = u;
    RESERVE(r, strings, nstrings, self, 0);
    free(r->d->strings[self]);
    if (!(r->d->strings[self] = strdup(s))) {
        r->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t nevents, OTF2_LocationGroupRef group)
{
    struct reading *r = u;
    struct foreign_defs *d = r->d;
    if (d->nlocs == r->locs_cap) {
        uint32_t cap = r->locs_cap ? 2 * r->locs_cap : 64;
        struct fd_location *grown = d->nlocs < FD_MAX_REF ? realloc(d->locs, sizeof *grown * cap) : NULL;
        if (!grown) {
            r->failed = 1;
            return OTF2_CALLBACK_INTERRUPT;
        }
        d->locs = grown;
        r->locs_cap = cap;
    }
    d->locs[d->nlocs++] = (struct fd_location){ self, name, type, nevents, group, FD_NONE, 0 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                           OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                           OTF2_LocationGroupRef creator)
{
    (void)creator;
    struct reading *r = u;
    RESERVE(r, lgroups, nlgroups, self, 0xff);
    r->d->lgroups[self] = (struct fd_lgroup){ name, type, parent };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                 OTF2_SystemTreeNodeRef parent)
{
    (void)cls;
    struct reading *r = u;
    RESERVE(r, nodes, nnodes, self, 0xff);
    r->d->nodes[self] = (struct fd_node){ name, parent };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                   OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    (void)canonical; (void)description; (void)flags; (void)file; (void)begin; (void)end;
    struct reading *r = u;
    RESERVE(r, regions, nregions, self, 0xff);
    r->d->regions[self] = (struct fd_region){ name, role, paradigm };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                  OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name; (void)flags;
    struct reading *r = u;
    RESERVE(r, groups, ngroups, self, 0);
    struct fd_group *g = &r->d->groups[self];
    free(g->members);
    *g = (struct fd_group){ 1, type, paradigm, n, NULL };
    if (n && !(g->members = malloc(sizeof *g->members * n))) {
        r->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (n)
        memcpy(g->members, members, sizeof *g->members * n);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags)
{
    struct reading *r = u;
    RESERVE(r, comms, ncomms, self, 0);
    r->d->comms[self] = (struct fd_comm){ 1, 0, name, group, FD_NONE,
                                          parent == OTF2_UNDEFINED_COMM ? FD_NONE : parent, flags };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_intercomm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef a,
                                      OTF2_GroupRef b, OTF2_CommRef common, OTF2_CommFlag flags)
{
    (void)common;
    struct reading *r = u;
    RESERVE(r, comms, ncomms, self, 0);
    r->d->comms[self] = (struct fd_comm){ 1, 1, name, a, b, FD_NONE, flags };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_win(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                OTF2_RmaWinFlag flags)
{
    (void)name; (void)flags;
    struct reading *r = u;
    RESERVE(r, win_comm, nwins, self, 0xff);
    r->d->win_comm[self] = comm;
    return OTF2_CALLBACK_SUCCESS;
}

const char *fd_string(const struct foreign_defs *d, uint32_t ref)
{
    return ref < d->nstrings && d->strings[ref] ? d->strings[ref] : "";
}

/* Locations by id, for lookups: (id, index) pairs sorted by id. */
struct by_id {
    uint64_t id;
    uint32_t index;
};

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = ((const struct by_id *)a)->id, y = ((const struct by_id *)b)->id;
    return (x > y) - (x < y);
}

static uint32_t location_index(const struct by_id *sorted, uint32_t n, uint64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sorted[lo].id == id ? sorted[lo].index : FD_NONE;
}

/* What assign_ranks works with: the locations sorted by id, and per
 * location group its locations (indices, in id order) from first[g] to
 * first[g + 1] of members. */
struct layout {
    struct by_id *sorted;
    uint32_t *first, *members, *rank_of, *main_loc;
};

static void layout_free(struct layout *l)
{
    free(l->sorted);
    free(l->first);
    free(l->members);
    free(l->rank_of);
    free(l->main_loc);
}

static int make_layout(const struct foreign_defs *d, struct layout *l)
{
    uint32_t ng = d->nlgroups;
    memset(l, 0, sizeof *l);
    l->sorted = malloc(sizeof *l->sorted * (d->nlocs ? d->nlocs : 1));
    l->first = calloc((size_t)ng + 1, sizeof *l->first);
    l->members = malloc(sizeof *l->members * (d->nlocs ? d->nlocs : 1));
    l->rank_of = malloc(sizeof *l->rank_of * (ng ? ng : 1));
    l->main_loc = malloc(sizeof *l->main_loc * (ng ? ng : 1));
    if (!l->sorted || !l->first || !l->members || !l->rank_of || !l->main_loc)
        return -1;
    memset(l->rank_of, 0xff, sizeof *l->rank_of * ng);
    for (uint32_t k = 0; k < d->nlocs; k++)
        l->sorted[k] = (struct by_id){ d->locs[k].id, k };
    qsort(l->sorted, d->nlocs, sizeof *l->sorted, cmp_id);
    /* bucket by group, walking the ids in order (so each bucket is sorted) */
    for (uint32_t k = 0; k < d->nlocs; k++)
        if (d->locs[k].group < ng)
            l->first[d->locs[k].group + 1]++;
    for (uint32_t g = 0; g < ng; g++)
        l->first[g + 1] += l->first[g];
    uint32_t *next = malloc(sizeof *next * (ng ? ng : 1));
    if (!next)
        return -1;
    memcpy(next, l->first, sizeof *next * ng);
    for (uint32_t i = 0; i < d->nlocs; i++) {
        uint32_t k = l->sorted[i].index, g = d->locs[k].group;
        if (g < ng)
            l->members[next[g]++] = k;
    }
    free(next);
    return 0;
}

/* Ranks: the MPI COMM_LOCATIONS group's order, else the processes'. */
static int assign_ranks(struct foreign_defs *d, const char *anchor, char *err, size_t errlen)
{
    struct layout l;
    if (make_layout(d, &l) != 0) {
        layout_free(&l);
        snprintf(err, errlen, "%s: out of memory", anchor);
        return -1;
    }
    d->mpi_group = FD_NONE;
    for (uint32_t g = 0; g < d->ngroups; g++)
        if (d->groups[g].defined && d->groups[g].type == OTF2_GROUP_TYPE_COMM_LOCATIONS
            && d->groups[g].paradigm == OTF2_PARADIGM_MPI) {
            d->mpi_group = g;
            break;
        }
    uint32_t nranks = 0;
    if (d->mpi_group != FD_NONE) {
        const struct fd_group *g = &d->groups[d->mpi_group];
        for (uint32_t i = 0; i < g->n; i++) {
            uint32_t k = location_index(l.sorted, d->nlocs, g->members[i]);
            uint32_t lg = k == FD_NONE ? FD_NONE : d->locs[k].group;
            if (lg == FD_NONE || lg >= d->nlgroups || l.rank_of[lg] != FD_NONE) {
                snprintf(err, errlen, "%s: corrupt global definitions (MPI rank %u is %s)", anchor, i,
                         k == FD_NONE ? "no location" : "not a process of its own");
                layout_free(&l);
                return -1;
            }
            l.rank_of[lg] = nranks;
            l.main_loc[nranks++] = k;
        }
    }
    /* processes without MPI (or every process, without an MPI group) follow,
     * each with its lowest location id as its main one */
    for (uint32_t lg = 0; lg < d->nlgroups; lg++)
        if (d->lgroups[lg].type == OTF2_LOCATION_GROUP_TYPE_PROCESS && l.rank_of[lg] == FD_NONE
            && l.first[lg + 1] > l.first[lg]) {
            l.rank_of[lg] = nranks;
            l.main_loc[nranks++] = l.members[l.first[lg]];
        }
    if (nranks == 0) {
        snprintf(err, errlen, "%s: the archive defines no process with locations", anchor);
        layout_free(&l);
        return -1;
    }
    d->processes = calloc(nranks, sizeof *d->processes);
    int rc = d->processes ? 0 : -1;
    d->nprocesses = d->processes ? nranks : 0;
    for (uint32_t p = 0; rc == 0 && p < nranks; p++) {
        struct fd_process *pr = &d->processes[p];
        uint32_t main = l.main_loc[p], lg = d->locs[main].group;
        uint32_t n = l.first[lg + 1] - l.first[lg];
        pr->lgroup = lg;
        pr->rank = (int)p;
        pr->node = d->lgroups[lg].parent;
        if (!(pr->locs = malloc(sizeof *pr->locs * n))) {
            rc = -1;
            break;
        }
        /* the main one, then the others in id order */
        pr->locs[pr->nlocs++] = main;
        for (uint32_t j = l.first[lg]; j < l.first[lg + 1]; j++)
            if (l.members[j] != main)
                pr->locs[pr->nlocs++] = l.members[j];
        for (uint32_t j = 0; j < pr->nlocs; j++) {
            d->locs[pr->locs[j]].process = p;
            d->locs[pr->locs[j]].thread = j;
        }
    }
    layout_free(&l);
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory", anchor);
    return rc;
}

int fd_read(void *reader, const char *anchor, struct foreign_defs *d, char *err, size_t errlen)
{
    OTF2_Reader *rd = reader;
    memset(d, 0, sizeof *d);
    struct reading r = { d, 0, 0 };
    OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gr || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        snprintf(err, errlen, "%s: cannot read the global definitions", anchor);
        return -1;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetInterCommCallback(cb, on_intercomm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_win);
    OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, &r);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n);
    OTF2_Reader_CloseGlobalDefReader(rd, gr);
    if (r.failed) {
        snprintf(err, errlen, "%s: corrupt global definitions (a reference too large) or out of memory", anchor);
        fd_free(d);
        return -1;
    }
    if (e != OTF2_SUCCESS || !d->have_clock) {
        snprintf(err, errlen, "%s: corrupt or truncated global definitions%s", anchor,
                 e == OTF2_SUCCESS ? " (no ClockProperties)" : "");
        fd_free(d);
        return -1;
    }
    if (d->resolution == 0) {
        snprintf(err, errlen, "%s: corrupt global definitions (a timer resolution of 0)", anchor);
        fd_free(d);
        return -1;
    }
    if (assign_ranks(d, anchor, err, errlen) != 0) {
        fd_free(d);
        return -1;
    }
    return 0;
}

int fd_comm_has(const struct foreign_defs *d, uint32_t comm, int rank, int *side)
{
    if (comm >= d->ncomms || !d->comms[comm].defined)
        return 0;
    const struct fd_comm *c = &d->comms[comm];
    for (int s = 0; s < (c->inter ? 2 : 1); s++) {
        uint32_t g = s ? c->group_b : c->group;
        if (g >= d->ngroups || !d->groups[g].defined)
            continue;
        const struct fd_group *gr = &d->groups[g];
        if (gr->type == OTF2_GROUP_TYPE_COMM_SELF) {
            if (side)
                *side = s;
            return 1;
        }
        for (uint32_t i = 0; i < gr->n; i++)
            if (gr->members[i] == (uint64_t)rank) {
                if (side)
                    *side = s;
                return 1;
            }
    }
    return 0;
}

void fd_free(struct foreign_defs *d)
{
    for (uint32_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    free(d->strings);
    free(d->locs);
    free(d->lgroups);
    free(d->nodes);
    free(d->regions);
    for (uint32_t i = 0; i < d->ngroups; i++)
        free(d->groups[i].members);
    free(d->groups);
    free(d->comms);
    free(d->win_comm);
    for (uint32_t i = 0; i < d->nprocesses; i++)
        free(d->processes[i].locs);
    free(d->processes);
    memset(d, 0, sizeof *d);
}
