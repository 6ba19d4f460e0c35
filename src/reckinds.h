/* reckinds.h — the kinds of compact record (records.h): ST_RECORDS(X)
 * lists X(KIND, converter) once; the REC_* enum (writer.c's st_write_*
 * put them) and convert.c's switch of converters are made from it.
 * Adding a kind: a line here, its st_write_* in writer.c, its converter in
 * convert.c. */
#ifndef SYNCTRACE_RECKINDS_H
#define SYNCTRACE_RECKINDS_H

#define ST_RECORDS(X)                                                                                        \
    X(ENTER, enter) X(LEAVE, leave) X(SEND, send) X(ISEND, isend) X(ISEND_COMPLETE, isend_complete)           \
    X(IRECV_REQUEST, irecv_request) X(RECV, recv) X(IRECV, irecv) X(REQUEST_CANCELLED, request_cancelled)    \
    X(IRECV_FREED, irecv_freed) X(COLL_BEGIN, coll_begin) X(COLL_END, coll_end) X(NBC_REQUEST, nbc_request)  \
    X(NBC_COMPLETE, nbc_complete) X(RMA_WIN_CREATE, rma_win_create) X(RMA_WIN_DESTROY, rma_win_destroy)     \
    X(RMA_COLLECTIVE_BEGIN, rma_collective_begin) X(RMA_COLLECTIVE_END, rma_collective_end)                  \
    X(RMA_PUT, rma_put) X(RMA_GET, rma_get) X(RMA_ATOMIC, rma_atomic)                                       \
    X(RMA_OP_COMPLETE_REMOTE, rma_op_complete_remote) X(RMA_REQUEST_LOCK, rma_request_lock)                 \
    X(RMA_RELEASE_LOCK, rma_release_lock) X(RMA_SYNC, rma_sync) X(ENTER_CALLS, enter_calls)      \
    X(RMA_OP_COMPLETE_NON_BLOCKING, rma_op_complete_non_blocking) X(COMM_CREATE, comm_create)              \
    X(COMM_DESTROY, comm_destroy) X(FLUSH, flush)

#define ST_REC_ENUM(kind, fn) REC_##kind,
enum { ST_RECORDS(ST_REC_ENUM) REC_KINDS };

#endif
