/* repair.c — the repair stage. When the events contradict every clock
 * model the merge tried (delta > 0: the solve had to relax the constraints
 * by delta, Biberstein et al.'s negative-cycle relaxation), the global times
 * may still show messages received up to delta before they were sent. A
 * viewer must never show that, so those times go through the controlled
 * logical clock (clc.h: forward and backward amortization, the repair
 * Scalasca applies), which moves events only as far as happened-before
 * demands and keeps every rank's order. With delta = 0 nothing runs and
 * every interval inside a clock segment stays exact.
 *
 * The repair streams (clc_stream.h): what it keeps per event waits on
 * disk, in --spill-dir, and the global times are read back from there.
 * SYNCTRACE_REPAIR=memory runs the in-memory pass instead (clc.c: every
 * event's times in memory, some 49 bytes an event), the reference the
 * streaming one is tested against, event for event. */
#include <config.h>
#include "clc.h"
#include "merge_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note_repair(struct merge_state *st, const struct clc_stats *cs)
{
    st->rep.repair_done = 1;
    st->rep.repair_jumps = cs->jumps;
    st->rep.repair_max_jump_ns = cs->max_jump_ns;
    st->rep.repair_backward_moved = cs->backward_moved;
}

/* Every location's latency bound between clocks (NULL: none): *lmin. */
static int latencies(const struct merge_state *st, double **lmin)
{
    uint32_t nd = st->model.ndomains;
    *lmin = NULL;
    if (!(st->opt.min_latency > 0))
        return 0;
    if (!(*lmin = malloc(sizeof **lmin * (size_t)nd * nd)))
        return -1;
    for (size_t k = 0; k < (size_t)nd * nd; k++)
        (*lmin)[k] = st->opt.min_latency;
    return 0;
}

int merge_clc_stream(struct merge_state *st, const struct gtime_map *input, struct clc_times **out,
                     struct clc_stats *cs, struct clc_stream_usage *use, char *err, size_t errlen)
{
    uint32_t n = st->nlocs;
    uint64_t *nev = malloc(sizeof *nev * (n ? n : 1));
    double *lmin = NULL;
    if (!nev || latencies(st, &lmin) != 0) {
        free(nev);
        *out = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < n; r++)
        nev[r] = st->locs[r].nevents;
    struct gt_fill f = { input, st->locs, 0, 0, { 0 } };
    struct clc_stream_config cfg = { st->match.spill_dir, st->opt.sort_memory };
    int rc = clc_stream_correct(n, nev, gt_fill_times, &f, &st->match, st->model.domain_of, st->model.ndomains, lmin,
                                NULL, &cfg, out, cs, use, err, errlen);
    gt_fill_end(&f);
    free(nev);
    free(lmin);
    return rc;
}

static int repair_streaming(struct merge_state *st)
{
    merge_repair_disk_check(st, st->match.spill_dir);
    struct clc_stats cs;
    struct clc_stream_usage use;
    struct clc_times *ct;
    char err[4400];
    /* the input: the global times so far */
    if (merge_clc_stream(st, &st->gtime, &ct, &cs, &use, err, sizeof err) != 0) {
        if (!set_aside_error(st))   /* else that read is said once, by the caller */
            fprintf(stderr, "synctrace merge: repairing the contradicted times: %s\n", err);
        return -1;
    }
    gt_set_repaired(&st->gtime, ct);
    note_repair(st, &cs);
    st->rep.repair_disk_bytes = use.disk_bytes;
    st->rep.repair_max_in_flight = use.max_messages_in_flight;
    st->rep.repair_max_open_instances = use.max_open_instances;
    return 0;
}

/* The reference: every event's times in memory. */
static int repair_in_memory(struct merge_state *st)
{
    /* it holds every event's times (docs/design.md, "Traces larger than
     * memory"): say so at once, as memcheck.c does before reading, rather
     * than be killed without a word */
    double need, avail;
    if (!merge_clc_fits(st, &need, &avail))
        fprintf(stderr, "synctrace merge: the events contradict every clock model (delta %.3g ns): repairing them "
                        "takes about %.3g GB, more than the %.3g GB available here: the merge may be killed for "
                        "lack of memory (README, \"Large traces\")\n",
                st->sol.delta, need / 1e9, avail / 1e9);
    uint32_t n = st->nlocs, nd = st->model.ndomains;
    double **t = calloc(n, sizeof *t);
    uint64_t *nev = calloc(n, sizeof *nev);
    double *lmin = NULL;
    int rc = -1;
    /* the repair rewrites every location's times: all stored (gtime.h) */
    if (!t || !nev || gt_store_all(&st->gtime) != 0 || latencies(st, &lmin) != 0)
        goto oom;
    for (uint32_t r = 0; r < n; r++) {
        nev[r] = st->locs[r].nevents;
        if (!(t[r] = malloc(sizeof **t * (nev[r] ? nev[r] : 1))))
            goto oom;
        for (uint64_t i = 0; i < nev[r]; i++)
            t[r][i] = (double)st->gtime.stored[r][i];
    }
    struct clc_stats cs;
    char err[4400];
    if (clc_correct_times((const double *const *)t, nev, n, &st->match, st->model.domain_of, nd, lmin, NULL, t, &cs,
                          err, sizeof err) != 0) {
        if (!set_aside_error(st))   /* else that read is said once, by the caller */
            fprintf(stderr, "synctrace merge: repairing the contradicted times: %s\n", err);
        goto out;
    }
    for (uint32_t r = 0; r < n; r++)
        for (uint64_t i = 0; i < nev[r]; i++)
            st->gtime.stored[r][i] = gt_round_repaired(t[r][i]);
    note_repair(st, &cs);
    rc = 0;
    goto out;
oom:
    fprintf(stderr, "synctrace merge: out of memory\n");
out:
    for (uint32_t r = 0; t && r < n; r++)
        free(t[r]);
    free(t);
    free(nev);
    free(lmin);
    return rc;
}

int merge_repair(struct merge_state *st)
{
    if (!(st->sol.delta > 0))
        return 0;
    const char *how = getenv("SYNCTRACE_REPAIR");
    if (how && strcmp(how, "memory") == 0)
        return repair_in_memory(st);
    return repair_streaming(st);
}
