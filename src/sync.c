/* sync.c — see sync.h. A round walks the binomial tree of clock domains
 * (common/sync_tree.h): every domain's representative (its lowest
 * world rank) answers its parent's pings, then pings its own children, so a
 * round takes ceil(log2 domains) steps. Each parent keeps the samples with
 * its children; at finalize the parents estimate one offset per tree edge,
 * rank 0 composes them along the tree and hands every rank its offsets. */
#include "sync.h"
#include "sync_background.h"
#include "rawformat.h"
#include "offset_estimate.h"
#include "sync_tree.h"
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
    uint64_t ref_time;           /* this rank's clock at the round (rank 0's is the reference) */
    struct sample *samples;      /* [nkids][rounds]; NULL without memory */
};

static struct {
    MPI_Comm comm;
    uint32_t comm_ref;
    int *domain;                 /* world rank -> clock domain (lowest rank sharing the clock) */
    int *dindex;                 /* world rank -> index of its domain in the tree */
    int *reps, ndomains;         /* domain index -> its representative (world rank) */
    int me_d;                    /* my domain index if I represent it, else -1 */
    int *kids, nkids;            /* my children in the tree (domain indices), in step order */
    int rounds;
    struct epoch *epochs;        /* the first nstored of the nepochs rounds */
    int nepochs, nstored, epochs_cap;
    int stop_storing;            /* memory ran out once: later rounds are not kept (indices stay exact) */
    int collective;              /* periodic rounds may run inside world collectives (<= MPI_THREAD_FUNNELED) */
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

int st_sync_setup(MPI_Comm comm, int collective_rounds)
{
    int n = st_g.size;
    S.comm = comm;
    S.comm_ref = st_comm_ref(comm);
    S.rounds = st_cfg.sync_rounds;
    S.interval = st_cfg.sync_interval;
    S.interval_auto = st_cfg.sync_interval_auto;
    S.next_checkpoint = 1;
    S.collective = collective_rounds;
    S.me_d = -1;
    char *hosts = calloc((size_t)n, HOSTLEN);
    S.domain = malloc(sizeof *S.domain * (size_t)n);
    S.dindex = malloc(sizeof *S.dindex * (size_t)n);
    S.reps = malloc(sizeof *S.reps * (size_t)n);
    char mine[HOSTLEN] = { 0 };
    snprintf(mine, sizeof mine, "%s", st_clock_hostname());
    int ok = hosts && S.domain && S.dindex && S.reps;
    /* Everyone takes part in the exchange even without memory, or the job would hang. */
    PMPI_Allgather(mine, HOSTLEN, MPI_CHAR, hosts ? hosts : mine, hosts ? HOSTLEN : 0, MPI_CHAR, comm);
    if (!ok) {
        free(hosts);
        return -1;
    }
    /* With injected skew every rank has a clock of its own. */
    int skew_all = st_clock_skew_enabled();
    S.ndomains = 0;
    for (int r = 0; r < n; r++) {
        S.domain[r] = r;
        if (!skew_all)
            for (int q = 0; q < r; q++)
                if (strncmp(hosts + (size_t)q * HOSTLEN, hosts + (size_t)r * HOSTLEN, HOSTLEN) == 0) {
                    S.domain[r] = q;
                    break;
                }
        if (S.domain[r] == r) {
            S.dindex[r] = S.ndomains;
            S.reps[S.ndomains++] = r;
        } else
            S.dindex[r] = S.dindex[S.domain[r]];
    }
    free(hosts);
    int me = st_g.rank;
    if (S.domain[me] == me) {
        S.me_d = S.dindex[me];
        S.nkids = st_tree_nchildren(S.me_d, S.ndomains);
        S.kids = malloc(sizeof *S.kids * (size_t)(S.nkids ? S.nkids : 1));
        if (!S.kids)
            return -1;
        int k = 0;
        for (int l = 0; l < st_tree_steps(S.ndomains); l++)
            if (st_tree_child(S.me_d, l, S.ndomains) >= 0)
                S.kids[k++] = st_tree_child(S.me_d, l, S.ndomains);
    }
    return 0;
}

/* Counts the round; returns where to keep it, or NULL when memory is short. */
static struct epoch *new_epoch(void)
{
    S.nepochs++;
    if (!S.stop_storing && S.nstored == S.epochs_cap) {
        int cap = S.epochs_cap ? 2 * S.epochs_cap : 8;
        struct epoch *nv = realloc(S.epochs, sizeof *nv * (size_t)cap);
        if (nv) {
            S.epochs = nv;
            S.epochs_cap = cap;
        } else
            S.stop_storing = 1;
    }
    if (S.stop_storing)
        return NULL;
    struct epoch *e = &S.epochs[S.nstored++];
    e->samples = calloc((size_t)(S.nkids ? S.nkids : 1) * (size_t)S.rounds, sizeof *e->samples);
    e->ref_time = st_now().t;
    return e;
}

/* Ping `peer` S.rounds times, keeping the samples in `out` (may be NULL). */
static void ping(struct st_loc *loc, int peer, struct sample *out)
{
    for (int k = 0; k < S.rounds; k++) {
        uint64_t reply[2];
        struct st_time t1 = st_now();
        st_write_send(loc, t1, (uint32_t)peer, S.comm_ref, SYNC_TAG, sizeof k);
        PMPI_Send(&k, 1, MPI_INT, peer, SYNC_TAG, S.comm);
        PMPI_Recv(reply, 2, MPI_UINT64_T, peer, SYNC_TAG, S.comm, MPI_STATUS_IGNORE);
        struct st_time t4 = st_now();
        st_write_recv(loc, t4, (uint32_t)peer, S.comm_ref, SYNC_TAG, sizeof reply);
        if (out)
            out[k] = (struct sample){ t1.t, reply[0], reply[1], t4.t };
    }
}

/* Answer `peer`'s S.rounds pings with the times they arrived and left. */
static void pong(struct st_loc *loc, int peer)
{
    for (int k = 0; k < S.rounds; k++) {
        int seq;
        PMPI_Recv(&seq, 1, MPI_INT, peer, SYNC_TAG, S.comm, MPI_STATUS_IGNORE);
        struct st_time t2 = st_now();
        st_write_recv(loc, t2, (uint32_t)peer, S.comm_ref, SYNC_TAG, sizeof seq);
        struct st_time t3 = st_now();
        uint64_t reply[2] = { t2.t, t3.t };
        st_write_send(loc, t3, (uint32_t)peer, S.comm_ref, SYNC_TAG, sizeof reply);
        PMPI_Send(reply, 2, MPI_UINT64_T, peer, SYNC_TAG, S.comm);
    }
}

void st_sync_round(struct st_call *call)
{
    struct st_loc *loc = st_loc_self;
    int d = S.me_d, m = S.ndomains;
    if (d < 0) {
        S.nepochs++;       /* keep the epoch count agreed on every rank */
        return;
    }
    /* NULL when out of memory: the exchange still runs, unrecorded */
    struct epoch *e = new_epoch();
    st_write_enter(loc, st_now(), ST_REGION_SYNC);
    for (int l = 0, kid = 0; l < st_tree_steps(m); l++) {
        int c = st_tree_child(d, l, m);
        if (d > 0 && st_tree_child_step(d) == l)
            pong(loc, S.reps[st_tree_parent(d)]);
        else if (c >= 0) {
            ping(loc, S.reps[c], e && e->samples ? e->samples + (size_t)kid * (size_t)S.rounds : NULL);
            kid++;
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
        if (st_g.rank == 0 && S.nkids > 0 && S.nstored == S.nepochs && S.nstored >= 2
            && S.epochs[S.nstored - 2].samples && S.epochs[S.nstored - 1].samples) {
            double rate = st_clock_ticks_per_second();
            double t0 = INFINITY, ed = 0, ef = 0;
            struct epoch *a = &S.epochs[S.nepochs - 2], *b = &S.epochs[S.nepochs - 1];
            double span = (double)(b->ref_time - a->ref_time) / rate;
            /* rank 0's own tree edges: a sample of the links, as Fleury's
             * reference sees them */
            for (int p = 0; p < S.nkids; p++) {
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
    /* Periodic rounds also in the background, for programs whose world
     * collectives are rare or absent; where collective rounds can run,
     * the background one waits a quarter interval longer for them. */
    if ((st_cfg.sync & ST_SYNC_PERIODIC) && st_cfg.sync_background
        && st_bg_start(S.comm, S.comm_ref, S.reps, S.ndomains, S.rounds, S.interval, S.collective ? 1.25 : 1.0) != 0
        && st_g.rank == 0)
        st_warn("out of memory for background sync rounds; periodic rounds only at world collectives");
}

void st_sync_at_world_collective(struct st_call *call)
{
    if (!(st_cfg.sync & ST_SYNC_PERIODIC) || !S.collective)
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
        uint64_t last = S.last_round_ticks > st_bg_last_start() ? S.last_round_ticks : st_bg_last_start();
        double since_round = (double)(now - last) / rate_hz;
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
        st_bg_round_taken(S.last_round_ticks);
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

/* One tree edge's estimate in one epoch, sent by the parent to rank 0. */
struct edge_rec {
    int32_t child, epoch;        /* domain index, epoch number */
    struct estimate est;         /* child's clock + offset = parent's clock */
};

/* Each parent: its edges' estimates, from its samples, its rate and its
 * children's (sent up the tree: no rank needs everyone's). Collective. */
static struct edge_rec *edge_estimates(double rate, int *count)
{
    int d = S.me_d, m = S.ndomains;
    *count = 0;
    if (d < 0 || m < 2)
        return NULL;
    double *kid_rate = calloc((size_t)(S.nkids ? S.nkids : 1), sizeof *kid_rate);
    MPI_Request up = MPI_REQUEST_NULL;
    if (d > 0)
        PMPI_Isend(&rate, 1, MPI_DOUBLE, S.reps[st_tree_parent(d)], SYNC_TAG + 1, S.comm, &up);
    for (int k = 0; k < S.nkids; k++) {
        double r;
        PMPI_Recv(&r, 1, MPI_DOUBLE, S.reps[S.kids[k]], SYNC_TAG + 1, S.comm, MPI_STATUS_IGNORE);
        if (kid_rate)
            kid_rate[k] = r;
    }
    PMPI_Wait(&up, MPI_STATUS_IGNORE);
    struct edge_rec *out = kid_rate ? malloc(sizeof *out * (size_t)(S.nkids * S.nstored + 1)) : NULL;
    for (int e = 0; out && e < S.nstored; e++)
        for (int k = 0; k < S.nkids && S.epochs[e].samples; k++)
            out[(*count)++] = (struct edge_rec){ S.kids[k], e,
                estimate_offset(S.epochs[e].samples + (size_t)k * (size_t)S.rounds, S.rounds, rate, kid_rate[k]) };
    free(kid_rate);
    return out;
}

/* Rank 0: every domain's offset to the reference per epoch, composed along
 * the tree from the edges (parents come before their children in index
 * order). est[d * ne + e]; valid[...] is 0 where an edge was lost. */
static int compose(const struct edge_rec *edges, int nedges, int ne, struct estimate *est, char *valid)
{
    int m = S.ndomains;
    struct estimate *edge = calloc((size_t)m * (size_t)ne, sizeof *edge);
    char *have = calloc((size_t)m * (size_t)ne, 1);
    if (!edge || !have) {
        free(edge);
        free(have);
        return -1;
    }
    for (int i = 0; i < nedges; i++)
        if (edges[i].child > 0 && edges[i].child < m && edges[i].epoch >= 0 && edges[i].epoch < ne) {
            size_t at = (size_t)edges[i].child * (size_t)ne + (size_t)edges[i].epoch;
            edge[at] = edges[i].est;
            have[at] = 1;
        }
    for (int e = 0; e < ne; e++) {
        valid[e] = e < S.nstored;
        if (valid[e])
            est[e] = (struct estimate){ .peer_time = S.epochs[e].ref_time };   /* the reference itself */
        for (int d = 1; d < m; d++) {
            size_t at = (size_t)d * (size_t)ne + (size_t)e, up = (size_t)st_tree_parent(d) * (size_t)ne + (size_t)e;
            valid[at] = have[at] && valid[up];
            if (valid[at])
                est[at] = estimate_compose(edge[at], est[up]);
        }
    }
    free(edge);
    free(have);
    return 0;
}

/* Rank 0: the background rounds' estimates, direct to the reference (no
 * tree to compose), into slots ne.. of every rank's row in `all`; returns
 * how many slots the domain with the most needed (broadcast by the caller). */
static int background_slots(const struct st_bg_round *bg, int nbg, int **per_domain)
{
    int most = 0;
    *per_domain = calloc((size_t)(S.ndomains ? S.ndomains : 1), sizeof **per_domain);
    for (int k = 0; *per_domain && k < nbg; k++) {
        int c = ++(*per_domain)[S.dindex[bg[k].peer]];
        if (c > most)
            most = c;
    }
    return *per_domain ? most : 0;
}

/* A background round's samples are as tight as the two sides' calls are
 * frequent: in a program that computes 10 ms between calls, its fastest
 * round trip is milliseconds. OTF2 readers take every ClockOffset as exact
 * and interpolate between them, so a round becomes one only when it is as
 * precise as the domain's best collective round (and within
 * BG_KEEP_FLOOR_NS); its messages stay constraints for the merge either
 * way. Measured: on a 4-rank ring with 20 us between calls, keeping those
 * within twice the init round's error made the interpolation's median
 * 9x worse under linear skew, where no middle round can help. */
#define BG_KEEP_FLOOR_NS 1000.0
/* A clock's drift during one round, at most (a data sheet's 100 ppm). */
#define BG_MAX_DRIFT 100e-6

static void background_offsets(const struct st_bg_round *bg, int nbg, const double *rates, struct offset_rec *all,
                               size_t per_rank, int ne, const struct estimate *est_sync, const char *valid,
                               int *slot, int *kept, struct rf_meta *meta)
{
    int n = st_g.size;
    memset(slot, 0, sizeof *slot * (size_t)S.ndomains);
    *kept = 0;
    for (int k = 0; k < nbg; k++) {
        int d = S.dindex[bg[k].peer];
        struct estimate est = estimate_offset_bounds(bg[k].s, bg[k].n, rates[0], rates[bg[k].peer], BG_MAX_DRIFT);
        double limit = BG_KEEP_FLOOR_NS;
        for (int e = 0; e < ne; e++) {
            size_t at = (size_t)d * (size_t)ne + (size_t)e;
            if (valid[at] && est_sync[at].err_ns < limit)
                limit = est_sync[at].err_ns;
        }
        if (meta)
            rf_meta_sync_peer(meta, RF_META_KEY_SYNC_BACKGROUND, k, bg[k].peer, 0, est.rtt_min_ns, est.rtt_median_ns,
                              est.rtt_max_ns, est.offset_ns, est.err_ns);
        if (!(est.err_ns <= limit))
            continue;
        ++*kept;
        size_t at = (size_t)ne + (size_t)slot[d]++;
        for (int r = 0; r < n; r++)
            if (S.dindex[r] == d)
                all[(size_t)r * per_rank + at] = (struct offset_rec){ est.peer_time,
                    (int64_t)llround(est.offset_ns * rates[r] / 1e9), est.err_ns * rates[r] / 1e9 };
    }
}

static int by_time(const void *a, const void *b)
{
    const struct offset_rec *x = a, *y = b;
    return (x->time > y->time) - (x->time < y->time);
}

void st_sync_at_finalize(struct st_call *call, struct rf_meta *meta)
{
    st_bg_drain();
    if (st_cfg.sync & ST_SYNC_FINALIZE)
        st_sync_round(call);
    int n = st_g.size, me = st_g.rank, ne = S.nepochs, m = S.ndomains;
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

    /* Edge estimates up to rank 0: a count, then the records. */
    int nmine = 0;
    struct edge_rec *mine_edges = edge_estimates(rate, &nmine);
    int bytes = (int)(sizeof *mine_edges * (size_t)nmine);
    int *counts = me == 0 ? calloc((size_t)n, sizeof *counts) : NULL;
    int *displs = me == 0 ? calloc((size_t)n, sizeof *displs) : NULL;
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, S.comm);
    size_t total = 0;
    for (int r = 0; counts && displs && r < n; r++) {
        displs[r] = (int)total;
        total += (size_t)counts[r];
    }
    struct edge_rec *edges = me == 0 && counts && displs ? malloc(total ? total : 1) : NULL;
    PMPI_Gatherv(mine_edges, bytes, MPI_BYTE, edges, counts, displs, MPI_BYTE, 0, S.comm);
    free(mine_edges);

    int nbg = 0, nb = 0, bg_kept = 0, *bg_count = NULL;
    const struct st_bg_round *bg = me == 0 ? st_bg_rounds(&nbg) : NULL;
    if (me == 0)
        nb = background_slots(bg, nbg, &bg_count);
    PMPI_Bcast(&nb, 1, MPI_INT, 0, S.comm);
    size_t per_rank = (size_t)(ne + nb ? ne + nb : 1);
    struct offset_rec *all = NULL;
    struct offset_rec *mine = calloc(per_rank, sizeof *mine);
    struct estimate *est = NULL;
    char *valid = NULL;
    if (me == 0 && rates && edges && m > 0) {
        size_t per_domain = (size_t)(ne ? ne : 1);   /* compose's rows: the collective rounds only */
        est = calloc((size_t)m * per_domain, sizeof *est);
        valid = calloc((size_t)m * per_domain, 1);
        all = calloc(per_rank * (size_t)n, sizeof *all);
        if (!est || !valid || !all || (nb > 0 && !bg_count)
            || compose(edges, (int)(total / sizeof *edges), ne, est, valid) != 0) {
            free(all);
            all = NULL;
        }
        for (size_t i = 0; all && i < per_rank * (size_t)n; i++)
            all[i].stddev = -1;
        if (all && nb > 0)
            background_offsets(bg, nbg, rates, all, per_rank, ne, est, valid, bg_count, &bg_kept, meta);
        for (int r = 0; all && r < n; r++)
            for (int e = 0; e < ne; e++) {
                size_t at = (size_t)S.dindex[r] * (size_t)ne + (size_t)e;
                struct offset_rec *o = &all[(size_t)r * per_rank + (size_t)e];
                /* A lost edge (a parent out of memory): no offset; stddev < 0 says so. */
                *o = valid[at] ? (struct offset_rec){ est[at].peer_time,
                                                      (int64_t)llround(est[at].offset_ns * rates[r] / 1e9),
                                                      est[at].err_ns * rates[r] / 1e9 }
                               : (struct offset_rec){ 0, 0, -1 };
            }
        for (int e = 0; meta && all && e < ne; e++)
            for (int d = 1; d < m; d++) {
                size_t at = (size_t)d * (size_t)ne + (size_t)e;
                if (valid[at])
                    rf_meta_sync_peer(meta, RF_META_KEY_SYNC_EPOCH, e, S.reps[d], S.reps[st_tree_parent(d)],
                                      est[at].rtt_min_ns, est[at].rtt_median_ns, est[at].rtt_max_ns,
                                      est[at].offset_ns, est[at].err_ns);
            }
    }
    free(edges);
    free(counts);
    free(displs);
    free(est);
    free(valid);
    /* Hand the offsets out only if rank 0 has them and everyone has room
     * (memory): a scatter into a missing buffer would be erroneous. */
    int can = mine != NULL && (me != 0 || all != NULL), have = 0;
    PMPI_Allreduce(&can, &have, 1, MPI_INT, MPI_MIN, S.comm);
    if (have)
        PMPI_Scatter(all, (int)(per_rank * sizeof *all), MPI_BYTE, mine, (int)(per_rank * sizeof *mine), MPI_BYTE, 0,
                     S.comm);
    /* OTF2 readers interpolate between consecutive ClockOffsets: in time
     * order, the background rounds among the others. */
    size_t nvalid = 0;
    for (size_t e = 0; have && mine && e < per_rank; e++)
        if (mine[e].stddev >= 0)
            mine[nvalid++] = mine[e];
    if (nvalid)
        qsort(mine, nvalid, sizeof *mine, by_time);
    for (size_t e = 0; e < nvalid; e++)
        st_writer_clock_offset(mine[e].time, mine[e].offset, mine[e].stddev);
    if (meta) {
        rf_meta_sync_summary(meta, ne, S.rounds, m > 0 ? m - 1 : 0, st_tree_steps(m), S.interval,
                             S.interval_auto ? "auto" : "fixed");
        if (S.interval_auto) {
            rf_meta_line(meta, "sync.auto.t0_s", "%.6e", S.auto_t0);
            rf_meta_line(meta, "sync.auto.e_d_s", "%.6e", S.auto_ed);
            rf_meta_line(meta, "sync.auto.e_f", "%.3e", S.auto_ef);
        }
        if (st_cfg.sync & ST_SYNC_PERIODIC)
            rf_meta_line(meta, RF_META_KEY_SYNC_BACKGROUND_ROUNDS, "%d", st_bg_started());
        if (st_cfg.sync & ST_SYNC_PERIODIC)
            rf_meta_line(meta, RF_META_KEY_SYNC_BACKGROUND_KEPT, "%d", bg_kept);
        rf_meta_domains(meta, n, S.domain);
        if (rates)
            rf_meta_rates(meta, n, rates);
    }
    free(all);
    free(mine);
    free(rates);
    free(bg_count);
    st_bg_free();
    for (int e = 0; e < S.nstored; e++)
        free(S.epochs[e].samples);
    free(S.epochs);
    free(S.domain);
    free(S.dindex);
    free(S.reps);
    free(S.kids);
    memset(&S, 0, sizeof S);
}
