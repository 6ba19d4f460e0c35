/* sync.c — see sync.h. Only world rank 0 keeps samples; the others answer. */
#include "sync.h"
#include "rawformat.h"
#include "offset_estimate.h"
#include "communicators.h"
#include "options.h"
#include "writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SYNC_TAG RF_SYNC_TAG
#define HOSTLEN 64


struct epoch {
    uint64_t ref_time;           /* rank 0's clock at the round */
    struct sample *samples;      /* [npeers][rounds] */
};

static struct {
    MPI_Comm comm;
    uint32_t comm_ref;
    int *domain;                 /* world rank -> clock domain (lowest rank sharing the clock) */
    int *peers, npeers;          /* rank 0: one rank per other domain */
    int rounds;
    struct epoch *epochs;
    int nepochs, epochs_cap;
    /* periodic refresh, decided by rank 0 at agreed collective counts */
    uint64_t world_colls, next_checkpoint;
    uint64_t last_round_ticks;
    uint64_t checkpoint_ticks, colls_at_checkpoint, step;   /* rank 0 */
    double interval;             /* seconds */
    int interval_auto;
    double auto_t0, auto_ed, auto_ef;   /* Fleury eq. 6 inputs, for the metadata */
} S;

int st_sync_domain(int r)
{
    return S.domain ? S.domain[r] : r;
}

int st_sync_setup(MPI_Comm comm)
{
    int n = st_g.size;
    S.comm = comm;
    S.comm_ref = st_comm_ref(comm);
    S.rounds = st_cfg.sync_rounds;
    S.interval = st_cfg.sync_interval;
    S.interval_auto = st_cfg.sync_interval_auto;
    S.next_checkpoint = 1;
    char *hosts = calloc((size_t)n, HOSTLEN);
    S.domain = malloc(sizeof *S.domain * (size_t)n);
    S.peers = malloc(sizeof *S.peers * (size_t)n);
    char mine[HOSTLEN] = { 0 };
    snprintf(mine, sizeof mine, "%s", st_clock_hostname());
    int ok = hosts && S.domain && S.peers;
    /* Everyone takes part in the exchange even without memory, or the job would hang. */
    PMPI_Allgather(mine, HOSTLEN, MPI_CHAR, hosts ? hosts : mine, hosts ? HOSTLEN : 0, MPI_CHAR, comm);
    if (!ok) {
        free(hosts);
        return -1;
    }
    /* With injected skew every rank has a clock of its own. */
    int skew_all = st_clock_skew_enabled();
    S.npeers = 0;
    for (int r = 0; r < n; r++) {
        S.domain[r] = r;
        if (!skew_all)
            for (int q = 0; q < r; q++)
                if (strncmp(hosts + (size_t)q * HOSTLEN, hosts + (size_t)r * HOSTLEN, HOSTLEN) == 0) {
                    S.domain[r] = q;
                    break;
                }
        if (S.domain[r] == r && S.domain[r] != S.domain[0])
            S.peers[S.npeers++] = r;
    }
    free(hosts);
    return 0;
}

static struct epoch *new_epoch(void)
{
    if (S.nepochs == S.epochs_cap) {
        int cap = S.epochs_cap ? 2 * S.epochs_cap : 8;
        struct epoch *nv = realloc(S.epochs, sizeof *nv * (size_t)cap);
        if (!nv)
            return NULL;
        S.epochs = nv;
        S.epochs_cap = cap;
    }
    struct epoch *e = &S.epochs[S.nepochs++];
    e->samples = calloc((size_t)(S.npeers ? S.npeers : 1) * (size_t)S.rounds, sizeof *e->samples);
    e->ref_time = st_now().t;
    return e;
}

