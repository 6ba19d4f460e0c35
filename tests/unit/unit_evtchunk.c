/* unit_evtchunk.c — the tracer's own OTF2 event encoding (format/convert.c,
 * format/evtchunk.c) against OTF2's writer: the same compact records, every
 * kind, edge values (0, the all-ones values, every byte width, negative
 * tags), equal and zero timestamps, attributes (true time, collapsed calls,
 * a freed receive's, collectives' source words), over many chunks, are
 * converted by both; the event files must be the same, byte for byte. */
#include <config.h>
#include "tap.h"
#include "convert.h"
#include "reckinds.h"
#include "recfile.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Values at every width OTF2 compresses to, and the special ones. */
static uint64_t edge64(void)
{
    static const uint64_t v[] = { 0, 1, 0x7f, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000, 0xfffffffe,
                                  0xffffffff, 0x100000000ULL, 0xffffffffffULL, 0x10000000000ULL,
                                  0xffffffffffffULL, 0x1000000000000ULL, 0xffffffffffffffULL,
                                  0x100000000000000ULL, UINT64_MAX - 1, UINT64_MAX };
    uint64_t r = next();
    return r % 4 == 0 ? r : v[r % (sizeof v / sizeof v[0])];
}

static uint32_t edge32(void)
{
    static const uint32_t v[] = { 0, 1, 0x7f, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000,
                                  0x7fffffff, 0x80000000u, UINT32_MAX - 1, UINT32_MAX };
    uint64_t r = next();
    return r % 4 == 0 ? (uint32_t)r : v[r % (sizeof v / sizeof v[0])];
}

static int32_t edge_int(void)
{
    static const int32_t v[] = { 0, 1, -1, -2, 127, 255, 256, 65535, 65536, INT32_MAX, INT32_MIN, -32768 };
    return v[next() % (sizeof v / sizeof v[0])];
}

static struct rf_attr_layout layout = { .true_time = 0, .slots = 1, .freed_receive = { 2, 3, 4 },
                                        .collapsed_calls = 5, .sources = 6 };
static _Atomic uint32_t source_ref[ST_REC_MAX_WORDS];

/* ---------- the records ---------- */

static uint64_t *recs;
static size_t nrecs_words, recs_cap;

static void put(uint32_t kind, uint64_t t, uint32_t a0, const uint64_t *v, uint32_t n, int truth, uint64_t true_t)
{
    size_t need = 2 + n + (truth != 0);
    if (nrecs_words + need > recs_cap) {
        recs_cap = (nrecs_words + need) * 2;
        recs = realloc(recs, recs_cap * sizeof *recs);
        if (!recs)
            abort();
    }
    uint64_t *w = recs + nrecs_words;
    w[0] = kind | (uint64_t)n << 8 | (truth ? ST_REC_TRUTH : 0) | (uint64_t)a0 << 32;
    w[1] = t;
    memcpy(w + 2, v, n * sizeof *v);
    if (truth)
        w[2 + n] = true_t;
    nrecs_words += need;
}

/* A collective exit's sources: a slot count (0: none) and its bit words,
 * some zero (left out), some of words never defined (left out too). */
static uint32_t sources(uint64_t *v)
{
    if (next() % 3) {
        v[0] = 0;
        return 1;
    }
    uint32_t words = 1 + (uint32_t)(next() % 40);
    v[0] = words * 64 - next() % 64;
    for (uint32_t k = 0; k < words; k++)
        v[1 + k] = next() % 4 == 0 ? 0 : next();
    return 1 + words;
}

