/* sync_background.c — see sync_background.h.
 *
 * The reference keeps one exchange in flight per peer: ping k+1 goes out
 * when pong k is noticed, so a round of R exchanges with a peer takes R of
 * its polls. Polling costs a PMPI_Test (or Testsome) per call while an
 * exchange may be coming, spaced out as the last one recedes (a sixteenth
 * of the time since, at most POLL_GAP_MAX_US), so an idle peer costs a few
 * thousand tests a second whatever the program's call rate. */
#include "sync_background.h"
#include "rawformat.h"
#include "writer.h"

#include <stdlib.h>
#include <string.h>

#define TAG RF_SYNC_TAG_BACKGROUND
#define STOP UINT64_MAX          /* the ping that ends a peer's polling (not recorded) */
#define POLL_GAP_MAX_US 200.0
#define KEEP_MAX ((size_t)1 << 20)   /* samples kept, at most (32 MiB) */

_Thread_local uint64_t st_bg_next_poll = UINT64_MAX;

static struct {
    int on;
    MPI_Comm comm;
    uint32_t comm_ref;
    struct st_loc *loc;          /* the thread that initialised MPI */
    int rounds;
    uint64_t gap_max;            /* ticks */
    uint64_t last_activity;      /* ticks: the last sync message sent or noticed */
    /* the reference */
    int npeers;
    int *peer;                   /* world ranks */
    MPI_Request *pong_req, *ping_req;
    uint64_t (*pong)[2];         /* the peer's times the ping arrived and the pong left */
    uint64_t *ping;              /* sequence numbers sent */
    int *done;                   /* exchanges finished in the current round, per peer */
    uint64_t *t1;                /* when the ping in flight left */
    struct sample *cur;          /* [npeers][rounds]: the current round's samples */
    int *ready;                  /* Testsome's indices */
    int running;                 /* peers still exchanging in the current round */
    uint64_t interval, due;      /* ticks */
    int started;
    uint64_t last_start;         /* ticks: when the last round started */
    struct st_bg_round *kept;
    int nkept, kept_cap;
    size_t kept_samples;
    /* a peer */
    MPI_Request ping_recv, pong_send;
    uint64_t ping_in;
    uint64_t pong_out[2];
} B;

static uint64_t gap(uint64_t now)
{
    uint64_t g = (now - B.last_activity) / 16;
    return g < B.gap_max ? g : B.gap_max;
}

/* ---------- a peer: answer the reference's pings ---------- */

/* The ping in B.ping_in was noticed (its receive completed): answer it. */
static void answer(void)
{
    struct st_time t2 = st_now();
    if (st_poll_open || st_call_deferred)
        st_poll_end_run();      /* the location's records stay in time order */
    st_write_enter(B.loc, t2, ST_REGION_SYNC);
    st_write_recv(B.loc, t2, 0, B.comm_ref, TAG, sizeof B.ping_in);
    /* The reference sent this ping after our previous pong arrived: done. */
    PMPI_Wait(&B.pong_send, MPI_STATUS_IGNORE);
    struct st_time t3 = st_now();
    B.pong_out[0] = t2.t;
    B.pong_out[1] = t3.t;
    st_write_send(B.loc, t3, 0, B.comm_ref, TAG, sizeof B.pong_out);
    PMPI_Isend(B.pong_out, 2, MPI_UINT64_T, 0, TAG, B.comm, &B.pong_send);
    PMPI_Irecv(&B.ping_in, 1, MPI_UINT64_T, 0, TAG, B.comm, &B.ping_recv);
    struct st_time done = st_now();
    st_write_leave(B.loc, done, ST_REGION_SYNC);
    B.last_activity = done.t;
    st_bg_next_poll = done.t;   /* the round's next ping comes soon: poll at every call */
}

static int poll_peer(void)
{
    int flag = 0;
    PMPI_Test(&B.ping_recv, &flag, MPI_STATUS_IGNORE);
    uint64_t now = st_now().t;
    if (!flag) {
        st_bg_next_poll = now + gap(now);
        return 0;
    }
    if (B.ping_in == STOP) {    /* only ever sent at finalize; nothing more comes */
        st_bg_next_poll = UINT64_MAX;
        return 0;
    }
    answer();
    return 1;
}

/* ---------- the reference: start rounds, collect pongs ---------- */