void st_sync_round(struct st_call *call)
{
    struct st_loc *loc = st_loc_self;
    int me = st_g.rank;
    int is_peer = me != 0 && S.domain && S.domain[me] == me && S.domain[me] != S.domain[0];
    struct epoch *e = NULL;
    if (me == 0)
        e = new_epoch();   /* NULL when out of memory: the exchange still runs, unrecorded */
    if (me != 0 && !is_peer) {
        S.nepochs++;       /* keep the epoch count agreed on every rank */
        return;
    }
    if (me != 0)
        S.nepochs++;
    st_write_enter(loc, st_now(), ST_REGION_SYNC);
    if (me == 0) {
        for (int p = 0; p < S.npeers; p++) {
            int peer = S.peers[p];
            for (int k = 0; k < S.rounds; k++) {
                uint64_t reply[2];
                struct st_time t1 = st_now();
                st_write_send(loc, t1, (uint32_t)peer, S.comm_ref, SYNC_TAG, sizeof k);
                PMPI_Send(&k, 1, MPI_INT, peer, SYNC_TAG, S.comm);
                PMPI_Recv(reply, 2, MPI_UINT64_T, peer, SYNC_TAG, S.comm, MPI_STATUS_IGNORE);
                struct st_time t4 = st_now();
                st_write_recv(loc, t4, (uint32_t)peer, S.comm_ref, SYNC_TAG, sizeof reply);
                if (e && e->samples)
                    e->samples[(size_t)p * (size_t)S.rounds + (size_t)k] =
                        (struct sample){ t1.t, reply[0], reply[1], t4.t };
            }
        }
    } else {
        for (int k = 0; k < S.rounds; k++) {
            int seq;
            PMPI_Recv(&seq, 1, MPI_INT, 0, SYNC_TAG, S.comm, MPI_STATUS_IGNORE);
            struct st_time t2 = st_now();
            st_write_recv(loc, t2, 0, S.comm_ref, SYNC_TAG, sizeof seq);
            struct st_time t3 = st_now();
            uint64_t reply[2] = { t2.t, t3.t };
            st_write_send(loc, t3, 0, S.comm_ref, SYNC_TAG, sizeof reply);
            PMPI_Send(reply, 2, MPI_UINT64_T, 0, SYNC_TAG, S.comm);
        }
    }
    struct st_time done = st_now();
    st_write_leave(loc, done, ST_REGION_SYNC);
    if (call)
        call->leave = done;
}

