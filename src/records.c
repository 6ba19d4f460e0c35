/* records.c — the chunks of compact records (records.h): handing full ones
 * over, flushing them, the I/O thread that converts them, and the final
 * drain.
 *
 * Each location writes only its own current chunk, without a lock. Without
 * an I/O thread (the default) a full chunk is held by its location, and
 * nothing is converted on the call path until the buffer is spent: then
 * the thread that needs a chunk converts all it holds, in order, as one
 * flush (its own event writer), recorded as a BufferFlush region that
 * spans what the flush cost the program, as Score-P records its flushes.
 * With an I/O thread, full chunks go on one FIFO queue (all locations),
 * from which the I/O thread converts in order; a recording thread that
 * finds every chunk in use waits for it, and that wait is the flush
 * recorded. Either way a location's records reach its OTF2 event writer
 * in the order they were made, and chunk memory is bounded. */
#include <config.h>
#include "records.h"
#include "tracer.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Chunks of at most 128 KiB (few hand-overs, still cache-friendly to
 * convert), at least 8 KiB, and at least four in the budget. */
#define CHUNK_WORDS_MAX 16384
#define CHUNK_WORDS_MIN 1024

struct st_recchunk {
    struct st_recchunk *next;
    struct st_loc *loc;
    uint64_t *end;          /* the first word not written */
    uint64_t words[];
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;     /* the queue got a chunk, or stop */
    pthread_cond_t space;    /* chunks were freed */
    struct st_recchunk *head, *tail;   /* full chunks, oldest first */
    struct st_recchunk *pool;          /* free chunks */
    size_t nqueued, nchunks, max_chunks;
    uint32_t nlocs, chunk_words;
    atomic_int threaded;
    int stop, waiting;
    pthread_t thread;
} R = { .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .space = PTHREAD_COND_INITIALIZER };

static void convert_chunk(const struct st_recchunk *c)
{
    st_writer_convert(c->loc, c->words, c->end);
}

static size_t chunk_bytes(void)
{
    return sizeof(struct st_recchunk) + sizeof(uint64_t) * R.chunk_words;
}

/* Fresh chunk memory with its pages already there: faulting them in one
 * by one as records fill them costs more than the records (a fault per
 * 4 KiB, some 50 calls' worth); the kernel populates a mapping at once. */
