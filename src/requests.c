/* requests.c — request tracking: handles are remembered when posted and
 * looked up when completed. Wait/Test calls overwrite completed handles with
 * MPI_REQUEST_NULL, so the wrappers save the array first (st_req_save).
 *
 * A handle may stand for several live requests: Open MPI returns one static,
 * already complete request for operations that finish at once (a small
 * MPI_Isend sent inline), so two MPI_Isend calls in a row can return the
 * same handle. The records of one handle are chained, oldest first, and a
 * completion takes the oldest one its own location posted (else the oldest).
 * Every entry point takes the state lock (st_state_lock): under
 * MPI_THREAD_MULTIPLE one thread may post a request and another complete it,
 * and a Wait/Test claims its records before it calls MPI. */
#include "requests.h"
#include "handlemap.h"
#include "tracer.h"
#include "writer.h"

#include <stdlib.h>
#include <dlfcn.h>
#include <string.h>

static struct st_handlemap live;          /* MPI_Request -> struct st_req */
static struct st_req *free_list;
static uint64_t next_id = 1;

/* The youngest requests, oldest first, kept out of the map: most complete
 * within a few calls of being posted (a wait right after an isend), and a
 * short array scan costs far less than a map insert, lookup and removal.
 * Every record of a handle in the map is older than its records here (the
 * oldest spills to the map first), so the chain order a completion picks
 * by is the map's chain followed by this array. Persistent requests, which
 * live long, go to the map directly. */
#define FRESH_MAX 8
static struct {
    MPI_Request handle;
    struct st_req *r;
} fresh[FRESH_MAX];
static int nfresh;

static int map_link(MPI_Request handle, struct st_req *r)
{
    r->next_same = NULL;
    struct st_req *p = st_handlemap_get(&live, (uintptr_t)handle);
    if (!p)
        return st_handlemap_put(&live, (uintptr_t)handle, r);
    while (p->next_same)
        p = p->next_same;
    p->next_same = r;
    return 0;
}

static int link_req(MPI_Request handle, struct st_req *r)
{
    if (r->persistent)
        return map_link(handle, r);
    if (nfresh == FRESH_MAX) {
        if (map_link(fresh[0].handle, fresh[0].r) != 0)
            return map_link(handle, r);   /* no memory: the array keeps its order */
        memmove(&fresh[0], &fresh[1], sizeof fresh[0] * (FRESH_MAX - 1));
        nfresh--;
    }
    r->next_same = NULL;
    fresh[nfresh].handle = handle;
    fresh[nfresh].r = r;
    nfresh++;
    return 0;
}

static void unlink_req(MPI_Request handle, struct st_req *r)
{
    for (int i = 0; i < nfresh; i++)
        if (fresh[i].r == r) {
            memmove(&fresh[i], &fresh[i + 1], sizeof fresh[0] * (size_t)(nfresh - i - 1));
            nfresh--;
            return;
        }
    struct st_req *head = live.live ? st_handlemap_get(&live, (uintptr_t)handle) : NULL;
    if (head == r) {
        if (r->next_same)
            st_handlemap_put(&live, (uintptr_t)handle, r->next_same);   /* replaces: cannot fail */
        else
            st_handlemap_remove(&live, (uintptr_t)handle);
        return;
    }
    for (struct st_req *p = head; p; p = p->next_same)
        if (p->next_same == r) {
            p->next_same = r->next_same;
            return;
        }
}

/* The record a completion of `handle` in location `by` stands for. */
static struct st_req *pick(MPI_Request handle, const struct st_loc *by)
{
    struct st_req *first = NULL;
    for (struct st_req *p = live.live ? st_handlemap_get(&live, (uintptr_t)handle) : NULL; p; p = p->next_same) {
        if (p->claimed)
            continue;
        if (p->owner == by)
            return p;
        if (!first)
            first = p;
    }
    for (int i = 0; i < nfresh; i++) {
        struct st_req *p = fresh[i].r;
        if (fresh[i].handle != handle || p->claimed)
            continue;
        if (p->owner == by)
            return p;
        if (!first)
            first = p;
    }
    return first;
}

