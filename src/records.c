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
 * in the order they were made, and chunk memory is bounded.
 *
 * Chunks are pages of the records file (recfile.h, MAP_SHARED) when it
 * could be made: a process killed outright leaves what it recorded in the
 * page cache, and the merge's recovery converts it. A converted chunk is
 * therefore kept (its location's `done` list) until all its events are in
 * whole chunks of the event file; a location may so hold, beyond the
 * budget, the records behind one event chunk. Where the file cannot grow
 * (disk full, file size limit, SYNCTRACE_KILL_SAFE=0) chunks are anonymous
 * memory, as they were: a SIGKILL then loses them. */
#include <config.h>
#include "records.h"
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

/* Chunks of at most 128 KiB (few hand-overs, still cache-friendly to
 * convert), at least 16 KiB, and at least four in the budget; whole pages,
 * since they are mapped from the records file. */
#define CHUNK_BYTES_MAX ((size_t)128 * 1024)
#define CHUNK_BYTES_MIN ((size_t)16 * 1024)   /* a record of ST_REC_MAX_WORDS fits */

struct st_recchunk {
    struct rf_recchunk_head head;   /* in the records file: what the recovery reads */
    struct st_recchunk *next;
    struct st_recchunk *all;        /* every chunk made, newest first (fork remaps them) */
    struct st_loc *loc;
    uint64_t *end;                  /* the first word not written */
    uint64_t last;                  /* loc's events once this chunk is converted */
    uint64_t file_offset;           /* its place in the records file; 0: anonymous memory */
    uint64_t pad[5];
    uint64_t words[];
};
_Static_assert(offsetof(struct st_recchunk, words) == RF_RECCHUNK_WORDS_AT, "recfile.h: where a chunk's records start");

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;     /* the queue got a chunk, or stop */
    pthread_cond_t space;    /* chunks were freed */
    struct st_recchunk *head, *tail;   /* full chunks, oldest first */
    struct st_recchunk *pool;          /* free chunks */
    struct st_recchunk *all;           /* every chunk made */
    size_t nqueued, nchunks, max_chunks, chunk_bytes;
    uint32_t nlocs, chunk_words;
    atomic_int threaded;
    int stop, waiting, converting;
    pthread_t thread;
    int fd;                            /* the records file, or -1 */
    uint64_t file_bytes;               /* its size: the header page and the chunks made */
    uint64_t file_limit;               /* RLIMIT_FSIZE: growing past it would raise SIGXFSZ */
    char *path;
} R = { .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .space = PTHREAD_COND_INITIALIZER,
        .fd = -1 };

static struct st_rec_sink sink;   /* the writer's (st_rec_start) */

static void convert_chunk(struct st_recchunk *c)
{
    struct st_loc *loc = c->loc;
    c->head.first = loc->evt.nevents;   /* one event per record: the recovery's place in the event file */
    sink.convert(loc, c->words, c->end);
    c->last = loc->evt.nevents;
}

/* Room for `bytes` more at the end of the records file, its blocks
 * allocated now: a store to a page of a shared mapping that the file
 * system cannot back is a SIGBUS. */
static int file_grow(uint64_t bytes)
{
    if (R.fd < 0 || R.file_bytes > R.file_limit || bytes > R.file_limit - R.file_bytes)
        return -1;
    int rc = posix_fallocate(R.fd, (off_t)R.file_bytes, (off_t)bytes);
    if (rc == EINTR)
        rc = posix_fallocate(R.fd, (off_t)R.file_bytes, (off_t)bytes);
    return rc == 0 ? 0 : -1;
}

/* A chunk in the records file, its pages made writable now (a shared
 * mapping is populated read-only, and the first store to each page would
 * fault on the call path); NULL when the file cannot grow. */
static struct st_recchunk *chunk_map_file(void)
{
    if (file_grow(R.chunk_bytes) != 0)
        return NULL;
    void *p = mmap(NULL, R.chunk_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, R.fd, (off_t)R.file_bytes);
    if (p == MAP_FAILED)
        return NULL;
    if (madvise(p, R.chunk_bytes, MADV_POPULATE_WRITE) != 0) {
        long page = sysconf(_SC_PAGESIZE);
        for (size_t k = 0; k < R.chunk_bytes; k += (size_t)(page > 0 ? page : 4096))
            ((volatile uint8_t *)p)[k] = 0;   /* the file's new blocks read as zeros */
    }
    struct st_recchunk *c = p;
    c->file_offset = R.file_bytes;
    R.file_bytes += R.chunk_bytes;
    return c;
}

/* Fresh chunk memory with its pages already there: faulting them in one
 * by one as records fill them costs more than the records (a fault per
 * 4 KiB, some 50 calls' worth); the kernel populates a mapping at once.
 * From the records file while it can grow, else anonymous. Lock held. */
