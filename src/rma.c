/* rma.c — one-sided communication as Score-P records it (docs/scorep-mapping.md):
 * windows (RmaWin definitions on their communicator, named by
 * MPI_Win_set_name), their creation and destruction as RMA collectives,
 * MPI_Win_fence as an RMA collective (BARRIER, process and memory
 * synchronisation), MPI_Put/Get (RmaPut/RmaGet) and the accumulating calls
 * (RmaAtomic) with a matching id, their completion (RmaOpCompleteRemote) at
 * the synchronisation that completes them (fence, unlock, flush, complete,
 * free), and passive-target locks (RmaRequestLock/RmaReleaseLock).
 * Post/start/complete/wait: MPI_Win_complete records an RmaSync NOTIFY_OUT
 * to each target of the access epoch (at its entry: every operation was
 * issued before), MPI_Win_wait an RmaSync NOTIFY_IN from each origin of the
 * exposure epoch (at its exit: MPI returns from wait only after every
 * matching complete was called) -- the ordering the merge may use.
 * MPI_Win_lock_all/unlock_all are one RmaRequestLock/RmaReleaseLock each
 * whose remote is OTF2_UNDEFINED_UINT32, OTF2's "every process of the
 * window" (a shared lock on each of them, as MPI defines lock_all).
 * Operations to MPI_PROC_NULL are no-ops in MPI and record nothing;
 * zero-byte operations are operations and are recorded.
 * Request-based operations (MPI_Rput, ...) complete remotely at the same
 * synchronisations as the others: the completion of their request is local
 * completion only (MPI-3.1 11.3.5: the origin buffer may be reused, an
 * Rget's data has arrived), recorded as RmaOpCompleteNonBlocking there. */
#include "hooks.h"
#include "communicators.h"
#include "fortran.h"
#include "handlemap.h"
#include "requests.h"
#include "writer.h"

#include <stdlib.h>
#include <string.h>

struct st_pending {
    uint64_t id;
    int target;
};

struct st_winrec {
    uint32_t ref;
    struct st_pending *pending;   /* operations issued and not yet completed */
    size_t npending, cap;
    int *targets, ntargets;       /* the open access epoch's targets (MPI_Win_start), window ranks */
    int *origins, norigins;       /* the open exposure epoch's origins (MPI_Win_post) */
};

static struct st_handlemap windows;   /* MPI_Win -> struct st_winrec */
static uint64_t next_matching_id = 1;

static struct st_winrec *lookup(MPI_Win win)
{
    return st_handlemap_get(&windows, (uintptr_t)win);
}

static uint64_t type_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/* Operations to `target` (or every target, when target < 0) complete at t. */
static void complete(struct st_call *call, struct st_winrec *w, int target, struct st_time t)
{
    size_t k = 0;
    for (size_t i = 0; i < w->npending; i++) {
        if (target < 0 || w->pending[i].target == target)
            st_write_rma_op_complete_remote(call->loc, t, w->ref, w->pending[i].id);
        else
            w->pending[k++] = w->pending[i];
    }
    w->npending = k;
}

/* The RmaCollectiveBegin of a window's creation, free or fence, written
 * after the call at its Enter unless a record made inside it writes it
 * first (tracer.h, st_call_deferred): a delete-attribute callback's MPI
 * calls, a pending nonblocking collective's reduction run by the call's
 * progress. */
static void write_begin(struct st_call *call)
{
    call->opened = 1;
    if (call->loc)
        st_write_rma_collective_begin(call->loc, call->enter);
}

void st_rma_defer_begin(struct st_call *call)
{
    st_call_defer(call, write_begin);
}

static void begin_once(struct st_call *call)
{
    if (!call->opened)
        st_write_rma_collective_begin(call->loc, call->enter);
}

void st_rma_created(struct st_call *call, int ret, MPI_Comm comm, MPI_Win win)
{
    st_call_undefer(call);
    if (ret != MPI_SUCCESS || win == MPI_WIN_NULL)
        return;
    st_state_lock();
    struct st_winrec *w = calloc(1, sizeof *w);
    if (w) {
        w->ref = st_writer_define_window(st_comm_ref(comm));
        if (st_handlemap_put(&windows, (uintptr_t)win, w) != 0) {
            free(w);
            w = NULL;
        }
    }
    if (w) {
        begin_once(call);
        st_write_rma_win_create(call->loc, call->leave, w->ref);
        st_write_rma_collective_end(call->loc, call->leave, OTF2_COLLECTIVE_OP_CREATE_HANDLE,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, w->ref);
    }
    st_state_unlock();
}

