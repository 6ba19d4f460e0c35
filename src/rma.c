/* rma.c — one-sided communication as Score-P records it (docs/scorep-mapping.md):
 * windows (RmaWin definitions on their communicator, named by
 * MPI_Win_set_name), their creation and destruction as RMA collectives,
 * MPI_Win_fence as an RMA collective (BARRIER, process and memory
 * synchronisation), MPI_Put/Get (RmaPut/RmaGet) and the accumulating calls
 * (RmaAtomic) with a matching id, their completion (RmaOpCompleteRemote) at
 * the synchronisation that completes them (fence, unlock, flush, complete,
 * free), and passive-target locks (RmaRequestLock/RmaReleaseLock).
 * Not recorded: post/start/wait group synchronisation (Enter/Leave only),
 * lock_all/unlock_all as lock events (their completion is recorded). */
#include "hooks.h"
#include "communicators.h"
#include "handlemap.h"
#include "writer.h"

#include <stdlib.h>

struct st_pending {
    uint64_t id;
    int target;
};

struct st_winrec {
    uint32_t ref;
    struct st_pending *pending;   /* operations issued and not yet completed */
    size_t npending, cap;
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

void st_rma_created(struct st_call *call, int ret, MPI_Comm comm, MPI_Win win)
{
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
        st_write_rma_collective_begin(call->loc, call->enter);
        st_write_rma_win_create(call->loc, call->leave, w->ref);
        st_write_rma_collective_end(call->loc, call->leave, OTF2_COLLECTIVE_OP_CREATE_HANDLE,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, w->ref);
    }
    st_state_unlock();
}

void st_rma_freed(struct st_call *call, int ret, MPI_Win win)
{
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = st_handlemap_remove(&windows, (uintptr_t)win);
    if (w) {
        st_write_rma_collective_begin(call->loc, call->enter);
        complete(call, w, -1, call->leave);
        st_write_rma_win_destroy(call->loc, call->leave, w->ref);
        st_write_rma_collective_end(call->loc, call->leave, OTF2_COLLECTIVE_OP_DESTROY_HANDLE,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, w->ref);
        free(w->pending);
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
    if (ret != MPI_SUCCESS)
        return;
    st_state_lock();
    struct st_winrec *w = lookup(win);
    if (w) {
        st_write_rma_collective_begin(call->loc, call->enter);
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

/* kind: 0 put, 1 get, 2 atomic (accumulate, get_accumulate, fetch_and_op, compare_and_swap) */
void st_rma_op(struct st_call *call, int ret, MPI_Win win, int kind, int target, uint64_t sent, uint64_t received,
               OTF2_RmaAtomicType atomic)
{
    if (ret != MPI_SUCCESS || target == MPI_PROC_NULL || target < 0)
        return;
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
        uint64_t id = next_matching_id++;
        w->pending[w->npending++] = (struct st_pending){ id, target };
        if (kind == 0)
            st_write_rma_put(call->loc, call->enter, w->ref, (uint32_t)target, sent, id);
        else if (kind == 1)
            st_write_rma_get(call->loc, call->enter, w->ref, (uint32_t)target, received, id);
        else
            st_write_rma_atomic(call->loc, call->enter, w->ref, (uint32_t)target, atomic, sent, received, id);
    }
    st_state_unlock();
}

uint64_t st_rma_bytes(int count, MPI_Datatype type)
{
    return type_bytes(count, type);
}
