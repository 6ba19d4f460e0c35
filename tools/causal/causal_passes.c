/* causal_passes.c — the window passes of the causal index's build
 * (causal_build.c), several at once.
 *
 * Every window pass replays the same causal order with other columns, so
 * the passes are independent but for where their bytes go: the chunks of
 * strip s (window s's columns of every full vector) follow strip s - 1's
 * in the file, and their sizes are known only once encoded. The windows
 * are cut into `threads` contiguous ranges. The calling thread runs the
 * first range straight into the file, as a single thread does; each
 * other thread runs its range on a copy of the builder with pass state of
 * its own (vectors, messages in flight, instances, role and record
 * windows, cluster entries, statistics), its chunks' bytes and codes (a
 * word each, raw_codes) going to two nameless files of its own. When all
 * are done, the ranges are put in place in window order: the codes into
 * lines whose bases follow from the widths, as a single thread would have
 * made them, and the bytes copied behind. A key chunk's distance is
 * relative to the chunk that uses it, in the same strip, so the index is
 * byte for byte a single thread's.
 *
 * Memory: each thread keeps one window's vectors (the vector budget is per
 * pass running) and a block of cluster entries; on disk each thread but
 * the first holds its windows' share of the index once more until it is
 * put in place, and a file of all cluster entries (of which it fills its
 * columns: cb_finish adds them up). */
#include "causal_builder.h"
#include "fsutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pass_thread {
    struct builder b;             /* a copy of the first builder, with pass state of its own */
    struct ci_stats st;
    uint32_t index, first, end;   /* its windows [first, end) */
    int codes_fd, bytes_fd;       /* its nameless files (-1: in memory) */
    atomic_int *failed;           /* 1 + the first thread that failed, or 0 */
    pthread_t tid;
    int started, copied;
    char err[4400];
};

/* Windows [first, end), in order, on builder b: 0, or -1 with err. */
static int run_range(struct builder *b, uint32_t first, uint32_t end, char *err, size_t errlen)
{
    uint32_t N = b->N;
    uint32_t *waiters = malloc(sizeof *waiters * N), *next_waiter = malloc(sizeof *next_waiter * N);
    uint32_t *stack = malloc(sizeof *stack * N);
    uint8_t *queued = calloc(N, 1);
    int rc = waiters && next_waiter && stack && queued ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "causal index: out of memory for %u ranks", N);
    for (uint32_t k = first; k < end && rc == 0; k++) {
        b->lo = k * b->Wmax;
        b->W = N - b->lo < b->Wmax ? N - b->lo : b->Wmax;
        b->next_top = 0;
        if ((k > first && ci_entries_rewind(b->ent) != 0)
            || cb_run_pass(b, waiters, next_waiter, stack, queued, err, errlen) != 0) {
            if (*ci_entries_error(b->ent))
                snprintf(err, errlen, "causal index: %s", ci_entries_error(b->ent));
            rc = -1;
        }
        b->st->passes++;
    }
    /* a copy's streams and entries complete (the first builder's: cb_finish) */
    if (rc == 0 && b->raw_codes
        && (cb_os_done(&b->codes) != 0 || cb_os_done(&b->bytes) != 0 || ci_entries_flush(b->ent) != 0)) {
        snprintf(err, errlen, "causal index: %s", cb_build_error(b));
        rc = -1;
    }
    free(waiters);
    free(next_waiter);
    free(stack);
    free(queued);
    return rc;
}

/* The first failure stops the others at their next look (cb_cancelled);
 * its message is the one said. */
static void failed(atomic_int *f, uint32_t index)
{
    int none = 0;
    atomic_compare_exchange_strong(f, &none, (int)index + 1);
}

static void *range_thread(void *arg)
{
    struct pass_thread *t = arg;
    if (run_range(&t->b, t->first, t->end, t->err, sizeof t->err) != 0)
        failed(t->failed, t->index);
    return NULL;
}

/* Thread t's copy of the builder: the first one's shared parts (the match,
 * the clusters' maps, the roles' and records' files, the window's size)
 * and pass state of its own. 0, or -1 with t->err. */
