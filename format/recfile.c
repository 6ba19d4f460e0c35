/* recfile.c — see recfile_read.h. The file is untrusted input (fuzzed):
 * every chunk head and every record is checked before it is converted. */
#include <config.h>
#include "recfile_read.h"
#include "recfile.h"
#include "reckinds.h"
#include "evtchunk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int rf_records_open(const char *path, struct rf_records *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    uint8_t h[RF_RECORDS_CHUNK_BYTES_AT + 8];
    if (st.st_size < (off_t)sizeof h || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h
        || memcmp(h, RF_RECORDS_MAGIC, sizeof RF_RECORDS_MAGIC - 1) != 0) {
        snprintf(err, errlen, "%s: not a synctrace records file (no '%.*s' header)", path,
                 (int)sizeof RF_RECORDS_MAGIC - 2, RF_RECORDS_MAGIC);
        close(fd);
        return -1;
    }
    memcpy(&r->header_bytes, h + RF_RECORDS_HEADER_AT, 8);
    memcpy(&r->chunk_bytes, h + RF_RECORDS_CHUNK_BYTES_AT, 8);
    /* The tracer's sizes: a page of at most 1 MiB, chunks of at most 1 MiB
     * holding at least the largest record. */
    if (r->header_bytes < sizeof h || r->header_bytes > ((uint64_t)1 << 20) || r->chunk_bytes % 8
        || r->chunk_bytes < RF_RECCHUNK_WORDS_AT + 8 * (uint64_t)(ST_REC_MAX_WORDS + ST_REC_FLUSH_WORDS)
        || r->chunk_bytes > ((uint64_t)1 << 20)) {
        snprintf(err, errlen, "%s: damaged records file header (page %llu, chunk %llu bytes)", path,
                 (unsigned long long)r->header_bytes, (unsigned long long)r->chunk_bytes);
        close(fd);
        return -1;
    }
    r->size = (size_t)st.st_size;
    r->nchunks = r->size > r->header_bytes ? (r->size - r->header_bytes) / r->chunk_bytes : 0;
    if (r->nchunks) {
        void *p = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        r->map = p;
    }
    close(fd);
    return 0;
}

void rf_records_close(struct rf_records *r)
{
    if (r->map)
        munmap((void *)r->map, r->size);
    memset(r, 0, sizeof *r);
}

/* A live chunk of the location: its head and its whole records. */
struct live {
    uint64_t seq, first;
    const uint64_t *words;
    uint64_t nwords;
    struct rf_recrun run;
};

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const struct live *)a)->seq, y = ((const struct live *)b)->seq;
    return x < y ? -1 : x > y;
}

static uint64_t capacity(const struct rf_records *r)
{
    return (r->chunk_bytes - RF_RECCHUNK_WORDS_AT) / 8;
}

/* The live chunks of loc, in seq order; -1 when out of memory. */
static int collect(const struct rf_records *r, uint64_t loc, struct live **out, uint64_t *n)
{
    *out = NULL;
    *n = 0;
    uint64_t cap = 0;
    for (uint64_t k = 0; k < r->nchunks; k++) {
        const uint8_t *c = r->map + r->header_bytes + k * r->chunk_bytes;
        struct rf_recchunk_head h;
        memcpy(&h, c, sizeof h);
        if (h.magic != RF_RECCHUNK_LIVE || h.location != loc)
            continue;
        uint64_t nwords = h.fill >= h.base && (h.fill - h.base) % 8 == 0 ? (h.fill - h.base) / 8 : UINT64_MAX;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            struct live *v = realloc(*out, sizeof *v * cap);
            if (!v) {
                free(*out);
                *out = NULL;
                return -1;
            }
            *out = v;
        }
        (*out)[(*n)++] = (struct live){ h.seq, h.first, (const uint64_t *)(c + RF_RECCHUNK_WORDS_AT),
                                        nwords > capacity(r) ? UINT64_MAX : nwords, h.run };
    }
    if (*n > 1)
        qsort(*out, *n, sizeof **out, by_seq);
    return 0;
}

static const uint32_t least_args[REC_KINDS] = {
#define ST_REC_LEAST(kind, fn, least) least,
    ST_RECORDS(ST_REC_LEAST)
#undef ST_REC_LEAST
};

