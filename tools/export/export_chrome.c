/* export_chrome.c — Chrome trace-event JSON from a merged archive.
 *
 * One process per rank, one thread track per location; every region
 * (MPI call) a slice of B/E events in time order; a collective's slice
 * carries its operation, communicator, root and bytes; every message a
 * flow arrow: an "s" event inside the send's slice, an "f" event (bound to
 * the enclosing slice) inside the receive's (flow events are written when
 * their message's place in the matching order is known, so not always in
 * time order; slices always are). The two ends get the same id
 * without ever meeting in memory: (communicator, sender, receiver, tag, k)
 * for the k-th message of that key (tools/export/flowmatch.h), hashed to 64 bits.
 * Timestamps are microseconds with nanosecond decimals.
 * With OUT/waits-instances.bin (synctrace waits --json), every wait that
 * took time is an "X" slice of category "wait" on a "waits" track of its
 * rank's process, named by its pattern, with the bounds in its args; a
 * wait that overlaps an earlier one goes to a second track ("waits 2",
 * ...): slices on one track must nest, and waits are not nested.
 *
 * Memory: per-location state, the flow matcher's counters per key and its
 * queues of outstanding receives — nothing that grows with the number of
 * events. */
#include "export.h"
#include "export_waits.h"
#include "flowmatch.h"
#include "workspan.h"
#include "location_order.h"
#include "mtread.h"
#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct track {
    int coll_pending;         /* a CollectiveEnd waits for its Leave */
    struct rt_event coll;
};

struct chrome {
    FILE *to;
    struct mt_trace t;
    char **region_json;       /* per region: its name as a JSON string */
    char **track_json;        /* per location: ,"pid":N,"tid":N,"ts": */
    struct track *tracks;
    struct fm_matcher *fm;
    uint64_t events, total;
    struct workspan work;
    char *err;
    size_t errlen;
};

/* A flow id from the message's name: both ends compute the same. */
static uint64_t flow_id(const struct fm_key *key, uint64_t k)
{
    uint64_t v[5] = { key->comm, key->src, key->dst, key->tag, k }, h = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 5; i++) {
        h ^= v[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 27;
    }
    return h;
}

/* The text every event of a location repeats is made once: formatting is
 * most of an export's time. */
static char *json_of(const char *s)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    export_json_string(f, s);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void head(struct chrome *c, const char *ph, const char *name_json, uint32_t loc, uint64_t time)
{
    fputs(",\n{\"ph\":\"", c->to);
    fputs(ph, c->to);
    fputs("\",\"name\":", c->to);
    fputs(name_json, c->to);
    fputs(c->track_json[loc], c->to);
    export_us(c->to, time);
}

static const char *region_json(const struct chrome *c, uint32_t region)
{
    return region < c->t.nregions ? c->region_json[region] : "\"?\"";
}

static void flow(struct chrome *c, const char *ph, const struct fm_key *key, uint64_t k, uint32_t loc, uint64_t time)
{
    head(c, ph, "\"message\"", loc, time);
    fprintf(c->to, ",\"cat\":\"message\",\"id\":\"0x%016llx\"%s,\"args\":{\"comm\":%u,\"from\":%u,\"to\":%u,"
                   "\"tag\":%u,\"k\":%llu}}",
            (unsigned long long)flow_id(key, k), ph[0] == 'f' ? ",\"bp\":\"e\"" : "", key->comm, key->src, key->dst,
            key->tag, (unsigned long long)k);
    export_last.flows += ph[0] == 's';
}

static void on_end(void *user, int is_send, const struct fm_key *key, uint64_t k, uint32_t rank, uint64_t time,
                   uint64_t cookie)
{
    (void)rank;
    if (time != FM_TIME_UNKNOWN)   /* a receive released by MPI_Request_free: no arrow end */
        flow(user, is_send ? "s" : "f", key, k, (uint32_t)cookie, time);
}

/* A waits track's tid: apart from every location's (rank, or thread << 32 | rank). */
#define WAIT_TID(lane) ((1ull << 31) + (lane))
#define WAIT_LANES 16

static void wait_us(FILE *to, const char *key, double ns)
{
    if (isfinite(ns))
        fprintf(to, ",\"%s\":%.3f", key, ns * 1e-3);
    else
        fprintf(to, ",\"%s\":null", key);
}

