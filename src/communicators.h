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
void st_comms_finalize(void);
/* The archive's reference for a communicator (registered on first sight). */
uint32_t st_comm_ref(MPI_Comm comm);
/* A spawned job's MPI_Comm_get_parent, at MPI_Init: key is the one its
 * parents took (NULL when they did not say). */
void st_comm_parent(MPI_Comm parent, const uint64_t *key);

#endif