static void make_records(size_t count, int truth)
{
    nrecs_words = 0;
    uint64_t t = next() % 2 ? 0 : 1000;
    for (size_t i = 0; i < count; i++) {
        uint64_t r = next();
        if (r % 3)   /* a third of the events share their predecessor's time */
            t += 1 + (r >> 8) % (r % 5 == 0 ? 1000000000000ULL : 5000);
        uint64_t v[64] = { 0 };
        uint32_t n = 0, a0 = 0;
        uint32_t kind = (uint32_t)(next() % REC_KINDS);
        switch (kind) {
        case REC_ENTER: case REC_LEAVE: case REC_COMM_CREATE: case REC_COMM_DESTROY:
            a0 = edge32();
            break;
        case REC_ENTER_CALLS:
            a0 = edge32();
            v[0] = next() % 3 ? 1 + next() % 3 : edge64();
            n = 1;
            break;
        case REC_SEND: case REC_RECV: case REC_ISEND: case REC_IRECV:
            a0 = edge32();
            v[0] = edge32() | (uint64_t)edge32() << 32;
            v[1] = edge64();
            v[2] = edge64();
            n = kind == REC_ISEND || kind == REC_IRECV ? 3 : 2;
            break;
        case REC_ISEND_COMPLETE: case REC_IRECV_REQUEST: case REC_REQUEST_CANCELLED: case REC_NBC_REQUEST:
        case REC_FLUSH: case REC_RMA_WIN_CREATE: case REC_RMA_WIN_DESTROY:
            v[0] = kind == REC_FLUSH ? t + next() % 100000 : kind >= REC_RMA_WIN_CREATE ? edge32() : edge64();
            n = 1;
            break;
        case REC_IRECV_FREED:
            v[0] = edge32();
            v[1] = (uint32_t)edge_int();
            v[2] = (uint32_t)edge_int();
            v[3] = edge64();
            n = 4;
            break;
        case REC_COLL_END: case REC_NBC_COMPLETE: {
            uint32_t fixed = kind == REC_COLL_END ? 5 : 6;
            v[0] = next() % 20;
            v[1] = edge32();
            v[2] = edge32();
            v[3] = edge64();
            v[4] = edge64();
            v[5] = edge64();
            n = fixed + sources(v + fixed);
            break;
        }
        case REC_RMA_COLLECTIVE_END:
            v[0] = next() % 20;
            v[1] = next() % 3;
            v[2] = edge32();
            n = 3;
            break;
        case REC_RMA_PUT: case REC_RMA_GET:
            v[0] = edge32(), v[1] = edge32(), v[2] = edge64(), v[3] = edge64();
            n = 4;
            break;
        case REC_RMA_ATOMIC:
            v[0] = edge32(), v[1] = edge32(), v[2] = next() % 10, v[3] = edge64(), v[4] = edge64(), v[5] = edge64();
            n = 6;
            break;
        case REC_RMA_OP_COMPLETE_REMOTE: case REC_RMA_OP_COMPLETE_NON_BLOCKING:
            v[0] = edge32(), v[1] = edge64();
            n = 2;
            break;
        case REC_RMA_REQUEST_LOCK: case REC_RMA_RELEASE_LOCK: case REC_RMA_SYNC:
            v[0] = edge32(), v[1] = edge32(), v[2] = next() % 4;
            n = 3;
            break;
        default:   /* COLL_BEGIN, RMA_COLLECTIVE_BEGIN */
            break;
        }
        put(kind, t, a0, v, n, truth, t ^ next());
    }
}

/* ---------- the reference: OTF2's writer, as the tracer called it ---------- */

#define U32(i) ((uint32_t)v[i])
#define HI32(i) ((uint32_t)(v[i] >> 32))

static void add_sources(OTF2_AttributeList *al, const uint64_t *v, uint32_t n)
{
    if (!v[0])
        return;
    OTF2_AttributeList_AddUint32(al, layout.slots, (uint32_t)v[0]);
    for (uint32_t k = 0; k + 1 < n; k++) {
        uint32_t ref = v[1 + k] ? source_ref[k] : 0;
        if (ref)
            OTF2_AttributeList_AddUint64(al, ref, v[1 + k]);
    }
}