/* The waits as slices, rank by rank in order of start (export_waits.h). */
static void mark_waits(struct chrome *c, const struct export_waits *w)
{
    double end[WAIT_LANES];
    uint32_t used = 0, named = 0;
    for (size_t i = 0; i < w->n; i++) {
        const struct wt_instance *x = &w->v[i];
        if (i == 0 || x->rank != w->v[i - 1].rank)
            used = named = 0;
        /* the first lane free by its start */
        uint32_t lane = 0;
        while (lane < used && end[lane] > x->from)
            lane++;
        if (lane == WAIT_LANES)
            lane = WAIT_LANES - 1;   /* more overlaps than lanes: drawn as the viewer can */
        if (lane == used)
            end[used++] = 0;
        end[lane] = fmax(end[lane], x->from + x->w);
        for (; named < used; named++) {
            fprintf(c->to, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%llu,\"args\":{\"name\":",
                    x->rank, WAIT_TID(named));
            if (named)
                fprintf(c->to, "\"waits %u\"}}", named + 1);
            else
                fputs("\"waits\"}}", c->to);
            fprintf(c->to, ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%llu,"
                           "\"args\":{\"sort_index\":%llu}}", x->rank, WAIT_TID(named), WAIT_TID(named));
        }
        const char *name = wt_pattern_name(x->pattern);
        fprintf(c->to, ",\n{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"wait\",\"pid\":%u,\"tid\":%llu,\"ts\":", name,
                x->rank, WAIT_TID(lane));
        export_us(c->to, (uint64_t)x->from);
        fputs(",\"dur\":", c->to);
        export_us(c->to, (uint64_t)x->w);
        fprintf(c->to, ",\"args\":{\"pattern\":\"%s\",\"region\":%s,\"communicator\":", name,
                region_json(c, x->region));
        export_json_string(c->to, x->comm < c->t.ncomms && c->t.comms[x->comm].name ? c->t.comms[x->comm].name : "?");
        wait_us(c->to, "lo_us", x->lo);
        wait_us(c->to, "hi_us", x->hi);
        fputs("}}", c->to);
    }
}

/* The program's own work, marked for the eye: the trace-event format has
 * no initial view (Perfetto and chrome://tracing open on the whole trace),
 * so two global instants say where MPI_Init's start-up ends and
 * MPI_Finalize begins. */
static void mark_work(struct chrome *c)
{
    uint64_t begin, end;
    if (!ws_span(&c->work, &begin, &end) || !c->t.nlocations)
        return;
    head(c, "i", "\"program begins (MPI_Init ends)\"", 0, begin);
    fputs(",\"s\":\"g\",\"cat\":\"synctrace\"}", c->to);
    head(c, "i", "\"program ends (MPI_Finalize begins)\"", 0, end);
    fputs(",\"s\":\"g\",\"cat\":\"synctrace\"}", c->to);
}

static int on_event(void *user, uint32_t loc, const struct rt_event *e)
{
    struct chrome *c = user;
    struct track *tr = &c->tracks[loc];
    uint32_t self = loc_id_rank(c->t.locations[loc]);
    if ((++c->events & 0xffff) == 0)
        progress_update("exporting events", c->events, c->total);
    ws_note(&c->work, e);
    switch (e->kind) {
    case RT_ENTER:
        head(c, "B", region_json(c, e->ref), loc, e->time);
        fputs(",\"cat\":\"mpi\"", c->to);
        if (e->bytes > 1)   /* polling calls recorded as one region */
            fprintf(c->to, ",\"args\":{\"calls\":%llu}", (unsigned long long)e->bytes);
        fputc('}', c->to);
        export_last.slices++;
        break;
    case RT_LEAVE:
        head(c, "E", region_json(c, e->ref), loc, e->time);
        if (tr->coll_pending) {
            const struct rt_event *x = &tr->coll;
            int root = x->peer == UINT32_MAX ? -1 : mt_peer_rank(&c->t, self, x->ref, x->peer);
            fprintf(c->to, ",\"args\":{\"collective\":\"%s\",\"comm\":", rt_collective_name(x->tag));
            export_json_string(c->to, x->ref < c->t.ncomms && c->t.comms[x->ref].name ? c->t.comms[x->ref].name : "?");
            fprintf(c->to, ",\"root\":%d,\"bytes_sent\":%llu,\"bytes_received\":%llu}", root,
                    (unsigned long long)x->bytes, (unsigned long long)x->received);
            tr->coll_pending = 0;
        }
        fputc('}', c->to);
        break;
    case RT_SEND:
    case RT_ISEND: {
        int dst = mt_peer_rank(&c->t, self, e->ref, e->peer);
        struct fm_key key = { e->ref, self, dst < 0 ? UINT32_MAX : (uint32_t)dst, e->tag };
        if (fm_send(c->fm, loc, e->kind == RT_ISEND, e->req, &key, e->time, loc) != 0)
            goto oom;
        break;
    }
    case RT_ISEND_COMPLETE:
        fm_send_complete(c->fm, loc, e->req);
        break;
    case RT_IRECV_REQUEST:
        if (fm_post(c->fm, loc, e->req) != 0)
            goto oom;
        break;
    case RT_RECV:
    case RT_IRECV: {
        int src = mt_peer_rank(&c->t, self, e->ref, e->peer);
        struct fm_key key = { e->ref, src < 0 ? UINT32_MAX : (uint32_t)src, self, e->tag };
        if (fm_recv(c->fm, loc, e->kind == RT_IRECV, e->req, &key, e->time, loc) != 0)
            goto oom;
        break;
    }
    case RT_IRECV_FREED: {
        int src = e->peer == RT_ANY ? -1 : mt_peer_rank(&c->t, self, e->ref, e->peer);
        struct fm_key key = { e->ref, src < 0 ? UINT32_MAX : (uint32_t)src, self, e->tag };
        fm_freed(c->fm, loc, e->req, src < 0 || e->tag == RT_ANY ? NULL : &key, loc);
        break;
    }
    case RT_CANCELLED:
        fm_cancel(c->fm, loc, e->req);
        break;
    case RT_COLL_END:
        tr->coll = *e;
        tr->coll_pending = 1;
        break;
    case RT_NBC_COMPLETE:
        fputs(",\n{\"ph\":\"i\",\"name\":\"", c->to);
        fputs(rt_collective_name(e->tag), c->to);
        fputc('"', c->to);
        fputs(c->track_json[loc], c->to);
        export_us(c->to, e->time);
        fprintf(c->to, ",\"cat\":\"collective\",\"s\":\"t\",\"args\":{\"nonblocking\":true,\"bytes_sent\":%llu}}",
                (unsigned long long)e->bytes);
        break;
    default:
        break;
    }
    return 0;
oom:
    snprintf(c->err, c->errlen, "out of memory while pairing messages");
    return -1;
}

