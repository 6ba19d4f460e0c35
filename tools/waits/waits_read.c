/* waits_read.c — the merged archive's events, read location after
 * location (one OTF2 reader and buffer at a time), into the compact
 * records the pattern rules need: every send with the entry of the call
 * that sent it, every receive with the entry of the call it completed in
 * (and of the call that posted it), every collective member with the
 * entry of its call (a non-blocking one's: of the call that posted it and
 * of the one that completed it), every MPI_Win_fence likewise, and the general
 * active target epochs (waits_epochs.c). Events of the tracer's own clock synchronisation
 * (inside a "synctrace: ..." region) are left out.
 *
 * Memory: the sends, receives and collective members go into external
 * sorters (waits_sorted.c) in the order the rules join them, within the
 * budget (--memory), spilling beyond; each reading thread holds one
 * location's call stack and outstanding receive requests. The PSCW epochs
 * stay in memory (some 200 bytes each, RMA traces only).
 * With --jobs N, N threads take the locations one at a time, each with
 * its own reader of the archive (and of rawview.map); what one location
 * yields depends on it alone, and the sorters' orders are total, so the
 * output is the same whatever N. Under `mpirun -np K` this process reads
 * only its share of the locations, and the sorters are waits_share.c's
 * (a worker's sinks send its records to process 0, whose sorters take them
 * too): the same output again. */
#include "waits.h"
#include "waits_share.h"
#include "location_order.h"
#include "mtread.h"
#include "mtread_events.h"
#include "rawview.h"

#include <math.h>
#include <otf2/OTF2_Events.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int wt_by_channel_send(const void *a, const void *b);   /* waits_p2p.c */
int wt_by_channel_recv(const void *a, const void *b);
int wt_by_instance(const void *a, const void *b);       /* waits_coll.c */

struct frame {
    uint32_t region;
    struct wt_moment enter;
    uint64_t id;
};

struct posted {
    uint64_t req;
    struct wt_moment at;
};

/* A location's collectives in the order they were called (posted): a
 * non-blocking one learns its communicator only where it completes, so
 * the members after it wait here for their numbers (wt_member.seq). */
enum { SLOT_POSTED, SLOT_ENDED, SLOT_READY, SLOT_DROPPED };
struct slot {
    uint64_t req;
    uint64_t frame;           /* SLOT_ENDED: the call whose exit is the member's leave */
    struct wt_member m;
    uint8_t state;
    uint8_t numbered;         /* seq set already (a fence: numbered per window) */
};
/* beyond this many waiting, the oldest request still open is given up (a
 * request freed or never completed must not hold every later collective) */
#define WT_SLOTS_MAX 4096

/* A send held until what the Late Receiver rules need of it is seen:
 * an MPI_Isend's completion (its request's MpiIsendComplete), then the
 * exit of the call it completed in. */
struct pending {
    struct wt_send s;
    uint64_t req;
    int completed;            /* done_* known: waiting for done_frame's exit */
};

struct wt_trace {
    struct mt_trace t;
    struct rv_file *raw;
};

/* The epochs of one location, in a thread's part (wt_read puts them in
 * location order). */
struct span {
    uint32_t part;
    size_t first, n;
};

/* What the readers share; `next` (under lock) hands out the locations. */
struct shared {
    const char *outdir;
    const struct wt_read_opts *o;
    struct wt_records *rec;
    struct wt_trace *main;
    uint8_t *region_internal, *region_blocking, *region_sync, *region_pscw, *region_neighbor;
    uint8_t *comm_internal;   /* per communicator: the tracer's own (its name starts "synctrace") */
    struct span *spans;       /* per location */
    const struct wt_kind *kinds;   /* the sorted records' kinds (wt_read's table) */
    uint32_t nkinds;
    pthread_mutex_t lock;
    uint32_t next, end;       /* the next location to read; the end of this process's share */
    int stop;
};

struct reader {
    struct shared *sh;
    uint32_t id;              /* the thread: its putter in the sorters */
    struct wt_trace *wt;      /* its own reader (thread 0: the main one) */
    struct wt_records *rec;   /* the shared records: sorters, definitions */
    struct wt_records part;   /* this thread's epochs, ops, windows and counts */
    char err[4600];
    uint32_t location, rank;
    uint64_t index;           /* the location's next event's index (R:I) */
    struct frame *stack;
    size_t depth, cap;
    size_t internal;          /* frames of the tracer's own regions open */
    struct posted *posted;
    size_t nposted, capposted;
    struct pending *pending;  /* sends held for their completion */
    size_t npending, cappending;
    uint64_t *coll_seq;       /* per communicator, this location's collectives so far */
    struct slot *slots;       /* [head, nslots): the collectives waiting for their numbers */
    size_t head, nslots, capslots;
    uint64_t *fence_seq;      /* per window, this location's fences so far */
    size_t capwins;
    uint64_t frames;          /* the location << 40, then its calls: unique, in the locations' order,
                               * whichever thread reads a location */
    const uint8_t *region_internal, *region_blocking, *region_sync, *region_pscw, *region_neighbor;
    const uint8_t *comm_internal;
    struct wt_epochs *epochs;
    int failed;
};