static struct st_req *req_new(MPI_Request handle, enum st_req_kind kind, uint32_t comm, int persistent)
{
    struct st_req *r = free_list;
    if (r)
        free_list = r->next_free;
    else if (!(r = malloc(sizeof *r)))
        return NULL;
    /* Only what every kind reads; the rest is set by the kind that uses it. */
    r->id = next_id++;
    r->kind = (uint8_t)kind;
    r->persistent = (uint8_t)persistent;
    r->active = 1;
    r->cancelled = 0;
    r->claimed = 0;
    r->holds_comm = 0;
    r->comm = comm;
    r->owner = st_loc_self;
    r->coll.sources = NULL;   /* release() frees it for every kind */
    r->coll.nslots = 0;
    if (link_req(handle, r) != 0) {
        r->next_free = free_list;
        free_list = r;
        return NULL;
    }
    return r;
}

struct st_req *st_req_new(MPI_Request handle, enum st_req_kind kind, uint32_t comm)
{
    st_state_lock();
    struct st_req *r = req_new(handle, kind, comm, 0);
    st_state_unlock();
    return r;
}

static struct st_req_comm_hooks comm_hooks;   /* communicators.c's (st_req_set_comm_hooks) */

void st_req_set_comm_hooks(const struct st_req_comm_hooks *hooks)
{
    comm_hooks = *hooks;
}

/* `call` is the call in which the request ends (its completion, or
 * MPI_Request_free): a communicator freed before ends with it. */
static void release(struct st_call *call, MPI_Request handle, struct st_req *r)
{
    if (r->holds_comm)
        comm_hooks.released(call, r->comm);
    unlink_req(handle, r);
    free(r->coll.sources);   /* a non-blocking alltoallv/w's, written at its completion */
    r->coll.sources = NULL;
    r->claimed = 0;
    r->next_free = free_list;
    free_list = r;
}

void st_requests_finalize(void)
{
    st_state_lock();
    for (size_t i = 0; i < live.cap; i++)
        if (live.keys[i] > 1)
            for (struct st_req *r = live.values[i], *next; r; r = next) {
                next = r->next_same;
                free(r->coll.sources);
                free(r);
            }
    st_handlemap_clear(&live);
    for (int i = 0; i < nfresh; i++) {
        free(fresh[i].r->coll.sources);
        free(fresh[i].r);
    }
    nfresh = 0;
    while (free_list) {
        struct st_req *next = free_list->next_free;
        free(free_list);
        free_list = next;
    }
    st_state_unlock();
}

static uint32_t hold(struct st_req *r, uint32_t ref)
{
    uint32_t n = 0;
    for (; r; r = r->next_same)
        if (r->comm == ref && (r->kind == ST_KIND_ISEND || r->kind == ST_KIND_IRECV || r->kind == ST_KIND_NBC)
            && !r->holds_comm) {
            r->holds_comm = 1;
            n++;
        }
    return n;
}

uint32_t st_req_hold_comm(uint32_t ref)
{
    uint32_t n = 0;
    st_state_lock();
    for (size_t i = 0; i < live.cap; i++)
        if (live.keys[i] > 1)
            n += hold(live.values[i], ref);
    for (int i = 0; i < nfresh; i++)
        n += hold(fresh[i].r, ref);
    st_state_unlock();
    return n;
}

void st_req_persistent_on(enum st_req_dir dir, int count, MPI_Datatype type, int peer, int tag, uint32_t c,
                          MPI_Request request)
{
    st_state_lock();
    struct st_req *r = req_new(request, dir == ST_REQ_SEND ? ST_KIND_ISEND : ST_KIND_IRECV, c, 1);
    if (r) {
        r->active = 0;
        r->peer = peer;
        r->tag = tag;
        r->bytes = st_type_bytes(count, type);
    }
    st_state_unlock();
}

void st_req_started(struct st_call *call, int ret, int count, const MPI_Request *requests)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    for (int i = 0; i < count; i++) {
        struct st_req *r = st_handlemap_get(&live, (uintptr_t)requests[i]);
        if (!r || !r->persistent)
            continue;
        r->id = next_id++;
        r->cancelled = 0;
        r->owner = call->loc;
        /* A persistent operation with MPI_PROC_NULL completes at once and moves no message. */
        r->active = r->peer != MPI_PROC_NULL;
        if (!r->active)
            continue;
        if (r->kind == ST_KIND_ISEND)
            st_write_isend(call->loc, call->enter, (uint32_t)r->peer, r->comm, (uint32_t)r->tag, r->bytes, r->id);
        else
            st_write_irecv_request(call->loc, call->enter, r->id);
    }
    st_state_unlock();
}