static int copy_builder(struct pass_thread *t, const struct builder *first)
{
    struct builder *b = &t->b;
    size_t N = first->N;
    *b = *first;
    t->copied = 1;
    /* nothing of the first's that a pass changes or that its end frees
     * (the pass arrays are made below, each in place of the first's) */
    memset(&b->sent, 0, sizeof b->sent);
    memset(&b->under_way, 0, sizeof b->under_way);
    b->free_vecs = NULL;
    b->nfree = b->cfree = 0;
    b->live = 0;
    b->stamp = 0;
    b->roles_open = 0;
    b->ent = NULL;
    b->more_ent = NULL;
    b->nmore_ent = 0;
    b->bq = NULL;
    b->fd = -1;
    b->sweeps = NULL;
    b->steps = 0;
    b->oom = b->coll_failed = b->roles_failed = b->write_errno = 0;
    cb_os_open(&b->codes, -1, 0, &b->write_errno, NULL);
    cb_os_open(&b->bytes, -1, 0, &b->write_errno, NULL);
    b->inline_n = 0;
    memset(&b->line, 0, sizeof b->line);
    b->raw_codes = 1;
    b->enc = NULL;
    b->enc_block = NULL;
    b->enc_n = 0;
    b->enc_errno = 0;
    b->halt = t->failed;
    memset(&t->st, 0, sizeof t->st);
    b->st = &t->st;
    b->cur = NULL;   /* (the first's: cb_window_arrays_new would free it) */
    int windows = cb_window_arrays_new(b), arrays = cb_pass_arrays_new(b);
    b->recs = ci_recs_view(first->recs);
    if (windows != 0 || arrays != 0 || !b->recs) {
        snprintf(t->err, sizeof t->err, "causal index: out of memory for %zu ranks (%u columns at once)", N, b->Wmax);
        return -1;
    }
    if (!(b->ent = ci_entries_new(first->nentries, first->aside_dir, t->err, sizeof t->err)))
        return -1;
    if (first->fd >= 0) {   /* into files, as the first builder's go into the index file */
        t->codes_fd = st_nameless_file(first->aside_dir, "synctrace-index-codes");
        t->bytes_fd = st_nameless_file(first->aside_dir, "synctrace-index-bytes");
        if (t->codes_fd < 0 || t->bytes_fd < 0) {
            snprintf(t->err, sizeof t->err, "causal index: cannot create a file in %s: %s", first->aside_dir,
                     strerror(errno));
            return -1;
        }
        if (!(b->bq = bq_new(CI_HASH_BLOCK, 4))) {
            snprintf(t->err, sizeof t->err, "causal index: out of memory");
            return -1;
        }
        cb_os_open(&b->codes, t->codes_fd, 0, &b->write_errno, b->bq);
        cb_os_open(&b->bytes, t->bytes_fd, 0, &b->write_errno, b->bq);
    }
    return 0;
}

/* What a copy holds. */
static void copy_free(struct pass_thread *t)
{
    struct builder *b = &t->b;
    if (t->copied)
        cb_pass_state_free(b);   /* (roles_open is 0: the roles' file stays the first's) */
    if (t->codes_fd >= 0)
        close(t->codes_fd);
    if (t->bytes_fd >= 0)
        close(t->bytes_fd);
}

/* n bytes of a copy's stream from off: from its file, or its memory.
 * NULL, or why the read failed. */
static const char *stream_read(const struct ostream *o, int fd, void *buf, size_t n, uint64_t off)
{
    if (fd >= 0)
        return st_pread_exact(fd, buf, n, off);
    memcpy(buf, o->buf + off, n);
    return NULL;
}

/* A copy's windows after those before it: their codes into lines, their
 * bytes behind. 0, or -1 with what failed in why: a read of the copy's
 * files, or "" for a write (the builder's write_errno says it). */
static int put_in_place(struct builder *b, const struct pass_thread *t, char *why, size_t whylen)
{
    uint32_t buf[1 << 14];
    uint64_t at = b->bytes.total;
    const char *bad;
    *why = '\0';
    for (uint64_t off = 0; off < t->b.codes.total;) {
        size_t n = t->b.codes.total - off < sizeof buf ? (size_t)(t->b.codes.total - off) : sizeof buf;
        if ((bad = stream_read(&t->b.codes, t->codes_fd, buf, n, off)))
            return snprintf(why, whylen, "read: %s", bad), -1;
        for (size_t k = 0; k < n / 4; k++)
            if (cb_place_code(b, buf[k], &at) != 0)
                return -1;
        off += n;
    }
    for (uint64_t off = 0; off < t->b.bytes.total;) {
        size_t n = t->b.bytes.total - off < sizeof buf ? (size_t)(t->b.bytes.total - off) : sizeof buf;
        if ((bad = stream_read(&t->b.bytes, t->bytes_fd, buf, n, off)))
            return snprintf(why, whylen, "read: %s", bad), -1;
        if (cb_os_put(&b->bytes, buf, n) != 0)
            return -1;
        off += n;
    }
    if (b->bytes.total != at)   /* the codes' widths add up to the bytes */
        return snprintf(why, whylen, "their codes do not add up to their bytes"), -1;
    return 0;
}

