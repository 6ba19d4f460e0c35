/* blockqueue.c — see blockqueue.h. One thread, a ring of the jobs handed
 * over (each holds a block, so it never outgrows the blocks made), a pool
 * of free blocks. */
#include "blockqueue.h"

#include <pthread.h>
#include <stdlib.h>

struct job {
    bq_job_fn fn;
    void *arg;
    uint64_t tag;
    void *buf;
    size_t n;
};

struct bq_queue {
    size_t block;
    int nbuf;                     /* blocks made before bq_buffer waits for one back */
    pthread_mutex_t mu;
    pthread_cond_t work;          /* a job queued, or stop */
    pthread_cond_t back;          /* a job done: its block is free again */
    pthread_t thread;
    int threaded, stop;
    struct job *ring;             /* `made` places */
    int head, count, busy;        /* busy: a job taken off the ring and not done */
    void **pool;                  /* free blocks, room for `made` */
    int nfree, made;
    int failed;                   /* the first failed job's errno, or 0 */
};

/* The job is over (run or not): its block back to the pool. Holds mu. */
static void job_done(struct bq_queue *q, const struct job *j, int e)
{
    if (e && !q->failed)
        q->failed = e;
    q->pool[q->nfree++] = j->buf;
    pthread_cond_broadcast(&q->back);
}

static void *queue_main(void *arg)
{
    struct bq_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->count && !q->stop)
            pthread_cond_wait(&q->work, &q->mu);
        if (!q->count)
            break;
        struct job j = q->ring[q->head];
        q->head = (q->head + 1) % q->made;
        q->count--;
        q->busy = 1;
        int failed = q->failed;
        pthread_mutex_unlock(&q->mu);
        int e = failed ? 0 : j.fn(j.arg, j.tag, j.buf, j.n);
        pthread_mutex_lock(&q->mu);
        q->busy = 0;
        job_done(q, &j, e);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

struct bq_queue *bq_new(size_t block, int nbuf)
{
    struct bq_queue *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->block = block;
    q->nbuf = nbuf < 2 ? 2 : nbuf;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->back, NULL);
    q->threaded = pthread_create(&q->thread, NULL, queue_main, q) == 0;
    return q;
}

/* One block more: the ring and the pool grow to hold it. Holds mu. */
static void *make_block(struct bq_queue *q)
{
    size_t n = (size_t)q->made + 1;
    struct job *ring = malloc(sizeof *ring * n);
    void **pool = realloc(q->pool, sizeof *pool * n);
    if (pool)
        q->pool = pool;
    void *p = ring && pool ? malloc(q->block) : NULL;
    if (!p) {
        free(ring);
        return NULL;
    }
    for (int k = 0; k < q->count; k++)   /* the ring, in order, from 0 */
        ring[k] = q->ring[(q->head + k) % q->made];
    free(q->ring);
    q->ring = ring;
    q->head = 0;
    q->made++;
    return p;
}

void *bq_buffer(struct bq_queue *q)
{
    pthread_mutex_lock(&q->mu);
    /* wait only while a block is under way and will come back (the caller
     * may hold several, one per stream it has open) */
    while (!q->nfree && q->made >= q->nbuf && (q->count || q->busy))
        pthread_cond_wait(&q->back, &q->mu);
    void *p = q->nfree ? q->pool[--q->nfree] : make_block(q);
    pthread_mutex_unlock(&q->mu);
    return p;
}

/* The first failure, into *err once (the caller's, read on its thread). */
static int report(struct bq_queue *q, int *err)
{
    if (!q->failed)
        return 0;
    if (err && !*err)
        *err = q->failed;
    return -1;
}

int bq_submit(struct bq_queue *q, void *buf, size_t n, bq_job_fn job, void *arg, uint64_t tag, int *err)
{
    struct job j = { job, arg, tag, buf, n };
    pthread_mutex_lock(&q->mu);
    int rc = report(q, err);
    if (rc) {
        job_done(q, &j, 0);   /* an earlier job failed: this one does not run */
    } else if (q->threaded) {
        q->ring[(q->head + q->count) % q->made] = j;
        q->count++;
        pthread_cond_signal(&q->work);
    } else {
        job_done(q, &j, job(arg, tag, buf, n));
        rc = report(q, err);
    }
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void bq_give_back(struct bq_queue *q, void *buf)
{
    if (!buf)
        return;
    pthread_mutex_lock(&q->mu);
    q->pool[q->nfree++] = buf;
    pthread_cond_broadcast(&q->back);
    pthread_mutex_unlock(&q->mu);
}

int bq_drain(struct bq_queue *q, int *err)
{
    pthread_mutex_lock(&q->mu);
    while (q->count || q->busy)
        pthread_cond_wait(&q->back, &q->mu);
    int rc = report(q, err);
    pthread_mutex_unlock(&q->mu);
    return rc;
}

void bq_free(struct bq_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    if (q->threaded)
        pthread_join(q->thread, NULL);   /* after the ring is empty */
    for (int k = 0; k < q->nfree; k++)
        free(q->pool[k]);
    pthread_cond_destroy(&q->back);
    pthread_cond_destroy(&q->work);
    pthread_mutex_destroy(&q->mu);
    free(q->pool);
    free(q->ring);
    free(q);
}