static void send_ping(int i)
{
    struct st_time t1 = st_now();
    B.t1[i] = t1.t;
    B.ping[i]++;
    st_write_send(B.loc, t1, (uint32_t)B.peer[i], B.comm_ref, TAG, sizeof B.ping[i]);
    PMPI_Isend(&B.ping[i], 1, MPI_UINT64_T, B.peer[i], TAG, B.comm, &B.ping_req[i]);
    PMPI_Irecv(B.pong[i], 2, MPI_UINT64_T, B.peer[i], TAG, B.comm, &B.pong_req[i]);
}

/* Peer i's round is complete: keep its samples (unless memory is short). */
static void keep(int i)
{
    if (B.kept_samples + (size_t)B.rounds > KEEP_MAX)
        return;
    if (B.nkept == B.kept_cap) {
        int cap = B.kept_cap ? 2 * B.kept_cap : 16;
        struct st_bg_round *nv = realloc(B.kept, sizeof *nv * (size_t)cap);
        if (!nv)
            return;
        B.kept = nv;
        B.kept_cap = cap;
    }
    struct sample *s = malloc(sizeof *s * (size_t)B.rounds);
    if (!s)
        return;
    memcpy(s, B.cur + (size_t)i * (size_t)B.rounds, sizeof *s * (size_t)B.rounds);
    B.kept[B.nkept++] = (struct st_bg_round){ B.peer[i], B.rounds, s };
    B.kept_samples += (size_t)B.rounds;
}

/* The pongs of B.ready[0..n) were noticed: record them, send the next pings. */
static void collect(int n)
{
    struct st_time t4 = st_now();
    if (st_poll_open || st_call_deferred)
        st_poll_end_run();
    st_write_enter(B.loc, t4, ST_REGION_SYNC);
    /* All noticed at t4: their receives first, then the next pings. */
    for (int j = 0; j < n; j++) {
        int i = B.ready[j];
        st_write_recv(B.loc, t4, (uint32_t)B.peer[i], B.comm_ref, TAG, sizeof B.pong[i]);
        B.cur[(size_t)i * (size_t)B.rounds + (size_t)B.done[i]] =
            (struct sample){ B.t1[i], B.pong[i][0], B.pong[i][1], t4.t };
    }
    for (int j = 0; j < n; j++) {
        int i = B.ready[j];
        /* The pong answers this ping: its send is complete or about to be. */
        PMPI_Wait(&B.ping_req[i], MPI_STATUS_IGNORE);
        if (++B.done[i] < B.rounds)
            send_ping(i);
        else {
            keep(i);
            B.running--;
        }
    }
    struct st_time done = st_now();
    st_write_leave(B.loc, done, ST_REGION_SYNC);
    B.last_activity = done.t;
    if (B.running == 0) {
        B.due = done.t + B.interval;
        st_bg_next_poll = B.due;
    } else
        st_bg_next_poll = done.t;
}

static void start_round(void)
{
    struct st_time at = st_now();
    if (st_poll_open || st_call_deferred)
        st_poll_end_run();
    st_write_enter(B.loc, at, ST_REGION_SYNC);
    for (int i = 0; i < B.npeers; i++) {
        B.done[i] = 0;
        send_ping(i);
    }
    B.running = B.npeers;
    B.started++;
    B.last_start = at.t;
    struct st_time done = st_now();
    st_write_leave(B.loc, done, ST_REGION_SYNC);
    B.last_activity = done.t;
    st_bg_next_poll = done.t;
}

static int poll_reference(void)
{
    uint64_t now = st_now().t;
    if (B.running == 0) {
        if (now < B.due) {
            st_bg_next_poll = B.due;
            return 0;
        }
        start_round();
        return 1;
    }
    int n = 0;
    PMPI_Testsome(B.npeers, B.pong_req, &n, B.ready, MPI_STATUSES_IGNORE);
    if (n == MPI_UNDEFINED || n == 0) {
        now = st_now().t;
        st_bg_next_poll = now + gap(now);
        return 0;
    }
    collect(n);
    return 1;
}

/* Called at the start and end of MPI calls (st_call_begin, st_poll_begin,
 * st_call_end_stamped) on the thread whose st_bg_next_poll is set: the one
 * that initialised MPI; never inside the tracer's own work.
 * Returns 1 when it recorded something (the call's Enter is taken again). */
int st_bg_poll(void)
{
    if (!B.on || st_in_tracer)
        return 0;
    st_in_tracer = 1;
    int did = st_g.rank == 0 ? poll_reference() : poll_peer();
    st_in_tracer = 0;
    return did;
}

uint64_t st_bg_last_start(void)
{
    return B.last_start;
}