void st_rma_freed(struct st_call *call, int ret, MPI_Win win)
{
    st_call_undefer(call);
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = st_handlemap_remove(&windows, (uintptr_t)win);
    if (w) {
        begin_once(call);
        complete(call, w, -1, call->leave);
        st_write_rma_win_destroy(call->loc, call->leave, w->ref);
        st_write_rma_collective_end(call->loc, call->leave, OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, w->ref);
        free(w->pending);
        free(w->targets);
        free(w->origins);
        free(w);
    }
    st_state_unlock();
}

void st_rma_named(int ret, MPI_Win win, const char *name)
{
    if (ret != MPI_SUCCESS || !name)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w)
        st_writer_window_name(w->ref, name);
    st_state_unlock();
}

void st_rma_fence(struct st_call *call, int ret, MPI_Win win)
{
    st_call_undefer(call);
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w) {
        begin_once(call);
        complete(call, w, -1, call->leave);
        st_write_rma_collective_end(call->loc, call->leave, OTF2_COLLECTIVE_OP_BARRIER,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY, w->ref);
    }
    st_state_unlock();
}

/* unlock, flush, complete (target < 0: every target) */
void st_rma_completed(struct st_call *call, int ret, MPI_Win win, int target)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w)
        complete(call, w, target, call->leave);
    st_state_unlock();
}

void st_rma_lock(struct st_call *call, int ret, MPI_Win win, int lock_type, int target)
{
    if (ret != MPI_SUCCESS || target < 0)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w)
        st_write_rma_request_lock(call->loc, call->enter, w->ref, (uint32_t)target,
                                  lock_type == MPI_LOCK_EXCLUSIVE ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED);
    st_state_unlock();
}

void st_rma_unlock(struct st_call *call, int ret, MPI_Win win, int target)
{
    if (ret != MPI_SUCCESS || target < 0)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w) {
        complete(call, w, target, call->leave);
        st_write_rma_release_lock(call->loc, call->leave, w->ref, (uint32_t)target);
    }
    st_state_unlock();
}

/* MPI_Win_lock_all: a shared lock on every rank of the window. */
void st_rma_lock_all(struct st_call *call, int ret, MPI_Win win)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w)
        st_write_rma_request_lock(call->loc, call->enter, w->ref, OTF2_UNDEFINED_UINT32, OTF2_LOCK_SHARED);
    st_state_unlock();
}

/* MPI_Win_unlock_all: every operation of the epoch completes at its target. */
void st_rma_unlock_all(struct st_call *call, int ret, MPI_Win win)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w) {
        complete(call, w, -1, call->leave);
        st_write_rma_release_lock(call->loc, call->leave, w->ref, OTF2_UNDEFINED_UINT32);
    }
    st_state_unlock();
}

/* MPI_Win_set_name from Fortran: a blank-padded string of `len` characters. */
void st_rma_named_f(int ret, MPI_Win win, const char *name, size_t len)
{
    if (ret != MPI_SUCCESS || !name)
        return;
    char *c = st_f_string(name, len);
    if (!c)
        return;
    st_rma_named(ret, win, c);
    free(c);
}

/* Record an operation; its matching id (0: nothing recorded). */
static uint64_t record_op(struct st_call *call, int ret, MPI_Win win, int kind, int target, uint64_t sent,
                          uint64_t received, OTF2_RmaAtomicType atomic, uint32_t *win_ref)
{
    if (ret != MPI_SUCCESS || target == MPI_PROC_NULL || target < 0)
        return 0;
    uint64_t id = 0;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w && w->npending == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        struct st_pending *nv = realloc(w->pending, sizeof *nv * cap);
        if (nv) {
            w->pending = nv;
            w->cap = cap;
        }
    }
    if (w && w->npending < w->cap) {
        id = next_matching_id++;
        *win_ref = w->ref;
        w->pending[w->npending++] = (struct st_pending){ id, target };
        if (kind == 0)
            st_write_rma_put(call->loc, call->enter, w->ref, (uint32_t)target, sent, id);
        else if (kind == 1)
            st_write_rma_get(call->loc, call->enter, w->ref, (uint32_t)target, received, id);
        else
            st_write_rma_atomic(call->loc, call->enter, w->ref, (uint32_t)target, atomic, sent, received, id);
    }
    st_state_unlock();
    return id;
}

