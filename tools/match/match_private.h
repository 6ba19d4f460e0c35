/* match_private.h — what match.c and match_requests.c hand each other:
 * the records their sorts (extsort.h) carry, and where a resolved record
 * goes. Not for the other stages: they see match.h's results. */
#ifndef SYNCTRACE_MATCH_PRIVATE_H
#define SYNCTRACE_MATCH_PRIVATE_H

#include <stdint.h>
#include "extsort.h"
#include "match.h"

/* One per send and receive of the trace, so kept small (56 bytes): the
 * event as two fields (an mg_event_ref has padding), and all the pair
 * needs of it, so that no event is read again once its location's pass
 * is over. */
struct endpoint {
    uint32_t comm, src, dst, tag;   /* src, dst: world ranks */
    uint64_t order;           /* issue (sends) or posting (receives) time on the rank's clock: the
                               * rank's threads, each a location of its own, interleave by it */
    uint64_t index;           /* the event: its index on location `stream` */
    uint32_t stream;
    uint32_t open;            /* a receive released by MPI_Request_free: its completion is not known */
    uint64_t bytes;           /* a send's length */
    uint64_t time;            /* the event's raw time */
};

/* One per collective call (its exit), sorted twice: by rank, to number a
 * rank's calls on a communicator, then by instance. */
struct call {
    uint32_t comm, rank, op, comm_rank;   /* rank: the world rank (its threads' calls interleave by time) */
    int root, neighbor;
    int root_self;            /* the caller is the root (MPI_ROOT on an intercommunicator) */
    uint32_t owner;           /* MPI_COMM_SELF: the rank whose instances these are; else 0 */
    uint64_t order;
    uint64_t nth;             /* its place among its rank's calls on the communicator: the instance */
    struct mg_event_ref enter, exit;
    uint32_t comm_ref;        /* the communicator its exit names, in its location's archive */
    uint8_t quiet;            /* MG_QUIET_*, from the bytes its exit says it moved */
    uint8_t blocking;         /* a blocking call (Begin ... End), not a non-blocking one's request */
};

/* A request's events, one record each (match_requests.c). The
 * definitions say when and where it was posted and whether it was
 * cancelled; the uses wait for them: a send that counts unless cancelled,
 * a receive whose turn is its posting time, a collective entered where it
 * was posted, a cancellation that counts when it was a receive's. */
enum req_role {
    REQ_POSTED,               /* an irecv posted: when */
    REQ_NBC,                  /* a non-blocking collective posted: where and when */
    REQ_CANCELLED,            /* MPI_Cancel succeeded on it (with a USE_CANCELLED use) */
    REQ_USE                   /* the uses, in event order */
};
enum req_use {
    USE_ISEND,                /* u.ep, `outside` when to a process outside the trace */
    USE_RECEIVE,              /* u.ep: an irecv completed, or released by MPI_Request_free */
    USE_CANCELLED,
    USE_NBC,                  /* u.c: the call without its entry */
    USE_ISEND_DONE            /* an isend completed: no longer cancellable */
};

struct req_record {
    uint32_t rank;            /* world rank */
    uint8_t role, use;        /* enum req_role; for REQ_USE, enum req_use */
    uint8_t outside;          /* USE_ISEND: to a process outside the trace */
    uint8_t neighbor;         /* REQ_NBC: a neighbourhood collective */
    uint64_t req;
    uint32_t stream;          /* the event: location and index */
    uint64_t index;
    uint64_t time;            /* the event's time */
    union {
        struct endpoint ep;   /* USE_ISEND, USE_RECEIVE: order filled from REQ_POSTED */
        struct call c;        /* USE_NBC: enter, order and neighbor filled from REQ_NBC */
    } u;
};

/* Where records go: resolved endpoints and calls to their sorts, counts to
 * the result, what one location cannot resolve to `requests`; or, in a
 * worker of the parallel merge (mg_match_begin_relay), every record to
 * `relay`, which hands it on to process 0's sorts. */
struct match_sinks {
    struct st_extsort *sends, *recvs, *calls, *requests;
    struct mg_result *out;
    int (*relay)(void *ctx, enum mg_sink which, const void *record);
    void *relay_ctx;
};

static inline int sink_put(struct match_sinks *k, enum mg_sink which, const void *record)
{
    if (k->relay)
        return k->relay(k->relay_ctx, which, record);
    struct st_extsort *s = which == MG_SINK_SENDS ? k->sends : which == MG_SINK_RECVS ? k->recvs
                           : which == MG_SINK_CALLS ? k->calls : k->requests;
    return st_extsort_put(s, record);
}

/* The requests of the location being read that are still open: most
 * requests are posted and completed on one location, and are resolved
 * there without a sort. At most `room` of them are held: beyond, all go
 * to the join (a send released by MPI_Request_free records no completion,
 * so a program may leave any number open). */
struct req_pending;
struct req_pending *req_pending_new(size_t room);
void req_pending_free(struct req_pending *p);
/* One request record of the location being read, in event order; a
 * cancellation is one REQ_CANCELLED record. 0, or -1: out of memory
 * (errno ENOMEM) or a sort failed (st_extsort_failed tells which). */
int req_put(struct req_pending *p, struct match_sinks *k, const struct req_record *q);
/* The location ends: what is still open goes to the join. 0 or -1. */
int req_location_end(struct req_pending *p, struct match_sinks *k);
/* After every location: the records left to `requests` joined by (rank,
 * request). 0 or -1. */
int req_join(struct match_sinks *k);
int by_request(const void *a, const void *b);

#endif