/* Room for one more element of a growing array; 0, or -1 when memory failed. */
static int grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*arr, c * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

static struct wt_moment moment_of(struct reader *rd, const struct rt_event *e)
{
    struct wt_moment m;
    m.g = (double)e->time;
    m.t = e->has_truth ? (double)e->truth : NAN;
    m.r = rd->wt->raw ? rv_file_raw(rd->wt->raw, rd->location, rd->index, m.g) : NAN;
    return m;
}

static const struct frame *top(const struct reader *rd)
{
    return rd->depth ? &rd->stack[rd->depth - 1] : NULL;
}

static int internal_comm(const struct reader *rd, uint32_t comm)
{
    return comm < rd->rec->ncomms && rd->comm_internal[comm];
}

static int on_send(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    int dst = mt_peer_rank(&rd->wt->t, rd->rank, e->ref, e->peer);
    if (!f || dst < 0)
        return 0;             /* outside any call, or a peer outside the trace */
    int blocking = e->kind == RT_SEND;
    struct wt_send s = {
        .comm = e->ref, .src = rd->rank, .dst = (uint32_t)dst, .tag = e->tag, .seq = rd->index,
        .enter_g = f->enter.g, .enter_t = f->enter.t, .region = f->region, .loc = rd->location,
        .sync = rd->region_sync[f->region] == WT_SEND_SSEND, .kind = rd->region_sync[f->region],
        .done_blocking = (uint8_t)blocking, .done_region = f->region, .done_frame = f->id,
        .done_g = blocking ? f->enter.g : NAN, .done_t = blocking ? f->enter.t : NAN,
        .leave_g = NAN, .leave_t = NAN,
        .enter_r = f->enter.r, .done_r = blocking ? f->enter.r : NAN, .leave_r = NAN,
    };
    uint8_t k = rd->region_sync[f->region];
    if (k == WT_SEND_OTHER || k == WT_SEND_SSEND)
        return wt_sorted_put(rd->rec->sends, rd->id, &s);   /* no rule needs its completion */
    /* held until its call's exit (an MPI_Isend: its completion first); one
     * not completed (freed) is held to the location's end */
    if (grow((void **)&rd->pending, rd->npending, &rd->cappending, sizeof *rd->pending) != 0)
        return -1;
    rd->pending[rd->npending++] = (struct pending){ s, e->req, blocking };
    return 0;
}

/* An MPI_Isend's request completed in the call on top (MPI_Wait*, MPI_Test*). */
static void on_isend_complete(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    if (!f)
        return;
    for (size_t i = 0; i < rd->npending; i++) {
        struct pending *p = &rd->pending[i];
        if (!p->completed && p->req == e->req) {
            p->completed = 1;
            p->s.done_region = f->region;
            p->s.done_frame = f->id;
            p->s.done_blocking = rd->region_blocking[f->region];
            p->s.done_g = f->enter.g;
            p->s.done_t = f->enter.t;
            p->s.done_r = f->enter.r;
            return;
        }
    }
}

/* The call `frame` left at `at` (NULL: the location ended): the sends it
 * completed go to the sorter, in the order they were sent. 0, or -1. */
static int flush_pending(struct reader *rd, uint64_t frame, const struct wt_moment *at)
{
    size_t keep = 0;
    int rc = 0;
    for (size_t i = 0; i < rd->npending; i++) {
        struct pending *p = &rd->pending[i];
        if (at && !(p->completed && p->s.done_frame == frame)) {
            rd->pending[keep++] = *p;
            continue;
        }
        if (at) {
            p->s.leave_g = at->g;
            p->s.leave_t = at->t;
            p->s.leave_r = at->r;
        } else if (!p->completed)
            p->s.done_blocking = 0;   /* never seen completing: no Late Receiver */
        if (rc == 0 && wt_sorted_put(rd->rec->sends, rd->id, &p->s) != 0)
            rc = -1;
    }
    rd->npending = keep;
    return rc;
}

static void on_post(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    if (!f || grow((void **)&rd->posted, rd->nposted, &rd->capposted, sizeof *rd->posted) != 0)
        return;               /* without it, the receive counts as posted where it completed */
    rd->posted[rd->nposted++] = (struct posted){ e->req, f->enter };
}