static struct st_recchunk *chunk_map(void)
{
    void *p = mmap(NULL, chunk_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* A chunk from the pool or fresh memory; lock held. NULL only when out of
 * memory, or when `bounded` and the budget is spent. */
static struct st_recchunk *take_chunk(int bounded)
{
    struct st_recchunk *c = R.pool;
    if (c) {
        R.pool = c->next;
        return c;
    }
    if (bounded && R.nchunks >= R.max_chunks)
        return NULL;
    if ((c = chunk_map()) != NULL)
        R.nchunks++;
    return c;
}

static void give_chunk(struct st_loc *loc, struct st_recchunk *c)
{
    c->loc = loc;
    c->next = NULL;
    loc->rec.chunk = c;
    loc->rec.cur = c->words;
    loc->rec.end = c->words + R.chunk_words;
}

/* mpirun binds each rank to a core, and a thread inherits its binding: the
 * I/O thread would only take turns with the rank it serves. It may run on
 * any online CPU instead (where the kernel finds room). */
static void unbind(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 1 || n > CPU_SETSIZE)
        return;
    cpu_set_t all;
    CPU_ZERO(&all);
    for (long i = 0; i < n; i++)
        CPU_SET((int)i, &all);
    (void)sched_setaffinity(0, sizeof all, &all);   /* a refusal leaves the binding: still correct */
}

static void *io_main(void *arg)
{
    (void)arg;
    unbind();
    pthread_mutex_lock(&R.lock);
    for (;;) {
        while (!R.head && !R.stop)
            pthread_cond_wait(&R.work, &R.lock);
        struct st_recchunk *c = R.head;
        if (!c)
            break;   /* stop, and nothing left */
        R.head = c->next;
        if (!R.head)
            R.tail = NULL;
        R.nqueued--;
        pthread_mutex_unlock(&R.lock);
        convert_chunk(c);
        pthread_mutex_lock(&R.lock);
        c->next = R.pool;
        R.pool = c;
        /* Wake a waiting recorder only once a good part is free (or all
         * is converted): fewer sleeps and wake-ups on both sides. */
        if (R.waiting && R.nqueued <= R.max_chunks / 4)
            pthread_cond_broadcast(&R.space);
    }
    pthread_mutex_unlock(&R.lock);
    return NULL;
}

int st_rec_start(size_t budget, int io_thread)
{
    size_t words = budget / 4 / sizeof(uint64_t);
    R.chunk_words = words > CHUNK_WORDS_MAX ? CHUNK_WORDS_MAX : words < CHUNK_WORDS_MIN ? CHUNK_WORDS_MIN : (uint32_t)words;
    R.max_chunks = budget / (sizeof(uint64_t) * R.chunk_words);
    if (R.max_chunks < 4)
        R.max_chunks = 4;
    if (!io_thread)
        return 0;
    /* The I/O thread takes no signal: those sent to the process go to the
     * program's threads, as untraced. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&R.thread, NULL, io_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return -1;
    R.threaded = 1;
    return 0;
}

int st_rec_threaded(void)
{
    return R.threaded;
}

int st_rec_attach(struct st_loc *loc)
{
    pthread_mutex_lock(&R.lock);
    struct st_recchunk *c = take_chunk(0);
    if (c) {
        R.nlocs++;
        if (R.max_chunks < 2 * (size_t)R.nlocs)
            R.max_chunks = 2 * (size_t)R.nlocs;   /* every location can hand one over */
        give_chunk(loc, c);
    }
    pthread_mutex_unlock(&R.lock);
    return c ? 0 : -1;
}

static uint64_t *more(struct st_loc *loc, uint32_t need, struct st_time t);

int st_rec_last_enter_at(const struct st_loc *loc, uint64_t t)
{
    const struct st_recbuf *b = (const struct st_recbuf *)loc;
    size_t words = 2 + (size_t)(st_clock_g.skew_on != 0);
    if (!b->chunk || (size_t)(b->cur - b->chunk->words) < words)
        return 0;   /* the Enter went out with a full chunk: unknown, say no */
    const uint64_t *w = b->cur - words;
    return ST_REC_KIND(w[0]) == ST_REC_ENTER_KIND && ST_REC_NARGS(w[0]) == 0 && w[1] == t;
}

uint64_t *st_rec_more(struct st_loc *loc, uint32_t need, struct st_time t)
{
    st_writer_slow_begin();
    uint64_t *w = more(loc, need, t);
    st_writer_slow_end();
    return w;
}

/* Convert, in order, the chunks loc holds, and give them back. */
static void flush_held(struct st_loc *loc)
{
    struct st_recchunk *c = loc->rec.held;
    loc->rec.held = loc->rec.held_tail = NULL;
    while (c) {
        struct st_recchunk *next = c->next;
        convert_chunk(c);
        pthread_mutex_lock(&R.lock);
        c->next = R.pool;
        R.pool = c;
        pthread_mutex_unlock(&R.lock);
        c = next;
    }
}

static void hold(struct st_loc *loc, struct st_recchunk *c)
{
    c->next = NULL;
    if (loc->rec.held_tail)
        loc->rec.held_tail->next = c;
    else
        loc->rec.held = c;
    loc->rec.held_tail = c;
}

/* A fresh chunk for loc, its full chunk c handed over; *flushed set when
 * the program had to wait for one (a flush, or the I/O thread). NULL only
 * when out of memory. */
