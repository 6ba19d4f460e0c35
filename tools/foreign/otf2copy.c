/* otf2copy.c — see otf2copy.h: the archive's global definitions first
 * (their locations noted), then location by location its local
 * definitions and its events, each through the generated callbacks
 * (otf2copy_records.c) into the copy's writers; the locations taken in
 * the archive's order by the copying threads, each with its own reader. */
#include <config.h>
#include "otf2copy.h"
#include "evtpatch.h"
#include "otf2_memory.h"
#include "otf2_quiet.h"

#include <otf2/OTF2_Pthread_Locks.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OTF2's encoded events held at once, over all threads: beyond, a
 * location's buffer goes to its file (otf2_memory.h); each thread writes
 * one location at a time. */
#define OC_EVENT_BUDGET ((size_t)4 << 20)

/* ---- the records written by hand */

static OTF2_CallbackCode copy_clock_properties(void *user, uint64_t resolution, uint64_t global_offset,
                                               uint64_t trace_length, uint64_t realtime)
{
    struct oc_copy *c = user;
    c->stats->global_definitions++;
    if (c->map && c->map->clock)
        c->map->clock(c->map->ctx, &resolution, &global_offset, &trace_length, &realtime);
    return oc_status(c, OTF2_GlobalDefWriter_WriteClockProperties(c->global, resolution, global_offset,
                                                                  trace_length, realtime));
}

static OTF2_CallbackCode copy_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                       OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group)
{
    struct oc_copy *c = user;
    c->stats->global_definitions++;
    if (c->nlocations == c->clocations) {
        uint64_t cap = c->clocations ? c->clocations * 2 : 64;
        struct oc_location *grown = realloc(c->locations, sizeof *grown * cap);
        if (!grown)
            return oc_status(c, OTF2_ERROR_MEM_ALLOC_FAILED);
        c->locations = grown;
        c->clocations = cap;
    }
    c->locations[c->nlocations++] = (struct oc_location){ self, events };
    if (!c->global)   /* a process of a shared copy other than the primary: it only notes them */
        return OTF2_CALLBACK_SUCCESS;
    return oc_status(c, OTF2_GlobalDefWriter_WriteLocation(c->global, self, name, type, events, group));
}

static OTF2_CallbackCode copy_clock_offset(void *user, OTF2_TimeStamp time, int64_t offset, double deviation)
{
    struct oc_copy *c = user;
    c->stats->local_definitions++;
    if (c->map && !c->map->keep_offsets) {
        c->stats->offsets_dropped++;
        return OTF2_CALLBACK_SUCCESS;
    }
    c->position = 0;
    return oc_status(c, OTF2_DefWriter_WriteClockOffset(c->local, oc_time(c, time), offset, deviation));
}

/* A record of a kind this OTF2 cannot read: the copy would lose it. */
static OTF2_CallbackCode unknown_event(OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *user,
                                       OTF2_AttributeList *attributes)
{
    (void)location; (void)time; (void)attributes;
    struct oc_copy *c = user;
    c->position = position;
    return oc_status(c, OTF2_ERROR_INVALID_RECORD);
}

static OTF2_CallbackCode unknown_definition(void *user)
{
    return oc_status(user, OTF2_ERROR_INVALID_RECORD);
}

/* ---- the copy */

struct copying {
    const char *anchor, *dir, *name;
    int in_place;             /* OC_IN_PLACE, and the archive is one evtpatch.h reads */
    uint64_t chunk_events;    /* the event chunks' size */
    char *from, *to;          /* the input's and the copy's event file directories */
    const struct oc_share *share;   /* NULL: this process copies it all */
    char *err;
    size_t errlen;
    OTF2_Reader *rd;          /* the global definitions', then thread 0's */
    OTF2_Archive *ar;
    struct om_pool chunks;
    struct oc_copy c;         /* the global definitions' copy */
    /* the copying threads': the next location to take (an index into
     * c.locations) and the first in that order that failed (its message
     * in err); the lock is the chunk pool's too (no OTF2 call is made
     * while it is held) */
    pthread_mutex_t lock;
    uint64_t next, failed_at;
};