static int on_recv(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    int src = mt_peer_rank(&rd->wt->t, rd->rank, e->ref, e->peer);
    if (!f || src < 0)
        return 0;
    struct wt_moment post = f->enter;
    if (e->kind == RT_IRECV)
        for (size_t i = rd->nposted; i-- > 0;)
            if (rd->posted[i].req == e->req) {
                post = rd->posted[i].at;
                rd->posted[i] = rd->posted[--rd->nposted];
                break;
            }
    struct wt_recv r = {
        .comm = e->ref, .src = (uint32_t)src, .dst = rd->rank, .tag = e->tag, .seq = rd->index, .frame = f->id,
        .enter_g = f->enter.g, .enter_t = f->enter.t, .post_g = post.g, .post_t = post.t, .region = f->region,
        .blocking = rd->region_blocking[f->region], .enter_r = f->enter.r, .post_r = post.r,
    };
    return wt_sorted_put(rd->rec->recvs, rd->id, &r);
}

/* The collectives waiting in rd->slots that have their communicator, up
 * to the first still open, numbered and put. 0, or -1. */
static int drain_slots(struct reader *rd)
{
    for (; rd->head < rd->nslots && rd->slots[rd->head].state >= SLOT_READY; rd->head++) {
        struct wt_member *m = &rd->slots[rd->head].m;
        if (rd->slots[rd->head].state == SLOT_DROPPED)
            continue;
        if (!rd->slots[rd->head].numbered)
            m->seq = rd->coll_seq[m->comm]++;
        if (wt_sorted_put(rd->rec->members, rd->id, m) != 0)
            return -1;
    }
    if (rd->head == rd->nslots)
        rd->head = rd->nslots = 0;
    return 0;
}

/* A collective in call order: numbered at once unless one before it is
 * still open. 0, or -1. */
static int queue_slot(struct reader *rd, const struct slot *q)
{
    if (rd->nslots - rd->head >= WT_SLOTS_MAX) {
        for (size_t i = rd->head; i < rd->nslots; i++)
            if (rd->slots[i].state == SLOT_POSTED) {
                rd->slots[i].state = SLOT_DROPPED;
                break;
            }
        if (drain_slots(rd) != 0)
            return -1;
    }
    if (rd->head && rd->nslots == rd->capslots) {   /* room at the front first */
        memmove(rd->slots, rd->slots + rd->head, (rd->nslots - rd->head) * sizeof *rd->slots);
        rd->nslots -= rd->head;
        rd->head = 0;
    }
    if (grow((void **)&rd->slots, rd->nslots, &rd->capslots, sizeof *rd->slots) != 0)
        return -1;
    rd->slots[rd->nslots++] = *q;
    return drain_slots(rd);
}

/* The exit of call `frame` (at): the members it ended have their leave. */
static int slots_left(struct reader *rd, uint64_t frame, const struct wt_moment *at)
{
    for (size_t i = rd->head; i < rd->nslots; i++)
        if (rd->slots[i].state == SLOT_ENDED && rd->slots[i].frame == frame) {
            rd->slots[i].m.leave = *at;
            rd->slots[i].state = SLOT_READY;
        }
    return drain_slots(rd);
}

/* The location's end: what is still open never completed (no instance);
 * a call never left (a run cut inside it) bounds no wait. */
static int flush_slots(struct reader *rd)
{
    for (size_t i = rd->head; i < rd->nslots; i++) {
        if (rd->slots[i].state == SLOT_POSTED)
            rd->slots[i].state = SLOT_DROPPED;
        else if (rd->slots[i].state == SLOT_ENDED)
            rd->slots[i].state = SLOT_READY;
    }
    return drain_slots(rd);
}

/* A member's leave until its call's exit is seen. */
static const struct wt_moment NOT_LEFT = { NAN, NAN, NAN };

/* A collective's fields from its end (blocking) or completion event; 0
 * when it is not one of ours (intercommunicators' collectives have no
 * pattern of Scalasca's here; on MPI_COMM_SELF, one communicator
 * definition for every rank's own, a rank is alone and waits for nobody). */
static int member_of(const struct reader *rd, const struct rt_event *e, struct wt_member *m)
{
    if (e->ref >= rd->wt->t.ncomms || rd->wt->t.comms[e->ref].inter || rd->wt->t.comms[e->ref].self
        || internal_comm(rd, e->ref))
        return 0;
    int root = e->peer == UINT32_MAX ? -1 : mt_world_rank(&rd->wt->t, e->ref, e->peer);
    m->kind = WT_MEMBER_COLL;
    m->comm = e->ref;
    m->rank = rd->rank;
    m->op = e->tag;
    m->loc = rd->location;
    m->root = root < 0 ? UINT32_MAX : (uint32_t)root;
    m->receives_nothing = e->received == 0 && e->tag != OTF2_COLLECTIVE_OP_BARRIER;
    return 1;
}

static int on_coll_end(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    struct slot q = { .state = SLOT_ENDED };
    if (!f || !member_of(rd, e, &q.m))
        return 0;
    q.frame = f->id;
    q.m.leave = NOT_LEFT;
    q.m.post = q.m.enter = f->enter;
    q.m.region = f->region;
    q.m.blocking = 1;
    q.m.neighbor = rd->region_neighbor[f->region];
    return queue_slot(rd, &q);
}

