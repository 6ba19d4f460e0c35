/* reckinds.h — the kinds of compact record (recfile.h): ST_RECORDS(X)
 * lists X(KIND, converter, least argument words) once; the REC_* enum
 * (writer.c's st_write_* put them), convert.c's switch of converters and
 * the recovery's check of records read back (recfile.c) are made from it.
 * Adding a kind: a line here, its st_write_* in writer.c, its converter in
 * convert.c. */
#ifndef SYNCTRACE_RECKINDS_H
#define SYNCTRACE_RECKINDS_H

#define ST_RECORDS(X)                                                                                        \
    X(ENTER, enter, 0) X(LEAVE, leave, 0) X(SEND, send, 2) X(ISEND, isend, 3)                                 \
    X(ISEND_COMPLETE, isend_complete, 1) X(IRECV_REQUEST, irecv_request, 1) X(RECV, recv, 2)                  \
    X(IRECV, irecv, 3) X(REQUEST_CANCELLED, request_cancelled, 1) X(IRECV_FREED, irecv_freed, 4)             \
    X(COLL_BEGIN, coll_begin, 0) X(COLL_END, coll_end, 6) X(NBC_REQUEST, nbc_request, 1)                     \
    X(NBC_COMPLETE, nbc_complete, 7) X(RMA_WIN_CREATE, rma_win_create, 1)                                    \
    X(RMA_WIN_DESTROY, rma_win_destroy, 1) X(RMA_COLLECTIVE_BEGIN, rma_collective_begin, 0)                  \
    X(RMA_COLLECTIVE_END, rma_collective_end, 3) X(RMA_PUT, rma_put, 4) X(RMA_GET, rma_get, 4)              \
    X(RMA_ATOMIC, rma_atomic, 6) X(RMA_OP_COMPLETE_REMOTE, rma_op_complete_remote, 2)                       \
    X(RMA_REQUEST_LOCK, rma_request_lock, 3) X(RMA_RELEASE_LOCK, rma_release_lock, 2)                       \
    X(RMA_SYNC, rma_sync, 3) X(ENTER_CALLS, enter_calls, 1)                                                 \
    X(RMA_OP_COMPLETE_NON_BLOCKING, rma_op_complete_non_blocking, 2) X(COMM_CREATE, comm_create, 0)         \
    X(COMM_DESTROY, comm_destroy, 0) X(FLUSH, flush, 1)

#define ST_REC_ENUM(kind, fn, least) REC_##kind,
enum { ST_RECORDS(ST_REC_ENUM) REC_KINDS };

#endif
