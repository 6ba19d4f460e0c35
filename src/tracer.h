/* tracer.h — state shared by the tracer's modules and the inline call frame
 * that every generated wrapper uses.
 *
 * A wrapper does:  st_call_begin -> [pre hook] -> PMPI_X -> [st_call_stamp, post hook] -> st_call_end.
 * Only the begin/end pair is on every call's path, so it is inline and cheap. */
#ifndef SYNCTRACE_TRACER_H
#define SYNCTRACE_TRACER_H

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>
#include "clock.h"

/* A point in time as recorded: the (possibly skewed) clock and, with
 * SYNCTRACE_SKEW, the undistorted value kept as the `true_time` attribute. */
struct st_time {
    uint64_t t;
    uint64_t truth;
};

/* Per-thread recording state: one OTF2 location. Defined in writer.c. */
struct st_loc;

struct st_call {
    struct st_loc *loc;
    uint32_t region;
    struct st_time enter;
    struct st_time leave;
    uint8_t opened;    /* its opening record is written: a polling call's Enter, a deferred Begin or send */
    /* While it is st_call_deferred: writes the record the call defers,
     * stamped at its entry, when a record is made inside the call. */
    void (*write_deferred)(struct st_call *call);
    struct st_send_args {   /* a blocking send's, for its deferred record (p2p.c) */
        MPI_Comm comm;
        MPI_Datatype type;
        int count, dest, tag;
    } send;
};

enum st_phase { ST_OFF = 0, ST_RECORDING = 1, ST_DONE = 2 };

/* The run's state, set by MPI_Init (lifecycle.c) and read by every module;
 * defined in state.c, below them all. */
struct st_global {
    volatile int phase;          /* enum st_phase */
    int rank, size;              /* in MPI_COMM_WORLD */
    char run_id[64];             /* the run's identifier, the same on every rank */
    char trace_dir[4096];        /* where the rank archives go (absolute) */
};
extern struct st_global st_g;

/* The calling thread's location, or NULL when this thread does not record
 * (yet: see st_loc_attach). */
extern _Thread_local struct st_loc *st_loc_self;
/* A location for a thread other than MPI_Init's, made on its first MPI call
 * when the program asked for MPI_THREAD_SERIALIZED or MULTIPLE; NULL when
 * this thread does not record. Defined in writer.c. */
struct st_loc *st_loc_attach(void);

/* The tracer's shared state (requests, communicators, matched probes and
 * the definitions they make) is locked only under MPI_THREAD_MULTIPLE,
 * where threads call MPI concurrently. The lock is recursive: hooks nest. */
extern int st_threads_concurrent;
void st_state_lock_slow(void);
void st_state_unlock_slow(void);
static inline void st_state_lock(void)
{
    if (__builtin_expect(st_threads_concurrent, 0))
        st_state_lock_slow();
}
static inline void st_state_unlock(void)
{
    if (__builtin_expect(st_threads_concurrent, 0))
        st_state_unlock_slow();
}
/* Set while the tracer itself runs MPI (sync rounds, finalize) so that no
 * nested interception can record the tracer's own calls. */
extern _Thread_local int st_in_tracer;
/* Per MPI region: left out by SYNCTRACE_MPI_GROUPS (options.c). */
extern unsigned char st_region_off[];
/* The calling thread's open run of unsuccessful polling calls (polling.c),
 * NULL when none, and its call under way whose opening record is not
 * written yet: a polling call's Enter (between st_poll_begin and
 * st_poll_after), a blocking collective's MpiCollectiveBegin or a blocking
 * send's record (written after the call unless a record is made inside it:
 * a user-defined reduction's MPI calls, run by the call itself or by the
 * progress it makes on a pending nonblocking collective; an error
 * handler's). The location's next record, even one made inside that call,
 * ends the run and writes that record first, at the call's entry time
 * (st_poll_end_run), so that the location's records stay in time order;
 * st_call_undefer ends the deferral with the call. */
struct st_poll_run;
extern _Thread_local struct st_poll_run *st_poll_open;
extern _Thread_local struct st_call *st_call_deferred;
void st_poll_end_run(void);
/* The call ends: its deferral with it; whether its opening record was
 * written by a record made inside it (else it is the caller's to write). */
int st_call_undefer(struct st_call *call);

