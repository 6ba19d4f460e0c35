/* requests.h — what each live MPI_Request stands for, so that its
 * completion in any MPI_Wait or MPI_Test call records the right event. */
#ifndef SYNCTRACE_REQUESTS_H
#define SYNCTRACE_REQUESTS_H

#include <mpi.h>
#include <stdint.h>
#include "hooks.h"

enum st_req_kind { ST_KIND_ISEND, ST_KIND_IRECV, ST_KIND_NBC, ST_KIND_IDUP, ST_KIND_RMA };

struct st_req {
    uint64_t id;               /* the OTF2 request id of the current activation */
    uint8_t kind;              /* enum st_req_kind */
    uint8_t persistent, active, cancelled;
    uint32_t comm;             /* archive comm reference (ST_KIND_RMA: window reference) */
    int peer, tag;             /* persistent sends and receives */
    uint64_t bytes;
    struct st_coll coll;       /* ST_KIND_NBC */
    uint32_t coll_comm;
    MPI_Comm *idup_target;     /* ST_KIND_IDUP: where MPI puts the new comm */
    MPI_Comm idup_parent;
    uint64_t rma_id;           /* ST_KIND_RMA: the operation's matching id */
    struct st_req *next_free;
    struct st_req *next_same;  /* the next (younger) live request with the same handle */
    const struct st_loc *owner;   /* the location that posted or started it */
    uint8_t claimed;           /* taken by a Wait/Test call in progress (MPI_THREAD_MULTIPLE) */
    uint8_t holds_comm;        /* its communicator was freed while it lived: its release may end it */
};

/* What a request's end means to its communicator (communicators.c sets
 * them at MPI_Init): requests sit below the communicators that make some of
 * them (MPI_Comm_idup) and hold others (a communicator freed while
 * requests on it live). */
struct st_req_comm_hooks {
    /* A request held by a freed communicator (st_req_hold_comm) is released. */
    void (*released)(struct st_call *call, uint32_t ref);
    /* An MPI_Comm_idup's request completes in `call`: newcomm exists. */
    void (*created)(struct st_call *call, int ret, MPI_Comm parent, MPI_Comm newcomm);
};
void st_req_set_comm_hooks(const struct st_req_comm_hooks *hooks);

/* A persistent send or receive (MPI_Send_init, ...) on communicator
 * reference c (p2p.c's st_req_persistent). */
void st_req_persistent_on(enum st_req_dir dir, int count, MPI_Datatype type, int peer, int tag, uint32_t c,
                          MPI_Request request);

/* Register a new request; returns its record with a fresh id, or NULL. */
struct st_req *st_req_new(MPI_Request handle, enum st_req_kind kind, uint32_t comm);
void st_requests_finalize(void);

/* Communicator `ref` is being freed: mark the live point-to-point and
 * non-blocking collective requests on it (a persistent one until it is
 * freed) and return how many there are. MPI frees the communicator only
 * when they are done; each one's release calls the hook `released`. */
uint32_t st_req_hold_comm(uint32_t ref);

#endif