/* One copying thread. */
struct copier {
    struct copying *k;
    OTF2_Reader *rd;          /* its own (thread 0: k->rd) */
    int have_defs;            /* the archive has local definition files */
    struct oc_copy c;
    struct oc_stats stats;
    uint8_t *chunk;           /* an event chunk, for the in-place rewrite */
    char err[4600];
    pthread_t thread;
    int started;
};

static int fail_as(const char *anchor, const struct oc_copy *c, char *err, size_t errlen, const char *what)
{
    if (c->failed == OTF2_ERROR_INVALID_RECORD)
        snprintf(err, errlen, "%s: %s: a record of a kind OTF2 %d.%d cannot read (the copy would lose it)",
                 anchor, what, OTF2_VERSION_MAJOR, OTF2_VERSION_MINOR);
    else
        snprintf(err, errlen, "%s: %s%s%s", anchor, what, c->failed != OTF2_SUCCESS ? ": " : "",
                 c->failed != OTF2_SUCCESS ? OTF2_Error_GetDescription(c->failed) : "");
    return -1;
}

static int fail(struct copying *k, const char *what)
{
    return fail_as(k->anchor, &k->c, k->err, k->errlen, what);
}

static int fail_in(struct copier *cp, const char *what)
{
    return fail_as(cp->k->anchor, &cp->c, cp->err, sizeof cp->err, what);
}

/* The producer's name, description, machine and properties stay the
 * archive's. */
static OTF2_ErrorCode copy_archive_attributes(struct copying *k)
{
    OTF2_ErrorCode e = OTF2_SUCCESS;
    char *v = NULL;
    if (OTF2_Reader_GetCreator(k->rd, &v) == OTF2_SUCCESS && v)
        e = OTF2_Archive_SetCreator(k->ar, v);
    free(v);
    v = NULL;
    if (e == OTF2_SUCCESS && OTF2_Reader_GetDescription(k->rd, &v) == OTF2_SUCCESS && v)
        e = OTF2_Archive_SetDescription(k->ar, v);
    free(v);
    v = NULL;
    if (e == OTF2_SUCCESS && OTF2_Reader_GetMachineName(k->rd, &v) == OTF2_SUCCESS && v)
        e = OTF2_Archive_SetMachineName(k->ar, v);
    free(v);
    uint32_t n = 0;
    char **names = NULL;
    if (e == OTF2_SUCCESS && OTF2_Reader_GetPropertyNames(k->rd, &n, &names) == OTF2_SUCCESS) {
        for (uint32_t i = 0; i < n && e == OTF2_SUCCESS; i++) {
            v = NULL;
            if (OTF2_Reader_GetProperty(k->rd, names[i], &v) == OTF2_SUCCESS && v)
                e = OTF2_Archive_SetProperty(k->ar, names[i], v, true);
            free(v);
        }
        free(names);   /* one allocation (OTF2_Reader_GetPropertyNames) */
    }
    return e;
}

/* A reader of the archive as the copy reads it: definitions by id, as
 * read (no global id maps). */
static OTF2_Reader *open_reader(const char *anchor)
{
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return NULL;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_Boolean hint = OTF2_FALSE;
    OTF2_Reader_SetHint(rd, OTF2_HINT_GLOBAL_READER, &hint);
    return rd;
}

/* Whether every process may go on (ok itself when copying alone). */
static int agreed(const struct copying *k, int ok)
{
    return k->share ? k->share->agree(ok) : ok;
}

/* Whether the events can be rewritten in place (evtpatch.h): an
 * uncompressed archive of plain files, ANCHOR.otf2's events in ANCHOR/,
 * on a host of the files' byte order; k->from and k->to set. 0, or -1. */
