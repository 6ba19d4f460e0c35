/* hooks.h — the hand-written event semantics that the generated wrappers
 * call (see wrappers/mpi.spec). Each group lives in the module named. */
#ifndef SYNCTRACE_HOOKS_H
#define SYNCTRACE_HOOKS_H

#include <mpi.h>
#include <otf2/otf2.h>
#include "tracer.h"
#include "polling.h"

/* lifecycle.c */
void st_lifecycle_finalize(struct st_call *call);
void st_lifecycle_abort(struct st_call *call, MPI_Comm comm, int errorcode);

/* p2p.c */
/* st_p2p_send_defer before the PMPI call, st_p2p_send after it (p2p.c). */
void st_p2p_send_defer(struct st_call *call, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void st_p2p_send(struct st_call *call, int ret, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void st_p2p_isend(struct st_call *call, int ret, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request request);
void st_p2p_recv(struct st_call *call, int ret, MPI_Comm comm, const MPI_Status *status);
void st_p2p_irecv(struct st_call *call, int ret, int source, int tag, MPI_Comm comm, MPI_Request request);
void st_msg_probed(int ret, int found, MPI_Comm comm, MPI_Message message);
MPI_Comm st_msg_take(MPI_Message message);

/* requests.c */
enum st_req_dir { ST_REQ_SEND, ST_REQ_RECV };
struct st_req;
struct st_reqsave {
    int count;
    MPI_Request *handles;      /* points at small[] or at heap memory */
    MPI_Request small[8];
    /* Under MPI_THREAD_MULTIPLE, the records too, claimed before the call:
     * once MPI frees a request, another thread may get the same handle
     * for a new one before this call's hook runs. NULL otherwise; an entry
     * is set to NULL when its request completed. */
    struct st_req **recs;
    struct st_req *small_recs[8];
};
void st_req_persistent(int ret, enum st_req_dir dir, int count, MPI_Datatype type, int peer, int tag,
                       MPI_Comm comm, MPI_Request request);
void st_req_started(struct st_call *call, int ret, int count, const MPI_Request *requests);
void st_req_save(struct st_reqsave *save, int count, const MPI_Request *requests);
void st_req_done_one(struct st_call *call, struct st_reqsave *save, int ret, int completed, int index,
                     const MPI_Status *status);
void st_req_done_all(struct st_call *call, struct st_reqsave *save, int ret, int completed,
                     const MPI_Status *statuses);
void st_req_done_some(struct st_call *call, struct st_reqsave *save, int ret, int outcount,
                      const int *indices, const MPI_Status *statuses);
void st_req_cancel(int ret, MPI_Request request);
void st_req_freed(struct st_call *call, int ret, MPI_Request request);

/* collectives.c: what one rank contributes to one collective instance */
struct st_coll {
    OTF2_CollectiveOp op;
    MPI_Comm comm;
    uint32_t root;            /* rank in comm (the remote group's on an intercommunicator),
                               * OTF2_COLLECTIVE_ROOT_SELF (MPI_ROOT), _THIS_GROUP (MPI_PROC_NULL),
                               * or OTF2_UNDEFINED_UINT32 */
    uint64_t sent, received;  /* bytes */
    /* Alltoallv/w (also neighbourhood) receiving from some peers but not
     * all: bit i of sources (malloc'd, owned) is set when the block from
     * slot i is not empty; nslots = the number of slots. NULL when every
     * slot or none is (the common case). nslots = ST_COLL_SOURCES_UNKNOWN
     * (writer.h): sparse, but the slots could not be kept. */
    uint32_t nslots;
    uint64_t *sources;
};
/* A blocking collective: st_coll_defer_begin before the PMPI call defers
 * its MpiCollectiveBegin (tracer.h, st_call_deferred); after it, st_coll_end
 * writes Begin (unless a record made inside the call wrote it already) and
 * End when the call succeeded; st_call_undefer ends the deferral when it
 * failed: a collective MPI refused did not happen (a Begin that a record
 * inside it wrote stays alone, and the merge's match places no Begin
 * without its End). */
void st_coll_defer_begin(struct st_call *call);
void st_coll_end(struct st_call *call, int ret, struct st_coll info);
/* In- and out-degree of a neighbourhood collective on comm, else the
 * (remote) group size; `live` has bit i clear for an MPI_PROC_NULL slot of
 * a Cartesian topology (bits 0..63). */
void st_coll_peers(MPI_Comm comm, int neighbor, int *in, int *out, uint64_t *live);
void st_coll_post(struct st_call *call, int ret, struct st_coll info, MPI_Request request);
struct st_coll st_coll_barrier(MPI_Comm comm);
struct st_coll st_coll_bcast(const void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
struct st_coll st_coll_gather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                              MPI_Datatype rtype, int root, MPI_Comm comm);
struct st_coll st_coll_gatherv(const void *sendbuf, int scount, MPI_Datatype stype, const int *rcounts,
                               MPI_Datatype rtype, int root, MPI_Comm comm);
struct st_coll st_coll_scatter(int scount, MPI_Datatype stype, const void *recvbuf, int rcount,
                               MPI_Datatype rtype, int root, MPI_Comm comm);
struct st_coll st_coll_scatterv(const int *scounts, MPI_Datatype stype, const void *recvbuf, int rcount,
                                MPI_Datatype rtype, int root, MPI_Comm comm);
struct st_coll st_coll_allgather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                                 MPI_Datatype rtype, MPI_Comm comm, int neighbor);
struct st_coll st_coll_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, const int *rcounts,
                                  MPI_Datatype rtype, MPI_Comm comm, int neighbor);
