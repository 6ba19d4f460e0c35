/* foreign_raw.c — see foreign_raw.h. */
#include <config.h>
#include "foreign_raw.h"
#include "defs_write.h"
#include "foreign_pscw.h"
#include "fsutil.h"
#include "members.h"
#include "meta_write.h"
#include "otf2_memory.h"
#include "otf2_quiet.h"
#include "rawformat.h"
#include "sumfile.h"

#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

/* ---- the records the merge models, written as read */

/* Pairs are written a buffer at a time, each as two varints: the zigzag
 * of its position's and its raw time's difference from the pair before
 * (a few bytes where the plain pair is 16). */
#define KEPT_BUFFER 65536
#define KEPT_PAIR_MAX 20

/* What a converting thread has of its own: its reader of the archive, its
 * work file of pairs, its counts; and the process it converts. */
struct process_out {
    struct foreign_raw *fr;
    OTF2_Reader *rd;
    const char *anchor, *dir;
    const struct fd_process *p;
    int domain;
    char *err;
    size_t errlen;
    struct om_pool *chunks;
    int kept_fd;
    uint32_t kept_file;       /* its index in fr->kept_fds */
    uint64_t kept_bytes;
    uint64_t events_in, events_kept;
    uint64_t events_added, pscw_unordered;
};

/* A completion held back inside MPI_Win_complete (foreign_pscw.h). */
struct held_completion {
    uint64_t pos, t, id;
    uint32_t win;
    int remote;               /* RmaOpCompleteRemote, else ..NonBlocking */
};

struct converting {
    OTF2_EvtWriter *w;
    struct process_out *po;
    struct fr_kept *kept;
    OTF2_ErrorCode failed;
    int write_errno;          /* the work file's write failed */
    uint8_t buf[KEPT_BUFFER];
    uint32_t nbuf;            /* bytes */
    uint64_t last_pos, last_raw;   /* the pair before */
    /* PSCW (foreign_pscw.h): the call the location is in, its epochs, and
     * complete's Enter and completions held until its RmaGroupSync */
    enum fp_call call;
    struct fp_location pscw;
    int held;
    uint64_t held_pos, held_t;
    OTF2_RegionRef held_region;
    struct held_completion *hc;
    size_t nhc, chc;
    uint64_t added;           /* notifications written: raw events of no input event of their own */
};

/* A difference of two uint64s as the signed value it is, zigzagged: small
 * either way. */
