/* blockwriter.h — blocks written and checksummed by a thread of their own,
 * in the order they are handed over, while the caller fills the next one.
 *
 * The causal index's build (causal_build.c) streams about a gigabyte of
 * chunk bytes for a 1000-rank trace of 10 M events; writing them (the
 * copy into the page cache) and chaining their checksums took a third of
 * the build's own time. A block handed over is written at its offset and
 * hashed into its stream's sum (blocks of one stream in order, so the sum
 * is the one written in place would give); at most `nbuf` blocks exist,
 * so the memory is bounded and a writer that falls behind holds the
 * caller back. Without a thread (pthread_create failed) every block is
 * written at once, in the caller. */
#ifndef SYNCTRACE_BLOCKWRITER_H
#define SYNCTRACE_BLOCKWRITER_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*bw_hash_fn)(uint64_t sum, const void *data, size_t n);

struct bw_writer;

/* Blocks of `block` bytes, at most nbuf of them (2 or more), hashed by
 * hash. NULL when out of memory. */
struct bw_writer *bw_new(size_t block, int nbuf, bw_hash_fn hash);
/* A block to fill (`block` bytes), waiting for one to come back when all
 * are under way; NULL when out of memory. */
void *bw_buffer(struct bw_writer *w);
/* Hand buf[0 .. n) over (a block from bw_buffer): written at off of fd, then *sum = hash(*sum, buf,
 * n), and buf goes back to the pool. *sum belongs to the writer until
 * bw_drain. Returns 0, or -1 with *err set (errno; once) when an earlier
 * block failed: nothing more is written then. */
int bw_submit(struct bw_writer *w, int fd, uint64_t off, void *buf, size_t n, uint64_t *sum, int *err);
/* A block from bw_buffer not handed over goes back (NULL: nothing). */
void bw_give_back(struct bw_writer *w, void *buf);
/* Every block handed over is written and hashed. 0, or -1 with *err set
 * (once) when one failed. */
int bw_drain(struct bw_writer *w, int *err);
/* Drains, ends the thread, frees the blocks. */
void bw_free(struct bw_writer *w);

#endif