static struct st_recchunk *chunk_map(void)
{
    struct st_recchunk *c = chunk_map_file();
    if (!c) {
        void *p = mmap(NULL, R.chunk_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        c = p;
        c->file_offset = 0;
    }
    c->all = R.all;
    R.all = c;
    return c;
}

/* A chunk free again: no longer its location's (magic 0: the recovery
 * passes over it), back in the pool. */
static void to_pool(struct st_recchunk *c)
{
    c->head.magic = 0;
    pthread_mutex_lock(&R.lock);
    c->next = R.pool;
    R.pool = c;
    pthread_mutex_unlock(&R.lock);
}

/* Give back loc's converted chunks whose events are all in whole chunks
 * of its event file (or never will be: the file failed). Only the thread
 * converting loc's records calls this. */
static void release_written(struct st_loc *loc)
{
    struct st_recchunk *c;
    while ((c = loc->rec.done) != NULL && (c->last <= loc->evt.nwritten || loc->evt.failed)) {
        loc->rec.done = c->next;
        if (!loc->rec.done)
            loc->rec.done_tail = NULL;
        to_pool(c);
    }
}

/* Append c to the list head..tail (a location's held or done chunks). */
static void append(struct st_recchunk **head, struct st_recchunk **tail, struct st_recchunk *c)
{
    c->next = NULL;
    if (*tail)
        (*tail)->next = c;
    else
        *head = c;
    *tail = c;
}

/* A chunk just converted: kept until its events reach the file. */
static void retire(struct st_recchunk *c)
{
    append(&c->loc->rec.done, &c->loc->rec.done_tail, c);
    release_written(c->loc);
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

/* Make c loc's current chunk: its head says so before its magic does. */
static void give_chunk(struct st_loc *loc, struct st_recchunk *c)
{
    c->loc = loc;
    c->next = NULL;
    c->head.location = loc->id;
    c->head.seq = ++loc->rec.nchunks;
    c->head.first = RF_RECCHUNK_UNCONVERTED;
    c->head.base = c->head.fill = (uint64_t)(uintptr_t)c->words;
    c->head.run.open = 0;
    atomic_signal_fence(memory_order_release);
    c->head.magic = RF_RECCHUNK_LIVE;
    loc->rec.chunk = c;
    loc->rec.cur = c->words;
    loc->rec.end = c->words + R.chunk_words;
    loc->rec.fill = &c->head.fill;
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
        R.converting = 1;
        pthread_mutex_unlock(&R.lock);
        convert_chunk(c);
        retire(c);
        pthread_mutex_lock(&R.lock);
        R.converting = 0;
        /* Wake a waiting recorder only once a good part is free (or all
         * is converted): fewer sleeps and wake-ups on both sides. */
        if (R.waiting && R.nqueued <= R.max_chunks / 4)
            pthread_cond_broadcast(&R.space);
    }
    pthread_mutex_unlock(&R.lock);
    return NULL;
}

/* A child the program forks gets the parent's mappings: shared ones would
 * let it write into the parent's records file. Its chunks become private
 * copies (the records file is the parent's), and it makes no new file
 * chunks. The lock is held across fork so that the list is whole. */
static int fork_locked;
static void before_fork(void)
{
    fork_locked = pthread_mutex_trylock(&R.lock) == 0;   /* never wait: fork may come from a signal handler */
}

static void parent_after_fork(void)
{
    if (fork_locked)
        pthread_mutex_unlock(&R.lock);
}

static void child_after_fork(void)
{
    /* Without the file (never made, or closed with the archive) no chunk
     * is remapped: R.all may then name unmapped ones. */
    for (struct st_recchunk *c = R.fd >= 0 ? R.all : NULL; c; c = c->all) {
        if (!c->file_offset)
            continue;
        off_t off = (off_t)c->file_offset;
        if (mmap(c, R.chunk_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, R.fd, off) == MAP_FAILED)
            mmap(c, R.chunk_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    }
    if (R.fd >= 0)
        close(R.fd);
    R.fd = -1;
    if (fork_locked)
        pthread_mutex_unlock(&R.lock);
}

/* The records file at `path`: its header page, written now. -1 when it
 * cannot be made (then chunks are anonymous memory). */
static int file_open(const char *path, size_t page)
{
    struct rlimit fsize;
    R.file_limit = getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY ? (uint64_t)fsize.rlim_cur
                                                                                         : UINT64_MAX;
    if (!(R.path = strdup(path)))
        return -1;
    R.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (R.fd < 0)
        return -1;
    uint8_t header[RF_RECORDS_CHUNK_BYTES_AT + 8] = { 0 };
    uint64_t header_bytes = page, chunk = R.chunk_bytes;
    memcpy(header, RF_RECORDS_MAGIC, sizeof RF_RECORDS_MAGIC - 1);
    memcpy(header + RF_RECORDS_HEADER_AT, &header_bytes, 8);
    memcpy(header + RF_RECORDS_CHUNK_BYTES_AT, &chunk, 8);
    if (file_grow(page) != 0 || pwrite(R.fd, header, sizeof header, 0) != (ssize_t)sizeof header) {
        close(R.fd);
        R.fd = -1;
        unlink(path);
        return -1;
    }
    R.file_bytes = page;
    static int registered;
    if (!registered++)
        pthread_atfork(before_fork, parent_after_fork, child_after_fork);
    return 0;
}

int st_rec_start(size_t budget, int io_thread, const char *records_path, const struct st_rec_sink *to)
{
    sink = *to;
    long page = sysconf(_SC_PAGESIZE);
    size_t pg = page > 0 ? (size_t)page : 4096;
    size_t bytes = budget / 4;
    bytes = bytes > CHUNK_BYTES_MAX ? CHUNK_BYTES_MAX : bytes < CHUNK_BYTES_MIN ? CHUNK_BYTES_MIN : bytes;
    bytes = bytes < pg ? pg : bytes / pg * pg;
    R.chunk_bytes = bytes;
    R.chunk_words = (uint32_t)((bytes - RF_RECCHUNK_WORDS_AT) / sizeof(uint64_t));
    R.max_chunks = budget / bytes;
    if (R.max_chunks < 4)
        R.max_chunks = 4;
    if (records_path && file_open(records_path, pg) != 0)
        st_verbose("%s: %s: records are kept in memory only (a SIGKILL loses those not yet written out)",
                   records_path, strerror(errno ? errno : EIO));
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

struct rf_recrun *st_rec_run_slot(struct st_loc *loc)
{
    return loc->rec.chunk ? &loc->rec.chunk->head.run : NULL;
}

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
    sink.slow_begin();
    uint64_t *w = more(loc, need, t);
    sink.slow_end();
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
        retire(c);
        c = next;
    }
}

static void hold(struct st_loc *loc, struct st_recchunk *c)
{
    append(&loc->rec.held, &loc->rec.held_tail, c);
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
        if (!fresh) {
            /* Out of memory: the converted chunks kept for the recovery
             * go back (c among them: it must not stay current), and a
             * SIGKILL may then lose their events not yet in the file. */
            struct st_recchunk *d;
            while ((d = loc->rec.done) != NULL) {
                loc->rec.done = d->next;
                to_pool(d);
            }
            loc->rec.done_tail = NULL;
            pthread_mutex_lock(&R.lock);
            fresh = take_chunk(0);
            pthread_mutex_unlock(&R.lock);
        }
        return fresh;
    }
    pthread_mutex_lock(&R.lock);
    /* Converted chunks wait for their events to reach the file: when
     * nothing is left to convert, waiting frees nothing; go over. */
    while (!(fresh = take_chunk(1)) && R.threaded && (R.nqueued || R.converting)) {
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
        /* Out of memory (with an I/O thread: c was not handed over): this
         * chunk's records are lost, recording goes on in it (the same
         * chunk to the recovery: its seq stays). */
        loc->rec.cur = c->words;
        *loc->rec.fill = c->head.base;
        return loc->rec.cur;
    }
    give_chunk(loc, fresh);
    if (flushed)
        sink.flush(loc, t, st_now().t);   /* before the record at t, as OTF2 places its own */
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
        struct st_recbuf *b = &locs[i]->rec;
        struct st_recchunk *c = b->chunk;
        b->chunk = NULL;
        b->cur = b->end = NULL;
        if (c) {
            c->next = b->done;   /* the converted ones too: their events are in the closed file */
            b->done = c;
        }
        while ((c = b->done) != NULL) {
            b->done = c->next;
            c->head.magic = 0;
            c->next = R.pool;
            R.pool = c;
        }
        b->done_tail = NULL;
    }
    /* The archive is complete: the records file has done its job. */
    if (R.fd >= 0) {
        close(R.fd);
        R.fd = -1;
        unlink(R.path);
    }
    R.all = NULL;
    /* Another thread may still be inside a traced call when a fatal signal
     * closes the archive: it would write to an unmapped chunk. Such memory
     * is left to the process's end (bounded by the buffer). */
    if (n <= 1) {
        while (R.pool) {
            struct st_recchunk *next = R.pool->next;
            munmap(R.pool, R.chunk_bytes);
            R.pool = next;
            R.nchunks--;
        }
    }
    R.nlocs = 0;
    pthread_mutex_unlock(&R.lock);
}