struct st_coll st_coll_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                                MPI_Datatype rtype, MPI_Comm comm, int neighbor);
struct st_coll st_coll_alltoallv(const void *sendbuf, const int *scounts, MPI_Datatype stype,
                                 const int *rcounts, MPI_Datatype rtype, MPI_Comm comm, int neighbor);
struct st_coll st_coll_alltoallw(const void *sendbuf, const int *scounts, const MPI_Datatype *stypes,
                                 const int *rcounts, const MPI_Datatype *rtypes, MPI_Comm comm, int neighbor);
struct st_coll st_coll_allreduce(int count, MPI_Datatype type, MPI_Comm comm);
struct st_coll st_coll_reduce(int count, MPI_Datatype type, int root, MPI_Comm comm);
struct st_coll st_coll_reduce_scatter(const int *rcounts, MPI_Datatype type, MPI_Comm comm);
struct st_coll st_coll_reduce_scatter_block(int rcount, MPI_Datatype type, MPI_Comm comm);
struct st_coll st_coll_scan(int count, MPI_Datatype type, MPI_Comm comm, OTF2_CollectiveOp op);

/* communicators.c */
/* How a communicator was made, for its key (communicators.c): by a
 * collective over its parent, by MPI_Comm_create_group (collective over
 * the new group only) or by MPI_Intercomm_create (over two groups). */
/* ST_COMM_CONNECT: MPI_Comm_accept/connect, join, spawn: the two sides have
 * no common parent, so the key is counted over the union of both groups. */
enum st_comm_how { ST_COMM_FROM_PARENT, ST_COMM_CREATE_GROUP, ST_COMM_INTERCOMM_CREATE, ST_COMM_CONNECT };
/* A communicator made by the recorded call `call` (its CommCreate). */
void st_comm_created(struct st_call *call, int ret, MPI_Comm parent, MPI_Comm newcomm);
void st_comm_created_by(struct st_call *call, int ret, MPI_Comm parent, MPI_Comm newcomm, enum st_comm_how how,
                        int tag);
void st_comm_named(int ret, MPI_Comm comm, const char *name);
/* The same from Fortran: a blank-padded name of `len` characters. */
void st_comm_named_f(int ret, MPI_Comm comm, const char *name, size_t len);
void st_comm_idup(int ret, MPI_Comm parent, MPI_Comm *newcomm, MPI_Request request);
void st_comm_freed(struct st_call *call, int ret, MPI_Comm comm);
/* MPI_Comm_spawn(_multiple): the intercommunicator's key, taken before the
 * call; the intercommunicator made with it. */
uint64_t st_comm_spawn_key(MPI_Comm comm);
void st_comm_spawned(struct st_call *call, int ret, MPI_Comm comm, MPI_Comm intercomm, uint64_t key);

/* spawn.c: at the spawn's root, the info (infos) handed to MPI: the
 * caller's plus the environment that tells the children their parent;
 * then freed again. */
MPI_Info st_spawn_info(MPI_Comm comm, int root, MPI_Info info, uint64_t key);
void st_spawn_info_free(MPI_Info used, MPI_Info caller);
const MPI_Info *st_spawn_infos(MPI_Comm comm, int root, int count, const MPI_Info *infos, uint64_t key);
void st_spawn_infos_free(int count, const MPI_Info *used, const MPI_Info *caller);

/* rma.c: one-sided communication (windows, operations, synchronisation) */
/* Before a window's creation, free or fence: its RmaCollectiveBegin waits
 * (rma.c); st_rma_created, st_rma_freed and st_rma_fence end the wait. */
void st_rma_defer_begin(struct st_call *call);
void st_rma_created(struct st_call *call, int ret, MPI_Comm comm, MPI_Win win);
void st_rma_freed(struct st_call *call, int ret, MPI_Win win);
void st_rma_named(int ret, MPI_Win win, const char *name);
void st_rma_fence(struct st_call *call, int ret, MPI_Win win);
void st_rma_completed(struct st_call *call, int ret, MPI_Win win, int target);
void st_rma_lock(struct st_call *call, int ret, MPI_Win win, int lock_type, int target);
void st_rma_unlock(struct st_call *call, int ret, MPI_Win win, int target);
void st_rma_lock_all(struct st_call *call, int ret, MPI_Win win);
void st_rma_unlock_all(struct st_call *call, int ret, MPI_Win win);
void st_rma_named_f(int ret, MPI_Win win, const char *name, size_t len);
void st_rma_op(struct st_call *call, int ret, MPI_Win win, int kind, int target, uint64_t sent, uint64_t received,
               OTF2_RmaAtomicType atomic);
void st_rma_rop(struct st_call *call, int ret, MPI_Win win, int kind, int target, uint64_t sent, uint64_t received,
                OTF2_RmaAtomicType atomic, MPI_Request request);
void st_rma_epoch(int ret, MPI_Win win, MPI_Group group, int exposure);
void st_rma_epoch_end(struct st_call *call, int ret, MPI_Win win, int exposure);
uint64_t st_rma_bytes(int count, MPI_Datatype type);

#endif
