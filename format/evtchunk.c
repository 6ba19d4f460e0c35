/* evtchunk.c — see evtchunk.h: a location's event chunks, and the file
 * they are written to. */
#include "evtchunk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHUNK_HEADER 3        /* OTF2_BUFFER_CHUNK_HEADER */
#define LITTLE_ENDIAN_MARK 0x42
#define END_OF_CHUNK 0
#define END_OF_BUFFER 1
#define END_OF_FILE 2
#define HEADER_SIZE 18        /* type, endianness, first event, last event */
#define HEADER_LAST_EVENT 10
/* A last chunk without events (header, END_OF_FILE, END_OF_BUFFER): what
 * ends a file whose writing had to stop. */
#define TERMINATOR_SIZE (HEADER_SIZE + 2)

static void start_chunk(struct st_evtfile *f)
{
    f->chunk_first = f->nevents + 1;
    f->chunk[0] = CHUNK_HEADER;
    f->chunk[1] = LITTLE_ENDIAN_MARK;
    memcpy(f->chunk + 2, &f->chunk_first, 8);
    memset(f->chunk + HEADER_LAST_EVENT, 0, 8);
    f->pos = f->chunk + HEADER_SIZE;
}

int st_evt_open(struct st_evtfile *f, const char *path, size_t chunk_size)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->chunk_size = chunk_size;
    f->chunk = malloc(chunk_size + 2);   /* + the end marks when the last record filled it */
    f->path = strdup(path);
    if (!f->chunk || !f->path) {
        free(f->chunk);
        free(f->path);
        f->chunk = NULL;
        f->path = NULL;
        return -1;
    }
    f->end = f->chunk + chunk_size;
    struct rlimit fsize;
    f->limit = getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY ? (uint64_t)fsize.rlim_cur
                                                                                       : UINT64_MAX;
    start_chunk(f);
    return 0;
}

int st_evt_resume(struct st_evtfile *f, const char *path, size_t chunk_size, uint64_t chunks, uint64_t events)
{
    if (st_evt_open(f, path, chunk_size) != 0)
        return -1;
    f->offset = chunks * chunk_size;
    f->fd = open(path, O_WRONLY | O_CLOEXEC);
    if (f->fd < 0 || ftruncate(f->fd, (off_t)f->offset) != 0
        || lseek(f->fd, (off_t)f->offset, SEEK_SET) != (off_t)f->offset) {
        int e = errno;
        if (f->fd >= 0)
            close(f->fd);
        free(f->chunk);   /* not st_evt_close: it would write an end to the file */
        free(f->path);
        memset(f, 0, sizeof *f);
        f->fd = -1;
        errno = e;
        return -1;
    }
    f->nevents = f->nwritten = events;
    start_chunk(f);
    return 0;
}

/* Write `len` bytes of the chunk; a failure marks the file failed, and
 * nothing more is written to it (its whole chunks stay readable). */
static void write_out(struct st_evtfile *f, size_t len)
{
    if (f->failed)
        return;
    /* The program's file size limit is not ours to hit: past it the kernel
     * sends SIGXFSZ, whose default action ends the program. */
    if (f->offset > f->limit || len + TERMINATOR_SIZE > f->limit - f->offset) {
        f->failed = 1;
        f->error = EFBIG;
        return;
    }
    if (f->fd < 0) {
        f->fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (f->fd < 0) {
            f->failed = 1;
            f->error = errno;
            return;
        }
    }
    const uint8_t *p = f->chunk;
    while (len > 0) {
        ssize_t n = write(f->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            f->failed = 1;
            f->error = n < 0 ? errno : ENOSPC;
            return;
        }
        p += n;
        len -= (size_t)n;
    }
    f->offset += (uint64_t)(p - f->chunk);   /* whole writes only: a failed one leaves its part to be cut */
    f->nwritten = f->nevents;   /* the chunk being written ends with the last event encoded */
}

