/* causal_sweep.c — the paper's Fig. 7 comparison: average cluster-timestamp
 * size per event against the maximum cluster size, for self-organizing
 * clusters (the two-level algorithm with causal_build.c's default merge
 * policy, replayed on the causal order) and for pre-determined contiguous
 * clusters (ranks [0, s), [s, 2s), ...). An event's timestamp has as many
 * entries as its cluster had members when it was stamped, or nranks (the
 * Fidge/Mattern vector) for a cluster receive.
 *
 * Every maximum size is replayed at once, item by item as the build
 * stamps events (causal.h, ci_sweeps_item): memory per rank and size,
 * none per event (a recorded causal order took 7 bytes an event). */
#include "causal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Items go to the sweep's thread in batches of words: rank, plain (two
 * words), receive, npart, then the partners. */
#ifndef SWEEP_BATCH   /* (tests/unit_causal makes it small: many batches, items larger than one) */
#define SWEEP_BATCH ((size_t)1 << 16)
#endif
#define SWEEP_BUFFERS 4
#define ITEM_HEAD 5

/* The two-level algorithm at one maximum size. */
struct sweep {
    uint32_t s;
    uint32_t *cluster_of, *size, *next, *last, *mark, *clist;   /* members as linked lists */
    uint32_t stamp;
    double so, co, events;
};

struct ci_sweeps {
    uint32_t nranks, nsizes;
    struct sweep *by_size;    /* [size - 1] */
    /* the thread (ci_sweeps_start); by_size is its own while it runs */
    int threaded, stop;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, back;
    uint32_t *fill;           /* the batch being filled, nfill words */
    size_t nfill;
    uint32_t *queue[SWEEP_BUFFERS];   /* batches handed over, in order */
    size_t qlen[SWEEP_BUFFERS];
    int qhead, qcount, busy;
    uint32_t *spare[SWEEP_BUFFERS];
    int nspare;
};

static void sweep_free(struct sweep *w)
{
    free(w->cluster_of);
    free(w->size);
    free(w->next);
    free(w->last);
    free(w->mark);
    free(w->clist);
}

void ci_sweeps_free(struct ci_sweeps *s)
{
    if (!s)
        return;
    ci_sweeps_wait(s);
    for (uint32_t k = 0; s->by_size && k < s->nsizes; k++)
        sweep_free(&s->by_size[k]);
    free(s->by_size);
    free(s);
}

struct ci_sweeps *ci_sweeps_new(uint32_t nranks, uint32_t max_size)
{
    uint32_t N = nranks ? nranks : 1, n = max_size < N ? max_size : N;
    struct ci_sweeps *s = calloc(1, sizeof *s);
    if (!s || !(s->by_size = calloc(n ? n : 1, sizeof *s->by_size))) {
        free(s);
        return NULL;
    }
    s->nranks = nranks;
    s->nsizes = n;
    for (uint32_t k = 0; k < n; k++) {
        struct sweep *w = &s->by_size[k];
        w->s = k + 1;
        w->cluster_of = malloc(sizeof *w->cluster_of * N);
        w->size = malloc(sizeof *w->size * N);
        w->next = malloc(sizeof *w->next * N);
        w->last = malloc(sizeof *w->last * N);
        w->mark = calloc(N, sizeof *w->mark);
        w->clist = malloc(sizeof *w->clist * N);
        if (!w->cluster_of || !w->size || !w->next || !w->last || !w->mark || !w->clist) {
            ci_sweeps_free(s);
            return NULL;
        }
        for (uint32_t r = 0; r < N; r++) {
            w->cluster_of[r] = w->last[r] = r;
            w->size[r] = 1;
            w->next[r] = UINT32_MAX;
        }
    }
    return s;
}

static void sweep_item(struct sweep *w, uint32_t N, uint32_t r, uint64_t plain, int receive, const uint32_t *part,
                       uint32_t npart)
{
    uint32_t s = w->s, block = r / s * s, bsize = block + s <= N ? s : N - block;
    w->so += (double)plain * w->size[w->cluster_of[r]];
    w->co += (double)plain * bsize;
    w->events += (double)plain;
    if (!receive)
        return;
    w->events++;
    /* contiguous: a partner outside the block makes a cluster receive */
    int outside = 0;
    for (uint32_t j = 0; j < npart && !outside; j++)
        outside = part[j] / s * s != block;
    w->co += outside ? N : bsize;
    /* self-organizing: merge every partner's cluster if the union fits */
    uint32_t own = w->cluster_of[r], n = 0, usize = w->size[own];
    w->stamp++;
    for (uint32_t j = 0; j < npart; j++) {
        uint32_t c = w->cluster_of[part[j]];
        if (c != own && w->mark[c] != w->stamp) {
            w->mark[c] = w->stamp;
            w->clist[n++] = c;
            usize += w->size[c];
        }
    }
    if (n && usize <= s) {
        for (uint32_t x = 0; x < n; x++) {
            uint32_t c = w->clist[x];
            for (uint32_t q = c; q != UINT32_MAX; q = w->next[q])
                w->cluster_of[q] = own;
            w->next[w->last[own]] = c;
            w->last[own] = w->last[c];
            w->size[own] += w->size[c];
        }
        w->so += w->size[own];
    } else {
        w->so += n ? N : w->size[own];
    }
}