static int in_place_paths(struct copying *k)
{
    OTF2_FileSubstrate substrate;
    OTF2_Compression compression;
    size_t n = strlen(k->anchor);
    if (!ep_host_supported() || OTF2_Reader_GetFileSubstrate(k->rd, &substrate) != OTF2_SUCCESS ||
        substrate != OTF2_SUBSTRATE_POSIX || OTF2_Reader_GetCompression(k->rd, &compression) != OTF2_SUCCESS ||
        compression != OTF2_COMPRESSION_NONE || n < 5 || strcmp(k->anchor + n - 5, ".otf2") != 0)
        return -1;
    k->from = malloc(n - 4);
    k->to = malloc(strlen(k->dir) + strlen(k->name) + 2);
    if (!k->from || !k->to)
        return -1;
    memcpy(k->from, k->anchor, n - 5);
    k->from[n - 5] = '\0';
    sprintf(k->to, "%s/%s", k->dir, k->name);
    return 0;
}

static int open_both(struct copying *k)
{
    rf_otf2_quiet();
    k->rd = open_reader(k->anchor);
    if (!agreed(k, k->rd != NULL)) {
        snprintf(k->err, k->errlen, "%s: not a readable OTF2 archive", k->anchor);
        rf_otf2_explain(k->err, k->errlen);
        return -1;
    }
    uint64_t chunk_events, chunk_defs;
    if (OTF2_Reader_GetChunkSize(k->rd, &chunk_events, &chunk_defs) != OTF2_SUCCESS)
        chunk_events = OTF2_CHUNK_SIZE_MIN, chunk_defs = 4 * 1024 * 1024, k->in_place = 0;
    k->chunk_events = chunk_events;
    if (k->in_place && in_place_paths(k) != 0)
        k->in_place = 0;
    k->ar = OTF2_Archive_Open(k->dir, k->name, OTF2_FILEMODE_WRITE, chunk_events, chunk_defs, OTF2_SUBSTRATE_POSIX,
                              OTF2_COMPRESSION_NONE);
    if (!agreed(k, k->ar != NULL)) {
        snprintf(k->err, k->errlen, "%s/%s.otf2: cannot create the copy", k->dir, k->name);
        if (k->ar)
            OTF2_Archive_Close(k->ar);
        k->ar = NULL;
        return -1;
    }
    OTF2_ErrorCode e = OTF2_Archive_SetFlushCallbacks(k->ar, &om_flush_callbacks, NULL);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetMemoryCallbacks(k->ar, &om_callbacks, &k->chunks);
    /* with several processes each step below is taken by all or by none:
     * OTF2's collective calls wait for every process */
    if (k->share && !agreed(k, e == OTF2_SUCCESS)) {
        snprintf(k->err, k->errlen, "%s/%s.otf2: cannot set up the copy", k->dir, k->name);
        OTF2_Archive_Close(k->ar);
        k->ar = NULL;
        return -1;
    }
    if (e == OTF2_SUCCESS && k->share)
        e = k->share->collective(k->ar) == 0 ? OTF2_SUCCESS : OTF2_ERROR_PROCESSED_WITH_FAULTS;
    else if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetSerialCollectiveCallbacks(k->ar);
    if (e == OTF2_SUCCESS)
        e = copy_archive_attributes(k);
    if (e == OTF2_SUCCESS || k->share)
        e = OTF2_Archive_OpenEvtFiles(k->ar) == OTF2_SUCCESS ? e : OTF2_ERROR_PROCESSED_WITH_FAULTS;
    if (e == OTF2_SUCCESS || k->share)
        e = OTF2_Archive_OpenDefFiles(k->ar) == OTF2_SUCCESS ? e : OTF2_ERROR_PROCESSED_WITH_FAULTS;
    if (!agreed(k, e == OTF2_SUCCESS)) {
        snprintf(k->err, k->errlen, "%s/%s.otf2: cannot set up the copy: %s", k->dir, k->name,
                 OTF2_Error_GetDescription(e));
        return -1;
    }
    return 0;
}