/* A non-blocking collective posted (in its MPI_I... call). */
static int on_nbc_request(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    if (!f)
        return 0;
    struct slot q = { .req = e->req, .state = SLOT_POSTED };
    q.m.post = f->enter;
    q.m.neighbor = rd->region_neighbor[f->region];
    return queue_slot(rd, &q);
}

/* ... and completed (in MPI_Wait*, MPI_Test*): its member ready, in the
 * order it was posted. */
static int on_nbc_complete(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    for (size_t i = rd->head; i < rd->nslots; i++) {
        struct slot *q = &rd->slots[i];
        if (q->state != SLOT_POSTED || q->req != e->req)
            continue;
        struct wt_moment post = q->m.post;
        uint8_t neighbor = q->m.neighbor;
        if (!f || !member_of(rd, e, &q->m)) {
            q->state = SLOT_DROPPED;
        } else {
            q->m.post = post;
            q->m.neighbor = neighbor;
            q->m.enter = f->enter;
            q->m.region = f->region;
            q->m.blocking = rd->region_blocking[f->region];
            q->m.leave = NOT_LEFT;
            q->frame = f->id;
            q->state = SLOT_ENDED;
        }
        return drain_slots(rd);
    }
    return 0;                 /* posted where we did not see it */
}

/* Room for window `win` in the per-window counters; 0, or -1. */
static int window_room(struct reader *rd, uint32_t win)
{
    if (win < rd->capwins)
        return 0;
    size_t cap = rd->capwins ? rd->capwins : 16;
    while (cap <= win)
        cap *= 2;
    uint64_t *seq = realloc(rd->fence_seq, cap * sizeof *seq);
    if (seq)
        rd->fence_seq = seq;
    uint32_t *size = realloc(rd->part.win_size, cap * sizeof *size);
    if (size)
        rd->part.win_size = size;
    if (!seq || !size)
        return -1;
    memset(seq + rd->capwins, 0, (cap - rd->capwins) * sizeof *seq);
    memset(size + rd->capwins, 0, (cap - rd->capwins) * sizeof *size);
    rd->capwins = cap;
    return 0;
}

/* Windows' creations count their members; fences (an RMA collective
 * BARRIER) are recorded like collective members, numbered per window. */
/* A window rank of window win as a world rank, or -1. */
static int window_world_rank(const struct reader *rd, uint32_t win, uint32_t local)
{
    const struct mt_trace *t = &rd->wt->t;
    return win < t->nwins ? mt_world_rank(t, t->win_comm[win], local) : -1;
}

/* Operations and PSCW notifications, for the epochs. */
static int on_rma_epoch(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    int remote = f ? window_world_rank(rd, e->ref, e->peer) : -1;
    if (remote < 0)
        return 0;
    if (e->tag == RT_RMA_PUT || e->tag == RT_RMA_GET || (e->tag & 0xff) == RT_RMA_ATOMIC)
        return wt_epochs_op(rd->epochs, e->ref, (uint32_t)remote, f->id, f->region, &f->enter);
    if (e->tag == RT_RMA_SYNC && (e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_OUT || e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_IN))
        return wt_epochs_sync(rd->epochs, e->ref, rd->wt->t.win_comm[e->ref], (uint32_t)remote, f->id,
                              e->bytes == OTF2_RMA_SYNC_TYPE_NOTIFY_OUT);
    return 0;
}

static int on_rma(struct reader *rd, const struct rt_event *e)
{
    const struct frame *f = top(rd);
    uint32_t win = e->ref;
    if (e->tag != RT_RMA_WIN_CREATE && e->tag != RT_RMA_COLL_END)
        return on_rma_epoch(rd, e);
    if (win == UINT32_MAX || (e->tag != RT_RMA_WIN_CREATE && e->tag != RT_RMA_COLL_END))
        return 0;
    if (window_room(rd, win) != 0)
        return -1;
    if (win + 1 > rd->part.nwins)
        rd->part.nwins = win + 1;
    if (e->tag == RT_RMA_WIN_CREATE) {
        rd->part.win_size[win]++;
        return 0;
    }
    if ((uint32_t)(e->req >> 32) != OTF2_COLLECTIVE_OP_BARRIER || !f)
        return 0;             /* creation and free: no pattern */
    struct slot q = { .frame = f->id, .state = SLOT_ENDED, .numbered = 1 };
    q.m = (struct wt_member){
        .kind = WT_MEMBER_FENCE, .comm = win, .rank = rd->rank, .op = OTF2_COLLECTIVE_OP_BARRIER, .loc = rd->location,
        .root = UINT32_MAX, .seq = rd->fence_seq[win]++, .post = f->enter, .enter = f->enter, .leave = NOT_LEFT,
        .region = f->region, .blocking = 1,
    };
    return queue_slot(rd, &q);
}

static int on_location_start(struct reader *rd, uint32_t location);