static void replay_item(struct ci_sweeps *s, uint32_t r, uint64_t plain, int receive, const uint32_t *part,
                        uint32_t npart)
{
    for (uint32_t k = 0; k < s->nsizes; k++)
        sweep_item(&s->by_size[k], s->nranks, r, plain, receive, part, npart);
}

static void replay_batch(struct ci_sweeps *s, const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i += ITEM_HEAD + w[i + 4])
        replay_item(s, w[i], w[i + 1] | (uint64_t)w[i + 2] << 32, (int)w[i + 3], w + i + ITEM_HEAD, w[i + 4]);
}

static void *sweep_main(void *arg)
{
    struct ci_sweeps *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->qcount && !s->stop)
            pthread_cond_wait(&s->work, &s->mu);
        if (!s->qcount)
            break;
        uint32_t *w = s->queue[s->qhead];
        size_t n = s->qlen[s->qhead];
        s->qhead = (s->qhead + 1) % SWEEP_BUFFERS;
        s->qcount--;
        s->busy = 1;
        pthread_mutex_unlock(&s->mu);
        replay_batch(s, w, n);
        pthread_mutex_lock(&s->mu);
        s->busy = 0;
        s->spare[s->nspare++] = w;
        pthread_cond_broadcast(&s->back);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void ci_sweeps_start(struct ci_sweeps *s)
{
    if (!s || s->threaded)
        return;
    for (int k = 0; k < SWEEP_BUFFERS; k++)
        if (!(s->spare[s->nspare] = malloc(sizeof *s->fill * SWEEP_BATCH)))
            break;
        else
            s->nspare++;
    int ok = s->nspare == SWEEP_BUFFERS;   /* else the items are replayed at once */
    if (ok) {
        pthread_mutex_init(&s->mu, NULL);
        pthread_cond_init(&s->work, NULL);
        pthread_cond_init(&s->back, NULL);
        s->fill = s->spare[--s->nspare];
        s->nfill = 0;
        s->stop = 0;
        ok = pthread_create(&s->thread, NULL, sweep_main, s) == 0;
        if (!ok) {
            s->spare[s->nspare++] = s->fill;
            s->fill = NULL;
            pthread_cond_destroy(&s->back);
            pthread_cond_destroy(&s->work);
            pthread_mutex_destroy(&s->mu);
        }
    }
    s->threaded = ok;
    if (!ok)
        while (s->nspare)
            free(s->spare[--s->nspare]);
}

/* The batch filled so far goes to the thread; an empty one to fill comes
 * back (there are as many queue places as batches: no overflow). */
static void hand_over(struct ci_sweeps *s)
{
    if (!s->nfill)
        return;
    pthread_mutex_lock(&s->mu);
    s->queue[(s->qhead + s->qcount) % SWEEP_BUFFERS] = s->fill;
    s->qlen[(s->qhead + s->qcount) % SWEEP_BUFFERS] = s->nfill;
    s->qcount++;
    pthread_cond_signal(&s->work);
    while (!s->nspare)
        pthread_cond_wait(&s->back, &s->mu);
    s->fill = s->spare[--s->nspare];
    s->nfill = 0;
    pthread_mutex_unlock(&s->mu);
}

/* Every batch handed over is replayed (by_size is the caller's again). */
static void drain(struct ci_sweeps *s)
{
    hand_over(s);
    pthread_mutex_lock(&s->mu);
    while (s->qcount || s->busy)
        pthread_cond_wait(&s->back, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void ci_sweeps_item(struct ci_sweeps *s, uint32_t r, uint64_t plain, int receive, const uint32_t *part,
                    uint32_t npart)
{
    if (!s->threaded) {
        replay_item(s, r, plain, receive, part, npart);
        return;
    }
    size_t need = ITEM_HEAD + (size_t)npart;
    if (need > SWEEP_BATCH) {   /* larger than a batch (a collective of 65531 ranks and more): here */
        drain(s);
        replay_item(s, r, plain, receive, part, npart);
        return;
    }
    if (s->nfill + need > SWEEP_BATCH)
        hand_over(s);
    uint32_t *w = s->fill + s->nfill;
    w[0] = r;
    w[1] = (uint32_t)plain;
    w[2] = (uint32_t)(plain >> 32);
    w[3] = (uint32_t)(receive != 0);
    w[4] = npart;
    if (npart)
        memcpy(w + ITEM_HEAD, part, sizeof *part * npart);
    s->nfill += need;
}

void ci_sweeps_wait(struct ci_sweeps *s)
{
    if (!s || !s->threaded)
        return;
    drain(s);
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_signal(&s->work);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->threaded = 0;
    free(s->fill);
    s->fill = NULL;
    while (s->nspare)
        free(s->spare[--s->nspare]);
    pthread_cond_destroy(&s->back);
    pthread_cond_destroy(&s->work);
    pthread_mutex_destroy(&s->mu);
}

void ci_sweeps_result(const struct ci_sweeps *s, uint32_t max_size, double *self_organizing, double *contiguous)
{
    if (!s->nsizes) {
        *self_organizing = *contiguous = -1;
        return;
    }
    uint32_t k = max_size < 1 ? 0 : max_size > s->nsizes ? s->nsizes - 1 : max_size - 1;
    const struct sweep *w = &s->by_size[k];
    *self_organizing = w->events ? w->so / w->events : 0;
    *contiguous = w->events ? w->co / w->events : 0;
}