static uint64_t zigzag(uint64_t d)
{
    return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static unsigned put_varint(uint8_t *p, uint64_t v)
{
    unsigned n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static int flush_kept(struct converting *c)
{
    if (c->nbuf == 0)
        return 0;
    size_t len = c->nbuf;
    if (st_pwrite_all(c->po->kept_fd, c->buf, len, c->po->kept_bytes) != 0) {
        c->write_errno = errno ? errno : EIO;
        return -1;
    }
    c->po->kept_bytes += len;
    c->nbuf = 0;
    return 0;
}

/* Note the event at `pos` as written (its write's status in *failed). */
static OTF2_CallbackCode wrote(struct converting *c, uint64_t pos, uint64_t t, OTF2_ErrorCode e)
{
    if (e != OTF2_SUCCESS) {
        c->failed = e;
        return OTF2_CALLBACK_INTERRUPT;
    }
    c->nbuf += put_varint(c->buf + c->nbuf, zigzag(pos - c->last_pos));
    c->nbuf += put_varint(c->buf + c->nbuf, zigzag(t - c->last_raw));
    c->last_pos = pos;
    c->last_raw = t;
    c->kept->n++;
    if (c->nbuf > KEPT_BUFFER - KEPT_PAIR_MAX && flush_kept(c) != 0)
        return OTF2_CALLBACK_INTERRUPT;
    return OTF2_CALLBACK_SUCCESS;
}

#define EV OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *attrs
/* Any record but a completion inside MPI_Win_complete ends a hold. */
static OTF2_CallbackCode release(struct converting *c, int seen, uint32_t win, int out);
#define W(call) ((void)loc, (void)attrs, \
                 release(u, 0, 0, 0) != OTF2_CALLBACK_SUCCESS ? OTF2_CALLBACK_INTERRUPT : wrote(u, pos, t, call))
#define WR ((struct converting *)u)->w

/* The RmaSync of each of c->pscw's remotes at (pos, t). */
static OTF2_CallbackCode notify(struct converting *c, uint64_t pos, uint64_t t, uint32_t win, OTF2_RmaSyncType type)
{
    for (uint32_t i = 0; i < c->pscw.nremotes; i++) {
        if (wrote(c, pos, t, OTF2_EvtWriter_RmaSync(c->w, NULL, t, win, c->pscw.remotes[i], type))
            != OTF2_CALLBACK_SUCCESS)
            return OTF2_CALLBACK_INTERRUPT;
        c->added++;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The held complete written: its Enter, with `out` the NOTIFY_OUT of
 * each of c->pscw.remotes (the window's targets) at its place and time,
 * then the completions inside it. `seen`: its RmaGroupSync came (else the
 * complete orders nothing, and is counted). */
static OTF2_CallbackCode release(struct converting *c, int seen, uint32_t win, int out)
{
    if (!c->held)
        return OTF2_CALLBACK_SUCCESS;
    c->held = 0;
    if (!seen)
        fp_complete_unseen(&c->pscw);
    if (wrote(c, c->held_pos, c->held_t, OTF2_EvtWriter_Enter(c->w, NULL, c->held_t, c->held_region))
        != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    if (out && notify(c, c->held_pos, c->held_t, win, OTF2_RMA_SYNC_TYPE_NOTIFY_OUT) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    for (size_t i = 0; i < c->nhc; i++) {
        const struct held_completion *h = &c->hc[i];
        OTF2_ErrorCode e = h->remote ? OTF2_EvtWriter_RmaOpCompleteRemote(c->w, NULL, h->t, h->win, h->id)
                                     : OTF2_EvtWriter_RmaOpCompleteNonBlocking(c->w, NULL, h->t, h->win, h->id);
        if (wrote(c, h->pos, h->t, e) != OTF2_CALLBACK_SUCCESS)
            return OTF2_CALLBACK_INTERRUPT;
    }
    c->nhc = 0;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(EV, OTF2_RegionRef r)
{
    struct converting *c = u;
    if (release(c, 0, 0, 0) != OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_INTERRUPT;
    c->call = r < c->po->fr->defs.nregions ? (enum fp_call)c->po->fr->region_calls[r] : FP_OTHER;
    if (c->call == FP_COMPLETE) {   /* which window it closes: at its RmaGroupSync */
        c->held = 1;
        c->held_pos = pos;
        c->held_t = t;
        c->held_region = r;
        c->nhc = 0;
        return OTF2_CALLBACK_SUCCESS;
    }
    return W(OTF2_EvtWriter_Enter(WR, NULL, t, r));
}
static OTF2_CallbackCode on_leave(EV, OTF2_RegionRef r)
{
    ((struct converting *)u)->call = FP_OTHER;
    return W(OTF2_EvtWriter_Leave(WR, NULL, t, r));
}
static OTF2_CallbackCode on_send(EV, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n)
{
    return W(OTF2_EvtWriter_MpiSend(WR, NULL, t, peer, c, tag, n));
}
static OTF2_CallbackCode on_isend(EV, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t req)
{
    return W(OTF2_EvtWriter_MpiIsend(WR, NULL, t, peer, c, tag, n, req));
}
static OTF2_CallbackCode on_isend_complete(EV, uint64_t req) { return W(OTF2_EvtWriter_MpiIsendComplete(WR, NULL, t, req)); }
static OTF2_CallbackCode on_irecv_request(EV, uint64_t req) { return W(OTF2_EvtWriter_MpiIrecvRequest(WR, NULL, t, req)); }
static OTF2_CallbackCode on_recv(EV, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n)
{
    return W(OTF2_EvtWriter_MpiRecv(WR, NULL, t, peer, c, tag, n));
}
static OTF2_CallbackCode on_irecv(EV, uint32_t peer, OTF2_CommRef c, uint32_t tag, uint64_t n, uint64_t req)
{
    return W(OTF2_EvtWriter_MpiIrecv(WR, NULL, t, peer, c, tag, n, req));
}
static OTF2_CallbackCode on_cancelled(EV, uint64_t req) { return W(OTF2_EvtWriter_MpiRequestCancelled(WR, NULL, t, req)); }
static OTF2_CallbackCode on_coll_begin(EV) { return W(OTF2_EvtWriter_MpiCollectiveBegin(WR, NULL, t)); }
static OTF2_CallbackCode on_coll_end(EV, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    return W(OTF2_EvtWriter_MpiCollectiveEnd(WR, NULL, t, op, c, root, sent, received));
}
static OTF2_CallbackCode on_nbc_request(EV, uint64_t req)
{
    return W(OTF2_EvtWriter_NonBlockingCollectiveRequest(WR, NULL, t, req));
}
static OTF2_CallbackCode on_nbc_complete(EV, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent,
                                         uint64_t received, uint64_t req)
{
    return W(OTF2_EvtWriter_NonBlockingCollectiveComplete(WR, NULL, t, op, c, root, sent, received, req));
}
/* One-sided records as the merge reads them (rma_flow.h): Score-P's fence
 * is an RMA collective BARRIER whose operations' completions it writes
 * inside, as our tracer does; the window references are the archive's
 * (define_windows). */
static OTF2_CallbackCode on_win_create(EV, OTF2_RmaWinRef w) { return W(OTF2_EvtWriter_RmaWinCreate(WR, NULL, t, w)); }
static OTF2_CallbackCode on_win_destroy(EV, OTF2_RmaWinRef w) { return W(OTF2_EvtWriter_RmaWinDestroy(WR, NULL, t, w)); }
static OTF2_CallbackCode on_rma_coll_begin(EV) { return W(OTF2_EvtWriter_RmaCollectiveBegin(WR, NULL, t)); }
static OTF2_CallbackCode on_rma_coll_end(EV, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w,
                                         uint32_t root, uint64_t sent, uint64_t received)
{
    return W(OTF2_EvtWriter_RmaCollectiveEnd(WR, NULL, t, op, level, w, root, sent, received));
}
static OTF2_CallbackCode on_rma_put(EV, OTF2_RmaWinRef w, uint32_t remote, uint64_t n, uint64_t id)
{
    return W(OTF2_EvtWriter_RmaPut(WR, NULL, t, w, remote, n, id));
}
static OTF2_CallbackCode on_rma_get(EV, OTF2_RmaWinRef w, uint32_t remote, uint64_t n, uint64_t id)
{
    return W(OTF2_EvtWriter_RmaGet(WR, NULL, t, w, remote, n, id));
}
static OTF2_CallbackCode on_rma_atomic(EV, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaAtomicType type,
                                       uint64_t sent, uint64_t received, uint64_t id)
{
    return W(OTF2_EvtWriter_RmaAtomic(WR, NULL, t, w, remote, type, sent, received, id));
}
/* A completion inside a held complete: held with it, in order. */
static int hold_completion(struct converting *c, uint64_t pos, uint64_t t, OTF2_RmaWinRef w, uint64_t id, int remote)
{
    if (c->nhc == c->chc) {
        size_t n = c->chc ? 2 * c->chc : 16;
        struct held_completion *p = realloc(c->hc, sizeof *p * n);
        if (!p) {
            c->failed = OTF2_ERROR_MEM_ALLOC_FAILED;
            return -1;
        }
        c->hc = p;
        c->chc = n;
    }
    c->hc[c->nhc++] = (struct held_completion){ pos, t, id, w, remote };
    return 0;
}
static OTF2_CallbackCode on_rma_complete_remote(EV, OTF2_RmaWinRef w, uint64_t id)
{
    struct converting *c = u;
    if (c->held)
        return hold_completion(c, pos, t, w, id, 1) == 0 ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
    return W(OTF2_EvtWriter_RmaOpCompleteRemote(WR, NULL, t, w, id));
}
static OTF2_CallbackCode on_rma_complete_non_blocking(EV, OTF2_RmaWinRef w, uint64_t id)
{
    struct converting *c = u;
    if (c->held)
        return hold_completion(c, pos, t, w, id, 0) == 0 ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
    return W(OTF2_EvtWriter_RmaOpCompleteNonBlocking(WR, NULL, t, w, id));
}
static OTF2_CallbackCode on_rma_request_lock(EV, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock,
                                             OTF2_LockType type)
{
    return W(OTF2_EvtWriter_RmaRequestLock(WR, NULL, t, w, remote, lock, type));
}
static OTF2_CallbackCode on_rma_release_lock(EV, OTF2_RmaWinRef w, uint32_t remote, uint64_t lock)
{
    return W(OTF2_EvtWriter_RmaReleaseLock(WR, NULL, t, w, remote, lock));
}
static OTF2_CallbackCode on_rma_sync(EV, OTF2_RmaWinRef w, uint32_t remote, OTF2_RmaSyncType type)
{
    return W(OTF2_EvtWriter_RmaSync(WR, NULL, t, w, remote, type));
}
/* Score-P's PSCW (foreign_pscw.h): complete's NOTIFY_OUT at its held
 * Enter; wait's or a successful test's NOTIFY_IN here, each mapping
 * back to this record's position. */
static OTF2_CallbackCode on_rma_group_sync(EV, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w, OTF2_GroupRef g)
{
    (void)loc; (void)attrs;
    struct converting *c = u;
    enum fp_notify n = fp_group_sync(&c->pscw, &c->po->fr->defs, c->po->p->rank, c->call, level, w, g);
    if (n == FP_NOTIFY_FAILED) {
        c->failed = OTF2_ERROR_MEM_ALLOC_FAILED;
        return OTF2_CALLBACK_INTERRUPT;
    }
    if (c->held)
        return release(c, 1, w, n == FP_NOTIFY_OUT);
    return n == FP_NOTIFY_IN ? notify(c, pos, t, w, OTF2_RMA_SYNC_TYPE_NOTIFY_IN) : OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_comm_create(EV, OTF2_CommRef c) { return W(OTF2_EvtWriter_CommCreate(WR, NULL, t, c)); }
static OTF2_CallbackCode on_comm_destroy(EV, OTF2_CommRef c) { return W(OTF2_EvtWriter_CommDestroy(WR, NULL, t, c)); }

/* A producer's buffer flush, as the tracer's own: an event of the
 * location (the merge counts it, as every reader of the copy does), its
 * stop a time on the same clock. Inside a held MPI_Win_complete it would
 * come before the complete's Enter: left to the copy then, as other
 * records are. */
static OTF2_CallbackCode on_flush(EV, OTF2_TimeStamp stop)
{
    if (((struct converting *)u)->held) {
        (void)loc; (void)attrs; (void)pos;
        return OTF2_CALLBACK_SUCCESS;
    }
    return W(OTF2_EvtWriter_BufferFlush(WR, NULL, t, stop));
}

/* Every other record is counted and left to the copy. */
static OTF2_CallbackCode on_other(EV)
{
    (void)loc; (void)t; (void)pos; (void)u; (void)attrs;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_EvtReaderCallbacks *modelled_records(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_nbc_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, on_nbc_complete);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, on_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, on_win_destroy);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, on_rma_coll_begin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, on_rma_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_rma_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_rma_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, on_rma_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, on_rma_complete_remote);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, on_rma_complete_non_blocking);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, on_rma_request_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, on_rma_release_lock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, on_rma_sync);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, on_rma_group_sync);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, on_flush);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, on_comm_destroy);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, on_other);
    return cb;
}

/* ---- one process */

static OTF2_CallbackCode on_clock_offset(void *u, OTF2_TimeStamp time, int64_t offset, double stddev)
{
    struct fr_offsets *o = u;
    uint32_t n = o->n + 1;
    uint64_t *t = realloc(o->time, sizeof *t * n);
    if (t)
        o->time = t;
    int64_t *v = t ? realloc(o->offset, sizeof *v * n) : NULL;
    if (v)
        o->offset = v;
    double *s = v ? realloc(o->stddev, sizeof *s * n) : NULL;
    if (!s)
        return OTF2_CALLBACK_INTERRUPT;
    o->stddev = s;
    o->time[o->n] = time;
    o->offset[o->n] = offset;
    o->stddev[o->n] = stddev;
    o->n = n;
    return OTF2_CALLBACK_SUCCESS;
}

/* A location's local definitions: its mapping tables (read, so that its
 * events come with global references) and, for the main one, the
 * process's ClockOffsets. */
static int read_local_defs(struct process_out *po, uint64_t id, struct fr_offsets *offsets)
{
    OTF2_DefReader *dr = OTF2_Reader_GetDefReader(po->rd, id);
    if (!dr)
        return 0;   /* optional in OTF2 */
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    OTF2_ErrorCode e = cb ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    if (cb && offsets)
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_clock_offset);
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_RegisterDefCallbacks(po->rd, dr, cb, offsets);
    OTF2_DefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalDefinitions(po->rd, dr, &n);
    OTF2_Reader_CloseDefReader(po->rd, dr);
    if (e != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s: corrupt or truncated local definitions of location %" PRIu64, po->anchor, id);
        return -1;
    }
    return 0;
}