void st_req_save(struct st_reqsave *save, int count, const MPI_Request *requests)
{
    save->count = 0;
    save->handles = save->small;
    save->recs = NULL;
    if (count <= 0 || requests == NULL)
        return;
    if (count > (int)(sizeof save->small / sizeof save->small[0])) {
        save->handles = malloc(sizeof *save->handles * (size_t)count);
        if (!save->handles) {
            save->handles = save->small;
            return;
        }
    }
    if (count == 1)
        save->handles[0] = requests[0];   /* MPI_Wait, MPI_Test: no library call */
    else
        memcpy(save->handles, requests, sizeof *requests * (size_t)count);
    if (st_threads_concurrent) {
        save->recs = count <= (int)(sizeof save->small_recs / sizeof save->small_recs[0])
                         ? save->small_recs : malloc(sizeof *save->recs * (size_t)count);
        if (!save->recs) {
            if (save->handles != save->small)
                free(save->handles);
            save->handles = save->small;
            return;
        }
        st_state_lock();
        for (int i = 0; i < count; i++) {
            struct st_req *r = requests[i] == MPI_REQUEST_NULL ? NULL : pick(requests[i], st_loc_self);
            if (r)
                r->claimed = 1;
            save->recs[i] = r;
        }
        st_state_unlock();
    }
    save->count = count;
}

/* Records claimed for requests that did not complete go back (lock held). */
static void unclaim(struct st_reqsave *save)
{
    for (int i = 0; save->recs && i < save->count; i++)
        if (save->recs[i])
            save->recs[i]->claimed = 0;
}

static void save_release(struct st_reqsave *save)
{
    if (save->handles != save->small)
        free(save->handles);
    if (save->recs && save->recs != save->small_recs)
        free(save->recs);
    save->handles = save->small;
    save->recs = NULL;
    save->count = 0;
}

/* Open MPI's one shared request that is complete from the start
 * (ompi_request_empty): every operation that completes as it is posted
 * gets it (a non-blocking collective on one process, a rooted one on the
 * side of an intercommunicator that moves nothing, ...), so several
 * records can wait under it. NULL with another MPI library. */
static MPI_Request shared_completed_request(void)
{
    static int looked;
    static MPI_Request handle;
    if (!looked) {
        handle = (MPI_Request)dlsym(RTLD_DEFAULT, "ompi_request_empty");
        looked = 1;
    }
    return handle;
}

/* Record r's completion in `call` and release it (lock held). */
static void finish(struct st_call *call, MPI_Request handle, struct st_req *r, const MPI_Status *status)
{
    if (r->active) {
        int cancelled = 0;
        if (r->cancelled && status)
            PMPI_Test_cancelled(status, &cancelled);
        if (cancelled) {
            st_write_request_cancelled(call->loc, call->leave, r->id);
        } else {
            switch (r->kind) {
            case ST_KIND_ISEND:
                st_write_isend_complete(call->loc, call->leave, r->id);
                break;
            case ST_KIND_IRECV: {
                if (!status || status->MPI_SOURCE == MPI_PROC_NULL)
                    break;
                int bytes = 0;
                PMPI_Get_count(status, MPI_BYTE, &bytes);
                st_write_irecv(call->loc, call->leave, (uint32_t)status->MPI_SOURCE, r->comm,
                               (uint32_t)status->MPI_TAG, bytes > 0 ? (uint64_t)bytes : 0, r->id);
                break;
            }
            case ST_KIND_NBC:
                st_write_nbc_complete(call->loc, call->leave, r->coll.op, r->coll_comm, r->coll.root,
                                      r->coll.sent, r->coll.received, r->coll.nslots, r->coll.sources, r->id);
                break;
            case ST_KIND_IDUP:
                comm_hooks.created(call, MPI_SUCCESS, r->idup_parent, *r->idup_target);
                break;
            case ST_KIND_RMA:   /* local completion; the remote one is the synchronisation's */
                st_write_rma_op_complete_non_blocking(call->loc, call->leave, r->comm, r->rma_id);
                break;
            }
        }
    }
    r->claimed = 0;
    if (r->persistent)
        r->active = 0;
    else
        release(call, handle, r);
}

