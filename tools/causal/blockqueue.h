/* blockqueue.h — blocks handed to a thread of their own, which runs each
 * block's job in the order they were handed over, while the caller fills
 * the next one.
 *
 * The causal index's build (causal_build.c) uses it twice: to write its
 * file (about a gigabyte of chunk bytes for a 1000-rank trace of 10 M
 * events; the copy into the page cache and the chained checksums took a
 * third of the build's own time) and to replay the cluster-size sweep
 * (causal_sweep.c). At most `nbuf` blocks exist while one is under way,
 * so the memory is bounded and a thread that falls behind holds the
 * caller back. Without a thread (pthread_create failed) every job runs at
 * once, in the caller. */
#ifndef SYNCTRACE_BLOCKQUEUE_H
#define SYNCTRACE_BLOCKQUEUE_H

#include <stddef.h>
#include <stdint.h>

/* A block's job: buf[0 .. n), with the caller's arg and tag (a file
 * offset, say). 0, or an errno: no later job runs then. */
typedef int (*bq_job_fn)(void *arg, uint64_t tag, const void *buf, size_t n);

struct bq_queue;

/* Blocks of `block` bytes, at most nbuf of them (2 or more) while one is
 * under way. NULL when out of memory. */
struct bq_queue *bq_new(size_t block, int nbuf);
/* A block to fill (`block` bytes), waiting for one to come back when all
 * are under way; NULL when out of memory. */
void *bq_buffer(struct bq_queue *q);
/* Hand buf[0 .. n) over (a block from bq_buffer): job(arg, tag, buf, n)
 * runs after every job handed over before it, then buf goes back to the
 * pool. What the job writes belongs to the thread until bq_drain. Returns
 * 0, or -1 with *err set (its errno; once; err may be NULL) when an
 * earlier job failed: this one does not run. */
int bq_submit(struct bq_queue *q, void *buf, size_t n, bq_job_fn job, void *arg, uint64_t tag, int *err);
/* A block from bq_buffer not handed over goes back (NULL: nothing). */
void bq_give_back(struct bq_queue *q, void *buf);
/* Every job handed over has run. 0, or -1 with *err set (once) when one
 * failed. */
int bq_drain(struct bq_queue *q, int *err);
/* Drains, ends the thread, frees the blocks in the pool. */
void bq_free(struct bq_queue *q);

#endif
