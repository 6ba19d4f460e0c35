/* recput.h — appending one compact record (records.h) to the calling
 * thread's location: inline, since every traced call does it twice. */
#ifndef SYNCTRACE_RECPUT_H
#define SYNCTRACE_RECPUT_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "clock.h"
#include "recfile.h"   /* the record layout */

struct st_loc;
struct st_recchunk;

/* A location's current chunk: the first member of struct st_loc. */
struct st_recbuf {
    uint64_t *cur, *end;
    uint64_t *fill;   /* the chunk's commit point in the records file (recfile.h) */
    struct st_recchunk *chunk;
    /* Full chunks kept for a flush (no I/O thread: records.c), oldest first. */
    struct st_recchunk *held, *held_tail;
    /* Converted chunks kept until their events are in the event file, so
     * that a SIGKILL loses none of them (records.c), oldest first. */
    struct st_recchunk *done, *done_tail;
    uint64_t nchunks;   /* chunks given to the location so far (their seq) */
};

/* Room for `need` more words in loc's chunk, handing the full one over
 * for conversion; NULL when the record cannot be kept (too large). `t` is
 * the time of the record to be put: a flush the program waits for is
 * recorded there (records.c). */
uint64_t *st_rec_more(struct st_loc *loc, uint32_t need, struct st_time t);

/* Where loc's open polling run is kept for the recovery (recfile.h): in
 * its current chunk, which no record changes while the run is open (any
 * record of the location ends the run first). NULL without a chunk. */
struct rf_recrun *st_rec_run_slot(struct st_loc *loc);

/* Whether loc's last record is an Enter stamped t: nothing was recorded
 * since (no nested call: an attribute callback's, an error handler's). */
int st_rec_last_enter_at(const struct st_loc *loc, uint64_t t);

/* Append a record of kind `kind` at time t with the header argument a0
 * and the n argument words v. */
static inline void st_rec_put(struct st_loc *loc, uint32_t kind, struct st_time t, uint32_t a0, const uint64_t *v,
                              uint32_t n)
{
    int truth = st_clock_g.skew_on;
    uint32_t need = 2 + n + (uint32_t)truth;
    struct st_recbuf *b = (struct st_recbuf *)loc;   /* its first member */
    uint64_t *w = b->cur;
    if (__builtin_expect((size_t)(b->end - w) < need, 0) && !(w = st_rec_more(loc, need, t)))
        return;
    w[0] = kind | (uint64_t)n << 8 | (truth ? ST_REC_TRUTH : 0) | (uint64_t)a0 << 32;
    w[1] = t.t;
    if (n)
        memcpy(w + 2, v, sizeof *v * n);
    if (truth)
        w[2 + n] = t.truth;
    /* The record is whole before it counts: a signal that closes the
     * archive converts up to cur. */
    atomic_signal_fence(memory_order_release);
    b->cur = w + need;
    *b->fill = (uint64_t)(uintptr_t)(w + need);
}

#endif
