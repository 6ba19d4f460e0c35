/* extsort.c — see extsort.h. */
#include "extsort.h"
#include "fsutil.h"
#include "table.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_IOBUF (64 * 1024)   /* a run's read buffer at least: large sequential reads */
#define MAX_IOBUF (4 << 20)     /* and at most: longer reads gain nothing */
#define MAX_RECORD (1 << 20)

struct run {                    /* a sorted run: n records from offset 0 of its spill file */
    int fd;
    uint64_t n;
};

struct cursor {                 /* one run, read through a buffer */
    struct run run;
    uint64_t read;              /* records read into buf so far */
    unsigned char *buf;
    size_t have, at;            /* records in buf, the current one */
};

struct merge {                  /* k runs merged: a heap of cursors, least record on top */
    struct cursor *c;
    uint32_t *heap, k, live;
    size_t bufrecs;             /* each cursor's buffer, in records */
    int handed;                 /* the top's record was handed out: advance it first */
};

struct st_extsort {
    size_t rec, budget, iobuf;  /* record bytes, memory budget, least I/O buffer */
    int (*cmp)(const void *, const void *);
    char *dir;
    unsigned char *buf;         /* the run being filled; all records when nothing spilled */
    size_t n, cap, max, at;     /* records in buf, room, room at most, next to hand out */
    struct run *runs;           /* spilled runs (all closed by free) */
    uint32_t nruns, runs_cap;
    struct merge final;         /* after finish, when something spilled */
    uint64_t count, spilled;
    uint32_t runs_written, merges;
    int finished, failed;
    char err[512];
};

static void say(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Record the first error (later ones follow from it). Returns -1. */
static int fail(struct st_extsort *s, const char *fmt, ...)
{
    if (!s->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err, sizeof s->err, fmt, ap);
        va_end(ap);
        s->failed = 1;
    }
    return -1;
}

static int no_memory(struct st_extsort *s)
{
    return fail(s, "sort spilling to %s: out of memory", s->dir);
}

/* A new spill file for a run of n records, kept in s->runs (closed by
 * free whatever happens next): its descriptor, or -1. */
static int run_create(struct st_extsort *s, uint64_t n)
{
    /* Writing past the file size limit raises SIGXFSZ, which ends the
     * process unless ignored: fail as write would when it is ignored. */
    struct rlimit rl;
    uint64_t bytes = n * s->rec;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && bytes > rl.rlim_cur)
        return fail(s, "spill file in %s: write: %s (a run of %" PRIu64 " bytes, the limit is %" PRIu64 ")",
                    s->dir, strerror(EFBIG), bytes, (uint64_t)rl.rlim_cur);
    if (s->nruns == s->runs_cap && st_grow((void **)&s->runs, &s->runs_cap, sizeof *s->runs) != 0)
        return no_memory(s);
    int fd = st_nameless_file(s->dir, "synctrace-sort");
    if (fd < 0)
        return fail(s, "spill file in %s: create: %s", s->dir, strerror(errno));
    s->runs[s->nruns++] = (struct run){ fd, n };
    return fd;
}

static int run_write(struct st_extsort *s, int fd, const void *p, size_t len)
{
    if (st_write_all(fd, p, len) != 0)
        return fail(s, "spill file in %s: write: %s", s->dir, strerror(errno));
    s->spilled += len;
    return 0;
}

/* Sort the buffered records and write them out as a run. */
static int spill(struct st_extsort *s)
{
    qsort(s->buf, s->n, s->rec, s->cmp);
    int fd = run_create(s, s->n);
    if (fd < 0 || run_write(s, fd, s->buf, s->n * s->rec) != 0)
        return -1;
    s->runs_written++;
    s->n = 0;
    return 0;
}

/* The cursor's next buffer of records (have = 0 at the run's end). */
static int refill(struct st_extsort *s, const struct merge *m, struct cursor *c)
{
    uint64_t left = c->run.n - c->read;
    size_t want = left < m->bufrecs ? (size_t)left : m->bufrecs, got;
    if (st_pread_all(c->run.fd, c->buf, want * s->rec, c->read * s->rec, &got) != 0)
        return fail(s, "spill file in %s: read: %s", s->dir, strerror(errno));
    struct stat st;
    if (got < want * s->rec)
        return fail(s, "spill file in %s: truncated (%lld bytes where a run has %" PRIu64 ")", s->dir,
                    fstat(c->run.fd, &st) == 0 ? (long long)st.st_size : -1LL, c->run.n * s->rec);
    c->read += want;
    c->have = want;
    c->at = 0;
    return 0;
}

/* Heap order: the lesser record; equal ones (not with a total order, but
 * whatever the caller gives) by run index, so that the result is the same
 * from run to run. */
static int less(const struct st_extsort *s, const struct merge *m, uint32_t a, uint32_t b)
{
    const struct cursor *x = &m->c[a], *y = &m->c[b];
    int r = s->cmp(x->buf + x->at * s->rec, y->buf + y->at * s->rec);
    return r ? r < 0 : a < b;
}