/* The events of input location k into the rank archive's location
 * `raw_id` (*written of them), and which they are into the work file. */
static int convert_location(struct process_out *po, OTF2_Archive *ar, uint32_t k, uint64_t raw_id, uint64_t *written)
{
    const struct fd_location *l = &po->fr->defs.locs[k];
    struct converting *c = malloc(sizeof *c);
    if (!c) {
        snprintf(po->err, po->errlen, "out of memory");
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->w = OTF2_Archive_GetEvtWriter(ar, raw_id);
    c->po = po;
    c->kept = &po->fr->kept[k];
    c->failed = OTF2_SUCCESS;
    c->call = FP_OTHER;
    c->kept->at = po->kept_bytes;
    c->kept->file = po->kept_file;
    c->kept->n = 0;
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(po->rd, l->id);
    OTF2_EvtReaderCallbacks *cb = modelled_records();
    OTF2_ErrorCode e = c->w && er && cb ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    if (er)
        OTF2_EvtReader_ApplyClockOffsets(er, false);   /* raw times: the merge corrects */
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_RegisterEvtCallbacks(po->rd, er, cb, c);
    OTF2_EvtReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    if (e == OTF2_SUCCESS)
        e = OTF2_Reader_ReadAllLocalEvents(po->rd, er, &n);
    if (e == OTF2_SUCCESS && c->failed == OTF2_SUCCESS)
        release(c, 0, 0, 0);   /* a complete the location ends in */
    if (er)
        OTF2_Reader_CloseEvtReader(po->rd, er);
    *written = 0;
    if (c->w)
        OTF2_EvtWriter_GetNumberOfEvents(c->w, written);
    OTF2_ErrorCode closed = c->w ? OTF2_Archive_CloseEvtWriter(ar, c->w) : OTF2_ERROR_MEM_ALLOC_FAILED;
    int rc = -1;
    if (c->write_errno == 0 && c->failed == OTF2_SUCCESS)
        flush_kept(c);
    c->kept->bytes = po->kept_bytes - c->kept->at;
    if (c->write_errno) {
        snprintf(po->err, po->errlen, "%s: cannot write the work file: %s", po->dir, strerror(c->write_errno));
    } else if (c->failed != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s/" RF_RANK_NAME_FMT RF_ANCHOR_SUFFIX ": cannot write: %s", po->dir,
                 po->p->rank, OTF2_Error_GetDescription(c->failed));
    } else if (e != OTF2_SUCCESS || n != l->nevents) {
        snprintf(po->err, po->errlen,
                 "%s: corrupt or truncated events of location %" PRIu64 " (%" PRIu64 " read, its definition says %" PRIu64 ")",
                 po->anchor, l->id, n, l->nevents);
    } else if (closed != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s: cannot write rank %d's events", po->dir, po->p->rank);
    } else {
        po->events_in += n;
        po->events_kept += c->kept->n - c->added;
        po->events_added += c->added;
        po->pscw_unordered += c->pscw.unordered;
        rc = 0;
    }
    fp_location_free(&c->pscw);
    free(c->hc);
    free(c);
    return rc;
}

