/* otf2copy.c — see otf2copy.h: the archive's global definitions first
 * (their locations noted), then location by location its local
 * definitions and its events, each through the generated callbacks
 * (otf2copy_records.c) into the copy's writers. */
#include <config.h>
#include "otf2copy.h"
#include "otf2_memory.h"
#include "otf2_quiet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* OTF2's encoded events held at once: beyond, a location's buffer goes to
 * its file (otf2_memory.h); one location is written at a time. */
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
        uint64_t *grown = realloc(c->locations, sizeof *grown * cap);
        if (!grown)
            return oc_status(c, OTF2_ERROR_MEM_ALLOC_FAILED);
        c->locations = grown;
        c->clocations = cap;
    }
    c->locations[c->nlocations++] = self;
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
    char *err;
    size_t errlen;
    OTF2_Reader *rd;
    OTF2_Archive *ar;
    struct om_pool chunks;
    struct oc_copy c;
};

static int fail(struct copying *k, const char *what)
{
    if (k->c.failed == OTF2_ERROR_INVALID_RECORD)
        snprintf(k->err, k->errlen, "%s: %s: a record of a kind OTF2 %d.%d cannot read (the copy would lose it)",
                 k->anchor, what, OTF2_VERSION_MAJOR, OTF2_VERSION_MINOR);
    else
        snprintf(k->err, k->errlen, "%s: %s%s%s", k->anchor, what, k->c.failed != OTF2_SUCCESS ? ": " : "",
                 k->c.failed != OTF2_SUCCESS ? OTF2_Error_GetDescription(k->c.failed) : "");
    return -1;
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

static int open_both(struct copying *k)
{
    rf_otf2_quiet();
    if (!(k->rd = OTF2_Reader_Open(k->anchor))) {
        snprintf(k->err, k->errlen, "%s: not a readable OTF2 archive", k->anchor);
        rf_otf2_explain(k->err, k->errlen);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(k->rd);
    OTF2_Boolean hint = OTF2_FALSE;   /* definitions by id, as read: no global id maps */
    OTF2_Reader_SetHint(k->rd, OTF2_HINT_GLOBAL_READER, &hint);
    uint64_t chunk_events, chunk_defs;
    if (OTF2_Reader_GetChunkSize(k->rd, &chunk_events, &chunk_defs) != OTF2_SUCCESS)
        chunk_events = OTF2_CHUNK_SIZE_MIN, chunk_defs = 4 * 1024 * 1024;
    k->ar = OTF2_Archive_Open(k->dir, k->name, OTF2_FILEMODE_WRITE, chunk_events, chunk_defs, OTF2_SUBSTRATE_POSIX,
                              OTF2_COMPRESSION_NONE);
    if (!k->ar) {
        snprintf(k->err, k->errlen, "%s/%s.otf2: cannot create the copy", k->dir, k->name);
        return -1;
    }
    OTF2_ErrorCode e = OTF2_Archive_SetFlushCallbacks(k->ar, &om_flush_callbacks, NULL);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetMemoryCallbacks(k->ar, &om_callbacks, &k->chunks);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_SetSerialCollectiveCallbacks(k->ar);
    if (e == OTF2_SUCCESS)
        e = copy_archive_attributes(k);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_OpenEvtFiles(k->ar);
    if (e == OTF2_SUCCESS)
        e = OTF2_Archive_OpenDefFiles(k->ar);
    if (e != OTF2_SUCCESS) {
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
    if (!gr || !cb || !(k->c.global = OTF2_Archive_GetGlobalDefWriter(k->ar))) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return fail(k, "cannot read the global definitions");
    }
    oc_copy_global_records(cb);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, copy_clock_properties);
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
    return 0;
}

/* One location: its local definitions (optional in OTF2), then its events. */
static int copy_location_records(struct copying *k, uint64_t loc, int have_defs)
{
    struct oc_copy *c = &k->c;
    c->location = loc;
    c->position = 0;
    if (!(c->local = OTF2_Archive_GetDefWriter(k->ar, loc)))
        return fail(k, "cannot write local definitions");
    OTF2_DefReader *dr = have_defs ? OTF2_Reader_GetDefReader(k->rd, loc) : NULL;
    if (dr) {
        OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
        if (!cb)
            return fail(k, "out of memory");
        oc_copy_local_records(cb);
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, copy_clock_offset);
        OTF2_DefReaderCallbacks_SetUnknownCallback(cb, unknown_definition);
        OTF2_ErrorCode e = OTF2_Reader_RegisterDefCallbacks(k->rd, dr, cb, c);
        OTF2_DefReaderCallbacks_Delete(cb);
        uint64_t n = 0;
        if (e == OTF2_SUCCESS)
            e = OTF2_Reader_ReadAllLocalDefinitions(k->rd, dr, &n);
        OTF2_Reader_CloseDefReader(k->rd, dr);
        if (e != OTF2_SUCCESS || c->failed != OTF2_SUCCESS)
            return fail(k, "cannot copy a location's definitions");
    }
    if (OTF2_Archive_CloseDefWriter(k->ar, c->local) != OTF2_SUCCESS)
        return fail(k, "cannot write local definitions");
    c->local = NULL;

    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(k->rd, loc);
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!er || !cb || !(c->evt = OTF2_Archive_GetEvtWriter(k->ar, loc))) {
        OTF2_EvtReaderCallbacks_Delete(cb);
        return fail(k, "cannot read a location's events");
    }
    /* as written: local ids, raw times */
    OTF2_EvtReader_ApplyMappingTables(er, false);
    OTF2_EvtReader_ApplyClockOffsets(er, false);
    oc_copy_event_records(cb);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, unknown_event);
    OTF2_ErrorCode e = OTF2_Reader_RegisterEvtCallbacks(k->rd, er, cb, c);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalEvents(k->rd, er, &n);
    OTF2_Reader_CloseEvtReader(k->rd, er);
    OTF2_ErrorCode closed = OTF2_Archive_CloseEvtWriter(k->ar, c->evt);
    c->evt = NULL;
    if (e != OTF2_SUCCESS || c->failed != OTF2_SUCCESS || closed != OTF2_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "cannot copy the events of location %llu", (unsigned long long)loc);
        return fail(k, what);
    }
    c->stats->locations++;
    return 0;
}