static int on_event(void *user, uint32_t location, const struct rt_event *e)
{
    struct reader *rd = user;
    if (location != rd->location)   /* (each location is started before it is read) */
        on_location_start(rd, location);
    int rc = 0;
    if (e->has_truth)
        rd->part.have_truth = 1;
    rd->part.events++;
    switch (e->kind) {
    case RT_ENTER:
        if (grow((void **)&rd->stack, rd->depth, &rd->cap, sizeof *rd->stack) != 0) {
            rc = -1;
            break;
        }
        if (e->ref < rd->rec->nregions && rd->region_internal[e->ref])
            rd->internal++;
        rd->stack[rd->depth++] = (struct frame){ e->ref < rd->rec->nregions ? e->ref : 0, moment_of(rd, e),
                                                 ++rd->frames };
        if (!rd->internal) {
            const struct frame *f = top(rd);
            rc = wt_epochs_enter(rd->epochs, rd->region_pscw[f->region], f->id, f->region, &f->enter);
        }
        break;
    case RT_LEAVE:
        if (rd->depth) {
            const struct frame *f = &rd->stack[--rd->depth];
            if (!rd->internal) {
                struct wt_moment at = moment_of(rd, e);
                rc = wt_epochs_leave(rd->epochs, &rd->part, rd->region_pscw[f->region], f->id, &at);
                if (rc == 0 && rd->npending)
                    rc = flush_pending(rd, f->id, &at);
                if (rc == 0 && rd->nslots > rd->head)
                    rc = slots_left(rd, f->id, &at);
            }
            if (rd->region_internal[f->region] && rd->internal)
                rd->internal--;
        }
        break;
    case RT_SEND:
    case RT_ISEND:
        if (!rd->internal && !internal_comm(rd, e->ref))
            rc = on_send(rd, e);
        break;
    case RT_ISEND_COMPLETE:
        if (!rd->internal)
            on_isend_complete(rd, e);
        break;
    case RT_IRECV_REQUEST:
        if (!rd->internal && !internal_comm(rd, e->ref))
            on_post(rd, e);
        break;
    case RT_RECV:
    case RT_IRECV:
        if (!rd->internal && !internal_comm(rd, e->ref))
            rc = on_recv(rd, e);
        break;
    case RT_COLL_END:
        if (!rd->internal)
            rc = on_coll_end(rd, e);
        break;
    case RT_NBC_REQUEST:
        if (!rd->internal)
            rc = on_nbc_request(rd, e);
        break;
    case RT_NBC_COMPLETE:
        if (!rd->internal)
            rc = on_nbc_complete(rd, e);
        break;
    case RT_RMA:
        if (!rd->internal)
            rc = on_rma(rd, e);
        break;
    default:
        break;
    }
    rd->index++;
    if (rc != 0)
        rd->failed = 1;
    return rc;
}

static int on_location_start(struct reader *rd, uint32_t location)
{
    rd->location = location;
    rd->rank = loc_id_rank(rd->wt->t.locations[location]);
    rd->index = 0;
    rd->frames = (uint64_t)location << 40;
    rd->depth = rd->internal = rd->nposted = rd->npending = 0;
    rd->head = rd->nslots = 0;
    if (rd->capwins)
        memset(rd->fence_seq, 0, rd->capwins * sizeof *rd->fence_seq);
    memset(rd->coll_seq, 0, sizeof *rd->coll_seq * (rd->wt->t.ncomms ? rd->wt->t.ncomms : 1));
    wt_epochs_reset(rd->epochs, rd->rank);
    return 0;
}

static int starts(const char *s, const char *prefix)
{
    return s && !strncmp(s, prefix, strlen(prefix));
}

/* The Late Receiver rule a sending call's name calls for (WT_SEND_*). */
static uint8_t send_kind(const char *name)
{
    static const char *const names[] = { [WT_SEND_SSEND] = "MPI_Ssend", [WT_SEND_ISSEND] = "MPI_Issend",
                                         [WT_SEND_STD] = "MPI_Send", [WT_SEND_ISTD] = "MPI_Isend" };
    for (uint8_t k = WT_SEND_SSEND; k <= WT_SEND_ISTD; k++)
        if (name && !strcmp(name, names[k]))
            return k;
    return WT_SEND_OTHER;
}

