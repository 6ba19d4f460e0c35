/* p2p.c — point-to-point events. Sends are stamped at the call's entry and
 * receives at its exit: the widest interval in which the message can have
 * left or arrived, so that a synchronised trace never shows a tachyon the
 * program did not have. Receives record the source and tag MPI resolved. */
#include "communicators.h"
#include "handlemap.h"
#include "hooks.h"
#include "requests.h"
#include "writer.h"

/* A blocking send's record is written after the call, stamped with its
 * entry: a call MPI refused moved no message and must not show one. But a
 * send that waits makes progress, which may run the user-defined reduction
 * of a pending nonblocking collective, whose MPI calls are recorded inside
 * the send: its record must then come first (tracer.h, st_call_deferred),
 * or it goes back in time and the merge takes a later send time than the
 * true one. It is written there if its arguments are ones MPI cannot refuse
 * and the tracer knows without an MPI call (a communicator it met, a
 * predefined datatype, a rank of the communicator, a tag >= 0, a count >=
 * 0): an MPI call on a handle MPI would refuse would run an error handler
 * the program did not call. Otherwise, after the call as before. */
static void write_send_early(struct st_call *call)
{
    const struct st_send_args *a = &call->send;
    uint32_t ref;
    int peers;
    uint64_t bytes;
    if (!call->loc || a->tag < 0 || st_comm_known(a->comm, &ref, &peers) != 0 || a->dest < 0
        || a->dest >= peers || st_type_bytes_cached(a->count, a->type, &bytes) != 0)
        return;
    call->opened = 1;
    st_write_send(call->loc, call->enter, (uint32_t)a->dest, ref, (uint32_t)a->tag, bytes);
}

void st_p2p_send_defer(struct st_call *call, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    call->opened = 0;
    if (dest == MPI_PROC_NULL)
        return;
    call->send = (struct st_send_args){ comm, type, count, dest, tag };
    st_call_defer(call, write_send_early);
}

void st_p2p_send(struct st_call *call, int ret, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    if (st_call_undefer(call) || ret != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return;
    st_write_send(call->loc, call->enter, (uint32_t)dest, st_comm_ref(comm), (uint32_t)tag,
                  st_type_bytes(count, type));
}

void st_p2p_isend(struct st_call *call, int ret, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request request)
{
    if (ret != MPI_SUCCESS || dest == MPI_PROC_NULL)
        return;
    uint32_t c = st_comm_ref(comm);
    struct st_req *r = st_req_new(request, ST_KIND_ISEND, c);
    if (r)
        st_write_isend(call->loc, call->enter, (uint32_t)dest, c, (uint32_t)tag, st_type_bytes(count, type), r->id);
}

void st_p2p_recv(struct st_call *call, int ret, MPI_Comm comm, const MPI_Status *status)
{
    if ((ret != MPI_SUCCESS && ret != MPI_ERR_IN_STATUS) || comm == MPI_COMM_NULL
        || status->MPI_SOURCE == MPI_PROC_NULL || status->MPI_SOURCE < 0)
        return;
    int bytes = 0;
    PMPI_Get_count(status, MPI_BYTE, &bytes);
    st_write_recv(call->loc, call->leave, (uint32_t)status->MPI_SOURCE, st_comm_ref(comm),
                  (uint32_t)status->MPI_TAG, bytes > 0 ? (uint64_t)bytes : 0);
}

void st_p2p_irecv(struct st_call *call, int ret, int source, int tag, MPI_Comm comm, MPI_Request request)
{
    if (ret != MPI_SUCCESS || source == MPI_PROC_NULL || comm == MPI_COMM_NULL || request == MPI_REQUEST_NULL)
        return;
    uint32_t c = st_comm_ref(comm);
    struct st_req *r = st_req_new(request, ST_KIND_IRECV, c);
    if (r) {
        /* what it was posted for: recorded if MPI_Request_free releases it */
        r->peer = source;
        r->tag = tag;
        st_write_irecv_request(call->loc, call->enter, r->id);
    }
}

/* Matched probes: MPI_Mrecv names no communicator, so remember it. */
static struct st_handlemap messages;    /* MPI_Message -> MPI_Comm */

void st_msg_probed(int ret, int found, MPI_Comm comm, MPI_Message message)
{
    if (ret == MPI_SUCCESS && found && message != MPI_MESSAGE_NULL && message != MPI_MESSAGE_NO_PROC) {
        st_state_lock();
        st_handlemap_put(&messages, (uintptr_t)message, (void *)comm);
        st_state_unlock();
    }
}

MPI_Comm st_msg_take(MPI_Message message)
{
    if (message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC)
        return MPI_COMM_NULL;
    st_state_lock();
    MPI_Comm comm = (MPI_Comm)st_handlemap_remove(&messages, (uintptr_t)message);
    st_state_unlock();
    return comm;
}

void st_req_persistent(int ret, enum st_req_dir dir, int count, MPI_Datatype type, int peer, int tag,
                       MPI_Comm comm, MPI_Request request)
{
    if (ret != MPI_SUCCESS || st_g.phase != ST_RECORDING)
        return;
    st_req_persistent_on(dir, count, type, peer, tag, st_comm_ref(comm), request);
}
