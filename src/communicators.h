/* communicators.h — communicator ids that every member agrees on, and the
 * world rank of every member, without any extra MPI traffic. */
#ifndef SYNCTRACE_COMMUNICATORS_H
#define SYNCTRACE_COMMUNICATORS_H

#include <mpi.h>
#include <stdint.h>

/* Register MPI_COMM_WORLD, MPI_COMM_SELF and the tracer's own communicator;
 * spawn_key: a spawned job's spawn intercommunicator key (its parents said
 * it), which makes its keys its own; NULL otherwise. */
void st_comms_init(MPI_Comm sync_comm, const uint64_t *spawn_key);
/* CommCreate of MPI_COMM_WORLD and MPI_COMM_SELF in MPI_Init (`call`, at
 * its Leave time; of a spawned job's `parent` intercommunicator too, unless
 * MPI_COMM_NULL), CommDestroy of WORLD and SELF in MPI_Finalize, as Score-P
 * does, each set inside a CREATE_HANDLE / DESTROY_HANDLE collective over
 * MPI_COMM_WORLD whose Begin is stamped `begun` (after the tracer's own
 * sync round in the call, which is not part of it). */
struct st_call;
struct st_time;
void st_comms_started(struct st_call *call, struct st_time begun, MPI_Comm parent);
void st_comms_ending(struct st_call *call, struct st_time begun);
void st_comms_finalize(void);
/* The archive's reference for a communicator (registered on first sight). */
uint32_t st_comm_ref(MPI_Comm comm);
/* A communicator the tracer has met: its reference and the number of ranks
 * a point-to-point call on it may name (its remote group's size on an
 * intercommunicator), found without any MPI call: 0, or -1. */
int st_comm_known(MPI_Comm comm, uint32_t *ref, int *peers);
/* A request that held communicator `ref` past its MPI_Comm_free ended in
 * `call` (st_req_hold_comm): the last one writes its CommDestroy there. */
void st_comm_request_released(struct st_call *call, uint32_t ref);
/* A spawned job's MPI_Comm_get_parent, at MPI_Init: key is the one its
 * parents took (NULL when they did not say). */
void st_comm_parent(MPI_Comm parent, const uint64_t *key);

#endif
