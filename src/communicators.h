/* communicators.h — communicator ids that every member agrees on, and the
 * world rank of every member, without any extra MPI traffic. */
#ifndef SYNCTRACE_COMMUNICATORS_H
#define SYNCTRACE_COMMUNICATORS_H

#include <mpi.h>
#include <stdint.h>

/* Register MPI_COMM_WORLD, MPI_COMM_SELF and the tracer's own communicator. */
void st_comms_init(MPI_Comm sync_comm);
/* CommCreate of MPI_COMM_WORLD and MPI_COMM_SELF in MPI_Init (`call`, at
 * its Leave time), CommDestroy of both in MPI_Finalize, as Score-P does. */
struct st_call;
void st_comms_started(struct st_call *call);
void st_comms_ending(struct st_call *call);
void st_comms_finalize(void);
/* The archive's reference for a communicator (registered on first sight). */
uint32_t st_comm_ref(MPI_Comm comm);

#endif
