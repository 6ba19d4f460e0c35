/* polling.h — polling loops collapsed (SYNCTRACE_POLL_COLLAPSE).
 *
 * A program that waits by polling (MPI_Test, MPI_Iprobe ... in a loop)
 * makes millions of calls that find nothing. Consecutive unsuccessful calls
 * of one function with the same arguments (the same requests, or the same
 * source, tag and communicator) on one location form a run, written as ONE
 * region: the first call's Enter, carrying the collapsed_calls attribute
 * (the number of calls; rawformat.h), and the last call's Leave. An
 * unsuccessful call records nothing but its region, so nothing the merge
 * or the causal index needs is lost; a successful call, another recorded
 * MPI call, or a call with other arguments ends the run, and a successful
 * call keeps its exact events.
 *
 * The generated wrapper of a polling function (wrappers/mpi.spec, poll:)
 * takes its Enter time with st_poll_begin without writing it, and after
 * the PMPI call asks st_poll_after whether the call joined a run. */
#ifndef SYNCTRACE_POLLING_H
#define SYNCTRACE_POLLING_H

#include <mpi.h>
#include <stdint.h>
#include "tracer.h"

/* 0 with SYNCTRACE_POLL_COLLAPSE=0: every call is written as it is made. */
extern int st_poll_on;

/* The deferred Enter of a polling call (st_call.write_deferred). */
void st_poll_write_enter(struct st_call *call);

/* st_call_begin without the Enter record, which st_poll_after writes
 * (unless the call joins a run). With collapsing off, st_call_begin. */
static inline int st_poll_begin(struct st_call *call, uint32_t region)
{
    if (!st_poll_on) {
        call->opened = 1;
        return st_call_begin(call, region);
    }
    struct st_loc *loc = st_loc_self;
    if (__builtin_expect(loc == NULL, 0) && (loc = st_loc_attach()) == NULL)
        return 0;
    if (__builtin_expect(st_in_tracer || st_g.phase != ST_RECORDING, 0))
        return 0;
    if (__builtin_expect(st_region_off[region], 0))
        return 0;
    if (__builtin_expect(st_call_deferred != NULL, 0))
        st_poll_end_run();   /* a polling call inside one (an error handler's): the outer one's Enter first */
    call->loc = loc;
    call->region = region;
    call->enter = st_now();
    if (__builtin_expect(call->enter.t >= st_bg_next_poll, 0) && st_bg_poll())
        call->enter = st_now();
    st_call_defer(call, st_poll_write_enter);
    return 1;
}

/* After the PMPI call and st_call_stamp: `idle` when the call succeeded
 * and found nothing (it records no event but its region), `key` its
 * arguments. Returns 1 when the call joined a run: the wrapper writes no
 * Leave (its hooks must record nothing). Returns 0 when the call is
 * recorded as usual: any open run and this call's Enter are written (the
 * Enter already, when a call recorded inside this one wrote it). */
int st_poll_after(struct st_call *call, int idle, uint64_t key);

/* The key of a call's arguments. */
uint64_t st_poll_key_requests(int count, const MPI_Request *requests);
uint64_t st_poll_key_probe(int source, int tag, MPI_Comm comm);

/* Write every location's open run (the archive is being closed: at
 * MPI_Finalize, exit, or from the fatal-signal handler). */
void st_poll_flush_all(void);

#endif