static void sift_down(const struct st_extsort *s, struct merge *m, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, least = i;
        if (l < m->live && less(s, m, m->heap[l], m->heap[least]))
            least = l;
        if (l + 1 < m->live && less(s, m, m->heap[l + 1], m->heap[least]))
            least = l + 1;
        if (least == i)
            return;
        uint32_t t = m->heap[i];
        m->heap[i] = m->heap[least];
        m->heap[least] = t;
        i = least;
    }
}

/* (Re)start the merge at each run's first record. */
static int merge_start(struct st_extsort *s, struct merge *m)
{
    m->live = 0;
    m->handed = 0;
    for (uint32_t i = 0; i < m->k; i++) {
        m->c[i].read = 0;
        if (refill(s, m, &m->c[i]) != 0)
            return -1;
        if (m->c[i].have)
            m->heap[m->live++] = i;
    }
    for (uint32_t i = m->live / 2; i-- > 0;)
        sift_down(s, m, i);
    return 0;
}

static void merge_close(struct merge *m)
{
    for (uint32_t i = 0; m->c && i < m->k; i++)
        free(m->c[i].buf);
    free(m->c);
    free(m->heap);
    memset(m, 0, sizeof *m);
}

/* A merge of runs[0..k), each read through bufrecs records. The cursors
 * copy the runs: s->runs may move meanwhile. */
static int merge_open(struct st_extsort *s, struct merge *m, const struct run *runs, uint32_t k, size_t bufrecs)
{
    memset(m, 0, sizeof *m);
    m->c = calloc(k, sizeof *m->c);
    m->heap = malloc(k * sizeof *m->heap);
    if (!m->c || !m->heap)
        return no_memory(s);
    m->k = k;
    m->bufrecs = bufrecs;
    for (uint32_t i = 0; i < k; i++) {
        m->c[i].run = runs[i];
        if (!(m->c[i].buf = malloc(bufrecs * s->rec)))
            return no_memory(s);
    }
    return merge_start(s, m);
}

/* The least record left, valid until the next call; NULL at the end or on
 * an error. The record handed out last is stepped over only now, since
 * refilling its buffer overwrites it. */
static const void *merge_next(struct st_extsort *s, struct merge *m)
{
    if (s->failed)
        return NULL;
    if (m->handed) {
        struct cursor *c = &m->c[m->heap[0]];
        m->handed = 0;
        if (++c->at == c->have && refill(s, m, c) != 0)
            return NULL;
        if (!c->have)
            m->heap[0] = m->heap[--m->live];
        sift_down(s, m, 0);
    }
    if (!m->live)
        return NULL;
    m->handed = 1;
    const struct cursor *c = &m->c[m->heap[0]];
    return c->buf + c->at * s->rec;
}

/* Records in each of n I/O buffers sharing the budget. */
static size_t share(const struct st_extsort *s, size_t n)
{
    size_t bytes = s->budget / n;
    return (bytes < MAX_IOBUF ? bytes : MAX_IOBUF) / s->rec;
}

/* Merge runs[0..g) into one run at the end of s->runs, then drop them:
 * g read buffers and the output buffer share the budget. */
static int merge_group(struct st_extsort *s, uint32_t g)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < g; i++)
        n += s->runs[i].n;
    size_t per = share(s, g + 1), k = 0;
    struct merge m;
    unsigned char *out = NULL;
    int fd = -1;
    if (merge_open(s, &m, s->runs, g, per) == 0 && (out = malloc(per * s->rec)) == NULL)
        no_memory(s);
    if (!s->failed)
        fd = run_create(s, n);
    for (const void *r; fd >= 0 && (r = merge_next(s, &m));) {
        memcpy(out + k * s->rec, r, s->rec);
        if (++k == per && run_write(s, fd, out, k * s->rec) == 0)
            k = 0;
    }
    if (!s->failed && k)
        run_write(s, fd, out, k * s->rec);
    merge_close(&m);
    free(out);
    if (s->failed)
        return -1;
    for (uint32_t i = 0; i < g; i++)
        close(s->runs[i].fd);
    memmove(s->runs, s->runs + g, (s->nruns - g) * sizeof *s->runs);
    s->nruns -= g;
    s->merges++;
    return 0;
}

