/* outside.c — processes outside the trace: the stage after read.
 *
 * A communicator of a spawned job, of its parents, or of jobs joined by
 * MPI_Comm_accept/connect has members that are not ranks of this trace's
 * MPI_COMM_WORLD. The tracer names each as (outside set, index) when it
 * could (rawformat.h, RF_OUTSIDE_BASE; the set's "KIND KEY" is a property
 * of the rank's archive), else as unknown. Here every such member becomes
 * a rank of its own after the trace's ranks (nworld, nworld + 1, ...): the
 * same process, wherever it appears, is the same rank; an unknown one is a
 * rank per (communicator, group, position). The merged archive gives each
 * a process without events (otf2out.c); the match counts messages and
 * collectives with them apart (match.h). */
#include "merge_state.h"
#include "rawformat.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct outside_index {
    uint32_t *slots;          /* open addressing: id + 1, 0 = empty */
    uint32_t nslots;
    uint64_t *hashes;         /* by id */
    uint32_t cap;
};

static uint64_t hash_label(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h ^ h >> 29;
}

/* The id of the process labelled `label` (added when new), or UINT32_MAX
 * when out of memory. */
static uint32_t intern(struct outside_table *t, struct outside_index *x, const char *label)
{
    if ((t->n + 1) * 2 > x->nslots) {
        uint32_t ns = x->nslots ? x->nslots * 2 : 64;
        uint32_t *slots = calloc(ns, sizeof *slots);
        if (!slots)
            return UINT32_MAX;
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t s = (uint32_t)(x->hashes[i] & (ns - 1));
            while (slots[s])
                s = (s + 1) & (ns - 1);
            slots[s] = i + 1;
        }
        free(x->slots);
        x->slots = slots;
        x->nslots = ns;
    }
    uint64_t h = hash_label(label);
    uint32_t s = (uint32_t)(h & (x->nslots - 1));
    for (; x->slots[s]; s = (s + 1) & (x->nslots - 1))
        if (x->hashes[x->slots[s] - 1] == h && strcmp(t->labels[x->slots[s] - 1], label) == 0)
            return x->slots[s] - 1;
    if (t->n == x->cap) {
        uint32_t cap = x->cap ? x->cap * 2 : 16;
        uint64_t *hashes = realloc(x->hashes, sizeof *hashes * cap);
        if (hashes)
            x->hashes = hashes;
        char **labels = hashes ? realloc(t->labels, sizeof *labels * cap) : NULL;
        if (!labels)
            return UINT32_MAX;
        t->labels = labels;
        x->cap = cap;
    }
    if (!(t->labels[t->n] = strdup(label)))
        return UINT32_MAX;
    x->hashes[t->n] = h;
    x->slots[s] = t->n + 1;
    return t->n++;
}

/* The job of rank r. */
static int job_of(const struct merge_state *st, int rank)
{
    for (int j = 0; j < st->njobs; j++)
        if (rank >= (int)st->jobs[j].offset && rank < (int)(st->jobs[j].offset + st->jobs[j].n))
            return j;
    return -1;
}

/* The parents' side of spawn `key` of job p: the local group (ranks of the
 * merge) of that intercommunicator as any of p's ranks defined it. */
static const struct rt_comm *spawn_intercomm(const struct merge_state *st, int p, uint64_t key)
{
    const struct merge_job *job = &st->jobs[p];
    for (uint32_t i = 0; i < job->n; i++) {
        const struct rt_location *r = &st->locs[job->offset + i];
        for (uint32_t c = 0; c < r->ncomms; c++)
            if (r->comms[c].inter && r->comms[c].has_key && r->comms[c].key == key)
                return &r->comms[c];
    }
    return NULL;
}

/* An outside member of rank r that is a process of another job merged
 * here (jobs.h): its rank in *out. 0 when it is, -1 when not. */