/* The process's communicators as the raw format holds them: those it is
 * a member of, at the archive's references, each with its reference as
 * the key its members agree on. */
static int define_comms(const struct foreign_defs *d, int rank, struct rf_defs *defs)
{
    for (uint32_t c = 0; c < d->ncomms; c++) {
        const struct fd_comm *fc = &d->comms[c];
        int side = 0;
        if (!fd_comm_has(d, c, rank, &side))
            continue;
        const struct fd_group *ga = &d->groups[fc->group];
        if (ga->paradigm != OTF2_PARADIGM_MPI)
            continue;   /* the measurement system's own (Score-P's "Process x Threads") */
        struct rf_comm_desc desc = { fd_string(d, fc->name), 1, (uint64_t)c + 1, fc->inter, 0, 0 };
        int added;
        if (fc->inter) {
            const struct fd_group *gb = &d->groups[fc->group_b];
            const struct fd_group *mine = side ? gb : ga, *other = side ? ga : gb;
            desc.local = rf_defs_group(defs, 0, mine->n, mine->members, &added);
            desc.remote = rf_defs_group(defs, 0, other->n, other->members, &added);
        } else {
            int self = ga->type == OTF2_GROUP_TYPE_COMM_SELF;
            desc.local = rf_defs_group(defs, self, self ? 0 : ga->n, ga->members, &added);
        }
        if (desc.local == UINT32_MAX || (fc->inter && desc.remote == UINT32_MAX)
            || rf_defs_set_comm(defs, c, &desc) == OTF2_UNDEFINED_COMM)
            return -1;
        if ((fc->flags & OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS) && rf_defs_comm_events(defs, c) != 0)
            return -1;
    }
    for (uint32_t c = 0; c < d->ncomms; c++) {
        uint32_t parent = d->comms[c].parent;
        if (c < defs->ncomms && defs->comms[c].set && parent != FD_NONE && parent < defs->ncomms
            && defs->comms[parent].set && parent != c)
            rf_defs_comm_parent(defs, c, parent);
    }
    return 0;
}

/* The windows of the communicators the process is in, at the archive's
 * references: the merge unifies them by (communicator, order of
 * creation), which one global definition list gives every member alike. */
static int define_windows(const struct foreign_defs *d, int rank, struct rf_defs *defs)
{
    for (uint32_t w = 0; w < d->nwins; w++) {
        uint32_t c = d->win_comm[w];
        int side = 0;
        if (c == FD_NONE || c >= defs->ncomms || !defs->comms[c].set || !fd_comm_has(d, c, rank, &side))
            continue;
        if (rf_defs_set_window(defs, w, c) == OTF2_UNDEFINED_RMA_WIN)
            return -1;
    }
    return 0;
}

static int write_definitions(struct process_out *po, OTF2_Archive *ar, const struct rf_location *locs,
                             uint32_t nlocs, uint64_t first, uint64_t last)
{
    const struct foreign_defs *d = &po->fr->defs;
    int rank = po->p->rank;
    struct rf_region *regions = calloc(d->nregions ? d->nregions : 1, sizeof *regions);
    struct rf_defs defs = { 0 };
    int rc = -1;
    if (!regions || define_comms(d, rank, &defs) != 0 || define_windows(d, rank, &defs) != 0) {
        snprintf(po->err, po->errlen, "%s: out of memory", po->anchor);
        goto done;
    }
    for (uint32_t i = 0; i < d->nregions; i++)
        regions[i] = (struct rf_region){ fd_string(d, d->regions[i].name),
                                         d->regions[i].role == FD_NONE ? OTF2_REGION_ROLE_UNKNOWN
                                                                      : (OTF2_RegionRole)d->regions[i].role,
                                         d->regions[i].paradigm == FD_NONE ? OTF2_PARADIGM_UNKNOWN
                                                                          : (OTF2_Paradigm)d->regions[i].paradigm };
    const char *host = po->p->node != FD_NONE && po->p->node < d->nnodes ? fd_string(d, d->nodes[po->p->node].name) : "";
    struct rf_rank_defs rd = {
        .resolution = d->resolution, .global_offset = first, .trace_length = last > first ? last - first : 0,
        .rank = rank, .world_size = (int)d->nprocesses, .host = host, .locs = locs, .nlocs = nlocs,
        .regions = regions, .nregions = d->nregions, .true_time = 0,
    };
    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(ar);
    char name[32];
    snprintf(name, sizeof name, RF_RANK_NAME_FMT, rank);
    if (!gd || rf_defs_write(gd, &defs, &rd) != 0) {
        snprintf(po->err, po->errlen, "%s/%s" RF_ANCHOR_SUFFIX ": cannot write the global definitions", po->dir, name);
        goto done;
    }
    if (rf_members_write(po->dir, name, &defs, rank, (int)d->nprocesses, po->err, po->errlen) != 0
        || rf_members_declare(ar) != 0)
        goto done;
    if (OTF2_Archive_CloseGlobalDefWriter(ar, gd) != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s/%s" RF_ANCHOR_SUFFIX ": cannot write the global definitions", po->dir, name);
        goto done;
    }
    rc = 0;
done:
    rf_defs_free(&defs);
    free(regions);
    return rc;
}

