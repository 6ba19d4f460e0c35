/* blockwriter.c — see blockwriter.h. One thread, a queue of the blocks
 * handed over (never more than the blocks that exist), a pool of blocks. */
#include "blockwriter.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct job {
    int fd;
    uint64_t off;
    void *buf;
    size_t n;
    uint64_t *sum;
};

struct bw_writer {
    size_t block;
    int nbuf;                     /* blocks made before bw_buffer waits for one back */
    bw_hash_fn hash;
    pthread_mutex_t mu;
    pthread_cond_t work;          /* a job queued, or stop */
    pthread_cond_t back;          /* a job done: its block is free again */
    pthread_t thread;
    int threaded, stop;
    struct job *q;                /* ring of `made` jobs: each job holds a block, so it never overflows */
    int head, count, busy;        /* busy: a job taken off the queue and not done */
    void **pool;                  /* free blocks, room for `made` */
    int nfree, made;
    int failed;                   /* the first failed write's errno, or 0 */
};

/* The whole block at its offset: 0, or an errno. */
static int write_block(const struct job *j)
{
    const char *p = j->buf;
    for (size_t done = 0; done < j->n;) {
        ssize_t k = pwrite(j->fd, p + done, j->n - done, (off_t)(j->off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)   /* a write cut short is followed by one that says why (EFBIG, ENOSPC) */
            return k < 0 ? errno : EIO;
        done += (size_t)k;
    }
    return 0;
}

/* The job is over (written or not): its block back to the pool. Holds mu. */
static void job_done(struct bw_writer *w, const struct job *j, int e)
{
    if (e && !w->failed)
        w->failed = e;
    w->pool[w->nfree++] = j->buf;
    pthread_cond_broadcast(&w->back);
}

/* Write and hash, unless an earlier block failed (the file is lost then). */
static int run_job(struct bw_writer *w, const struct job *j, int failed)
{
    if (failed)
        return 0;
    int e = write_block(j);
    if (!e)
        *j->sum = w->hash(*j->sum, j->buf, j->n);
    return e;
}

static void *writer_main(void *arg)
{
    struct bw_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->count && !w->stop)
            pthread_cond_wait(&w->work, &w->mu);
        if (!w->count)
            break;
        struct job j = w->q[w->head];
        w->head = (w->head + 1) % w->made;
        w->count--;
        w->busy = 1;
        int failed = w->failed;
        pthread_mutex_unlock(&w->mu);
        int e = run_job(w, &j, failed);
        pthread_mutex_lock(&w->mu);
        w->busy = 0;
        job_done(w, &j, e);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct bw_writer *bw_new(size_t block, int nbuf, bw_hash_fn hash)
{
    struct bw_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->block = block;
    w->nbuf = nbuf < 2 ? 2 : nbuf;
    w->hash = hash;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->back, NULL);
    w->threaded = pthread_create(&w->thread, NULL, writer_main, w) == 0;
    return w;
}

/* One block more: the queue and the pool grow to hold it. Holds mu. */
static void *make_block(struct bw_writer *w)
{
    size_t n = (size_t)w->made + 1;
    struct job *q = malloc(sizeof *q * n);
    void **pool = realloc(w->pool, sizeof *pool * n);
    if (pool)
        w->pool = pool;
    void *p = q && pool ? malloc(w->block) : NULL;
    if (!p) {
        free(q);
        return NULL;
    }
    for (int k = 0; k < w->count; k++)   /* the ring, in order, from 0 */
        q[k] = w->q[(w->head + k) % w->made];
    free(w->q);
    w->q = q;
    w->head = 0;
    w->made++;
    return p;
}

void *bw_buffer(struct bw_writer *w)
{
    pthread_mutex_lock(&w->mu);
    /* wait only while a block is under way and will come back (the caller
     * may hold several, one per stream it has open) */
    while (!w->nfree && w->made >= w->nbuf && (w->count || w->busy))
        pthread_cond_wait(&w->back, &w->mu);
    void *p = w->nfree ? w->pool[--w->nfree] : make_block(w);
    pthread_mutex_unlock(&w->mu);
    return p;
}

/* The first failure, into *err once (the caller's, read on its thread). */
static int report(struct bw_writer *w, int *err)
{
    if (!w->failed)
        return 0;
    if (err && !*err)
        *err = w->failed;
    return -1;
}

int bw_submit(struct bw_writer *w, int fd, uint64_t off, void *buf, size_t n, uint64_t *sum, int *err)
{
    struct job j = { fd, off, buf, n, sum };
    pthread_mutex_lock(&w->mu);
    if (w->threaded) {
        w->q[(w->head + w->count) % w->made] = j;
        w->count++;
        pthread_cond_signal(&w->work);
    } else {
        job_done(w, &j, run_job(w, &j, w->failed));
    }
    int rc = report(w, err);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void bw_give_back(struct bw_writer *w, void *buf)
{
    if (!buf)
        return;
    pthread_mutex_lock(&w->mu);
    w->pool[w->nfree++] = buf;
    pthread_cond_broadcast(&w->back);
    pthread_mutex_unlock(&w->mu);
}

int bw_drain(struct bw_writer *w, int *err)
{
    pthread_mutex_lock(&w->mu);
    while (w->count || w->busy)
        pthread_cond_wait(&w->back, &w->mu);
    int rc = report(w, err);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void bw_free(struct bw_writer *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
    if (w->threaded)
        pthread_join(w->thread, NULL);   /* after the queue is empty */
    for (int k = 0; k < w->nfree; k++)
        free(w->pool[k]);
    pthread_cond_destroy(&w->back);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->mu);
    free(w->pool);
    free(w->q);
    free(w);
}
