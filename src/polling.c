/* polling.c — polling loops collapsed into one region (see polling.h).
 *
 * Each recording thread (one OTF2 location) has one run at most, open from
 * its first unsuccessful call until the next record of that location: the
 * next polling call with other arguments or that succeeded (st_poll_after),
 * or any other recorded MPI call (st_call_begin, tracer.h). A call left out
 * by SYNCTRACE_MPI_GROUPS (MPI_Wtime by default) records nothing, so it
 * does not end a run. Runs are heap records on a list of their own, so that
 * the archive's close (MPI_Finalize, exit, a fatal signal) writes every
 * location's open run, whichever thread closes; each is copied into its
 * location's current chunk of records (recfile.h), so that a SIGKILL does
 * not lose it. */
#include "polling.h"
#include "writer.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

int st_poll_on = 1;

struct st_poll_run {
    struct st_loc *loc;
    struct rf_recrun *kept;        /* its copy in the records file (recfile.h), or NULL */
    struct st_time enter, leave;   /* the first call's Enter, the last call's Leave */
    uint64_t key;
    uint64_t calls;
    uint32_t region;
    volatile sig_atomic_t open;    /* set last, cleared first: the signal path's test */
    struct st_poll_run *next;      /* every thread's, for st_poll_flush_all */
};

_Thread_local struct st_poll_run *st_poll_open;
_Thread_local struct st_call *st_call_deferred;
static _Thread_local struct st_poll_run *mine;
static _Atomic(struct st_poll_run *) all_runs;

static void write_run(struct st_poll_run *run)
{
    run->open = 0;
    if (run->kept)
        run->kept->open = 0;   /* before its records: a kill in between loses it, never doubles it */
    atomic_signal_fence(memory_order_seq_cst);
    st_write_enter_calls(run->loc, run->enter, run->region, run->calls);
    st_write_leave(run->loc, run->leave, run->region);
}

void st_poll_end_run(void)
{
    struct st_poll_run *run = st_poll_open;
    st_poll_open = NULL;
    if (run && run->open)
        write_run(run);
    /* A record made inside a call that deferred its opening record (an
     * error handler's or a user-defined reduction's MPI call): that record
     * comes first, as an eager one would. */
    struct st_call *call = st_call_deferred;
    if (call) {
        st_call_deferred = NULL;
        call->write_deferred(call);
    }
}

void st_poll_write_enter(struct st_call *call)
{
    call->opened = 1;
    if (call->loc)
        st_write_enter(call->loc, call->enter, call->region);
}

int st_call_undefer(struct st_call *call)
{
    if (st_call_deferred == call)
        st_call_deferred = NULL;   /* no record was made inside the call */
    else if (st_poll_open)
        st_poll_end_run();         /* a run opened inside the call ends before its records */
    return call->opened;
}

static struct st_poll_run *my_run(void)
{
    if (mine)
        return mine;
    struct st_poll_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    run->next = atomic_load(&all_runs);
    while (!atomic_compare_exchange_weak(&all_runs, &run->next, run))
        ;
    return mine = run;
}

int st_poll_after(struct st_call *call, int idle, uint64_t key)
{
    if (call->opened) {
        /* Written already: by st_call_begin (collapsing off), or by a
         * record made inside this call, whose own polling calls may have
         * opened a run since: that run ends before this call's events. */
        if (st_poll_open)
            st_poll_end_run();
        return 0;
    }
    st_call_deferred = NULL;
    struct st_poll_run *run = st_poll_open;
    if (idle && run && run->open && run->region == call->region && run->key == key && run->loc == call->loc) {
        run->leave = call->leave;
        run->calls++;
        if (run->kept) {
            run->kept->leave = call->leave.t;
            run->kept->leave_truth = call->leave.truth;
            run->kept->calls = run->calls;
        }
        return 1;
    }
    if (run)
        st_poll_end_run();
    if (idle && (run = my_run()) != NULL) {
        run->loc = call->loc;
        run->enter = call->enter;
        run->leave = call->leave;
        run->key = key;
        run->calls = 1;
        run->region = call->region;
        /* A copy where a SIGKILL leaves it: the records file. */
        if ((run->kept = st_rec_run_slot(call->loc)) != NULL) {
            *run->kept = (struct rf_recrun){ 0, call->region, 1, call->enter.t, call->enter.truth, call->leave.t,
                                             call->leave.truth };
            atomic_signal_fence(memory_order_seq_cst);
            run->kept->open = RF_RECRUN_OPEN;
        }
        atomic_signal_fence(memory_order_seq_cst);
        run->open = 1;
        st_poll_open = run;
        return 1;
    }
    st_write_enter(call->loc, call->enter, call->region);
    return 0;
}

void st_poll_flush_all(void)
{
    for (struct st_poll_run *run = atomic_load(&all_runs); run; run = run->next)
        if (run->open)
            write_run(run);
    /* The closing thread may be inside a polling call (Open MPI's fatal
     * error path, a crash in MPI): its Enter, as an eager one would be. */
    st_poll_end_run();
}

/* The key of a call's arguments: the words go through a multiply-xor step
 * each (one multiplication: an array of a thousand requests costs about a
 * microsecond per call) and splitmix64's finaliser once. Each step is a
 * bijection of the running value, so lists of one length that differ in one
 * word never collide; others rarely do, and a collision would only make
 * one region of two runs of one function. */
static inline uint64_t step(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x9e3779b97f4a7c15ULL;
}

static inline uint64_t finish(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

uint64_t st_poll_key_requests(int count, const MPI_Request *requests)
{
    uint64_t h = step(0x243f6a8885a308d3ULL, (uint64_t)(unsigned)count);
    for (int i = 0; requests && i < count; i++)
        h = step(h + (uint64_t)i, (uint64_t)(uintptr_t)requests[i]);
    return finish(h);
}

uint64_t st_poll_key_probe(int source, int tag, MPI_Comm comm)
{
    uint64_t h = step(0x13198a2e03707344ULL, (uint64_t)(uint32_t)source);
    h = step(h, (uint64_t)(uint32_t)tag);
    return finish(step(h, (uint64_t)(uintptr_t)comm));
}