int cb_run_windows(struct builder *b, uint32_t threads, char *err, size_t errlen)
{
    uint32_t windows = (uint32_t)(((uint64_t)b->N + b->Wmax - 1) / b->Wmax);
    uint32_t T = threads < windows ? threads : windows;
    T = T ? T : 1;
    struct pass_thread *pt = calloc(T, sizeof *pt);
    if (!pt) {
        snprintf(err, errlen, "causal index: out of memory");
        return -1;
    }
    atomic_int fail;
    atomic_init(&fail, 0);
    for (uint32_t t = 0; t < T; t++) {   /* contiguous ranges, the first the caller's */
        pt[t].index = t;
        pt[t].first = (uint32_t)((uint64_t)windows * t / T);
        pt[t].end = (uint32_t)((uint64_t)windows * (t + 1) / T);
        pt[t].codes_fd = pt[t].bytes_fd = -1;
        pt[t].failed = &fail;
    }
    /* cores to spare beside the passes: each encodes its full vectors on
     * a thread of its own (without one, in line) */
    int encoders = threads >= 2 * T;
    for (uint32_t t = 1; t < T && !atomic_load(&fail); t++) {
        if (copy_builder(&pt[t], b) != 0) {
            failed(&fail, t);
            break;
        }
        if (encoders)
            cb_encoder_start(&pt[t].b);
        pt[t].started = pthread_create(&pt[t].tid, NULL, range_thread, &pt[t]) == 0;
        if (!pt[t].started)
            range_thread(&pt[t]);   /* no thread: at once */
    }
    if (!atomic_load(&fail)) {
        if (encoders)
            cb_encoder_start(b);
        b->halt = &fail;
        if (run_range(b, pt[0].first, pt[0].end, pt[0].err, sizeof pt[0].err) != 0)
            failed(&fail, 0);
        b->halt = NULL;
    }
    for (uint32_t t = 1; t < T; t++)
        if (pt[t].started)
            pthread_join(pt[t].tid, NULL);
    cb_encoder_free(b);
    int rc = 0, first_failed = atomic_load(&fail);
    if (first_failed) {
        snprintf(err, errlen, "%s", pt[first_failed - 1].err);
        rc = -1;
    }
    b->st->threads = T;
    if (rc == 0 && T > 1 && !(b->more_ent = calloc(T - 1, sizeof *b->more_ent))) {
        snprintf(err, errlen, "causal index: out of memory");
        rc = -1;
    }
    /* in window order: each copy's statistics, its windows in place, its
     * entries to the first builder (cb_finish adds them up) */
    for (uint32_t t = 1; t < T; t++) {
        if (rc == 0) {
            b->st->passes += pt[t].st.passes;
            b->st->key_chunks += pt[t].st.key_chunks;
            for (int w = 0; w < 4; w++)
                b->st->chunks[w] += pt[t].st.chunks[w];
            char why[128];
            if (put_in_place(b, &pt[t], why, sizeof why) != 0) {
                if (!b->write_errno)
                    b->write_errno = pt[t].b.write_errno;
                if (b->write_errno || !*why)
                    snprintf(err, errlen, "causal index: %s", cb_build_error(b));
                else
                    snprintf(err, errlen, "causal index: the window passes' chunks set aside in %s: %s",
                             b->aside_dir, why);
                rc = -1;
            } else {
                b->more_ent[b->nmore_ent++] = pt[t].b.ent;
                pt[t].b.ent = NULL;
            }
        }
        copy_free(&pt[t]);
    }
    free(pt);
    return rc;
}

/* The other threads' cluster entries, once cb_finish has added them up. */
void cb_windows_free(struct builder *b)
{
    for (uint32_t t = 0; t < b->nmore_ent; t++)
        ci_entries_free(b->more_ent[t]);
    free(b->more_ent);
    b->more_ent = NULL;
    b->nmore_ent = 0;
}