struct st_extsort *st_extsort_new(size_t record_bytes, int (*cmp)(const void *, const void *),
                                  size_t budget_bytes, const char *spill_dir, char *err, size_t errlen)
{
    if (!spill_dir || !*spill_dir)
        spill_dir = st_temp_dir();
    if (record_bytes == 0 || record_bytes > MAX_RECORD || !cmp) {
        if (cmp)
            say(err, errlen, "sort spilling to %s: records of %zu bytes (from 1 to %d)", spill_dir, record_bytes, MAX_RECORD);
        else
            say(err, errlen, "sort spilling to %s: no comparison function", spill_dir);
        return NULL;
    }
    /* Checked now, not at the first spill, perhaps hours later. */
    struct stat st;
    int e = stat(spill_dir, &st) != 0 ? errno
          : !S_ISDIR(st.st_mode) ? ENOTDIR
          : faccessat(AT_FDCWD, spill_dir, W_OK | X_OK, AT_EACCESS) != 0 ? errno : 0;
    if (e) {
        say(err, errlen, "spill directory %s: %s", spill_dir, strerror(e));
        return NULL;
    }
    struct st_extsort *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(spill_dir))) {
        free(s);
        say(err, errlen, "sort spilling to %s: out of memory", spill_dir);
        return NULL;
    }
    s->rec = record_bytes;
    s->cmp = cmp;
    s->iobuf = (MIN_IOBUF + record_bytes - 1) / record_bytes * record_bytes;
    /* at the least, a 2-way merge with its output buffer */
    s->budget = budget_bytes > 3 * s->iobuf ? budget_bytes : 3 * s->iobuf;
    /* Half for the records: glibc's qsort is a merge sort that mallocs as
     * much again for its scratch (a third as much for records over 32
     * bytes). */
    s->max = s->budget / 2 / record_bytes;
    return s;
}

int st_extsort_pointer_scratch(struct st_extsort *s)
{
    if (s->rec <= 32 || s->count || s->finished)
        return -1;
    /* the records and qsort's array of pointers and its scratch, 16 bytes a record */
    s->max = s->budget / (s->rec + 16);
    return 0;
}

int st_extsort_put(struct st_extsort *s, const void *rec)
{
    if (s->failed)
        return -1;
    if (s->finished)
        return fail(s, "sort spilling to %s: a record put after finish", s->dir);
    if (s->n == s->cap) {
        if (s->cap == s->max) {
            if (spill(s) != 0)
                return -1;
        } else {
            /* grown by doubling: a small sort takes little memory */
            size_t cap = s->cap ? (s->cap > s->max / 2 ? s->max : 2 * s->cap) : s->iobuf / s->rec;
            unsigned char *b = realloc(s->buf, cap * s->rec);
            if (!b)
                return no_memory(s);
            s->buf = b;
            s->cap = cap;
        }
    }
    memcpy(s->buf + s->n++ * s->rec, rec, s->rec);
    s->count++;
    return 0;
}

int st_extsort_finish(struct st_extsort *s)
{
    if (s->failed)
        return -1;
    if (s->finished)
        return 0;
    s->finished = 1;
    if (!s->nruns) {
        if (s->n)
            qsort(s->buf, s->n, s->rec, s->cmp);
        return 0;
    }
    if (s->n && spill(s) != 0)
        return -1;
    free(s->buf);
    s->buf = NULL;
    s->n = s->cap = 0;
    /* The final merge reads fan runs at once; an intermediate one
     * fan - 1 and writes one. Merging the oldest runs first keeps the
     * merged runs of even length. */
    size_t fan = s->budget / s->iobuf;
    while (s->nruns > fan) {
        size_t g = s->nruns - fan + 1 < fan - 1 ? s->nruns - fan + 1 : fan - 1;
        if (merge_group(s, (uint32_t)g) != 0)
            return -1;
    }
    return merge_open(s, &s->final, s->runs, s->nruns, share(s, s->nruns));
}

const void *st_extsort_next(struct st_extsort *s)
{
    if (s->failed)
        return NULL;
    if (!s->finished) {
        fail(s, "sort spilling to %s: records read before finish", s->dir);
        return NULL;
    }
    if (s->nruns)
        return merge_next(s, &s->final);
    return s->at < s->n ? s->buf + s->at++ * s->rec : NULL;
}

int st_extsort_rewind(struct st_extsort *s)
{
    if (s->failed)
        return -1;
    if (!s->finished)
        return fail(s, "sort spilling to %s: rewind before finish", s->dir);
    s->at = 0;
    return s->nruns ? merge_start(s, &s->final) : 0;
}

int st_extsort_failed(const struct st_extsort *s) { return s->failed; }
const char *st_extsort_error(const struct st_extsort *s) { return s->err; }
uint64_t st_extsort_count(const struct st_extsort *s) { return s->count; }
uint32_t st_extsort_runs(const struct st_extsort *s) { return s->runs_written; }
uint32_t st_extsort_merges(const struct st_extsort *s) { return s->merges; }
uint64_t st_extsort_spilled_bytes(const struct st_extsort *s) { return s->spilled; }

void st_extsort_free(struct st_extsort *s)
{
    if (!s)
        return;
    merge_close(&s->final);
    for (uint32_t i = 0; i < s->nruns; i++)
        close(s->runs[i].fd);
    free(s->runs);
    free(s->buf);
    free(s->dir);
    free(s);
}
