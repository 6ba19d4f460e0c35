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
#include "blockqueue.h"

#include <stdlib.h>
#include <string.h>

/* Items go to the sweep's thread (blockqueue.h) in batches of words:
 * rank, plain (two words), receive, npart, then the partners. */
#ifndef SWEEP_BATCH   /* (tests/unit_causal makes it small: many batches, items larger than one) */
#define SWEEP_BATCH ((size_t)1 << 16)
#endif
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
    struct bq_queue *q;
    uint32_t *fill;           /* the batch being filled, nfill words */
    size_t nfill;
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

/* A batch on the queue's thread. */
static int replay_batch(void *arg, uint64_t tag, const void *buf, size_t bytes)
{
    struct ci_sweeps *s = arg;
    const uint32_t *w = buf;
    size_t n = bytes / sizeof *w;
    (void)tag;
    for (size_t i = 0; i < n; i += ITEM_HEAD + w[i + 4])
        replay_item(s, w[i], w[i + 1] | (uint64_t)w[i + 2] << 32, (int)w[i + 3], w + i + ITEM_HEAD, w[i + 4]);
    return 0;
}

void ci_sweeps_start(struct ci_sweeps *s)
{
    if (!s || s->q || !(s->q = bq_new(sizeof *s->fill * SWEEP_BATCH, 4)))
        return;   /* (out of memory: the items are replayed at once) */
    s->fill = bq_buffer(s->q);
    s->nfill = 0;
    if (!s->fill) {
        bq_free(s->q);
        s->q = NULL;
    }
}

/* The batch filled so far goes to the thread; an empty one comes back
 * (NULL when out of memory: then every batch has been replayed). */
static void hand_over(struct ci_sweeps *s)
{
    if (!s->nfill)
        return;
    bq_submit(s->q, s->fill, sizeof *s->fill * s->nfill, replay_batch, s, 0, NULL);
    s->nfill = 0;
    if (!(s->fill = bq_buffer(s->q)))
        ci_sweeps_wait(s);
}

void ci_sweeps_item(struct ci_sweeps *s, uint32_t r, uint64_t plain, int receive, const uint32_t *part,
                    uint32_t npart)
{
    size_t need = ITEM_HEAD + (size_t)npart;
    if (s->q && need > SWEEP_BATCH - s->nfill)
        hand_over(s);   /* no room left for it in this batch */
    if (s->q && need > SWEEP_BATCH)
        bq_drain(s->q, NULL);   /* larger than any batch (65531 partners and more): here, once the thread caught up */
    if (!s->q || need > SWEEP_BATCH) {
        replay_item(s, r, plain, receive, part, npart);
        return;
    }
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
    if (!s || !s->q)
        return;
    if (s->fill && s->nfill)
        bq_submit(s->q, s->fill, sizeof *s->fill * s->nfill, replay_batch, s, 0, NULL);
    else
        bq_give_back(s->q, s->fill);
    bq_free(s->q);   /* every batch replayed first */
    s->q = NULL;
    s->fill = NULL;
    s->nfill = 0;
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
