/* sync.h — run-time clock synchronisation rounds (Fleury et al.).
 *
 * A round: the reference (world rank 0) exchanges ping-pongs with one rank
 * of every other clock domain. Each exchange is recorded as ordinary
 * MpiSend/MpiRecv events on the tracer's own communicator, inside the region
 * "synctrace: clock synchronisation", so the merge uses every sample as a
 * constraint. At finalize the samples also give each location OTF2
 * ClockOffset definitions (median-filtered midpoints of the fastest round
 * trips), which OTF2 readers apply by themselves. */
#ifndef SYNCTRACE_SYNC_H
#define SYNCTRACE_SYNC_H

#include <mpi.h>
#include <stdio.h>
#include "meta_write.h"
#include "tracer.h"

/* Collective over comm (a private duplicate of MPI_COMM_WORLD): learn the
 * clock domains. collective_rounds: periodic rounds may run inside world
 * collectives (the thread level is MPI_THREAD_FUNNELED or less); they also
 * run in the background unless SYNCTRACE_SYNC_BACKGROUND=0. Returns 0, or
 * -1 when memory is short. */
int st_sync_setup(MPI_Comm comm, int collective_rounds);
/* Collective: one round. `call` is the MPI call it runs inside; its leave
 * time is moved past the round. */
void st_sync_round(struct st_call *call);
/* At MPI_Init: the init round(s), and the refresh interval when `auto`. */
void st_sync_at_init(struct st_call *call);
/* Called by every rank after each blocking collective on MPI_COMM_WORLD. */
void st_sync_at_world_collective(struct st_call *call);
/* Collective, at MPI_Finalize: final round, ClockOffset definitions, and
 * (rank 0) the sync part of the run metadata into `meta`. */
void st_sync_at_finalize(struct st_call *call, struct rf_meta *meta);
/* The clock domain of world rank r (the lowest rank sharing its clock). */
int st_sync_domain(int r);

#endif
