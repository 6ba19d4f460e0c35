/* requests.c — request tracking: handles are remembered when posted and
 * looked up when completed. Wait/Test calls overwrite completed handles with
 * MPI_REQUEST_NULL, so the wrappers save the array first (st_req_save). */
#include "requests.h"
#include "communicators.h"
#include "handlemap.h"
#include "tracer.h"
#include "writer.h"

#include <stdlib.h>
#include <string.h>

static struct st_handlemap live;          /* MPI_Request -> struct st_req */
static struct st_req *free_list;
static uint64_t next_id = 1;

struct st_req *st_req_new(MPI_Request handle, enum st_req_kind kind, uint32_t comm)
{
    struct st_req *r = free_list;
    if (r)
        free_list = r->next_free;
    else if (!(r = malloc(sizeof *r)))
        return NULL;
    /* Only what every kind reads; the rest is set by the kind that uses it. */
    r->id = next_id++;
    r->kind = (uint8_t)kind;
    r->persistent = 0;
    r->active = 1;
    r->cancelled = 0;
    r->comm = comm;
    if (st_handlemap_put(&live, (uintptr_t)handle, r) != 0) {
        r->next_free = free_list;
        free_list = r;
        return NULL;
    }
    return r;
}

static void release(MPI_Request handle, struct st_req *r)
{
    st_handlemap_remove(&live, (uintptr_t)handle);
    r->next_free = free_list;
    free_list = r;
}

void st_requests_finalize(void)
{
    for (size_t i = 0; i < live.cap; i++)
        if (live.keys[i] > 1)
            free(live.values[i]);
    st_handlemap_clear(&live);
    while (free_list) {
        struct st_req *next = free_list->next_free;
        free(free_list);
        free_list = next;
    }
}

void st_req_persistent(int ret, enum st_req_dir dir, int count, MPI_Datatype type, int peer, int tag,
                       MPI_Comm comm, MPI_Request request)
{
    if (ret != MPI_SUCCESS || st_g.phase != ST_RECORDING)
        return;
    struct st_req *r = st_req_new(request, dir == ST_REQ_SEND ? ST_KIND_ISEND : ST_KIND_IRECV, st_comm_ref(comm));
    if (!r)
        return;
    r->persistent = 1;
    r->active = 0;
    r->peer = peer;
    r->tag = tag;
    r->bytes = st_type_bytes(count, type);
}

void st_req_started(struct st_call *call, int ret, int count, const MPI_Request *requests)
{
    if (ret != MPI_SUCCESS)
        return;
    for (int i = 0; i < count; i++) {
        struct st_req *r = st_handlemap_get(&live, (uintptr_t)requests[i]);
        if (!r || !r->persistent)
            continue;
        r->id = next_id++;
        r->cancelled = 0;
        /* A persistent operation with MPI_PROC_NULL completes at once and moves no message. */
        r->active = r->peer != MPI_PROC_NULL;
        if (!r->active)
            continue;
        if (r->kind == ST_KIND_ISEND)
            st_write_isend(call->loc, call->enter, (uint32_t)r->peer, r->comm, (uint32_t)r->tag, r->bytes, r->id);
        else
            st_write_irecv_request(call->loc, call->enter, r->id);
    }
}

void st_req_save(struct st_reqsave *save, int count, const MPI_Request *requests)
{
    save->count = 0;
    save->handles = save->small;
    if (count <= 0 || requests == NULL)
        return;
    if (count > (int)(sizeof save->small / sizeof save->small[0])) {
        save->handles = malloc(sizeof *save->handles * (size_t)count);
        if (!save->handles) {
            save->handles = save->small;
            return;
        }
    }
    memcpy(save->handles, requests, sizeof *requests * (size_t)count);
    save->count = count;
}

static void save_release(struct st_reqsave *save)
{
    if (save->handles != save->small)
        free(save->handles);
    save->handles = save->small;
    save->count = 0;
}

/* One request of the saved array completed with `status`. */
static void complete(struct st_call *call, MPI_Request handle, const MPI_Status *status)
{
    if (handle == MPI_REQUEST_NULL)
        return;
    struct st_req *r = st_handlemap_get(&live, (uintptr_t)handle);
    if (!r)
        return;   /* not ours to record: RMA, I/O, generalized requests */
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
                                      r->coll.sent, r->coll.received, r->id);
                break;
            case ST_KIND_IDUP:
                st_comm_created(MPI_SUCCESS, r->idup_parent, *r->idup_target);
                break;
            }
        }
    }
    if (r->persistent)
        r->active = 0;
    else
        release(handle, r);
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
    if (ret == MPI_SUCCESS && completed && index != MPI_UNDEFINED && index >= 0 && index < save->count)
        complete(call, save->handles[index], status);
    save_release(save);
}

void st_req_done_all(struct st_call *call, struct st_reqsave *save, int ret, int completed,
                     const MPI_Status *statuses)
{
    if (completed && statuses != MPI_STATUSES_IGNORE && (ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS)) {
        for (int i = 0; i < save->count; i++)
            if (status_ok(ret, statuses, i))
                complete(call, save->handles[i], &statuses[i]);
    }
    save_release(save);
}

void st_req_done_some(struct st_call *call, struct st_reqsave *save, int ret, int outcount,
                      const int *indices, const MPI_Status *statuses)
{
    if ((ret == MPI_SUCCESS || ret == MPI_ERR_IN_STATUS) && outcount != MPI_UNDEFINED
        && statuses != MPI_STATUSES_IGNORE) {
        for (int i = 0; i < outcount; i++) {
            int k = indices[i];
            if (k >= 0 && k < save->count && status_ok(ret, statuses, i))
                complete(call, save->handles[k], &statuses[i]);
        }
    }
    save_release(save);
}

void st_req_cancel(int ret, MPI_Request request)
{
    struct st_req *r = ret == MPI_SUCCESS ? st_handlemap_get(&live, (uintptr_t)request) : NULL;
    if (r)
        r->cancelled = 1;
}

void st_req_freed(int ret, MPI_Request request)
{
    struct st_req *r = ret == MPI_SUCCESS ? st_handlemap_get(&live, (uintptr_t)request) : NULL;
    /* An active request freed early still completes inside MPI; its post
     * event is recorded, its completion cannot be. */
    if (r)
        release(request, r);
}