int export_chrome(const char *outdir, FILE *to, const struct export_reading *rd, char *err, size_t errlen)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/traces.otf2", outdir);
    struct chrome c = { .to = to, .err = err, .errlen = errlen };
    if (mt_open(path, &c.t, err, errlen) != 0)
        return -1;
    if (rd) {
        c.t.max_open = rd->max_open;
        c.t.spill_dir = rd->spill_dir;
    }
    int rc = -1;
    c.tracks = calloc(c.t.nlocations, sizeof *c.tracks);
    c.fm = fm_new(c.t.nlocations, on_end, &c);
    c.region_json = calloc(c.t.nregions ? c.t.nregions : 1, sizeof *c.region_json);
    c.track_json = calloc(c.t.nlocations, sizeof *c.track_json);
    int ready = c.tracks && c.fm && c.region_json && c.track_json && ws_init(&c.work, &c.t) == 0;
    for (uint32_t r = 0; ready && r < c.t.nregions; r++)
        ready = (c.region_json[r] = json_of(mt_region(&c.t, r))) != NULL;
    for (uint32_t i = 0; ready && i < c.t.nlocations; i++) {
        unsigned long long id = (unsigned long long)c.t.locations[i];
        ready = asprintf(&c.track_json[i], ",\"pid\":%llu,\"tid\":%llu,\"ts\":", id, id) >= 0;
        if (!ready)
            c.track_json[i] = NULL;
    }
    if (!ready) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < c.t.nlocations; i++)
        c.total += c.t.location_events[i];
    progress_begin("synctrace export");
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"synctrace export\","
          "\"clock\":\"synchronised global time\"},\n\"traceEvents\":[\n"
          "{\"ph\":\"M\",\"name\":\"synctrace\",\"pid\":0,\"tid\":0,\"args\":{}}", to);
    for (uint32_t i = 0; i < c.t.nlocations; i++) {
        unsigned long long id = (unsigned long long)c.t.locations[i];
        char name[64];
        snprintf(name, sizeof name, "rank %llu", id);
        fprintf(to, ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%llu,\"tid\":%llu,\"args\":{\"name\":", id, id);
        export_json_string(to, name);
        fprintf(to, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%llu,\"tid\":%llu,"
                    "\"args\":{\"sort_index\":%llu}}", id, id, id);
        fprintf(to, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%llu,\"tid\":%llu,\"args\":{\"name\":", id, id);
        export_json_string(to, c.t.location_names[i][0] ? c.t.location_names[i] : name);
        fputs("}}", to);
    }
    if (mt_read_events(&c.t, on_event, &c, err, errlen) != 0)
        goto done;
    /* receives queued behind ones that never completed */
    fm_finish(c.fm);
    struct export_waits waits;
    export_waits_load(outdir, c.t.locations, c.t.nlocations, &waits);
    mark_waits(&c, &waits);
    export_last.waits = waits.n;
    export_waits_free(&waits);
    mark_work(&c);
    fputs("\n]}\n", to);
    export_last.events = c.events;
    rc = 0;
done:
    progress_end();
    fm_free(c.fm);
    free(c.tracks);
    for (uint32_t r = 0; c.region_json && r < c.t.nregions; r++)
        free(c.region_json[r]);
    for (uint32_t i = 0; c.track_json && i < c.t.nlocations; i++)
        free(c.track_json[i]);
    free(c.region_json);
    free(c.track_json);
    ws_free(&c.work);
    mt_close(&c.t);
    return rc;
}
