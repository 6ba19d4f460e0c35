/* jobs_merge.c — spawned jobs become ranks of one run (part of read).
 *
 * Job j's rank i becomes rank offset_j + i; the world ranks its
 * communicators name move with it (other jobs' processes stay outside
 * members for outside.c to resolve); its communicators' keys are its own
 * (the tracer salts a spawned job's with the spawn's key). Clock domains are formed as the tracer forms them within a job:
 * ranks on one host that read the same clock share it (none with injected
 * skew, where every rank has a clock of its own), so a spawned rank on a
 * host of an earlier job joins that domain. A job's sync rounds measure
 * against its own rank 0's clock: when that clock is an earlier job's
 * domain, its estimates are carried over to the run's reference clock
 * through that domain's rounds; otherwise they say nothing about the
 * reference and are dropped (the job's offsets then come from its messages
 * alone, its drift only bounded). */
#include "merge_state.h"
#include "rawformat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void shift(uint64_t *v, uint32_t n, uint32_t below, uint32_t offset)
{
    for (uint32_t i = 0; v && i < n; i++)
        if (v[i] < below)
            v[i] += offset;
}

/* The offset (reference - local, local ticks) of rank `rep` at its local
 * time t: its rounds interpolated, the nearest one outside them. */
static double offset_at(const struct rt_location *rep, double t, double *stddev)
{
    const struct rt_offset *o = rep->offsets;
    uint32_t n = rep->noffsets, k = 0;
    while (k + 1 < n && (double)o[k + 1].time <= t)
        k++;
    *stddev = o[k].stddev;
    if (k + 1 >= n || (double)o[k].time >= t || o[k + 1].time <= o[k].time)
        return (double)o[k].offset;
    double f = (t - (double)o[k].time) / (double)(o[k + 1].time - o[k].time);
    *stddev = o[k].stddev > o[k + 1].stddev ? o[k].stddev : o[k + 1].stddev;
    return (double)o[k].offset + f * (double)(o[k + 1].offset - o[k].offset);
}

/* A main location's rounds, shared with its threads: set both. */
static void set_offsets(struct rt_location *r, struct rt_offset *v, uint32_t n)
{
    if (v != r->offsets)
        free(r->offsets);
    r->offsets = v;
    r->noffsets = n;
    for (uint32_t k = 0; k < r->nthreads; k++) {
        r->threads[k].offsets = v;
        r->threads[k].noffsets = n;
    }
}

/* Job j's rounds, measured against its rank 0's clock, carried to the
 * reference through domain `via` (an earlier job's), or dropped. */
static void carry_rounds(struct merge_state *st, const struct merge_job *job, int via)
{
    const struct rt_location *rep = via >= 0 ? &st->locs[via] : NULL;
    for (uint32_t i = 0; i < job->n; i++) {
        struct rt_location *r = &st->locs[job->offset + i];
        if (!rep || rep->noffsets == 0) {
            set_offsets(r, NULL, 0);
            continue;
        }
        for (uint32_t k = 0; k < r->noffsets; k++) {
            struct rt_offset *o = &r->offsets[k];
            double sd = 0;
            /* job rank 0's clock is rep's: its time there is this rank's plus the offset */
            double to_ref = offset_at(rep, (double)o->time + (double)o->offset, &sd);
            o->offset += (int64_t)llround(to_ref);
            o->stddev = sqrt(o->stddev * o->stddev + sd * sd);
        }
    }
}

int jobs_renumber(struct merge_state *st)
{
    st->rep.spawned_jobs = st->njobs - 1;
    if (st->njobs <= 1)
        return 0;
    uint32_t total = (uint32_t)st->nanchors;
    for (int j = 0; j < st->njobs; j++) {
        const struct merge_job *job = &st->jobs[j];
        for (uint32_t i = 0; i < job->n; i++) {
            struct rt_location *r = &st->locs[job->offset + i];
            /* domains: the host's clock, if an earlier rank reads it */
            int skewed = r->skew_offset_us != 0 || r->skew_drift_ppm != 0, domain = -1;
            for (uint32_t q = 0; !skewed && q < job->offset && domain < 0; q++) {
                const struct rt_location *e = &st->locs[q];
                if (!(e->skew_offset_us != 0 || e->skew_drift_ppm != 0) && e->host && r->host && e->clock && r->clock
                    && strcmp(e->host, r->host) == 0 && strcmp(e->clock, r->clock) == 0)
                    domain = e->domain;
            }
            r->domain = domain >= 0 ? domain : r->domain + (int)job->offset;
            r->rank += (int)job->offset;
            r->world_size = (int)total;
            for (uint32_t k = 0; k < r->nthreads; k++) {
                r->threads[k].rank = r->rank;
                r->threads[k].world_size = r->world_size;
                r->threads[k].domain = r->domain;
                r->threads[k].location = (uint64_t)r->threads[k].thread << 32 | (uint32_t)r->rank;
            }
            if (j == 0)
                continue;
            r->location = (uint32_t)r->rank;
            for (uint32_t c = 0; c < r->ncomms; c++) {
                struct rt_comm *cm = &r->comms[c];
                if (cm->self)
                    continue;
                if (member_pool_own(cm) != 0) {
                    fprintf(stderr, "synctrace merge: out of memory\n");
                    return -1;
                }
                shift(cm->members, cm->nmembers, job->n, job->offset);
                shift(cm->local, cm->nlocal, job->n, job->offset);
                shift(cm->in, cm->nin, job->n, job->offset);
            }
        }
        if (j > 0) {
            /* where this job's rank 0 clock went */
            int d0 = st->locs[job->offset].domain;
            carry_rounds(st, job, d0 < (int)job->offset ? d0 : -1);
        }
    }
    return 0;
}
