/* convert.c — compact records (records.h) into OTF2 event records
 * (evtchunk.h): one converter per record kind of reckinds.h.
 *
 * The fields and their order are OTF2's for each event type; the bound of
 * each record (OTF2's upper bound of its size: 5 bytes per compressed
 * 32-bit field, 9 per 64-bit one) decides, as in OTF2, when a record
 * starts a new chunk. tests/unit/unit_evtchunk.c checks every kind, byte for
 * byte, against OTF2's own writer fed the same records. */
#include "convert.h"
#include "rawformat.h"
#include "reckinds.h"
#include "recfile.h"

#include <otf2/OTF2_GeneralDefinitions.h>
#include <stdatomic.h>

/* A converter turns the arguments v[0..n-1] of one record into one OTF2
 * event of the event file f (evtchunk.h) at time t, with the attributes
 * a->at[0..a->n) (true_time first when skew is on) and room there for the
 * ones it adds (a collective's source words: one per record word at most). */
struct cv_attrs {
    uint32_t n;
    struct st_evtattr at[ST_REC_MAX_WORDS + 4];
};
#define CONVERTER(fn, body)                                                                                  \
    static inline void cv_##fn(struct st_evtfile *f, const struct st_convert_refs *r, struct cv_attrs *a,     \
                               uint64_t t, uint32_t a0, const uint64_t *v, uint32_t n)                       \
    {                                                                                                        \
        (void)r; (void)a0; (void)v; (void)n;                                                                 \
        body                                                                                                 \
    }
#define U32(i) ((uint32_t)v[i])
/* The upper half of a word: a tag packed with its communicator. */
#define HI32(i) ((uint32_t)(v[i] >> 32))

/* The event's start: its attribute list, then its type; `fields` is OTF2's
 * bound of its fields, `len` whether it has a length byte (every record
 * type but a few of OTF2 1.0's one-field ones). */
static inline uint8_t *ev_begin(struct st_evtfile *f, const struct cv_attrs *a, uint64_t t, uint8_t type,
                                size_t fields, int len)
{
    uint8_t *p = st_evt_begin(f, t, 1 + st_evt_attrs_bound(a->n) + fields + (len != 0));
    if (a->n)
        p = st_evt_attrs(p, a->at, a->n);
    *p++ = type;
    return p;
}
#define EV(type, fields) uint8_t *p = ev_begin(f, a, t, type, fields, 1), *len_at = p++
#define EV_END() (st_evt_set_length(len_at, p), st_evt_end(f, p))
/* The one-field records without a length byte. */
#define EV_SHORT_U32(type, x)                                                                                \
    st_evt_end(f, st_evt_u32(ev_begin(f, a, t, type, EVT_U32, 0), x))
#define EV_SHORT_U64(type, x)                                                                                \
    st_evt_end(f, st_evt_u64(ev_begin(f, a, t, type, EVT_U64, 0), x))

static inline void add_attr(struct cv_attrs *a, uint32_t ref, uint8_t type, uint64_t value)
{
    a->at[a->n++] = (struct st_evtattr){ ref, type, value };
}

/* The attributes of a sparse member's sources: v[0] the slot count, then
 * the bit words. */
static void with_sources(const struct st_convert_refs *r, struct cv_attrs *a, const uint64_t *v, uint32_t n)
{
    uint32_t nslots = (uint32_t)v[0];
    if (!nslots)
        return;
    add_attr(a, r->attrs->slots, OTF2_TYPE_UINT32, nslots);
    for (uint32_t k = 0; k + 1 < n && k < ST_REC_MAX_WORDS; k++) {
        uint32_t ref = v[1 + k] ? atomic_load_explicit(&r->source_ref[k], memory_order_acquire) : 0;
        if (ref)   /* given when it was recorded (note_source_words) */
            add_attr(a, ref, OTF2_TYPE_UINT64, v[1 + k]);
    }
}

/* Point-to-point: the peer in the header, communicator and tag one word. */
#define P2P(type, extra)                                                                                     \
    EV(type, 3 * EVT_U32 + EVT_U64 + (extra) * EVT_U64);                                                     \
    p = st_evt_u32(p, a0);                                                                                   \
    p = st_evt_u32(p, U32(0));                                                                               \
    p = st_evt_u32(p, HI32(0));                                                                              \
    p = st_evt_u64(p, v[1]);                                                                                 \
    if (extra)                                                                                               \
        p = st_evt_u64(p, v[2]);                                                                             \
    EV_END();