/* Request i of the saved array completed with `status` (lock held). */
static void complete(struct st_call *call, struct st_reqsave *save, int i, const MPI_Status *status)
{
    MPI_Request handle = save->handles[i];
    if (handle == MPI_REQUEST_NULL)
        return;
    struct st_req *r = save->recs ? save->recs[i] : pick(handle, call->loc);
    if (save->recs)
        save->recs[i] = NULL;
    if (!r)
        return;   /* not ours to record: RMA, I/O, generalized requests */
    finish(call, handle, r, status);
    /* The shared completed request: which of this location's operations
     * under it a wait meant cannot be told, and all of them are complete.
     * They complete together, so that one the program never waits for (it
     * need not) cannot leave every later wait on the handle completing
     * the record before its own. Receives are never among them. */
    MPI_Request shared = shared_completed_request();
    if (!shared || handle != shared)
        return;
    struct st_req *more;
    while ((more = pick(handle, call->loc)) != NULL && more->owner == call->loc && !more->persistent
           && more->kind != ST_KIND_IRECV)
        finish(call, handle, more, NULL);
}

/* Which requests completed when the call reported an error: with
 * MPI_ERR_IN_STATUS each status says; otherwise none can be trusted. */
static int status_ok(int ret, const MPI_Status *statuses, int i)
{
    if (ret == MPI_SUCCESS)
        return 1;
    if (ret != MPI_ERR_IN_STATUS || statuses == MPI_STATUSES_IGNORE)
        return 0;
    return statuses[i].MPI_ERROR == MPI_SUCCESS;
}

void st_req_done_one(struct st_call *call, struct st_reqsave *save, int ret, int completed, int index,
                     const MPI_Status *status)
{
    st_state_lock();
    if (ret == MPI_SUCCESS && completed && index != MPI_UNDEFINED && index >= 0 && index < save->count)
        complete(call, save, index, status);
    unclaim(save);
    st_state_unlock();
    save_release(save);
}

void st_req_done_all(struct st_call *call, struct st_reqsave *save, int ret, int completed,
                     const MPI_Status *statuses)
{
    st_state_lock();
    if (completed && statuses != MPI_STATUSES_IGNORE && (ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS)) {
        for (int i = 0; i < save->count; i++)
            if (status_ok(ret, statuses, i))
                complete(call, save, i, &statuses[i]);
    }
    unclaim(save);
    st_state_unlock();
    save_release(save);
}

void st_req_done_some(struct st_call *call, struct st_reqsave *save, int ret, int outcount,
                      const int *indices, const MPI_Status *statuses)
{
    if ((ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS) && outcount != MPI_UNDEFINED
        && statuses != MPI_STATUSES_IGNORE) {
        st_state_lock();
        for (int i = 0; i < outcount; i++) {
            int k = indices[i];
            if (k >= 0 && k < save->count && status_ok(ret, statuses, i))
                complete(call, save, k, &statuses[i]);
        }
        st_state_unlock();
    }
    st_state_lock();
    unclaim(save);
    st_state_unlock();
    save_release(save);
}

void st_req_cancel(int ret, MPI_Request request)
{
    st_state_lock();
    struct st_req *r = ret == MPI_SUCCESS ? pick(request, st_loc_self) : NULL;
    if (r)
        r->cancelled = 1;
    st_state_unlock();
}

void st_req_freed(struct st_call *call, int ret, MPI_Request request)
{
    st_state_lock();
    struct st_req *r = ret == MPI_SUCCESS ? pick(request, st_loc_self) : NULL;
    /* An active request freed early still completes inside MPI, but no
     * call will say when. A receive records what it was posted for, so
     * that the merge can pair it with its send (its completion time left
     * open). */
    if (r) {
        if (r->active && r->kind == ST_KIND_IRECV && !r->cancelled && call->loc)
            st_write_irecv_freed(call->loc, call->leave, r->comm, r->peer, r->tag, r->id);
        release(call, request, r);
    }
    st_state_unlock();
}