void st_bg_round_taken(uint64_t ticks)
{
    if (B.on && st_g.rank == 0) {
        B.due = ticks + B.interval;
        if (B.running == 0)
            st_bg_next_poll = B.due;
    }
}

int st_bg_start(MPI_Comm comm, uint32_t comm_ref, const int *reps, int nreps, int rounds, double interval_s,
                double late)
{
    memset(&B, 0, sizeof B);
    B.comm = comm;
    B.comm_ref = comm_ref;
    B.loc = st_loc_self;
    B.rounds = rounds;
    double rate = st_clock_ticks_per_second();
    B.gap_max = (uint64_t)(POLL_GAP_MAX_US * 1e-6 * rate);
    int me = st_g.rank, is_peer = 0, ok = B.loc != NULL;
    for (int d = 1; d < nreps; d++)
        is_peer |= reps[d] == me;
    if (me == 0 && nreps > 1) {
        int n = B.npeers = nreps - 1;
        B.peer = malloc(sizeof *B.peer * (size_t)n);
        B.pong_req = malloc(sizeof *B.pong_req * (size_t)n);
        B.ping_req = malloc(sizeof *B.ping_req * (size_t)n);
        B.pong = malloc(sizeof *B.pong * (size_t)n);
        B.ping = calloc((size_t)n, sizeof *B.ping);
        B.done = calloc((size_t)n, sizeof *B.done);
        B.t1 = calloc((size_t)n, sizeof *B.t1);
        B.ready = malloc(sizeof *B.ready * (size_t)n);
        B.cur = malloc(sizeof *B.cur * (size_t)n * (size_t)rounds);
        ok = ok && B.peer && B.pong_req && B.ping_req && B.pong && B.ping && B.done && B.t1 && B.ready && B.cur;
        for (int i = 0; ok && i < n; i++) {
            B.peer[i] = reps[i + 1];
            B.pong_req[i] = B.ping_req[i] = MPI_REQUEST_NULL;
        }
        B.interval = (uint64_t)(interval_s * late * rate);
    }
    /* Everyone agrees, or nobody polls: a peer waiting for pings that never
     * come would only cost tests, but a reference pinging a peer that does
     * not answer would keep its exchanges open until finalize. */
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok || nreps < 2 || (me != 0 && !is_peer)) {
        st_bg_free();
        return all_ok ? 0 : -1;
    }
    B.on = 1;
    uint64_t now = st_now().t;
    B.last_activity = now;
    B.pong_send = MPI_REQUEST_NULL;
    if (me == 0) {
        B.due = now + B.interval;
        st_bg_next_poll = B.due;
    } else {
        PMPI_Irecv(&B.ping_in, 1, MPI_UINT64_T, 0, TAG, comm, &B.ping_recv);
        st_bg_next_poll = now + B.gap_max;
    }
    return 0;
}

void st_bg_drain(void)
{
    if (!B.on)
        return;
    st_bg_next_poll = UINT64_MAX;
    if (st_g.rank == 0) {
        /* Finish the round under way: the peers answer until they see STOP. */
        while (B.running > 0) {
            int n = 0;
            PMPI_Waitsome(B.npeers, B.pong_req, &n, B.ready, MPI_STATUSES_IGNORE);
            if (n == MPI_UNDEFINED)
                break;
            collect(n);
        }
        st_bg_next_poll = UINT64_MAX;
        uint64_t stop = STOP;
        for (int i = 0; i < B.npeers; i++)
            PMPI_Send(&stop, 1, MPI_UINT64_T, B.peer[i], TAG, B.comm);
    } else {
        for (;;) {
            PMPI_Wait(&B.ping_recv, MPI_STATUS_IGNORE);
            if (B.ping_in == STOP)
                break;
            answer();
        }
        st_bg_next_poll = UINT64_MAX;
        PMPI_Wait(&B.pong_send, MPI_STATUS_IGNORE);
    }
    B.on = 0;
}

const struct st_bg_round *st_bg_rounds(int *count)
{
    *count = B.nkept;
    return B.kept;
}

int st_bg_started(void)
{
    return B.started;
}

void st_bg_free(void)
{
    for (int k = 0; k < B.nkept; k++)
        free(B.kept[k].s);
    free(B.kept);
    free(B.peer);
    free(B.pong_req);
    free(B.ping_req);
    free(B.pong);
    free(B.ping);
    free(B.done);
    free(B.t1);
    free(B.ready);
    free(B.cur);
    memset(&B, 0, sizeof B);
    st_bg_next_poll = UINT64_MAX;
}
