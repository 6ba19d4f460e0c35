/* repair.c — the repair stage. When the events contradict every clock
 * model the merge tried (delta > 0: the solve had to relax the constraints
 * by delta, Biberstein et al.'s negative-cycle relaxation), the global times
 * may still show messages received up to delta before they were sent. A
 * viewer must never show that, so those times go through the controlled
 * logical clock (clc.h: forward and backward amortization, the repair
 * Scalasca applies), which moves events only as far as happened-before
 * demands and keeps every rank's order. With delta = 0 nothing runs and
 * every interval inside a clock segment stays exact. */
#include <config.h>
#include "clc.h"
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int merge_repair(struct merge_state *st)
{
    if (!(st->sol.delta > 0))
        return 0;
    /* Unlike the rest of the merge, the repair holds every event's times
     * (docs/design.md, "Traces larger than memory"): say so at once, as
     * memcheck.c does before reading, rather than be killed without a word. */
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
    if (!t || !nev || gt_store_all(&st->gtime) != 0)
        goto oom;
    if (st->opt.min_latency > 0) {
        if (!(lmin = malloc(sizeof *lmin * (size_t)nd * nd)))
            goto oom;
        for (size_t k = 0; k < (size_t)nd * nd; k++)
            lmin[k] = st->opt.min_latency;
    }
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
        fprintf(stderr, "synctrace merge: repairing the contradicted times: %s\n", err);
        goto out;
    }
    for (uint32_t r = 0; r < n; r++) {
        uint64_t prev = 0;
        for (uint64_t i = 0; i < nev[r]; i++) {
            /* round up: a repaired receive must not fall back before its send */
            uint64_t v = t[r][i] <= 0 ? 0 : (uint64_t)ceil(t[r][i]);
            st->gtime.stored[r][i] = prev = v < prev ? prev : v;
        }
    }
    st->rep.repair_done = 1;
    st->rep.repair_jumps = cs.jumps;
    st->rep.repair_max_jump_ns = cs.max_jump_ns;
    st->rep.repair_backward_moved = cs.backward_moved;
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