static void reference(OTF2_EvtWriter *w, OTF2_AttributeList *al, const uint64_t *rec, const uint64_t *end)
{
    while (rec < end) {
        uint64_t h = rec[0];
        uint32_t n = ST_REC_NARGS(h), a0 = ST_REC_A0(h);
        OTF2_TimeStamp t = rec[1];
        const uint64_t *v = rec + 2;
        if (h & ST_REC_TRUTH)
            OTF2_AttributeList_AddUint64(al, layout.true_time, v[n]);
        OTF2_AttributeList *a = al;
        switch (ST_REC_KIND(h)) {
        case REC_ENTER: OTF2_EvtWriter_Enter(w, a, t, a0); break;
        case REC_LEAVE: OTF2_EvtWriter_Leave(w, a, t, a0); break;
        case REC_ENTER_CALLS:
            if (v[0] > 1)
                OTF2_AttributeList_AddUint64(al, layout.collapsed_calls, v[0]);
            OTF2_EvtWriter_Enter(w, a, t, a0);
            break;
        case REC_SEND: OTF2_EvtWriter_MpiSend(w, a, t, a0, U32(0), HI32(0), v[1]); break;
        case REC_ISEND: OTF2_EvtWriter_MpiIsend(w, a, t, a0, U32(0), HI32(0), v[1], v[2]); break;
        case REC_RECV: OTF2_EvtWriter_MpiRecv(w, a, t, a0, U32(0), HI32(0), v[1]); break;
        case REC_IRECV: OTF2_EvtWriter_MpiIrecv(w, a, t, a0, U32(0), HI32(0), v[1], v[2]); break;
        case REC_ISEND_COMPLETE: OTF2_EvtWriter_MpiIsendComplete(w, a, t, v[0]); break;
        case REC_IRECV_REQUEST: OTF2_EvtWriter_MpiIrecvRequest(w, a, t, v[0]); break;
        case REC_REQUEST_CANCELLED: OTF2_EvtWriter_MpiRequestCancelled(w, a, t, v[0]); break;
        case REC_IRECV_FREED:
            OTF2_AttributeList_AddCommRef(al, layout.freed_receive[0], U32(0));
            OTF2_AttributeList_AddInt32(al, layout.freed_receive[1], (int32_t)U32(1));
            OTF2_AttributeList_AddInt32(al, layout.freed_receive[2], (int32_t)U32(2));
            OTF2_EvtWriter_MpiRequestTest(w, a, t, v[3]);
            break;
        case REC_COLL_BEGIN: OTF2_EvtWriter_MpiCollectiveBegin(w, a, t); break;
        case REC_COLL_END:
            add_sources(al, v + 5, n - 5);
            OTF2_EvtWriter_MpiCollectiveEnd(w, a, t, (OTF2_CollectiveOp)v[0], U32(1), U32(2), v[3], v[4]);
            break;
        case REC_NBC_REQUEST: OTF2_EvtWriter_NonBlockingCollectiveRequest(w, a, t, v[0]); break;
        case REC_NBC_COMPLETE:
            add_sources(al, v + 6, n - 6);
            OTF2_EvtWriter_NonBlockingCollectiveComplete(w, a, t, (OTF2_CollectiveOp)v[0], U32(1), U32(2), v[3], v[4],
                                                         v[5]);
            break;
        case REC_RMA_WIN_CREATE: OTF2_EvtWriter_RmaWinCreate(w, a, t, U32(0)); break;
        case REC_RMA_WIN_DESTROY: OTF2_EvtWriter_RmaWinDestroy(w, a, t, U32(0)); break;
        case REC_RMA_COLLECTIVE_BEGIN: OTF2_EvtWriter_RmaCollectiveBegin(w, a, t); break;
        case REC_RMA_COLLECTIVE_END:
            OTF2_EvtWriter_RmaCollectiveEnd(w, a, t, (OTF2_CollectiveOp)v[0], (OTF2_RmaSyncLevel)v[1], U32(2),
                                            OTF2_UNDEFINED_UINT32, 0, 0);
            break;
        case REC_RMA_PUT: OTF2_EvtWriter_RmaPut(w, a, t, U32(0), U32(1), v[2], v[3]); break;
        case REC_RMA_GET: OTF2_EvtWriter_RmaGet(w, a, t, U32(0), U32(1), v[2], v[3]); break;
        case REC_RMA_ATOMIC:
            OTF2_EvtWriter_RmaAtomic(w, a, t, U32(0), U32(1), (OTF2_RmaAtomicType)v[2], v[3], v[4], v[5]);
            break;
        case REC_RMA_OP_COMPLETE_REMOTE: OTF2_EvtWriter_RmaOpCompleteRemote(w, a, t, U32(0), v[1]); break;
        case REC_RMA_OP_COMPLETE_NON_BLOCKING: OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, a, t, U32(0), v[1]); break;
        case REC_RMA_REQUEST_LOCK: OTF2_EvtWriter_RmaRequestLock(w, a, t, U32(0), U32(1), 0, (OTF2_LockType)v[2]); break;
        case REC_RMA_RELEASE_LOCK: OTF2_EvtWriter_RmaReleaseLock(w, a, t, U32(0), U32(1), 0); break;
        case REC_RMA_SYNC: OTF2_EvtWriter_RmaSync(w, a, t, U32(0), U32(1), (OTF2_RmaSyncType)v[2]); break;
        case REC_COMM_CREATE: OTF2_EvtWriter_CommCreate(w, a, t, a0); break;
        case REC_COMM_DESTROY: OTF2_EvtWriter_CommDestroy(w, a, t, a0); break;
        case REC_FLUSH: OTF2_EvtWriter_BufferFlush(w, a, t, v[0]); break;
        default: break;
        }
        OTF2_AttributeList_RemoveAllAttributes(al);
        rec += 2 + n + ((h & ST_REC_TRUTH) != 0);
    }
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool final)
{
    (void)u, (void)ft, (void)l, (void)c, (void)final;
    return OTF2_FLUSH;
}
static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