/* What the rules need to know of each region, by name. */
static int classify_regions(struct shared *sh)
{
    const struct wt_records *rec = sh->rec;
    uint32_t n = rec->nregions ? rec->nregions : 1;
    sh->region_internal = calloc(n, 1);
    sh->region_blocking = calloc(n, 1);
    sh->region_sync = calloc(n, 1);
    sh->region_pscw = calloc(n, 1);
    sh->region_neighbor = calloc(n, 1);
    sh->comm_internal = calloc(rec->ncomms ? rec->ncomms : 1, 1);
    if (!sh->region_internal || !sh->region_blocking || !sh->region_sync || !sh->region_pscw || !sh->region_neighbor
        || !sh->comm_internal)
        return -1;
    for (uint32_t c = 0; c < rec->ncomms; c++)
        sh->comm_internal[c] = starts(rec->comms[c], "synctrace");
    for (uint32_t i = 0; i < rec->nregions; i++) {
        const char *name = rec->regions[i];
        sh->region_internal[i] = starts(name, "synctrace");
        /* a receive completed by MPI_Test* or posted by MPI_I* did not block */
        sh->region_blocking[i] = starts(name, "MPI_") && !starts(name, "MPI_Test") && !starts(name, "MPI_I")
                                 && !starts(name, "MPI_Request_get_status");
        sh->region_sync[i] = send_kind(name);
        sh->region_neighbor[i] = starts(name, "MPI_Neighbor_") || starts(name, "MPI_Ineighbor_");
        static const char *const pscw[] = { [WT_CALL_START] = "MPI_Win_start", [WT_CALL_COMPLETE] = "MPI_Win_complete",
                                            [WT_CALL_POST] = "MPI_Win_post", [WT_CALL_WAIT] = "MPI_Win_wait",
                                            [WT_CALL_TEST] = "MPI_Win_test" };
        for (int k = WT_CALL_START; k <= WT_CALL_TEST; k++)
            if (name && !strcmp(name, pscw[k]))
                sh->region_pscw[i] = (uint8_t)k;
    }
    return 0;
}

/* The archive (and rawview.map with --raw) opened for one reader. */
static struct wt_trace *trace_open(const char *outdir, int raw, char *err, size_t errlen)
{
    struct wt_trace *wt = calloc(1, sizeof *wt);
    if (!wt) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/traces.otf2", outdir);
    if (mt_open(path, &wt->t, err, errlen) != 0) {
        free(wt);
        return NULL;
    }
    if (raw) {
        char rawerr[4400];
        snprintf(path, sizeof path, "%s/rawview.map", outdir);
        wt->raw = rv_open(path, wt->t.nlocations, NULL, rawerr, sizeof rawerr);
        if (!wt->raw) {
            snprintf(err, errlen, "%s", rawerr);
            mt_close(&wt->t);
            free(wt);
            return NULL;
        }
    }
    return wt;
}

static void trace_close(struct wt_trace *wt)
{
    if (wt) {
        rv_close(wt->raw);
        mt_close(&wt->t);
        free(wt);
    }
}

/* Why a reader's callback stopped the read: a sorter's error (a full
 * disk, ...), else memory. */
static void reader_failed(struct reader *rd)
{
    const char *why = "";
    for (uint32_t k = 0; k < rd->sh->nkinds && !*why; k++)   /* (this thread's sorters only) */
        why = wt_sorted_part_error(*rd->sh->kinds[k].sorter, rd->id);
    if (*why)
        snprintf(rd->err, sizeof rd->err, "%s", why);
    else
        snprintf(rd->err, sizeof rd->err, "%s/traces.otf2: out of memory for its records", rd->sh->outdir);
}

/* A thread's reads: the next location not taken, until none is left or a
 * reader failed. 0, or -1 with rd->err. */
static int read_locations(struct reader *rd)
{
    struct shared *sh = rd->sh;
    if (!rd->wt && !(rd->wt = trace_open(sh->outdir, sh->o->raw, rd->err, sizeof rd->err)))
        return -1;
    if (rd->wt->t.nlocations != sh->main->t.nlocations || rd->wt->t.nregions != sh->main->t.nregions) {
        snprintf(rd->err, sizeof rd->err, "%s/traces.otf2: changed while it was read", sh->outdir);
        return -1;
    }
    struct mt_events *ev = mt_events_begin(&rd->wt->t, on_event, NULL, rd, rd->err, sizeof rd->err);
    if (!ev)
        return -1;
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        uint32_t i = sh->next;
        int stop = sh->stop || i >= sh->end;
        if (!stop)
            sh->next++;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        on_location_start(rd, i);
        size_t first = rd->part.nepochs;
        uint64_t got;
        do
            rc = mt_events_read(ev, i, UINT64_MAX, &got, rd->err, sizeof rd->err);
        while (!rc && got);
        if (rc == 0 && flush_pending(rd, 0, NULL) != 0) {   /* the sends never seen leaving */
            rd->failed = 1;
            rc = -1;
        }
        mt_events_close_location(ev, i);
        if (rc == 0 && flush_slots(rd) != 0) {
            rd->failed = 1;
            rc = -1;
        }
        if (rc == 0 && rd->wt->raw && *rv_file_error(rd->wt->raw)) {
            snprintf(rd->err, sizeof rd->err, "%s", rv_file_error(rd->wt->raw));
            rc = -1;
        }
        if (rc != 0) {
            if (rd->failed)
                reader_failed(rd);
            break;
        }
        sh->spans[i] = (struct span){ rd->id, first, rd->part.nepochs - first };
    }
    mt_events_end(ev);
    /* this thread's last records sorted here, beside the other threads */
    for (uint32_t k = 0; rc == 0 && k < sh->nkinds; k++)
        if (wt_sorted_finish_part(*sh->kinds[k].sorter, rd->id) != 0) {
            reader_failed(rd);
            rc = -1;
        }
    if (rc != 0) {
        pthread_mutex_lock(&sh->lock);
        sh->stop = 1;
        pthread_mutex_unlock(&sh->lock);
    }
    return rc;
}