static int copy_global_definitions(struct copying *k)
{
    OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(k->rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    int writes = !k->share || k->share->primary;   /* else it only notes the locations */
    if (!gr || !cb || (writes && !(k->c.global = OTF2_Archive_GetGlobalDefWriter(k->ar)))) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return fail(k, "cannot read the global definitions");
    }
    if (writes) {
        oc_copy_global_records(cb);
        OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, copy_clock_properties);
    }
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, copy_location);
    OTF2_GlobalDefReaderCallbacks_SetUnknownCallback(cb, unknown_definition);
    OTF2_ErrorCode e = OTF2_Reader_RegisterGlobalDefCallbacks(k->rd, gr, cb, &k->c);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllGlobalDefinitions(k->rd, gr, &n);
    OTF2_Reader_CloseGlobalDefReader(k->rd, gr);
    if (e != OTF2_SUCCESS || k->c.failed != OTF2_SUCCESS)
        return fail(k, "cannot copy the global definitions");
    if (!writes)
        k->c.stats->global_definitions = 0;
    return 0;
}

static uint64_t same_time(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    (void)ctx, (void)location, (void)position;
    return t;
}

/* A location's events rewritten in place (evtpatch.h): 0 done, 1 to be
 * copied through OTF2 instead, -1 failed (cp->err). */
static int events_in_place(struct copier *cp, const struct oc_location *l)
{
    const struct copying *k = cp->k;
    if (!cp->chunk && !(cp->chunk = malloc(k->chunk_events)))
        return 1;
    char in[4096], out[4096], why[sizeof cp->err - 64];
    if ((size_t)snprintf(in, sizeof in, "%s/%" PRIu64 ".evt", k->from, l->id) >= sizeof in ||
        (size_t)snprintf(out, sizeof out, "%s/%" PRIu64 ".evt", k->to, l->id) >= sizeof out)
        return 1;
    const struct oc_time_map *map = cp->c.map;
    uint64_t n = 0;
    enum ep_result r = ep_patch_events(in, out, l->id, l->events, k->chunk_events, cp->chunk,
                                       map && map->time ? map->time : same_time, cp->c.map_ctx, &n, why, sizeof why);
    if (r == EP_FAILED) {
        snprintf(cp->err, sizeof cp->err, "%s", why);
        return -1;
    }
    if (r == EP_CANNOT)   /* why: not said; OTF2's reader names a damaged file */
        return 1;
    cp->c.stats->events += n;
    cp->c.stats->locations_in_place++;
    return 0;
}

/* One location: its local definitions (optional in OTF2), then its
 * events, as many as its definition says (OTF2 reads a cut event file
 * without a word, and what it decodes there depends on what its reader
 * read before). */
