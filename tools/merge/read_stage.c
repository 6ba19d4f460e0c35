/* read_stage.c — the merge's first stage: read every rank's archive, check
 * that they are one run with every rank once, and lay the result out as one
 * rt_location per location, numbered as location_order.h says. */
#include <config.h>
#include "location_order.h"
#include "losses.h"
#include "merge_state.h"
#include "progress.h"
#include "rawdir.h"
#include "jobs.h"

#include <pthread.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>

/* Read the rank archives, `jobs` at a time: each has its own OTF2 reader,
 * and reading is most of a merge's time. The first error (in rank order)
 * is reported. `read_one` reads rank i: its definitions (first pass) or
 * its events (second pass). */
struct read_work {
    char **anchors;
    struct rt_location *ranks;
    int n;                    /* ranks [first, n) are read */
    int first;
    int total;                /* of all ranks (errors has as many): 0 means n */
    int next;                 /* next rank to read */
    pthread_mutex_t lock;
    char **errors;            /* per rank, NULL when read */
    struct member_pool *members;
    const char *stage;
    int (*read_one)(struct read_work *w, int i, char *err, size_t errlen);
    void *ctx;                /* read_one's */
};

/* A rank's error when even its message could not be copied. */
static char no_memory[] = "out of memory";

static void *read_worker(void *arg)
{
    struct read_work *w = arg;
    char err[4400];
    for (;;) {
        pthread_mutex_lock(&w->lock);
        int i = w->next < w->n ? w->next++ : -1;
        progress_update(w->stage, (uint64_t)(i < 0 ? w->n - w->first : i - w->first), (uint64_t)(w->n - w->first));
        pthread_mutex_unlock(&w->lock);
        if (i < 0)
            return NULL;
        if (w->read_one(w, i, err, sizeof err) != 0 && !(w->errors[i] = strdup(err)))
            w->errors[i] = no_memory;
#ifdef __GLIBC__
        /* The reading threads free what they decoded into their own
         * arenas, which glibc keeps, fragmented: at 10,000 ranks the peak
         * varied from 157 to 224 MB run to run. Handing the free pages
         * back every 256 ranks keeps it at 131-140 MB, in the same time. */
        if ((i & 255) == 255)
            malloc_trim(0);
#endif
    }
}

/* What the parallel merge's process 0 runs on this thread while the
 * others read its own ranks: the workers' (pmerge_read.c). */
struct remote_part {
    const struct merge_hand_over *h;
    pthread_mutex_t *lock;
    int *finalized;
};

/* Ranks [w->first, w->n) read by `jobs` threads, this one among them
 * unless `remote` takes it; errors in w->errors (by rank, of all
 * w->ranks). With keep_errors the caller takes them, else the first (in
 * rank order) is put in err. Returns 0, or -1 when any rank failed. */