static void set_properties(struct process_out *po, OTF2_Archive *ar)
{
    const struct foreign_defs *d = &po->fr->defs;
    char v[64];
    OTF2_Archive_SetProperty(ar, RF_PROP_VERSION, PACKAGE_VERSION, true);
    OTF2_Archive_SetProperty(ar, RF_PROP_RUN_ID, po->fr->trace_id, true);
    snprintf(v, sizeof v, "%d", po->p->rank);
    OTF2_Archive_SetProperty(ar, RF_PROP_RANK, v, true);
    snprintf(v, sizeof v, "%u", d->nprocesses);
    OTF2_Archive_SetProperty(ar, RF_PROP_WORLD_SIZE, v, true);
    const char *host = po->p->node != FD_NONE && po->p->node < d->nnodes ? fd_string(d, d->nodes[po->p->node].name) : "";
    OTF2_Archive_SetProperty(ar, RF_PROP_HOST, host, true);
    OTF2_Archive_SetProperty(ar, RF_PROP_CLOCK, po->fr->kind, true);
    snprintf(v, sizeof v, "%d", po->domain);
    OTF2_Archive_SetProperty(ar, RF_PROP_CLOCK_DOMAIN, v, true);
}

static int convert_process(struct process_out *po)
{
    struct foreign_raw *fr = po->fr;
    const struct fd_process *p = po->p;
    char name[32];
    snprintf(name, sizeof name, RF_RANK_NAME_FMT, p->rank);
    OTF2_Archive *ar = OTF2_Archive_Open(po->dir, name, OTF2_FILEMODE_WRITE, 1 << 20, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    struct rf_location *locs = calloc(p->nlocs, sizeof *locs);
    struct rf_clock_offset *offsets = NULL;
    int rc = -1;
    if (!ar || !locs || OTF2_Archive_SetFlushCallbacks(ar, &om_flush_callbacks, NULL) != OTF2_SUCCESS
        || OTF2_Archive_SetMemoryCallbacks(ar, &om_callbacks, po->chunks) != OTF2_SUCCESS
        || OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS
        || OTF2_Archive_SetCreator(ar, "synctrace " PACKAGE_VERSION " (from a foreign archive)") != OTF2_SUCCESS
        || OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s/%s" RF_ANCHOR_SUFFIX ": cannot create the OTF2 archive", po->dir, name);
        goto done;
    }
    uint64_t first = UINT64_MAX, last = 0;
    struct fr_offsets *o = &fr->offsets[p->rank];
    for (uint32_t j = 0; j < p->nlocs; j++) {
        uint32_t k = p->locs[j];
        uint64_t raw_id = j == 0 ? (uint64_t)p->rank : ((uint64_t)j << 32) | (uint64_t)p->rank, n = 0;
        if (read_local_defs(po, fr->defs.locs[k].id, j == 0 ? o : NULL) != 0
            || convert_location(po, ar, k, raw_id, &n) != 0)
            goto done;
        /* the main location is written last (defs_write.h) */
        locs[j == 0 ? p->nlocs - 1 : j - 1] = (struct rf_location){ raw_id, j, n };
    }
    (void)first; (void)last;
    if (OTF2_Archive_CloseEvtFiles(ar) != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s/%s" RF_ANCHOR_SUFFIX ": cannot write the events", po->dir, name);
        goto done;
    }
    if (o->n && !(offsets = malloc(sizeof *offsets * o->n))) {
        snprintf(po->err, po->errlen, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < o->n; i++)
        offsets[i] = (struct rf_clock_offset){ o->time[i], o->offset[i], o->stddev[i] };
    if (rf_defs_write_clock_offsets(ar, locs, p->nlocs, offsets, o->n) != 0) {
        snprintf(po->err, po->errlen, "%s/%s" RF_ANCHOR_SUFFIX ": cannot write the clock offsets", po->dir, name);
        goto done;
    }
    const struct foreign_defs *d = &fr->defs;
    if (write_definitions(po, ar, locs, p->nlocs, d->global_offset, d->global_offset + d->trace_length) != 0)
        goto done;
    set_properties(po, ar);
    OTF2_ErrorCode closed = OTF2_Archive_Close(ar);
    ar = NULL;
    if (closed != OTF2_SUCCESS) {
        snprintf(po->err, po->errlen, "%s/%s" RF_ANCHOR_SUFFIX ": cannot close the archive", po->dir, name);
        goto done;
    }
    rc = sum_write_archive(po->dir, name, po->err, po->errlen);
done:
    if (ar)
        OTF2_Archive_Close(ar);
    free(locs);
    free(offsets);
    return rc;
}

/* ---- the directory */

static int write_meta(struct foreign_raw *fr, const char *dir, const int *domains, char *err, size_t errlen)
{
    const struct foreign_defs *d = &fr->defs;
    int n = (int)d->nprocesses, with_offsets = fr->offsets[0].n;
    struct rf_meta_head h = {
        .version = PACKAGE_VERSION, .run_id = fr->trace_id, .world_size = n, .thread_level = 0, .clock = fr->kind,
        .sync_init = with_offsets >= 1, .sync_finalize = with_offsets >= 2, .sync_periodic = with_offsets > 2,
        .interval_config = "fixed", .buffer_bytes = 0, .skew = "none",
    };
    struct rf_meta m;
    if (rf_meta_begin(&m, dir, &h) != 0) {
        snprintf(err, errlen, "%s/" RF_META_TMP_FILE ": %s", dir, strerror(errno));
        return -1;
    }
    rf_meta_line(&m, "input", "%s", fr->kind);
    double *rates = malloc(sizeof *rates * (size_t)n);
    if (!rates) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < n; r++)
        rates[r] = (double)d->resolution;
    rf_meta_domains(&m, n, domains);
    rf_meta_rates(&m, n, rates);
    free(rates);
    if (rf_meta_end(&m, "complete") != 0) {
        snprintf(err, errlen, "%s/" RF_META_FILE ": write failed", dir);
        return -1;
    }
    return 0;
}

/* Each rank's clock domain: its own, or the lowest rank of its node. */
static int *clock_domains(const struct foreign_defs *d, int by_node)
{
    int *dom = malloc(sizeof *dom * (d->nprocesses ? d->nprocesses : 1));
    for (uint32_t r = 0; dom && r < d->nprocesses; r++) {
        dom[r] = (int)r;
        for (uint32_t q = 0; by_node && q < r; q++)
            if (d->processes[q].node == d->processes[r].node && d->processes[r].node != FD_NONE) {
                dom[r] = dom[q];
                break;
            }
    }
    return dom;
}

static void describe(struct foreign_raw *fr, OTF2_Reader *rd)
{
    char *creator = NULL;
    if (OTF2_Reader_GetCreator(rd, &creator) == OTF2_SUCCESS && creator && strncmp(creator, "Score-P", 7) == 0)
        snprintf(fr->kind, sizeof fr->kind, "%.31s", creator);
    else
        snprintf(fr->kind, sizeof fr->kind, "OTF2 (%.23s)", creator && *creator ? creator : "unknown producer");
    free(creator);
    uint64_t id = 0;
    OTF2_Reader_GetTraceId(rd, &id);
    snprintf(fr->trace_id, sizeof fr->trace_id, "otf2-%016" PRIx64, id);
}

/* The converting threads share the next process to take and, per
 * process, its error (the first in process order is said). */
struct converting_all {
    struct foreign_raw *fr;
    const char *anchor, *dir;
    const int *domains;
    pthread_mutex_t lock;
    uint32_t next, end;       /* the processes [next, end) are left to convert */
    char **errors;            /* by process, NULL when converted */
    int stop;                 /* a process failed: the others take no more */
};

/* A reader of the archive for one thread, every location selected. */
static OTF2_Reader *open_reader(const char *anchor, const struct foreign_defs *d)
{
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return NULL;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    for (uint32_t k = 0; k < d->nlocs; k++)
        OTF2_Reader_SelectLocation(rd, d->locs[k].id);
    if (OTF2_Reader_OpenDefFiles(rd) != OTF2_SUCCESS || OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS) {
        OTF2_Reader_Close(rd);
        return NULL;
    }
    return rd;
}

struct converter {
    struct converting_all *all;
    uint32_t index;           /* its kept file */
    pthread_t thread;
    int started;
    uint64_t kept_bytes;      /* written to its kept file */
    uint64_t events_in, events_kept, events_added, pscw_unordered;
};

static void *convert_worker(void *arg)
{
    struct converter *cv = arg;
    struct converting_all *all = cv->all;
    struct foreign_raw *fr = all->fr;
    const struct foreign_defs *d = &fr->defs;
    char err[4600];
    struct om_pool chunks = { NULL, 0, 16u << 20, NULL };
    OTF2_Reader *rd = open_reader(all->anchor, d);
    for (;;) {
        pthread_mutex_lock(&all->lock);
        uint32_t p = all->stop ? all->end : all->next++;
        pthread_mutex_unlock(&all->lock);
        if (p >= all->end)
            break;
        struct process_out po = { fr, rd, all->anchor, all->dir, &d->processes[p], all->domains[p], err, sizeof err,
                                  &chunks, fr->kept_fds[cv->index], cv->index, cv->kept_bytes, 0, 0, 0, 0 };
        int rc = -1;
        if (!rd)
            snprintf(err, sizeof err, "%s: cannot open the location files", all->anchor);
        else
            rc = convert_process(&po);
        cv->kept_bytes = po.kept_bytes;
        cv->events_in += po.events_in;
        cv->events_kept += po.events_kept;
        cv->events_added += po.events_added;
        cv->pscw_unordered += po.pscw_unordered;
        if (rc != 0) {
            pthread_mutex_lock(&all->lock);
            all->errors[p] = strdup(err);
            all->stop = 1;
            pthread_mutex_unlock(&all->lock);
        }
    }
    if (rd) {
        OTF2_Reader_CloseEvtFiles(rd);
        OTF2_Reader_CloseDefFiles(rd);
        OTF2_Reader_Close(rd);
    }
    om_pool_free(&chunks);
    return NULL;
}

/* A work file of pairs: nameless when one process converts; named
 * (SHARED_KEPT) in the work directory when several do, for the others to
 * read (fr_gather). */
#define SHARED_KEPT "kept-%u-%u"
#define SHARED_SUMMARY "converted-%u"

static int kept_file(const char *dir, const struct fr_share *share, uint32_t t)
{
    if (!share)
        return st_nameless_file(dir, "kept");
    char path[4400];
    if (snprintf(path, sizeof path, "%s/" SHARED_KEPT, share->work, share->place, t) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

static int write_summary(struct foreign_raw *fr, const struct fr_share *share, uint32_t first, uint32_t end,
                         char *err, size_t errlen);

int fr_convert(const char *anchor, const char *dir, int by_node, int jobs, const struct fr_share *share,
               struct foreign_raw *fr, char *err, size_t errlen)
{
    memset(fr, 0, sizeof *fr);
    rf_otf2_quiet();
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd) {
        snprintf(err, errlen, "%s: not a readable OTF2 archive", anchor);
        rf_otf2_explain(err, errlen);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    char *rank = NULL;
    if (OTF2_Reader_GetProperty(rd, RF_PROP_RANK, &rank) == OTF2_SUCCESS && rank) {
        free(rank);
        OTF2_Reader_Close(rd);
        snprintf(err, errlen, "%s: one rank's archive of a synctrace raw trace: merge the trace's directory", anchor);
        return -1;
    }
    describe(fr, rd);
    int rc = -1, *domains = NULL;
    struct converter *cv = NULL;
    struct converting_all all = { fr, anchor, dir, NULL, PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, 0 };
    int fd_ok = fd_read(rd, anchor, &fr->defs, err, errlen) == 0;
    OTF2_Reader_Close(rd);   /* the definitions are in fr->defs: each thread reads events with its own */
    if (!fd_ok)
        goto done;
    const struct foreign_defs *d = &fr->defs;
    if (!(fr->region_calls = fp_region_calls(d))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    all.end = d->nprocesses;
    if (share && share->processes > 1) {   /* this process's share: by declared events */
        uint64_t *events = calloc(d->nprocesses ? d->nprocesses : 1, sizeof *events);
        uint32_t *first = malloc(sizeof *first * (share->processes + 1));
        if (!events || !first) {
            free(events);
            free(first);
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        for (uint32_t p = 0; p < d->nprocesses; p++)
            for (uint32_t j = 0; j < d->processes[p].nlocs; j++)
                events[p] += d->locs[d->processes[p].locs[j]].nevents;
        share->split(events, d->nprocesses, share->processes, first);
        all.next = first[share->place];
        all.end = first[share->place + 1];
        free(events);
        fr->first = first;
        fr->nplaces = share->processes;
    } else {
        share = NULL;
    }
    uint32_t first = all.next, nthreads = jobs < 1 ? 1 : (uint32_t)jobs;
    if (nthreads > all.end - all.next)
        nthreads = all.end > all.next ? all.end - all.next : 1;
    fr->kept = calloc(d->nlocs ? d->nlocs : 1, sizeof *fr->kept);
    fr->kept_fds = malloc(sizeof *fr->kept_fds * nthreads);
    fr->offsets = calloc(d->nprocesses ? d->nprocesses : 1, sizeof *fr->offsets);
    all.errors = calloc(d->nprocesses ? d->nprocesses : 1, sizeof *all.errors);
    cv = calloc(nthreads, sizeof *cv);
    domains = clock_domains(d, by_node);
    all.domains = domains;
    if (!fr->kept || !fr->kept_fds || !fr->offsets || !all.errors || !cv || !domains) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (; fr->nkept_fds < nthreads; fr->nkept_fds++)
        if ((fr->kept_fds[fr->nkept_fds] = kept_file(dir, share, fr->nkept_fds)) < 0) {
            snprintf(err, errlen, "%s: cannot make a work file: %s", share ? share->work : dir, strerror(errno));
            goto done;
        }
    for (uint32_t r = 0; r < d->nprocesses; r++)
        fr->ndomains += domains[r] == (int)r;
    /* thread 0 is this one; the others as many as start */
    for (uint32_t t = 0; t < nthreads; t++)
        cv[t] = (struct converter){ &all, t, 0, 0, 0, 0, 0, 0, 0 };
    for (uint32_t t = 1; t < nthreads; t++)
        cv[t].started = pthread_create(&cv[t].thread, NULL, convert_worker, &cv[t]) == 0;
    convert_worker(&cv[0]);
    for (uint32_t t = 1; t < nthreads; t++)
        if (cv[t].started)
            pthread_join(cv[t].thread, NULL);
    rc = 0;
    for (uint32_t p = first; p < all.end; p++)
        if (all.errors[p]) {
            snprintf(err, errlen, "%s", all.errors[p]);
            rc = -1;
            break;
        }
    for (uint32_t t = 0; t < nthreads; t++) {
        fr->events_in += cv[t].events_in;
        fr->events_kept += cv[t].events_kept;
        fr->events_added += cv[t].events_added;
        fr->pscw_unordered += cv[t].pscw_unordered;
    }
    if (rc == 0 && all.next < all.end) {   /* cannot happen: thread 0 takes what is left */
        snprintf(err, errlen, "%s: not every process was converted", anchor);
        rc = -1;
    }
    if (rc == 0 && share)   /* the directory's meta once every share is in (fr_gather) */
        rc = write_summary(fr, share, first, all.end, err, errlen);
    else if (rc == 0)
        rc = write_meta(fr, dir, domains, err, errlen);
done:
    for (uint32_t p = 0; all.errors && p < fr->defs.nprocesses; p++)
        free(all.errors[p]);
    free(all.errors);
    free(cv);
    free(domains);
    if (rc != 0)
        fr_free(fr);
    return rc;
}

void fr_free(struct foreign_raw *fr)
{
    for (uint32_t t = 0; t < fr->nkept_fds; t++)
        close(fr->kept_fds[t]);
    free(fr->kept_fds);
    free(fr->kept);
    for (uint32_t r = 0; fr->offsets && r < fr->defs.nprocesses; r++) {
        free(fr->offsets[r].time);
        free(fr->offsets[r].offset);
        free(fr->offsets[r].stddev);
    }
    free(fr->offsets);
    free(fr->first);
    free(fr->region_calls);
    fd_free(&fr->defs);
    memset(fr, 0, sizeof *fr);
}

/* A location's pairs read in order, a buffer at a time, from a mark. */
struct kept_reader {
    int fd;
    uint64_t start, next, end;   /* the location's first byte; the next to read; its end (file offsets) */
    uint32_t len, i;
    const char *why;
    uint8_t buf[1 << 16];
};

static void kr_open(struct kept_reader *r, const struct foreign_raw *fr, uint32_t k, uint64_t at)
{
    const struct fr_kept *kp = &fr->kept[k];
    r->fd = fr->kept_fds[kp->file];
    r->start = kp->at;
    r->next = kp->at + at;
    r->end = kp->at + kp->bytes;
    r->len = r->i = 0;
    r->why = at > kp->bytes ? "damaged" : NULL;
}

/* The byte of the location its next pair starts at. */
static uint64_t kr_at(const struct kept_reader *r)
{
    return r->next - r->len + r->i - r->start;
}

static int kr_varint(struct kept_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; !r->why && shift < 64; shift += 7) {
        if (r->i == r->len) {
            uint64_t want = r->end - r->next < sizeof r->buf ? r->end - r->next : sizeof r->buf;
            if (want == 0 || (r->why = st_pread_exact(r->fd, r->buf, want, r->next)) != NULL)
                break;
            r->next += want;
            r->len = (uint32_t)want;
            r->i = 0;
        }
        uint8_t c = r->buf[r->i++];
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    if (!r->why)
        r->why = "damaged";
    return -1;
}

/* The next pair after *pos, *raw. */
static int kr_pair(struct kept_reader *r, uint64_t *pos, uint64_t *raw)
{
    uint64_t dp, dr;
    if (kr_varint(r, &dp) != 0 || kr_varint(r, &dr) != 0)
        return -1;
    *pos += unzigzag(dp);
    *raw += unzigzag(dr);
    return 0;
}

static int kr_failed(const struct kept_reader *r, char *err, size_t errlen)
{
    snprintf(err, errlen, "the work file of the conversion: %s", r->why ? r->why : "damaged");
    return -1;
}

int fr_kept_marks(const struct foreign_raw *fr, uint32_t k, uint64_t every, struct fr_kept_mark **marks,
                  char *err, size_t errlen)
{
    const struct fr_kept *kp = &fr->kept[k];
    uint64_t n = every ? (kp->n + every - 1) / every : 0;
    *marks = malloc(sizeof **marks * (n ? n : 1));
    struct kept_reader *r = malloc(sizeof *r);
    if (!*marks || !r) {
        free(*marks);
        *marks = NULL;
        free(r);
        snprintf(err, errlen, "out of memory for the work file of the conversion");
        return -1;
    }
    kr_open(r, fr, k, 0);
    uint64_t pos = 0, raw = 0;
    int rc = 0;
    for (uint64_t j = 0; j < kp->n; j++) {
        if (j % every == 0)
            (*marks)[j / every] = (struct fr_kept_mark){ kr_at(r), pos, raw };
        if (kr_pair(r, &pos, &raw) != 0) {
            rc = -1;
            break;
        }
    }
    if (rc == 0 && kr_at(r) != kp->bytes) {   /* exactly the bytes written */
        r->why = "damaged";
        rc = -1;
    }
    if (rc != 0) {
        kr_failed(r, err, errlen);
        free(*marks);
        *marks = NULL;
    }
    free(r);
    return rc;
}

int fr_kept_read(const struct foreign_raw *fr, uint32_t k, const struct fr_kept_mark *mark, uint64_t count,
                 uint64_t *pos, uint64_t *raw, char *err, size_t errlen)
{
    struct kept_reader *r = malloc(sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory for the work file of the conversion");
        return -1;
    }
    kr_open(r, fr, k, mark->at);
    uint64_t p = mark->pos, t = mark->raw;
    int rc = 0;
    for (uint64_t j = 0; j < count; j++) {
        if (kr_pair(r, &p, &t) != 0) {
            rc = kr_failed(r, err, errlen);
            break;
        }
        pos[j] = p;
        raw[j] = t;
    }
    free(r);
    return rc;
}

/* ---- the conversion shared among processes */

/* What a process converted, for the others: its counts and threads, then
 * per process of its share the (location, at, n, file) of each location's
 * pairs and the process's ClockOffsets. */
struct summary_head {
    char magic[8];
    uint64_t events_in, events_kept, events_added, pscw_unordered;
    uint32_t nthreads, first, end, pad;
};

#define SUMMARY_MAGIC "STCONV03"

static int write_summary(struct foreign_raw *fr, const struct fr_share *share, uint32_t first, uint32_t end,
                         char *err, size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/" SHARED_SUMMARY, share->work, share->place);
    FILE *f = fopen(path, "wb");
    struct summary_head h = { SUMMARY_MAGIC, fr->events_in, fr->events_kept, fr->events_added, fr->pscw_unordered,
                              fr->nkept_fds, first, end, 0 };
    int ok = f && fwrite(&h, sizeof h, 1, f) == 1;
    const struct foreign_defs *d = &fr->defs;
    for (uint32_t p = first; ok && p < end; p++) {
        for (uint32_t j = 0; ok && j < d->processes[p].nlocs; j++) {
            uint32_t k = d->processes[p].locs[j];
            uint64_t rec[5] = { k, fr->kept[k].at, fr->kept[k].n, fr->kept[k].file, fr->kept[k].bytes };
            ok = fwrite(rec, sizeof rec, 1, f) == 1;
        }
        const struct fr_offsets *o = &fr->offsets[p];
        ok = ok && fwrite(&o->n, sizeof o->n, 1, f) == 1;
        ok = ok && (o->n == 0 || (fwrite(o->time, sizeof *o->time, o->n, f) == o->n
                                  && fwrite(o->offset, sizeof *o->offset, o->n, f) == o->n
                                  && fwrite(o->stddev, sizeof *o->stddev, o->n, f) == o->n));
    }
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
    return ok ? 0 : -1;
}

/* One process's summary read into fr; its pair files appended to
 * fr->kept_fds. 0, or -1 with a message. */
static int read_summary(struct foreign_raw *fr, const struct fr_share *share, uint32_t place, char *err,
                        size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/" SHARED_SUMMARY, share->work, place);
    FILE *f = fopen(path, "rb");
    struct summary_head h;
    const struct foreign_defs *d = &fr->defs;
    int ok = f && fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, SUMMARY_MAGIC, 8) == 0 && h.first <= h.end
             && h.end <= d->nprocesses && h.nthreads <= 1u << 20;
    uint32_t base = fr->nkept_fds;
    int *fds = ok ? realloc(fr->kept_fds, sizeof *fds * (base + h.nthreads + 1)) : NULL;
    if (fds)
        fr->kept_fds = fds;
    ok = ok && fds;
    for (uint32_t t = 0; ok && t < h.nthreads; t++) {
        char kp[4400];
        snprintf(kp, sizeof kp, "%s/" SHARED_KEPT, share->work, place, t);
        if ((fr->kept_fds[fr->nkept_fds] = open(kp, O_RDONLY | O_CLOEXEC)) < 0)
            ok = 0;
        else
            fr->nkept_fds++;
    }
    for (uint32_t p = h.first; ok && p < h.end; p++) {
        for (uint32_t j = 0; ok && j < d->processes[p].nlocs; j++) {
            uint64_t rec[5];
            ok = fread(rec, sizeof rec, 1, f) == 1 && rec[0] == d->processes[p].locs[j] && rec[3] < h.nthreads;
            if (ok)
                fr->kept[rec[0]] = (struct fr_kept){ rec[1], rec[2], rec[4], base + (uint32_t)rec[3] };
        }
        struct fr_offsets *o = &fr->offsets[p];
        ok = ok && fread(&o->n, sizeof o->n, 1, f) == 1 && o->n < 1u << 28;
        if (ok && o->n) {
            o->time = malloc(sizeof *o->time * o->n);
            o->offset = malloc(sizeof *o->offset * o->n);
            o->stddev = malloc(sizeof *o->stddev * o->n);
            ok = o->time && o->offset && o->stddev && fread(o->time, sizeof *o->time, o->n, f) == o->n
                 && fread(o->offset, sizeof *o->offset, o->n, f) == o->n
                 && fread(o->stddev, sizeof *o->stddev, o->n, f) == o->n;
        } else if (ok) {
            o->time = NULL, o->offset = NULL, o->stddev = NULL;
        }
    }
    if (ok) {
        fr->events_in += h.events_in;
        fr->events_kept += h.events_kept;
        fr->events_added += h.events_added;
        fr->pscw_unordered += h.pscw_unordered;
    }
    if (f)
        fclose(f);
    if (!ok)
        snprintf(err, errlen, "%s: cannot read what process %u converted", path, place);
    return ok ? 0 : -1;
}

int fr_gather(struct foreign_raw *fr, const char *dir, int by_node, const struct fr_share *share, char *err,
              size_t errlen)
{
    const struct foreign_defs *d = &fr->defs;
    /* every share's, this process's own included, from the files */
    for (uint32_t t = 0; t < fr->nkept_fds; t++)
        close(fr->kept_fds[t]);
    fr->nkept_fds = 0;
    for (uint32_t r = 0; r < d->nprocesses; r++) {
        free(fr->offsets[r].time);
        free(fr->offsets[r].offset);
        free(fr->offsets[r].stddev);
        memset(&fr->offsets[r], 0, sizeof fr->offsets[r]);
    }
    fr->events_in = fr->events_kept = fr->events_added = fr->pscw_unordered = 0;
    for (uint32_t p = 0; p < share->processes; p++)
        if (read_summary(fr, share, p, err, errlen) != 0)
            return -1;
    if (share->place != 0)
        return 0;
    int *domains = clock_domains(d, by_node);
    int rc = domains ? write_meta(fr, dir, domains, err, errlen) : -1;
    if (!domains)
        snprintf(err, errlen, "out of memory");
    free(domains);
    return rc;
}

uint32_t fr_place_of(const struct foreign_raw *fr, uint32_t k)
{
    uint32_t p = k < fr->defs.nlocs ? fr->defs.locs[k].process : FD_NONE, place = 0;
    if (!fr->first || p == FD_NONE)
        return 0;
    while (place + 1 < fr->nplaces && p >= fr->first[place + 1])
        place++;
    return place;
}