static int in_another_job(const struct merge_state *st, const struct rt_location *r, uint64_t v, uint64_t *out)
{
    uint32_t set = RF_OUTSIDE_SET(v), index = RF_OUTSIDE_INDEX(v);
    int j = job_of(st, r->rank);
    char kind[16];
    unsigned long long key;
    if (j < 0 || set >= r->noutside || !r->outside[set] || sscanf(r->outside[set], "%15s %llx", kind, &key) != 2)
        return -1;
    if (strcmp(kind, RF_OUTSIDE_SPAWN) == 0) {   /* its children: index is their world rank */
        for (int c = 0; c < st->njobs; c++)
            if (st->jobs[c].parent == j && st->jobs[c].parent_key == key && index < st->jobs[c].n) {
                *out = st->jobs[c].offset + index;
                return 0;
            }
    } else if (strcmp(kind, RF_OUTSIDE_PARENT) == 0 && st->jobs[j].parent >= 0 && st->jobs[j].parent_key == key) {
        /* its parents: index is the rank in the spawning communicator */
        const struct rt_comm *ic = spawn_intercomm(st, st->jobs[j].parent, key);
        if (ic && index < ic->nlocal && ic->local[index] < st->rep.ranks) {
            *out = ic->local[index];
            return 0;
        }
    }
    return -1;
}

/* Whether v[0..n) names a process that is not a rank of this run. */
static int any_outside(const struct merge_state *st, const uint64_t *v, uint32_t n)
{
    for (uint32_t i = 0; v && i < n; i++)
        if (v[i] >= st->rep.ranks)
            return 1;
    return 0;
}

/* Replace the outside members of v[0..n) by their ranks; `what` says which
 * group of which communicator, for the unknown ones. 0, or -1. */
static int resolve(const struct merge_state *st, uint64_t *v, uint32_t n, const struct rt_location *r,
                   const struct rt_comm *c, const char *what, struct outside_table *t, struct outside_index *x)
{
    uint32_t nworld = st->rep.ranks;
    for (uint32_t i = 0; v && i < n; i++) {
        if (v[i] < nworld)
            continue;
        uint64_t there;
        if (RF_MEMBER_IS_OUTSIDE(v[i]) && in_another_job(st, r, v[i], &there) == 0) {
            v[i] = there;
            continue;
        }
        char label[256];
        if (RF_MEMBER_IS_OUTSIDE(v[i])) {
            uint32_t set = RF_OUTSIDE_SET(v[i]);
            const char *name = set < r->noutside && r->outside[set] ? r->outside[set] : NULL;
            if (name)
                snprintf(label, sizeof label, "%s process %u", name, RF_OUTSIDE_INDEX(v[i]));
            else   /* a set the archive does not name: the rank's own */
                snprintf(label, sizeof label, "set %u of rank %d process %u", set, r->rank, RF_OUTSIDE_INDEX(v[i]));
        } else {
            /* unknown: one process per place it was seen (rank-local for a
             * communicator without an agreed key) */
            if (c->has_key)
                snprintf(label, sizeof label, "unknown %016llx %s %u", (unsigned long long)c->key, what, i);
            else
                snprintf(label, sizeof label, "unknown rank %d %p %s %u", r->rank, (const void *)c, what, i);
        }
        uint32_t id = intern(t, x, label);
        if (id == UINT32_MAX)
            return -1;
        v[i] = (uint64_t)nworld + id;
    }
    return 0;
}

int merge_outside(struct merge_state *st)
{
    struct outside_index x = { 0 };
    int rc = 0;
    /* the ranks' main locations own the definitions their threads borrow */
    for (uint32_t r = 0; r < st->nlocs && rc == 0; r++) {
        const struct rt_location *rk = &st->locs[r];
        if (rk->borrowed)
            continue;
        for (uint32_t c = 0; c < rk->ncomms && rc == 0; c++) {
            struct rt_comm *cm = &rk->comms[c];
            if (cm->self)
                continue;
            /* shared lists are changed only through a copy of this rank's own */
            if (any_outside(st, cm->members, cm->nmembers) && member_pool_own(cm) != 0)
                rc = -1;
            if (rc == 0)
                rc = resolve(st, cm->members, cm->nmembers, rk, cm, cm->inter ? "remote" : "group", &st->outside, &x);
            if (rc == 0 && cm->inter)
                rc = resolve(st, cm->local, cm->nlocal, rk, cm, "local", &st->outside, &x);
            if (rc == 0 && cm->has_in)
                rc = resolve(st, cm->in, cm->nin, rk, cm, "in", &st->outside, &x);
        }
    }
    free(x.slots);
    free(x.hashes);
    if (rc != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    st->rep.outside_processes = st->outside.n;
    return 0;
}

void outside_table_free(struct outside_table *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->labels[i]);
    free(t->labels);
    memset(t, 0, sizeof *t);
}