/* Defer call's opening record to `write` (which sets call->opened). */
static inline void st_call_defer(struct st_call *call, void (*write)(struct st_call *call))
{
    call->opened = 0;
    call->write_deferred = write;
    st_call_deferred = call;
}

/* Background sync rounds (sync_background.h): the calling thread's next
 * MPI call at or after these ticks polls them; UINT64_MAX on every thread
 * but the one that initialised MPI, and without periodic rounds. Returns 1
 * when the poll recorded something (the call's Enter is then read again). */
extern _Thread_local uint64_t st_bg_next_poll;
int st_bg_poll(void);

static inline struct st_time st_now(void)
{
    struct st_time now;
    now.t = st_clock_now2(&now.truth);
    return now;
}

#include "recput.h"

/* Enter and Leave records, inline (the other writers are in writer.c). */
static inline void st_write_enter(struct st_loc *loc, struct st_time at, uint32_t region)
{
    st_rec_put(loc, ST_REC_ENTER_KIND, at, region, NULL, 0);
}

static inline void st_write_leave(struct st_loc *loc, struct st_time at, uint32_t region)
{
    st_rec_put(loc, ST_REC_LEAVE_KIND, at, region, NULL, 0);
}

static inline int st_call_begin(struct st_call *call, uint32_t region)
{
    struct st_loc *loc = st_loc_self;
    if (__builtin_expect(loc == NULL, 0) && (loc = st_loc_attach()) == NULL)
        return 0;
    if (__builtin_expect(st_in_tracer || st_g.phase != ST_RECORDING, 0))
        return 0;
    if (__builtin_expect(st_region_off[region], 0))   /* SYNCTRACE_MPI_GROUPS */
        return 0;
    if (__builtin_expect((st_poll_open != NULL) | (st_call_deferred != NULL), 0))
        st_poll_end_run();
    call->loc = loc;
    call->region = region;
    call->enter = st_now();
    if (__builtin_expect(call->enter.t >= st_bg_next_poll, 0) && st_bg_poll())
        call->enter = st_now();
    st_write_enter(loc, call->enter, region);
    return 1;
}

/* Take the leave time before post hooks so their events carry it. */
static inline void st_call_stamp(struct st_call *call)
{
    call->leave = st_now();
}

static inline void st_call_end_stamped(struct st_call *call)
{
    /* NULL when the call's hook closed the archive (MPI_Finalize, MPI_Abort). */
    if (call->loc) {
        st_write_leave(call->loc, call->leave, call->region);
        /* and at its end: a peer blocked in the same exchange as the
         * reference answers, and the reference notices, within it */
        if (__builtin_expect(call->leave.t >= st_bg_next_poll, 0))
            st_bg_poll();
    }
}

static inline void st_call_end(struct st_call *call)
{
    st_call_stamp(call);
    st_call_end_stamped(call);
}

/* Status substitution: the tracer needs the source, tag and size of every
 * completed receive, even when the program passed MPI_STATUS(ES)_IGNORE. */
#define ST_STATUS_LOCAL(status)                                              \
    MPI_Status st_status_local_;                                             \
    if ((status) == MPI_STATUS_IGNORE) (status) = &st_status_local_

MPI_Status *st_statuses_scratch(int count);
#define ST_STATUSES_LOCAL(count, statuses)                                   \
    if ((statuses) == MPI_STATUSES_IGNORE) (statuses) = st_statuses_scratch(count)

/* Bytes of `count` elements of `type`; 0 for MPI_DATATYPE_NULL, which
 * programs pass for arguments MPI ignores. */
uint64_t st_type_bytes(int count, MPI_Datatype type);
/* The same without any MPI call, for a datatype whose size the tracer has
 * cached (a predefined one it met before): 0, or -1 when it has not (or
 * count < 0). */
int st_type_bytes_cached(int count, MPI_Datatype type, uint64_t *bytes);
/* The sizes of MPI's C datatypes cached at MPI_Init, so that a send's
 * first use of one is known without an MPI call too (p2p.c). */
void st_type_sizes_init(void);

/* A blank-padded Fortran string as a C string without the padding (and
 * without leading blanks, which Open MPI drops too); malloc'd, NULL when
 * there is no memory (util.c: communicators and windows get names from
 * Fortran too). */
char *st_f_string(const char *s, size_t len);

/* Diagnostics go to stderr only when asked for, or for configuration errors
 * (on rank 0), never to stdout. */
void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void st_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