static int read_ranks(struct read_work *w, int jobs, const struct remote_part *remote, int keep_errors, char *err,
                      size_t errlen)
{
    w->next = w->first;
    if (w->total < w->n)
        w->total = w->n;
    if (!(w->errors = calloc((size_t)(w->total > 0 ? w->total : 1), sizeof(char *)))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int own = w->n - w->first;
    if (jobs > own)
        jobs = own;
    int helpers = remote ? jobs : jobs - 1;   /* threads besides this one */
    pthread_t *threads = malloc(sizeof *threads * (size_t)(helpers > 0 ? helpers : 1));
    int started = 0;
    for (int k = 0; threads && k < helpers; k++)
        if (pthread_create(&threads[started], NULL, read_worker, w) == 0)
            started++;
    int remote_rc = 0;
    if (remote)
        remote_rc = remote->h->remote(remote->h->ctx, remote->lock, w->errors, remote->finalized, err, errlen);
    if (!remote || started == 0)
        read_worker(w);   /* this thread reads (too) */
    for (int k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
    free(threads);
    if (remote_rc != 0) {
        for (int i = 0; i < w->total; i++)
            if (w->errors[i] != no_memory)
                free(w->errors[i]);
        free(w->errors);
        w->errors = NULL;
        return -1;
    }
    if (keep_errors)
        return 0;
    int rc = 0;
    for (int i = 0; i < w->total; i++)
        if (w->errors[i]) {
            if (rc == 0)
                snprintf(err, errlen, "%s", w->errors[i]);
            rc = -1;
            if (w->errors[i] != no_memory)
                free(w->errors[i]);
        }
    free(w->errors);
    w->errors = NULL;
    return rc;
}

/* First pass: rank i's definitions and locations, without events. */
static int read_definitions(struct read_work *w, int i, char *err, size_t errlen)
{
    if (rt_read_rank_defs(w->anchors[i], &w->ranks[i], err, errlen) != 0)
        return -1;
    member_pool_share(w->members, &w->ranks[i]);   /* as it is read: the lists never pile up */
    return 0;
}

/* One run, every rank once, in rank order. For job `job` (its ranks from
 * offset on). Returns 0 or -1. */
static int check_ranks(struct merge_state *st, const struct merge_job *job)
{
    const struct rt_location *ranks = st->locs + job->offset;
    char **anchors = st->anchors + job->offset;
    int n = (int)job->n;
    const char *raw = job->dir;
    for (int i = 0; i < n; i++) {
        if (ranks[i].world_size != n || ranks[i].rank != i) {
            if (ranks[i].world_size != n)
                fprintf(stderr, "synctrace merge: %s: rank %d of a %d-rank run, but %s holds %d rank archives\n",
                        anchors[i], ranks[i].rank, ranks[i].world_size, raw, n);
            else
                fprintf(stderr, "synctrace merge: %s: holds rank %d where rank %d was expected\n", anchors[i],
                        ranks[i].rank, i);
            return -1;
        }
        if (strcmp(ranks[i].run_id ? ranks[i].run_id : "", ranks[0].run_id ? ranks[0].run_id : "") != 0) {
            fprintf(stderr, "synctrace merge: %s: from run %s, but %s is from run %s: archives of different runs\n",
                    anchors[i], ranks[i].run_id ? ranks[i].run_id : "?", anchors[0],
                    ranks[0].run_id ? ranks[0].run_id : "?");
            return -1;
        }
    }
    return 0;
}

static int by_location_id(const void *a, const void *b)
{
    const struct rt_location *x = a, *y = b;
    return loc_id_cmp(loc_id((uint32_t)x->rank, x->thread), loc_id((uint32_t)y->rank, y->thread));
}

/* From here on, one entry per location: a rank whose other threads called
 * MPI (MPI_THREAD_SERIALIZED or MULTIPLE) has several. They share the
 * rank's clock and definitions. The ranks' main locations stay first, so
 * entry r is rank r's; then the other threads, in location_order.h's order.
 * Returns 0 or -1. */
static int spread_threads(struct merge_state *st)
{
    int n = st->nanchors;
    if (n <= 0)
        return 0;
    struct rt_location **th = calloc((size_t)n, sizeof *th);
    uint32_t *nth = calloc((size_t)n, sizeof *nth);
    size_t total = (size_t)n;
    if (!th || !nth) {
        free(th);
        free(nth);
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        nth[i] = rt_take_threads(&st->locs[i], &th[i]);
        total += nth[i];
    }
    struct rt_location *all = realloc(st->locs, sizeof *all * total);
    if (all) {
        st->locs = all;
        size_t k = (size_t)n;
        for (int i = 0; i < n; i++)
            for (uint32_t j = 0; j < nth[i]; j++)
                all[k++] = th[i][j];
        qsort(all + n, total - (size_t)n, sizeof *all, by_location_id);
    } else {
        for (int i = 0; i < n; i++)
            for (uint32_t j = 0; j < nth[i]; j++)
                rt_free_location(&th[i][j]);
    }
    for (int i = 0; i < n; i++)
        free(th[i]);
    free(th);
    free(nth);
    if (!all) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    st->nlocs = (uint32_t)total;
    st->rep.threads = (uint32_t)(total - st->rep.ranks);
    return 0;
}

/* Every job's rank archives, one list: job j's from jobs[j].offset on. */
static int list_jobs(struct merge_state *st, char *err, size_t errlen)
{
    int njobs = jobs_find(st->opt.raw, &st->jobs, &st->rep.spawned_jobs_skipped);
    if (njobs < 0)
        return -1;
    st->njobs = njobs;
    int total = 0;
    for (int j = 0; j < njobs; j++) {
        char **anchors = NULL;
        int n = rawdir_list(st->jobs[j].dir, &anchors, err, errlen);
        if (n < 0) {
            fprintf(stderr, "synctrace merge: %s\n", err);
            return -1;
        }
        char **all = realloc(st->anchors, sizeof *all * (size_t)(total + n));
        if (!all) {
            rawdir_free(anchors, n);
            fprintf(stderr, "synctrace merge: out of memory\n");
            return -1;
        }
        memcpy(all + total, anchors, sizeof *all * (size_t)n);
        free(anchors);
        st->anchors = all;
        st->jobs[j].offset = (uint32_t)total;
        st->jobs[j].n = (uint32_t)n;
        total += n;
        st->nanchors = total;
    }
    return total;
}

int merge_read(struct merge_state *st)
{
    char err[4400];
    int n = list_jobs(st, err, sizeof err);
    if (n < 0)
        return -1;
    merge_memory_check(st);
    st->locs = calloc((size_t)n, sizeof *st->locs);
    if (!st->locs) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    st->nlocs = (uint32_t)n;
    struct read_work w = { .anchors = st->anchors, .ranks = st->locs, .n = n, .lock = PTHREAD_MUTEX_INITIALIZER,
                           .members = &st->members, .stage = "reading definitions", .read_one = read_definitions };
    if (read_ranks(&w, st->opt.jobs, NULL, 0, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    for (int j = 0; j < st->njobs; j++)
        if (check_ranks(st, &st->jobs[j]) != 0)
            return -1;
    if (st->opt.reference >= n) {
        fprintf(stderr, "synctrace merge: --reference %d: the trace has ranks 0 to %d\n", st->opt.reference, n - 1);
        return -1;
    }
    if (jobs_renumber(st) != 0)
        return -1;
    st->rep.ranks = (uint32_t)n;
    return spread_threads(st);
}

/* ---------- the second pass: events ---------- */

struct events_pass {
    struct merge_state *st;
    uint32_t *first, *locs;   /* rank i's locations: locs[first[i] .. first[i + 1]), its main one first */
    int *finalized;           /* per rank: its main location entered MPI_Finalize */
    const struct merge_hand_over *h;
    pthread_mutex_t hand_lock;   /* h->done is called by one thread at a time */
};

/* What one reading thread hands over: rank i's locations, chunk by chunk. */
struct rank_sink {
    struct events_pass *p;
    int i;
};

static uint64_t chunk_of(void *ctx, const struct rt_location *loc)
{
    struct rank_sink *k = ctx;
    return k->p->h->chunk ? k->p->h->chunk(k->p->h->ctx, (uint32_t)(loc - k->p->st->locs)) : 0;
}

static int chunk_done(void *ctx, struct rt_location *loc, int last, char *err, size_t errlen)
{
    struct rank_sink *k = ctx;
    struct events_pass *p = k->p;
    uint32_t r = (uint32_t)(loc - p->st->locs);
    if (r == p->locs[p->first[k->i]])   /* the main location: asked of each chunk while it is held */
        p->finalized[k->i] |= losses_finalized(loc);
    pthread_mutex_lock(&p->hand_lock);
    int rc = p->h->done(p->h->ctx, r, last, err, errlen);
    pthread_mutex_unlock(&p->hand_lock);
    return rc;
}

static int read_events(struct read_work *w, int i, char *err, size_t errlen)
{
    struct events_pass *p = w->ctx;
    struct merge_state *st = p->st;
    uint32_t n = p->first[i + 1] - p->first[i];
    if (n == 0)
        return 0;   /* not met: every rank has its main location */
    struct rt_location **mine = malloc(sizeof *mine * n);
    if (!mine) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < n; k++)
        mine[k] = &st->locs[p->locs[p->first[i] + k]];
    struct rank_sink k = { p, i };
    const struct rt_event_sink sink = { chunk_of, chunk_done, &k };
    int rc = rt_read_rank_events(mine, n, &sink, err, errlen);
    free(mine);
    return rc;
}

int merge_read_events(struct merge_state *st, const struct merge_hand_over *h)
{
    char err[4400];
    int n = st->nanchors;
    struct events_pass p = { .st = st, .h = h, .hand_lock = PTHREAD_MUTEX_INITIALIZER };
    p.first = calloc((size_t)n + 2, sizeof *p.first);
    p.locs = malloc(sizeof *p.locs * (st->nlocs ? st->nlocs : 1));
    p.finalized = h->finalized ? h->finalized : calloc((size_t)(n > 0 ? n : 1), sizeof *p.finalized);
    int rc = -1;
    if (!p.first || !p.locs || !p.finalized) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto done;
    }
    /* group the locations by rank: the main one (entry i), then its threads in order */
    for (uint32_t r = 0; r < st->nlocs; r++)
        p.first[st->locs[r].rank + 2]++;
    for (int i = 0; i < n; i++)
        p.first[i + 2] += p.first[i + 1];
    for (uint32_t r = 0; r < st->nlocs; r++)
        p.locs[p.first[st->locs[r].rank + 1]++] = r;
    /* the parallel merge: this process's share, and process 0 takes the workers' */
    int parallel = h->remote || h->rank_failed;
    int first = parallel ? (int)h->first : 0, end = parallel ? (int)h->end : n;
    struct read_work w = { .anchors = st->anchors, .ranks = st->locs, .n = end, .first = first, .total = n,
                           .lock = PTHREAD_MUTEX_INITIALIZER, .members = &st->members,
                           .stage = "reading rank archives", .read_one = read_events, .ctx = &p };
    struct remote_part remote = { h, &p.hand_lock, p.finalized };
    if (h->rank_failed) {   /* a worker: each rank's error goes to process 0 */
        if (read_ranks(&w, st->opt.jobs, NULL, 1, err, sizeof err) != 0) {
            h->rank_failed(h->ctx, UINT32_MAX, err);
            goto done;
        }
        rc = 0;
        for (int i = first; i < end; i++)
            if (w.errors[i]) {
                rc = h->rank_failed(h->ctx, (uint32_t)i, w.errors[i]) != 0 ? -1 : rc;
                if (w.errors[i] != no_memory)
                    free(w.errors[i]);
            }
        free(w.errors);
        goto done;
    }
    if (read_ranks(&w, st->opt.jobs, h->remote ? &remote : NULL, 0, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        goto done;
    }
    /* one run read: say what each rank of each job lost (losses.c), in order */
    for (int j = 0; j < st->njobs; j++)
        for (uint32_t i = st->jobs[j].offset; i < st->jobs[j].offset + st->jobs[j].n; i++) {
            uint64_t all = 0;
            for (uint32_t k = p.first[i]; k < p.first[i + 1]; k++)
                all += st->locs[p.locs[k]].nevents;
            losses_note(&st->rep, &st->locs[i], st->anchors[i], all, p.finalized[i]);
        }
    for (uint32_t r = 0; r < st->nlocs; r++)
        st->rep.events += st->locs[r].nevents;
    rc = 0;
done:
    free(p.first);
    free(p.locs);
    if (p.finalized != h->finalized)
        free(p.finalized);
    return rc;
}