static int copy_location_records(struct copier *cp, const struct oc_location *l)
{
    uint64_t loc = l->id;
    OTF2_Archive *ar = cp->k->ar;
    struct oc_copy *c = &cp->c;
    c->location = loc;
    c->position = 0;
    if (!(c->local = OTF2_Archive_GetDefWriter(ar, loc)))
        return fail_in(cp, "cannot write local definitions");
    OTF2_DefReader *dr = cp->have_defs ? OTF2_Reader_GetDefReader(cp->rd, loc) : NULL;
    if (dr) {
        OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
        if (!cb) {
            OTF2_Reader_CloseDefReader(cp->rd, dr);
            return fail_in(cp, "out of memory");
        }
        oc_copy_local_records(cb);
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, copy_clock_offset);
        OTF2_DefReaderCallbacks_SetUnknownCallback(cb, unknown_definition);
        OTF2_ErrorCode e = OTF2_Reader_RegisterDefCallbacks(cp->rd, dr, cb, c);
        OTF2_DefReaderCallbacks_Delete(cb);
        uint64_t n = 0;
        if (e == OTF2_SUCCESS)
            e = OTF2_Reader_ReadAllLocalDefinitions(cp->rd, dr, &n);
        OTF2_Reader_CloseDefReader(cp->rd, dr);
        if (e != OTF2_SUCCESS || c->failed != OTF2_SUCCESS)
            return fail_in(cp, "cannot copy a location's definitions");
    }
    OTF2_ErrorCode closed = OTF2_Archive_CloseDefWriter(ar, c->local);
    c->local = NULL;
    if (closed != OTF2_SUCCESS)
        return fail_in(cp, "cannot write local definitions");
    if (cp->k->in_place) {
        int r = events_in_place(cp, l);
        if (r <= 0) {
            c->stats->locations += r == 0;
            return r;
        }
    }

    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(cp->rd, loc);
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!er || !cb || !(c->evt = OTF2_Archive_GetEvtWriter(ar, loc))) {
        OTF2_EvtReaderCallbacks_Delete(cb);
        if (er)
            OTF2_Reader_CloseEvtReader(cp->rd, er);
        return fail_in(cp, "cannot read a location's events");
    }
    /* as written: local ids, raw times */
    OTF2_EvtReader_ApplyMappingTables(er, false);
    OTF2_EvtReader_ApplyClockOffsets(er, false);
    oc_copy_event_records(cb);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, unknown_event);
    OTF2_ErrorCode e = OTF2_Reader_RegisterEvtCallbacks(cp->rd, er, cb, c);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalEvents(cp->rd, er, &n);
    OTF2_Reader_CloseEvtReader(cp->rd, er);
    closed = OTF2_Archive_CloseEvtWriter(ar, c->evt);
    c->evt = NULL;
    if (c->failed != OTF2_SUCCESS || closed != OTF2_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "cannot copy the events of location %llu", (unsigned long long)loc);
        return fail_in(cp, what);
    }
    if (e != OTF2_SUCCESS || n != l->events) {   /* one message either way: which it is depends on the reader's past */
        snprintf(cp->err, sizeof cp->err, "%s: corrupt or truncated events of location %llu (its definition says %llu)",
                 cp->k->anchor, (unsigned long long)loc, (unsigned long long)l->events);
        return -1;
    }
    c->stats->locations++;
    return 0;
}

/* Whether this process copies the location. */
static int mine(const struct copying *k, uint64_t location)
{
    return !k->share || k->share->mine(k->share->ctx, location);
}

/* The reader's files of every location this process copies. */
static int open_location_files(struct copier *cp)
{
    const struct oc_copy *g = &cp->k->c;
    for (uint64_t i = 0; i < g->nlocations; i++)
        if (mine(cp->k, g->locations[i].id))
            OTF2_Reader_SelectLocation(cp->rd, g->locations[i].id);
    cp->have_defs = OTF2_Reader_OpenDefFiles(cp->rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(cp->rd) != OTF2_SUCCESS) {
        if (cp->have_defs)
            OTF2_Reader_CloseDefFiles(cp->rd);
        cp->have_defs = 0;
        return -1;
    }
    return 0;
}

/* A copying thread: the next location not taken, until none is left or a
 * location failed; its own failure is kept if its location comes first. */