static void *read_thread(void *arg)
{
    struct reader *rd = arg;
    return read_locations(rd) == 0 ? NULL : rd;
}

/* The threads' parts into rec: counts summed, windows' members summed,
 * the epochs (and their operations) in location order, as one reader
 * would have made them. 0, or -1 when memory failed. */
static int gather(struct shared *sh, struct reader *rd, uint32_t n)
{
    struct wt_records *rec = sh->rec;
    size_t nepochs = 0, nops = 0;
    for (uint32_t k = 0; k < n; k++) {
        rec->events += rd[k].part.events;
        rec->have_truth |= rd[k].part.have_truth;
        rec->epochs_unpaired += rd[k].part.epochs_unpaired;
        if (rd[k].part.nwins > rec->nwins)
            rec->nwins = rd[k].part.nwins;
        nepochs += rd[k].part.nepochs;
        nops += rd[k].part.nops;
    }
    rec->win_size = calloc(rec->nwins ? rec->nwins : 1, sizeof *rec->win_size);
    rec->epochs = malloc((nepochs ? nepochs : 1) * sizeof *rec->epochs);
    rec->ops = malloc((nops ? nops : 1) * sizeof *rec->ops);
    if (!rec->win_size || !rec->epochs || !rec->ops)
        return -1;
    rec->capepochs = nepochs ? nepochs : 1;
    rec->capops = nops ? nops : 1;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t w = 0; w < rd[k].part.nwins; w++)
            rec->win_size[w] += rd[k].part.win_size[w];
    for (uint32_t l = 0; l < sh->main->t.nlocations; l++) {
        const struct span *sp = &sh->spans[l];
        const struct wt_records *p = &rd[sp->part].part;
        for (size_t i = sp->first; i < sp->first + sp->n; i++) {
            struct wt_epoch e = p->epochs[i];
            for (size_t j = 0; j < e.nops; j++)
                rec->ops[rec->nops + j] = p->ops[e.op_first + j];
            e.op_first = rec->nops;
            rec->nops += e.nops;
            rec->epochs[rec->nepochs++] = e;
        }
    }
    return 0;
}

static void reader_free(struct reader *rd, const struct wt_trace *main)
{
    free(rd->stack);
    free(rd->posted);
    free(rd->pending);
    free(rd->coll_seq);
    free(rd->slots);
    free(rd->fence_seq);
    free(rd->part.epochs);
    free(rd->part.ops);
    free(rd->part.win_size);
    wt_epochs_free(rd->epochs);
    if (rd->wt != main)
        trace_close(rd->wt);
}