/* The words of the whole, well-formed records at the start of
 * [w, w + nwords), and their number in *nrec. */
static uint64_t well_formed(const uint64_t *w, uint64_t nwords, int true_time, uint64_t *nrec)
{
    uint64_t at = 0;
    *nrec = 0;
    while (at + 2 <= nwords) {
        uint64_t h = w[at];
        uint32_t kind = ST_REC_KIND(h), n = ST_REC_NARGS(h);
        int truth = (h & ST_REC_TRUTH) != 0;
        if (kind >= REC_KINDS || n > ST_REC_MAX_WORDS || n < least_args[kind] || truth != (true_time != 0)
            || (h >> 25 & 0x7f) != 0 || 2 + (uint64_t)n + (uint64_t)truth > nwords - at)
            break;
        at += 2 + (uint64_t)n + (uint64_t)truth;
        (*nrec)++;
    }
    return at;
}

/* Past the first `skip` records of [w, w + nwords) (all well-formed). */
static const uint64_t *past(const uint64_t *w, uint64_t skip)
{
    while (skip--)
        w += 2 + ST_REC_NARGS(w[0]) + ((w[0] & ST_REC_TRUTH) != 0);
    return w;
}

uint64_t rf_records_replay(const struct rf_records *r, uint64_t loc, uint64_t in_file, int true_time,
                           struct st_evtfile *f, const struct st_convert_refs *refs, const char **why)
{
    const char *reason = NULL;
    uint64_t added = 0;
    struct live *c = NULL;
    uint64_t n = 0;
    if (!r->map)
        goto out;
    if (collect(r, loc, &c, &n) != 0) {
        reason = "out of memory";
        goto out;
    }
    if (n == 0)
        goto out;   /* nothing of this location's left */
    /* The first live chunk continues the event file: a converted one says
     * where its records start; an unconverted one starts right after the
     * file (every converted chunk before it was released only once all
     * its events were in the file). */
    uint64_t at = c[0].first == RF_RECCHUNK_UNCONVERTED ? in_file : c[0].first;
    if (at > in_file) {
        reason = "its records do not continue its event file";
        goto out;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (i > 0 && c[i].seq != c[i - 1].seq + 1) {
            reason = "a chunk of its records is missing";
            break;
        }
        if (c[i].first != RF_RECCHUNK_UNCONVERTED && c[i].first != at) {
            reason = "its records are out of order";
            break;
        }
        if (c[i].nwords == UINT64_MAX) {
            reason = "a chunk of its records is damaged";
            break;
        }
        uint64_t nrec, used = well_formed(c[i].words, c[i].nwords, true_time, &nrec);
        uint64_t skip = at < in_file ? (in_file - at < nrec ? in_file - at : nrec) : 0;
        if (f && nrec > skip)
            st_convert(f, refs, past(c[i].words, skip), c[i].words + used);
        added += nrec - skip;
        at += nrec;
        if (used != c[i].nwords) {
            reason = "a record is damaged";
            break;
        }
    }
    /* Records that end within the file are those whose chunks were not
     * yet given back when the process died: nothing to add. The open
     * polling run, kept by the current (last) chunk, comes after them all. */
    if (!reason && n > 0 && c[n - 1].run.open == RF_RECRUN_OPEN) {
        const struct rf_recrun *run = &c[n - 1].run;
        if (run->calls == 0 || run->region > UINT32_MAX || run->leave < run->enter) {
            reason = "its open polling run is damaged";
        } else {
            uint64_t truth = true_time ? ST_REC_TRUTH : 0, w[7], *p = w;
            *p++ = REC_ENTER_CALLS | (uint64_t)1 << 8 | truth | run->region << 32;
            *p++ = run->enter;
            *p++ = run->calls;
            if (true_time)
                *p++ = run->enter_truth;
            *p++ = REC_LEAVE | truth | run->region << 32;
            *p++ = run->leave;
            if (true_time)
                *p++ = run->leave_truth;
            if (f)
                st_convert(f, refs, w, p);
            added += 2;
        }
    }
out:
    free(c);
    if (why)
        *why = reason;
    return added;
}