void st_sync_at_init(struct st_call *call)
{
    if (st_cfg.sync & ST_SYNC_INIT || S.interval_auto)
        st_sync_round(call);
    if (S.interval_auto) {
        /* Fleury et al., eq. 6: R = (T0 - 2 e_d) / (2 e_f), with the drift
         * error bounded through a second round S later (eq. 10). */
        struct timespec pause = { 0, 50 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        st_sync_round(call);
        if (st_g.rank == 0 && S.npeers > 0 && S.nepochs >= 2) {
            double rate = st_clock_ticks_per_second();
            double t0 = INFINITY, ed = 0, ef = 0;
            struct epoch *a = &S.epochs[S.nepochs - 2], *b = &S.epochs[S.nepochs - 1];
            double span = (double)(b->ref_time - a->ref_time) / rate;
            for (int p = 0; p < S.npeers; p++) {
                struct estimate ea = estimate_offset(a->samples + (size_t)p * (size_t)S.rounds, S.rounds, rate, rate);
                struct estimate eb = estimate_offset(b->samples + (size_t)p * (size_t)S.rounds, S.rounds, rate, rate);
                double one_way = ea.rtt_min_ns / 2 * 1e-9;
                if (one_way < t0)
                    t0 = one_way;
                double e = fmax(ea.chosen_rtt_ns / 2 - ea.rtt_min_ns / 2, eb.chosen_rtt_ns / 2 - eb.rtt_min_ns / 2) * 1e-9
                           + 1.0 / rate;
                if (e > ed)
                    ed = e;
                if (span > 0 && 2 * e / span > ef)
                    ef = 2 * e / span;
            }
            /* Not above a clock's data-sheet drift (Fleury: f_m). */
            ef = fmin(ef, 100e-6);
            S.auto_t0 = t0;
            S.auto_ed = ed;
            S.auto_ef = ef;
            double r = ef > 0 ? (t0 - 2 * ed) / (2 * ef) : 3600;
            /* Below the latency floor eq. 6 has no solution: refresh often, but not absurdly so. */
            S.interval = fmin(fmax(r, 1.0), 3600.0);
        }
    }
    S.last_round_ticks = st_now().t;
}

void st_sync_at_world_collective(struct st_call *call)
{
    if (!(st_cfg.sync & ST_SYNC_PERIODIC))
        return;
    if (++S.world_colls < S.next_checkpoint)
        return;
    /* Every rank reaches the same checkpoint (collectives on a communicator
     * are called in the same order everywhere); rank 0 decides whether to
     * run a round now and which collective is the next checkpoint. */
    st_in_tracer = 1;
    int64_t decision[2] = { 0, 0 };
    if (st_g.rank == 0) {
        double rate_hz = st_clock_ticks_per_second();
        uint64_t now = st_now().t;
        double since_round = (double)(now - S.last_round_ticks) / rate_hz;
        decision[0] = since_round >= S.interval;
        double remaining = decision[0] ? S.interval : S.interval - since_round;
        /* Collectives per second since the last checkpoint; the step may at
         * most double, so one burst cannot push the next round far away. */
        double span = S.checkpoint_ticks ? (double)(now - S.checkpoint_ticks) / rate_hz : 0;
        double per_s = span > 0 ? (double)(S.world_colls - S.colls_at_checkpoint) / span : 0;
        double step = remaining * per_s;
        double cap = S.step ? 2.0 * (double)S.step : 1.0;
        step = step < 1 ? 1 : step > cap ? cap : step;
        S.step = (uint64_t)step;
        S.checkpoint_ticks = now;
        S.colls_at_checkpoint = S.world_colls;
        decision[1] = (int64_t)(S.world_colls + S.step);
    }
    PMPI_Bcast(decision, 2, MPI_INT64_T, 0, S.comm);
    if (decision[0]) {
        st_sync_round(call);
        S.last_round_ticks = st_now().t;
    }
    S.next_checkpoint = (uint64_t)decision[1];
    st_in_tracer = 0;
}

/* ---------- finalize: offsets for every location ---------- */

struct offset_rec {
    uint64_t time;
    int64_t offset;
    double stddev;
};

void st_sync_at_finalize(struct st_call *call, struct rf_meta *meta)
{
    if (st_cfg.sync & ST_SYNC_FINALIZE)
        st_sync_round(call);
    int n = st_g.size, me = st_g.rank, ne = S.nepochs;
    /* One final rate per rank, rounded as the archive stores it: offsets
     * convert absolute tick counts, so any other value would show up as
     * an offset error of (rate difference) x (ticks since boot). */
    double rate = (double)(uint64_t)(st_clock_calibrate_final() + 0.5);
    double *rates = me == 0 ? malloc(sizeof *rates * (size_t)n) : NULL;
    PMPI_Gather(&rate, 1, MPI_DOUBLE, rates, 1, MPI_DOUBLE, 0, S.comm);
    /* Ranks that share a clock must also share its rate: each calibrated
     * its own, a few ppb apart, which times ticks since boot would set them
     * microseconds apart. Everyone takes its clock domain's (the lowest
     * rank's) rate, as archive resolution and for the offsets below. */
    double *domain_rates = NULL;
    if (me == 0 && rates && (domain_rates = malloc(sizeof *domain_rates * (size_t)n)) != NULL) {
        for (int r = 0; r < n; r++)
            domain_rates[r] = rates[S.domain[r]];
        memcpy(rates, domain_rates, sizeof *rates * (size_t)n);
    }
    PMPI_Scatter(domain_rates, 1, MPI_DOUBLE, &rate, 1, MPI_DOUBLE, 0, S.comm);
    free(domain_rates);
    st_writer_set_resolution(rate);

    size_t per_rank = (size_t)(ne ? ne : 1);
    struct offset_rec *all = NULL;
    struct offset_rec *mine = calloc(per_rank, sizeof *mine);
    if (me == 0 && rates) {
        all = calloc(per_rank * (size_t)n, sizeof *all);
        /* Per domain representative p and epoch e: the estimate. */
        for (int e = 0; all && e < ne; e++) {
            for (int r = 0; r < n; r++) {
                struct offset_rec *o = &all[(size_t)r * per_rank + (size_t)e];
                o->time = S.epochs[e].ref_time;   /* same clock as rank 0: offset 0 */
                o->offset = 0;
                o->stddev = 0;
            }
            for (int p = 0; p < S.npeers; p++) {
                int peer = S.peers[p];
                struct estimate est = estimate_offset(S.epochs[e].samples + (size_t)p * (size_t)S.rounds, S.rounds,
                                               rates[0], rates[peer]);
                for (int r = 0; r < n; r++) {
                    if (S.domain[r] != peer)
                        continue;
                    struct offset_rec *o = &all[(size_t)r * per_rank + (size_t)e];
                    o->time = est.peer_time;
                    o->offset = (int64_t)llround(est.offset_ns * rates[r] / 1e9);
                    o->stddev = est.err_ns * rates[r] / 1e9;
                }
                if (meta)
                    rf_meta_sync_peer(meta, e, peer, est.rtt_min_ns, est.rtt_median_ns, est.rtt_max_ns, est.offset_ns,
                                      est.err_ns);
            }
        }
    }
    PMPI_Scatter(all, (int)(per_rank * sizeof *all), MPI_BYTE, mine, (int)(per_rank * sizeof *mine), MPI_BYTE, 0,
                 S.comm);
    for (int e = 0; mine && e < ne; e++)
        st_writer_clock_offset(mine[e].time, mine[e].offset, mine[e].stddev);
    if (meta) {
        rf_meta_sync_summary(meta, ne, S.rounds, S.npeers, S.interval, S.interval_auto ? "auto" : "fixed");
        if (S.interval_auto) {
            rf_meta_line(meta, "sync.auto.t0_s", "%.9f", S.auto_t0);
            rf_meta_line(meta, "sync.auto.e_d_s", "%.9f", S.auto_ed);
            rf_meta_line(meta, "sync.auto.e_f", "%.3e", S.auto_ef);
        }
        rf_meta_domains(meta, n, S.domain);
        if (rates)
            rf_meta_rates(meta, n, rates);
    }
    free(all);
    free(mine);
    free(rates);
    for (int e = 0; e < S.nepochs && me == 0; e++)
        free(S.epochs[e].samples);
    free(S.epochs);
    free(S.domain);
    free(S.peers);
    memset(&S, 0, sizeof S);
}