CONVERTER(enter, EV_SHORT_U32(EVT_ENTER, a0);)
CONVERTER(leave, EV_SHORT_U32(EVT_LEAVE, a0);)
/* The Enter of v[0] polling calls collapsed into one region (polling.c):
 * the collapsed_calls attribute when more than one. */
CONVERTER(enter_calls, if (v[0] > 1) add_attr(a, r->attrs->collapsed_calls, OTF2_TYPE_UINT64, v[0]);
          EV_SHORT_U32(EVT_ENTER, a0);)
CONVERTER(send, P2P(EVT_MPI_SEND, 0))
CONVERTER(isend, P2P(EVT_MPI_ISEND, 1))
CONVERTER(recv, P2P(EVT_MPI_RECV, 0))
CONVERTER(irecv, P2P(EVT_MPI_IRECV, 1))
CONVERTER(isend_complete, EV_SHORT_U64(EVT_MPI_ISEND_COMPLETE, v[0]);)
CONVERTER(irecv_request, EV_SHORT_U64(EVT_MPI_IRECV_REQUEST, v[0]);)
CONVERTER(request_cancelled, EV_SHORT_U64(EVT_MPI_REQUEST_CANCELLED, v[0]);)
/* A receive released by MPI_Request_free: a RequestTest carrying what it
 * was posted for (communicator, source, tag). */
CONVERTER(irecv_freed, add_attr(a, r->attrs->freed_receive[0], OTF2_TYPE_COMM, U32(0));
          add_attr(a, r->attrs->freed_receive[1], OTF2_TYPE_INT32, U32(1));
          add_attr(a, r->attrs->freed_receive[2], OTF2_TYPE_INT32, U32(2));
          EV_SHORT_U64(EVT_MPI_REQUEST_TEST, v[3]);)
CONVERTER(coll_begin, EV(EVT_MPI_COLLECTIVE_BEGIN, 0); EV_END();)
CONVERTER(coll_end, with_sources(r, a, v + 5, n - 5);
          EV(EVT_MPI_COLLECTIVE_END, EVT_U8 + 2 * EVT_U32 + 2 * EVT_U64);
          *p++ = (uint8_t)v[0];
          p = st_evt_u32(p, U32(1));
          p = st_evt_u32(p, U32(2));
          p = st_evt_u64(p, v[3]);
          p = st_evt_u64(p, v[4]);
          EV_END();)
CONVERTER(nbc_request, EV(EVT_NBC_REQUEST, EVT_U64); p = st_evt_u64(p, v[0]); EV_END();)
CONVERTER(nbc_complete, with_sources(r, a, v + 6, n - 6);
          EV(EVT_NBC_COMPLETE, EVT_U8 + 2 * EVT_U32 + 3 * EVT_U64);
          *p++ = (uint8_t)v[0];
          p = st_evt_u32(p, U32(1));
          p = st_evt_u32(p, U32(2));
          p = st_evt_u64(p, v[3]);
          p = st_evt_u64(p, v[4]);
          p = st_evt_u64(p, v[5]);
          EV_END();)
/* One 32-bit reference (a window, a communicator) with a length byte. */
#define ONE_REF(type, x) EV(type, EVT_U32); p = st_evt_u32(p, x); EV_END();
CONVERTER(rma_win_create, ONE_REF(EVT_RMA_WIN_CREATE, U32(0)))
CONVERTER(rma_win_destroy, ONE_REF(EVT_RMA_WIN_DESTROY, U32(0)))
CONVERTER(comm_create, ONE_REF(EVT_COMM_CREATE, a0))
CONVERTER(comm_destroy, ONE_REF(EVT_COMM_DESTROY, a0))
CONVERTER(rma_collective_begin, EV(EVT_RMA_COLLECTIVE_BEGIN, 0); EV_END();)
/* Operation, sync level, window; no root, no bytes. */
CONVERTER(rma_collective_end, EV(EVT_RMA_COLLECTIVE_END, EVT_U8 + 3 * EVT_U32 + 2 * EVT_U64);
          *p++ = (uint8_t)v[0];
          p = st_evt_u32(p, U32(1));
          p = st_evt_u32(p, U32(2));
          p = st_evt_u32(p, UINT32_MAX);
          p = st_evt_u64(p, 0);
          p = st_evt_u64(p, 0);
          EV_END();)