static void *copy_worker(void *arg)
{
    struct copier *cp = arg;
    struct copying *k = cp->k;
    const struct oc_time_map *map = k->c.map;
    int files = 0, ok = 1;
    if (!cp->rd && !(cp->rd = open_reader(k->anchor))) {
        snprintf(cp->err, sizeof cp->err, "%s: not a readable OTF2 archive", k->anchor);
        ok = 0;
    } else if (open_location_files(cp) != 0) {
        fail_in(cp, "cannot open the event files");
        ok = 0;
    } else {
        files = 1;
    }
    void *own = NULL;   /* this thread's state of the time map */
    cp->c.map_ctx = map ? map->ctx : NULL;
    if (ok && map && map->thread_ctx) {
        if ((own = map->thread_ctx(map->ctx)))
            cp->c.map_ctx = own;
        else {
            snprintf(cp->err, sizeof cp->err, "%s: out of memory", k->anchor);
            ok = 0;
        }
    }
    for (;;) {
        pthread_mutex_lock(&k->lock);
        uint64_t i = k->failed_at != UINT64_MAX ? k->c.nlocations : k->next++;
        if (!ok && i < k->c.nlocations) {   /* this thread cannot copy: its first location fails */
            k->failed_at = i;
            snprintf(k->err, k->errlen, "%s", cp->err);
        }
        pthread_mutex_unlock(&k->lock);
        if (!ok || i >= k->c.nlocations)
            break;
        if (!mine(k, k->c.locations[i].id))
            continue;
        if (copy_location_records(cp, &k->c.locations[i]) != 0) {
            pthread_mutex_lock(&k->lock);
            if (i < k->failed_at) {
                k->failed_at = i;
                snprintf(k->err, k->errlen, "%s", cp->err);
            }
            pthread_mutex_unlock(&k->lock);
            break;
        }
    }
    if (own && map->thread_done)
        map->thread_done(map->ctx, own);
    if (files) {
        if (cp->have_defs)
            OTF2_Reader_CloseDefFiles(cp->rd);
        OTF2_Reader_CloseEvtFiles(cp->rd);
    }
    if (cp->rd && cp->rd != k->rd)
        OTF2_Reader_Close(cp->rd);
    cp->rd = NULL;
    return NULL;
}

/* The locations on `jobs` threads, thread 0 this one. 0, or -1 (k->err). */
static int copy_locations(struct copying *k, int jobs)
{
    uint64_t nthreads = jobs < 1 ? 1 : (uint64_t)jobs;
    if (nthreads > k->c.nlocations)
        nthreads = k->c.nlocations ? k->c.nlocations : 1;
    struct copier *cp = calloc(nthreads, sizeof *cp);
    if (!cp) {
        snprintf(k->err, k->errlen, "%s: out of memory", k->anchor);
        return -1;
    }
    if (nthreads > 1) {
        OTF2_ErrorCode e = OTF2_Pthread_Archive_SetLockingCallbacks(k->ar, NULL);
        if (e != OTF2_SUCCESS) {
            snprintf(k->err, k->errlen, "%s/%s.otf2: cannot set up the copy: %s", k->dir, k->name,
                     OTF2_Error_GetDescription(e));
            free(cp);
            return -1;
        }
        k->chunks.lock = &k->lock;
    }
    for (uint64_t t = 0; t < nthreads; t++) {
        cp[t].k = k;
        cp[t].rd = t == 0 ? k->rd : NULL;
        cp[t].c.global = NULL;
        cp[t].c.map = k->c.map;
        cp[t].c.stats = &cp[t].stats;
    }
    for (uint64_t t = 1; t < nthreads; t++)
        cp[t].started = pthread_create(&cp[t].thread, NULL, copy_worker, &cp[t]) == 0;
    copy_worker(&cp[0]);
    for (uint64_t t = 1; t < nthreads; t++)
        if (cp[t].started)
            pthread_join(cp[t].thread, NULL);
    for (uint64_t t = 0; t < nthreads; t++) {
        k->c.stats->locations += cp[t].stats.locations;
        k->c.stats->events += cp[t].stats.events;
        k->c.stats->local_definitions += cp[t].stats.local_definitions;
        k->c.stats->offsets_dropped += cp[t].stats.offsets_dropped;
        k->c.stats->locations_in_place += cp[t].stats.locations_in_place;
        free(cp[t].chunk);
    }
    free(cp);
    k->chunks.lock = NULL;   /* the threads are done */
    return k->failed_at == UINT64_MAX ? 0 : -1;
}