static int write_reference(const char *dir, uint64_t *nevents)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "ref", OTF2_FILEMODE_WRITE, CHUNK, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar || OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL) != OTF2_SUCCESS
        || OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS || OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS)
        return -1;
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, 0);
    OTF2_AttributeList *al = OTF2_AttributeList_New();
    if (!w || !al)
        return -1;
    reference(w, al, recs, recs + nrecs_words);
    OTF2_EvtWriter_GetNumberOfEvents(w, nevents);
    OTF2_AttributeList_Delete(al);
    OTF2_Archive_CloseEvtWriter(ar, w);
    OTF2_Archive_CloseEvtFiles(ar);
    return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : -1;
}

/* Ours, converting the records in slices, as records.c hands chunks over. */
static int write_ours(const char *path, uint64_t *nevents)
{
    struct st_evtfile f;
    struct st_convert_refs refs = { &layout, source_ref };
    if (st_evt_open(&f, path, CHUNK) != 0)
        return -1;
    const uint64_t *w = recs, *end = recs + nrecs_words;
    while (w < end) {
        const uint64_t *stop = w;
        for (size_t k = next() % 5000; k > 0 && stop < end; k--)
            stop += 2 + ST_REC_NARGS(stop[0]) + ((stop[0] & ST_REC_TRUTH) != 0);
        st_convert(&f, &refs, w, stop);
        w = stop;
    }
    *nevents = f.nevents;
    return st_evt_close(&f);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *len = (size_t)n;
    return buf;
}

static void compare(const char *what, size_t count, int truth)
{
    char dir[] = "/tmp/unit_evtchunk.XXXXXX";
    if (!mkdtemp(dir)) {
        ok(0, "%s: a temporary directory", what);
        return;
    }
    make_records(count, truth);
    char ref_path[256], our_path[256];
    snprintf(ref_path, sizeof ref_path, "%s/ref/0.evt", dir);
    snprintf(our_path, sizeof our_path, "%s/ours.evt", dir);
    uint64_t n_ref = 0, n_ours = 0;
    int wrote = write_reference(dir, &n_ref) == 0 && write_ours(our_path, &n_ours) == 0;
    size_t len_ref = 0, len_ours = 0;
    char *a = wrote ? slurp(ref_path, &len_ref) : NULL, *b = wrote ? slurp(our_path, &len_ours) : NULL;
    size_t first_diff = 0;
    while (a && b && first_diff < len_ref && first_diff < len_ours && a[first_diff] == b[first_diff])
        first_diff++;
    ok(a && b && n_ref == n_ours && n_ref == count && len_ref == len_ours && first_diff == len_ref,
       "%s: %zu events, %zu chunks: OTF2 %zu bytes, ours %zu, same up to byte %zu", what, count,
       (len_ref + CHUNK - 1) / CHUNK, len_ref, len_ours, first_diff);
    free(a);
    free(b);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
}

int main(void)
{
    for (uint32_t k = 0; k < ST_REC_MAX_WORDS; k++)   /* some words never defined */
        source_ref[k] = k % 7 == 3 ? 0 : 100 + k;
    compare("one event", 1, 0);
    compare("every kind, no true times", 200000, 0);
    compare("every kind, with true times", 200000, 1);
    compare("a chunk's worth of small events", 30000, 1);
    return tap_finish();
}