int oc_copy_archive(const char *anchor, const char *dir, const char *name, const struct oc_time_map *map,
                    struct oc_stats *stats, char *err, size_t errlen)
{
    struct oc_stats none;
    struct copying k = { anchor, dir, name, err, errlen, NULL, NULL, { NULL, 0, OC_EVENT_BUDGET }, { 0 } };
    k.c.map = map;
    k.c.stats = stats ? stats : &none;
    memset(k.c.stats, 0, sizeof *k.c.stats);
    int rc = -1;
    if (open_both(&k) != 0 || copy_global_definitions(&k) != 0)
        goto done;
    for (uint64_t i = 0; i < k.c.nlocations; i++)
        OTF2_Reader_SelectLocation(k.rd, k.c.locations[i]);
    int have_defs = OTF2_Reader_OpenDefFiles(k.rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(k.rd) != OTF2_SUCCESS) {
        fail(&k, "cannot open the event files");
        goto done;
    }
    for (uint64_t i = 0; i < k.c.nlocations; i++)
        if (copy_location_records(&k, k.c.locations[i], have_defs) != 0)
            goto done;
    if (have_defs)
        OTF2_Reader_CloseDefFiles(k.rd);
    OTF2_Reader_CloseEvtFiles(k.rd);
    if (OTF2_Archive_CloseGlobalDefWriter(k.ar, k.c.global) != OTF2_SUCCESS
        || OTF2_Archive_CloseDefFiles(k.ar) != OTF2_SUCCESS || OTF2_Archive_CloseEvtFiles(k.ar) != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s/%s.otf2: cannot complete the copy", dir, name);
        goto done;
    }
    rc = 0;
done:
    if (k.ar && OTF2_Archive_Close(k.ar) != OTF2_SUCCESS && rc == 0) {
        snprintf(err, errlen, "%s/%s.otf2: cannot complete the copy", dir, name);
        rc = -1;
    }
    if (k.rd)
        OTF2_Reader_Close(k.rd);
    om_pool_free(&k.chunks);
    free(k.c.locations);
    return rc;
}