static struct st_recchunk *hand_over(struct st_loc *loc, struct st_recchunk *c, int *flushed)
{
    struct st_recchunk *fresh;
    if (!R.threaded) {
        hold(loc, c);
        pthread_mutex_lock(&R.lock);
        fresh = take_chunk(1);
        pthread_mutex_unlock(&R.lock);
        if (fresh)
            return fresh;
        *flushed = 1;
        flush_held(loc);
        /* Other threads may hold the rest of the budget: go over it by a
         * chunk rather than wait for their flushes. */
        pthread_mutex_lock(&R.lock);
        fresh = take_chunk(0);
        pthread_mutex_unlock(&R.lock);
        return fresh;
    }
    pthread_mutex_lock(&R.lock);
    while (!(fresh = take_chunk(1)) && R.threaded) {
        *flushed = 1;
        R.waiting++;
        pthread_cond_wait(&R.space, &R.lock);
        R.waiting--;
    }
    if (!fresh && !(fresh = take_chunk(0))) {
        pthread_mutex_unlock(&R.lock);
        return NULL;
    }
    if (R.threaded) {
        if (R.tail)
            R.tail->next = c;
        else
            R.head = c;
        R.tail = c;
        R.nqueued++;
        pthread_cond_signal(&R.work);
        pthread_mutex_unlock(&R.lock);
    } else {
        /* The I/O thread stopped meanwhile (close): convert here. */
        pthread_mutex_unlock(&R.lock);
        hold(loc, c);
        flush_held(loc);
    }
    return fresh;
}

static uint64_t *more(struct st_loc *loc, uint32_t need, struct st_time t)
{
    struct st_recchunk *c = loc->rec.chunk;
    if (need + ST_REC_FLUSH_WORDS > R.chunk_words || !c)
        return NULL;
    c->end = loc->rec.cur;
    int flushed = 0;
    struct st_recchunk *fresh = hand_over(loc, c, &flushed);
    if (!fresh) {
        /* Out of memory: this chunk's records are lost, recording goes on. */
        give_chunk(loc, c);
        return loc->rec.cur;
    }
    give_chunk(loc, fresh);
    if (flushed)
        st_write_flush(loc, t, st_now().t);   /* before the record at t, as OTF2 places its own */
    return loc->rec.cur;
}

void st_rec_drain(struct st_loc *const *locs, uint32_t n)
{
    if (R.threaded) {
        pthread_mutex_lock(&R.lock);
        R.stop = 1;
        pthread_cond_signal(&R.work);
        pthread_mutex_unlock(&R.lock);
        /* It converts what is queued, then ends. */
        pthread_join(R.thread, NULL);
        pthread_mutex_lock(&R.lock);
        R.threaded = 0;
        pthread_cond_broadcast(&R.space);
        pthread_mutex_unlock(&R.lock);
    }
    for (uint32_t i = 0; i < n; i++) {
        flush_held(locs[i]);
        struct st_recchunk *c = locs[i]->rec.chunk;
        if (!c)
            continue;
        c->end = locs[i]->rec.cur;
        convert_chunk(c);
        locs[i]->rec.cur = c->words;
    }
}

void st_rec_release(struct st_loc *const *locs, uint32_t n)
{
    pthread_mutex_lock(&R.lock);
    for (uint32_t i = 0; i < n; i++) {
        struct st_recchunk *c = locs[i]->rec.chunk;
        if (!c)
            continue;
        locs[i]->rec.chunk = NULL;
        locs[i]->rec.cur = locs[i]->rec.end = NULL;
        c->next = R.pool;
        R.pool = c;
    }
    /* Another thread may still be inside a traced call when a fatal signal
     * closes the archive: it would write to an unmapped chunk. Such memory
     * is left to the process's end (bounded by the buffer). */
    while (R.pool && n <= 1) {
        struct st_recchunk *next = R.pool->next;
        munmap(R.pool, chunk_bytes());
        R.pool = next;
        R.nchunks--;
    }
    R.nlocs = 0;
    pthread_mutex_unlock(&R.lock);
}
