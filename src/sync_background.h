/* sync_background.h — periodic sync rounds that need no collective.
 *
 * A program that rarely or never calls a collective on MPI_COMM_WORLD
 * (NAS LU: one in 14 s) still gets its periodic rounds. When one is due,
 * the reference (world rank 0) pings every other clock domain's
 * representative with nonblocking sends on the tracer's communicator;
 * each side notices and answers at the start or end of its own later MPI
 * calls (tracer.h polls there once st_bg_next_poll is reached). Nothing blocks,
 * so no call order of the program can deadlock, and only the thread that
 * initialised MPI polls, so it works at every thread level (under
 * MPI_THREAD_MULTIPLE concurrently with the other threads' calls, on a
 * communicator of the tracer's own). A sample's times are those at which
 * each side noticed the message: a late notice makes its round trip long,
 * so the estimate (fastest round trips, median) and the merge's bounds
 * stay valid, only wider. The exchanges are recorded as the collective
 * rounds' are (MpiSend/MpiRecv in the sync region, tag
 * RF_SYNC_TAG_BACKGROUND), so the merge uses every one as a constraint;
 * rank 0 keeps the samples and turns each round into ClockOffsets at
 * finalize (sync.c). */
#ifndef SYNCTRACE_SYNC_BACKGROUND_H
#define SYNCTRACE_SYNC_BACKGROUND_H

#include <mpi.h>
#include <stdint.h>
#include "offset_estimate.h"
#include "tracer.h"

/* Collective over comm, on the thread that initialised MPI, after the init
 * rounds: starts background rounds (rank 0 decides when, every
 * `interval_s` after the last round of any kind, or `late` times that when
 * collective rounds may come first). reps[0..nreps) are the clock
 * domains' representatives (reps[0] = 0). Returns 0, or -1 when some rank
 * lacked memory (then no background rounds anywhere). */
int st_bg_start(MPI_Comm comm, uint32_t comm_ref, const int *reps, int nreps, int rounds, double interval_s,
                double late);
/* Rank 0: a collective round ended at `ticks`; the next background one is
 * due an interval later. */
void st_bg_round_taken(uint64_t ticks);
/* Rank 0: when the last background round started (ticks; 0: none yet),
 * so that a collective round is not taken right after one. */
uint64_t st_bg_last_start(void);
/* Collective, at MPI_Finalize before its round: every exchange under way
 * is finished (blocking: every rank is in MPI_Finalize) and polling ends. */
void st_bg_drain(void);

/* A finished round with one domain, kept by rank 0. */
struct st_bg_round {
    int peer;                /* world rank of the representative */
    int n;                   /* samples */
    struct sample *s;
};
/* Rank 0 after st_bg_drain: the rounds kept, in the order they ended. */
const struct st_bg_round *st_bg_rounds(int *count);
/* Rounds that started (rank 0), and exchanges lost to memory. */
int st_bg_started(void);
void st_bg_free(void);

#endif