int wt_read(const char *outdir, const struct wt_read_opts *o, struct wt_records *rec, struct wt_trace **keep,
            char *err, size_t errlen)
{
    memset(rec, 0, sizeof *rec);
    *keep = NULL;
    struct wt_trace *wt = trace_open(outdir, o->raw, err, errlen);
    /* K processes: each reads its share of the locations (waits_share.h) */
    uint32_t first = 0, end = wt ? wt->t.nlocations : 0;
    if (o->share && wt_share_open(o->share, wt != NULL, wt ? wt->t.location_events : NULL,
                                  wt ? wt->t.nlocations : 0, &first, &end) != 0) {
        trace_close(wt);
        return -1;            /* (err says this process's failure, else another's is said there) */
    }
    if (!wt)
        return -1;
    *keep = wt;
    rec->have_raw = o->raw;
    rec->budget = o->budget;
    rec->spill_dir = o->spill_dir;
    rec->regions = wt->t.regions;
    rec->nregions = wt->t.nregions;
    rec->ncomms = wt->t.ncomms;
    rec->comms = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rec->comms);
    rec->comm_size = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rec->comm_size);
    rec->comm_members = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rec->comm_members);
    rec->comm_defs = wt->t.comms;
    for (uint32_t l = 0; l < wt->t.nlocations; l++)
        if (loc_id_rank(wt->t.locations[l]) + 1 > rec->nranks)
            rec->nranks = loc_id_rank(wt->t.locations[l]) + 1;
    uint32_t jobs = o->jobs ? o->jobs : 1;
    if (jobs > end - first)
        jobs = end > first ? end - first : 1;
    /* the sorted records, each kind's tag its place here (waits_share.c),
     * and the sorters' shares of the budget, by their records' sizes: 3/8
     * for the sends, 1/2 for the receives, 1/8 for the members. A sorter
     * holds records in half its share (the other half is qsort's, for a
     * moment), which leaves room for the p2p rules' sorter and spool
     * (waits_p2p.c) */
    const struct wt_kind kinds[] = {
        { &rec->sends, WT_SEND_BYTES(o->raw), wt_by_channel_send, o->budget / 8 * 3 },
        { &rec->recvs, WT_RECV_BYTES(o->raw), wt_by_channel_recv, o->budget / 2 },
        { &rec->members, sizeof(struct wt_member), wt_by_instance, o->budget / 8 },
    };
    struct shared sh = { .outdir = outdir, .o = o, .rec = rec, .main = wt, .kinds = kinds,
                         .nkinds = sizeof kinds / sizeof *kinds, .next = first, .end = end };
    pthread_mutex_init(&sh.lock, NULL);
    sh.spans = calloc(wt->t.nlocations ? wt->t.nlocations : 1, sizeof *sh.spans);
    struct reader *rd = calloc(jobs, sizeof *rd);
    pthread_t *threads = calloc(jobs, sizeof *threads);
    int *started = calloc(jobs, sizeof *started);
    int rc = -1;
    if (!rec->comms || !rec->comm_size || !rec->comm_members || !sh.spans || !rd || !threads || !started) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (uint32_t c = 0; c < wt->t.ncomms; c++) {
        rec->comms[c] = wt->t.comms[c].name;
        rec->comm_size[c] = wt->t.comms[c].self ? 1 : wt->t.comms[c].nmembers;
        rec->comm_members[c] = wt->t.comms[c].self || wt->t.comms[c].inter ? NULL : wt->t.comms[c].members;
    }
    if (wt_nbrs_read(outdir, rec, err, errlen) != 0)
        goto done;
    if (classify_regions(&sh) != 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (o->share) {
        if (wt_share_sorters(o->share, kinds, sh.nkinds, jobs, o->spill_dir, err, errlen) != 0)
            goto done;
    } else
        for (uint32_t k = 0; k < sh.nkinds; k++)
            if (!(*kinds[k].sorter = wt_sorted_new(jobs, kinds[k].bytes, kinds[k].cmp, kinds[k].budget,
                                                   o->spill_dir, err, errlen)))
                goto done;
    for (uint32_t k = 0; k < jobs; k++) {
        rd[k] = (struct reader){ .sh = &sh, .id = k, .wt = k ? NULL : wt, .rec = rec,
                                 .region_internal = sh.region_internal, .region_blocking = sh.region_blocking,
                                 .region_sync = sh.region_sync, .region_pscw = sh.region_pscw,
                                 .region_neighbor = sh.region_neighbor,
                                 .comm_internal = sh.comm_internal };
        rd[k].coll_seq = calloc(wt->t.ncomms ? wt->t.ncomms : 1, sizeof *rd[k].coll_seq);
        rd[k].epochs = wt_epochs_new();
        if (!rd[k].coll_seq || !rd[k].epochs) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
    }
    /* thread 0 is this one */
    for (uint32_t k = 1; k < jobs; k++)
        started[k] = pthread_create(&threads[k], NULL, read_thread, &rd[k]) == 0;
    /* (a thread that could not start leaves its share to the others) */
    int failed = read_locations(&rd[0]) != 0 ? 0 : -1;   /* the first reader that failed */
    for (uint32_t k = 1; k < jobs; k++)
        if (started[k] && pthread_join(threads[k], NULL) == 0 && *rd[k].err && failed < 0)
            failed = (int)k;
    if (failed >= 0) {
        snprintf(err, errlen, "%s", rd[failed].err);
        goto done;
    }
    if (gather(&sh, rd, jobs) != 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    rc = 0;
done:
    /* every worker's stream taken (process 0), every process's read agreed */
    if (o->share) {
        char why[4600] = "";
        if (wt_share_end(o->share, rc == 0, rec, why, sizeof why) != 0 && rc == 0) {
            snprintf(err, errlen, "%s", why);
            rc = -1;
        }
    }
    for (uint32_t k = 0; rd && k < jobs; k++)
        reader_free(&rd[k], wt);
    free(rd);
    free(threads);
    free(started);
    free(sh.spans);
    free(sh.region_internal);
    free(sh.region_blocking);
    free(sh.region_sync);
    free(sh.region_pscw);
    free(sh.region_neighbor);
    free(sh.comm_internal);
    pthread_mutex_destroy(&sh.lock);
    return rc;
}

void wt_records_free(struct wt_records *rec, struct wt_trace *keep)
{
    wt_sorted_free(rec->sends);
    wt_sorted_free(rec->recvs);
    wt_sorted_free(rec->members);
    free(rec->epochs);
    free(rec->ops);
    free(rec->win_size);
    free(rec->comms);
    free(rec->comm_size);
    free(rec->comm_members);
    free(rec->nbrs);
    free(rec->nbr_list);
    memset(rec, 0, sizeof *rec);
    trace_close(keep);
}