/* Window, target, bytes, matching id. */
#define RMA_MOVE(type) EV(type, 2 * EVT_U32 + 2 * EVT_U64); p = st_evt_u32(p, U32(0)); p = st_evt_u32(p, U32(1)); \
    p = st_evt_u64(p, v[2]); p = st_evt_u64(p, v[3]); EV_END();
CONVERTER(rma_put, RMA_MOVE(EVT_RMA_PUT))
CONVERTER(rma_get, RMA_MOVE(EVT_RMA_GET))
CONVERTER(rma_atomic, EV(EVT_RMA_ATOMIC, 2 * EVT_U32 + EVT_U8 + 3 * EVT_U64);
          p = st_evt_u32(p, U32(0));
          p = st_evt_u32(p, U32(1));
          *p++ = (uint8_t)v[2];
          p = st_evt_u64(p, v[3]);
          p = st_evt_u64(p, v[4]);
          p = st_evt_u64(p, v[5]);
          EV_END();)
/* Window, matching id. */
#define RMA_DONE(type) EV(type, EVT_U32 + EVT_U64); p = st_evt_u32(p, U32(0)); p = st_evt_u64(p, v[1]); EV_END();
CONVERTER(rma_op_complete_remote, RMA_DONE(EVT_RMA_OP_COMPLETE_REMOTE))
CONVERTER(rma_op_complete_non_blocking, RMA_DONE(EVT_RMA_OP_COMPLETE_NON_BLOCKING))
/* Window, target, lock id 0 (one lock per target and window), type. */
CONVERTER(rma_request_lock, EV(EVT_RMA_REQUEST_LOCK, 2 * EVT_U32 + EVT_U64 + EVT_U8);
          p = st_evt_u32(p, U32(0));
          p = st_evt_u32(p, U32(1));
          p = st_evt_u64(p, 0);
          *p++ = (uint8_t)v[2];
          EV_END();)
CONVERTER(rma_release_lock, EV(EVT_RMA_RELEASE_LOCK, 2 * EVT_U32 + EVT_U64);
          p = st_evt_u32(p, U32(0));
          p = st_evt_u32(p, U32(1));
          p = st_evt_u64(p, 0);
          EV_END();)
CONVERTER(rma_sync, EV(EVT_RMA_SYNC, 2 * EVT_U32 + EVT_U8);
          p = st_evt_u32(p, U32(0));
          p = st_evt_u32(p, U32(1));
          *p++ = (uint8_t)v[2];
          EV_END();)
/* A flush of records, from t to v[0]. */
CONVERTER(flush, EV(EVT_BUFFER_FLUSH, EVT_TS); memcpy(p, &v[0], 8); p += 8; EV_END();)

/* One switch made from ST_RECORDS, so that the compiler inlines each
 * converter. */
void st_convert(struct st_evtfile *f, const struct st_convert_refs *r, const uint64_t *w, const uint64_t *end)
{
    struct cv_attrs a;
    while (w < end) {
        /* Records come from chunks written long before (a flush converts
         * the whole buffer): fetch ahead of the stream. */
        __builtin_prefetch(w + 64);
        uint64_t h = w[0];
        uint32_t n = ST_REC_NARGS(h);
        uint64_t t = w[1];
        const uint64_t *v = w + 2;
        a.n = 0;
        if (h & ST_REC_TRUTH)
            add_attr(&a, RF_ATTR_TRUE_TIME, OTF2_TYPE_UINT64, v[n]);
#define ST_REC_CASE(kind, fn, least)                                                                           \
    case REC_##kind:                                                                                         \
        cv_##fn(f, r, &a, t, ST_REC_A0(h), v, n);                                                             \
        break;
        switch (ST_REC_KIND(h)) {
            ST_RECORDS(ST_REC_CASE)
        default:
            break;
        }
        w += 2 + n + ((h & ST_REC_TRUTH) != 0);
    }
}