/* A shared copy's failure said once: the process of the first failing
 * location (in the archive's order) keeps its message; on the others err
 * is "". failed_at: this process's (UINT64_MAX: none). */
static void say_once(struct copying *k, uint64_t failed_at, uint64_t n)
{
    uint64_t mine_at = failed_at < n ? failed_at : n;
    uint64_t first = n - k->share->max_u64(n - mine_at);
    if (mine_at != first)
        k->err[0] = '\0';
}

int oc_copy_archive(const char *anchor, const char *dir, const char *name, const struct oc_time_map *map, int jobs,
                    unsigned flags, const struct oc_share *share, struct oc_stats *stats, char *err, size_t errlen)
{
    struct oc_stats none;
    struct copying k = { .anchor = anchor, .dir = dir, .name = name, .in_place = (flags & OC_IN_PLACE) != 0,
                         .share = share, .err = err, .errlen = errlen,
                         .chunks = { NULL, 0, OC_EVENT_BUDGET, NULL }, .failed_at = UINT64_MAX };
    pthread_mutex_init(&k.lock, NULL);
    k.c.map = map;
    k.c.map_ctx = map ? map->ctx : NULL;
    k.c.stats = stats ? stats : &none;
    memset(k.c.stats, 0, sizeof *k.c.stats);
    err[0] = '\0';
    int rc = -1;
    if (open_both(&k) != 0) {   /* agreed: every process failed, the primary's message stands */
        if (share && !share->primary)
            err[0] = '\0';
        goto done;
    }
    int defs_ok = copy_global_definitions(&k) == 0;
    if (!agreed(&k, defs_ok))
        goto shared_failure_defs;
    int locs_ok = copy_locations(&k, jobs) == 0;
    if (share) {
        if (!locs_ok && k.failed_at == UINT64_MAX)
            k.failed_at = 0;
        say_once(&k, locs_ok ? UINT64_MAX : k.failed_at, k.c.nlocations + 1);
        locs_ok = share->agree(locs_ok);
        k.c.stats->locations = share->sum_u64(k.c.stats->locations);
        k.c.stats->events = share->sum_u64(k.c.stats->events);
        k.c.stats->local_definitions = share->sum_u64(k.c.stats->local_definitions);
        k.c.stats->offsets_dropped = share->sum_u64(k.c.stats->offsets_dropped);
        k.c.stats->locations_in_place = share->sum_u64(k.c.stats->locations_in_place);
    }
    if (!locs_ok)
        goto done;
    int closed = !k.c.global || OTF2_Archive_CloseGlobalDefWriter(k.ar, k.c.global) == OTF2_SUCCESS;
    closed &= OTF2_Archive_CloseDefFiles(k.ar) == OTF2_SUCCESS;
    closed &= OTF2_Archive_CloseEvtFiles(k.ar) == OTF2_SUCCESS;
    if (!agreed(&k, closed)) {
        snprintf(err, errlen, "%s/%s.otf2: cannot complete the copy", dir, name);
        if (share && (!share->primary || closed))
            err[0] = '\0';
        goto done;
    }
    rc = 0;
    goto done;
shared_failure_defs:
    /* the global definitions: the first failing process's message */
    if (share)
        say_once(&k, defs_ok ? UINT64_MAX : share->place, share->processes + 1);
done:
    if (k.ar) {
        int ok = OTF2_Archive_Close(k.ar) == OTF2_SUCCESS;
        if (share)
            ok = share->agree(ok);
        if (!ok && rc == 0) {
            snprintf(err, errlen, "%s/%s.otf2: cannot complete the copy", dir, name);
            if (share && !share->primary)
                err[0] = '\0';
            rc = -1;
        }
    }
    if (k.rd)
        OTF2_Reader_Close(k.rd);
    om_pool_free(&k.chunks);
    pthread_mutex_destroy(&k.lock);
    free(k.c.locations);
    free(k.from);
    free(k.to);
    return rc;
}