/* The chunk's last event number, then the chunk ends at the mark. */
static void finish_chunk(struct st_evtfile *f)
{
    uint64_t last = f->nevents;
    memcpy(f->chunk + HEADER_LAST_EVENT, &last, 8);
}

void st_evt_next_chunk(struct st_evtfile *f, uint64_t t)
{
    finish_chunk(f);
    *f->pos = END_OF_CHUNK;
    /* The rest is never read; zeros keep the file the same run to run. */
    memset(f->pos + 1, 0, (size_t)(f->end - f->pos - 1));
    write_out(f, f->chunk_size);
    start_chunk(f);
    /* Every chunk starts with the time of its first event. */
    *f->pos++ = 5;
    memcpy(f->pos, &t, 8);
    f->pos += 8;
    f->time = t;
}

int st_evt_close(struct st_evtfile *f)
{
    if (!f->chunk)
        return 0;
    finish_chunk(f);
    f->pos[0] = END_OF_FILE;
    f->pos[1] = END_OF_BUFFER;
    /* A reader stops at END_OF_FILE: the chunk never grows past its size. */
    size_t len = (size_t)(f->pos + 2 - f->chunk);
    write_out(f, len > f->chunk_size ? f->chunk_size : len);
    /* A file whose writing had to stop still ends as OTF2 files end
     * (readers would otherwise read on past its last chunk): its whole
     * chunks, then an empty last chunk (room for it is kept below the file
     * size limit; on a full disk it may not fit, and the merge's reader
     * reads no more events than the definitions declare). */
    if (f->failed && f->fd >= 0 && ftruncate(f->fd, (off_t)f->offset) == 0
        && lseek(f->fd, (off_t)f->offset, SEEK_SET) == (off_t)f->offset) {
        uint8_t end[TERMINATOR_SIZE] = { CHUNK_HEADER, LITTLE_ENDIAN_MARK };
        uint64_t first = f->nwritten + 1, last = f->nwritten;
        memcpy(end + 2, &first, 8);
        memcpy(end + HEADER_LAST_EVENT, &last, 8);
        end[HEADER_SIZE] = END_OF_FILE;
        end[HEADER_SIZE + 1] = END_OF_BUFFER;
        if (write(f->fd, end, sizeof end) != (ssize_t)sizeof end)
            f->error = errno;
    }
    if (f->fd >= 0 && close(f->fd) != 0 && !f->failed) {
        f->failed = 1;
        f->error = errno;
    }
    f->fd = -1;
    free(f->chunk);
    free(f->path);
    f->chunk = f->pos = f->end = NULL;
    f->path = NULL;
    return f->failed ? -1 : 0;
}

uint8_t *st_evt_attrs(uint8_t *p, const struct st_evtattr *a, uint32_t n)
{
    size_t data = (size_t)n * 15 + 5;
    *p++ = 6;   /* OTF2_ATTRIBUTE_LIST */
    uint8_t *len_at = p;
    if (data < 255)
        p++;
    else {
        *p = 0xff;
        p += 9;
    }
    uint8_t *start = p;
    p = st_evt_u32(p, n);
    for (uint32_t i = 0; i < n; i++) {
        p = st_evt_u32(p, a[i].ref);
        *p++ = a[i].type;
        switch (a[i].type) {
        case 7:   /* OTF2_TYPE_INT32 */
            p = st_evt_i32(p, (int32_t)(uint32_t)a[i].value);
            break;
        case 4:   /* OTF2_TYPE_UINT64 */
            p = st_evt_u64(p, a[i].value);
            break;
        default:  /* UINT32 and references (COMM) */
            p = st_evt_u32(p, (uint32_t)a[i].value);
            break;
        }
    }
    uint64_t len = (uint64_t)(p - start);
    if (data < 255)
        *len_at = (uint8_t)len;
    else
        memcpy(len_at + 1, &len, 8);
    return p;
}