/* kind: 0 put, 1 get, 2 atomic (accumulate, get_accumulate, fetch_and_op, compare_and_swap) */
void st_rma_op(struct st_call *call, int ret, MPI_Win win, int kind, int target, uint64_t sent, uint64_t received,
               OTF2_RmaAtomicType atomic)
{
    uint32_t ref;
    record_op(call, ret, win, kind, target, sent, received, atomic, &ref);
}

/* MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate: the operation,
 * and its request, whose completion (in any wait or test) is the local
 * completion, RmaOpCompleteNonBlocking (requests.c). */
void st_rma_rop(struct st_call *call, int ret, MPI_Win win, int kind, int target, uint64_t sent, uint64_t received,
                OTF2_RmaAtomicType atomic, MPI_Request request)
{
    uint32_t ref = 0;
    uint64_t id = record_op(call, ret, win, kind, target, sent, received, atomic, &ref);
    if (!id || request == MPI_REQUEST_NULL)
        return;
    struct st_req *r = st_req_new(request, ST_KIND_RMA, ref);
    if (r)
        r->rma_id = id;
}

/* A group's members as ranks of the window's group (MPI_UNDEFINED left out). */
static int *window_ranks(MPI_Win win, MPI_Group group, int *n)
{
    *n = 0;
    MPI_Group wg = MPI_GROUP_NULL;
    int size = 0;
    if (group == MPI_GROUP_NULL || PMPI_Group_size(group, &size) != MPI_SUCCESS || size <= 0
        || PMPI_Win_get_group(win, &wg) != MPI_SUCCESS)
        return NULL;
    int *in = malloc(sizeof *in * (size_t)size), *out = malloc(sizeof *out * (size_t)size);
    if (in && out) {
        for (int i = 0; i < size; i++)
            in[i] = i;
        if (PMPI_Group_translate_ranks(group, size, in, wg, out) == MPI_SUCCESS)
            for (int i = 0; i < size; i++)
                if (out[i] != MPI_UNDEFINED)
                    out[(*n)++] = out[i];
    }
    free(in);
    PMPI_Group_free(&wg);
    if (!*n) {
        free(out);
        return NULL;
    }
    return out;
}

/* MPI_Win_post (origins) and MPI_Win_start (targets): remember the group */
void st_rma_epoch(int ret, MPI_Win win, MPI_Group group, int exposure)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w) {
        int n = 0;
        int *ranks = window_ranks(win, group, &n);
        if (exposure) {
            free(w->origins);
            w->origins = ranks;
            w->norigins = n;
        } else {
            free(w->targets);
            w->targets = ranks;
            w->ntargets = n;
        }
    }
    st_state_unlock();
}

/* MPI_Win_complete: every operation of the access epoch was issued before
 * its entry; MPI_Win_wait: every origin's complete was called before its exit. */
void st_rma_epoch_end(struct st_call *call, int ret, MPI_Win win, int exposure)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w && exposure) {
        for (int i = 0; i < w->norigins; i++)
            st_write_rma_sync(call->loc, call->leave, w->ref, (uint32_t)w->origins[i], OTF2_RMA_SYNC_TYPE_NOTIFY_IN);
        free(w->origins);
        w->origins = NULL;
        w->norigins = 0;
    } else if (w) {
        for (int i = 0; i < w->ntargets; i++)
            st_write_rma_sync(call->loc, call->enter, w->ref, (uint32_t)w->targets[i], OTF2_RMA_SYNC_TYPE_NOTIFY_OUT);
        complete(call, w, -1, call->leave);
        free(w->targets);
        w->targets = NULL;
        w->ntargets = 0;
    }
    st_state_unlock();
}

uint64_t st_rma_bytes(int count, MPI_Datatype type)
{
    return type_bytes(count, type);
}
