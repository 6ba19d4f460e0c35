/* evtpatch.c — a location's event file copied with only its timestamps
 * rewritten (evtpatch.h). The framing read here is OTF2's (OTF2_Buffer.c,
 * OTF2_EvtReader.c of OTF2 1.x to 3.0): a chunk is CHUNK_HEADER, the
 * endianness byte, the numbers of its first and last event (8 bytes
 * each), then records until END_OF_CHUNK (the padding) or the file's end
 * (END_OF_FILE, END_OF_BUFFER); a record is its type byte and then a length byte
 * (0xff: an 8-byte length follows) and that many bytes, except TIMESTAMP
 * (8 bytes of time) and the ten records of one compressed integer. One
 * event holds a time of its own besides its timestamp: BufferFlush's stop
 * (its first field, 8 bytes as a TIMESTAMP's), mapped as OTF2's copy maps
 * it (the time map at the flush's position). */
#include <config.h>
#include "evtpatch.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
    END_OF_CHUNK = 0,
    END_OF_BUFFER = 1,
    END_OF_FILE = 2,             /* the writer closed; END_OF_BUFFER follows */
    CHUNK_HEADER = 3,
    TIMESTAMP = 5,
    ATTRIBUTE_LIST = 6,
    FIRST_EVENT = 10,            /* OTF2's event record ids: BufferFlush ... */
    BUFFER_FLUSH = 10,
    LAST_EVENT = 88,             /* ... CommDestroy (OTF2 3.0); a later one: through OTF2 */
    LITTLE_ENDIAN_BYTE = 0x42,   /* OTF2_LITTLE_ENDIAN */
    HEADER_SIZE = 18
};

/* The records of one compressed integer and no length (OTF2 1.1's
 * Enter, Leave, MpiIsendComplete, MpiIrecvRequest, MpiRequestTest,
 * MpiRequestCancelled, OmpFork, OmpTaskCreate, OmpTaskSwitch,
 * OmpTaskComplete; OTF2 says there will be no more of them). */
static int one_integer(uint8_t type)
{
    switch (type) {
    case 12: case 13: case 16: case 17: case 20: case 21: case 24: case 28: case 29: case 30:
        return 1;
    default:
        return 0;
    }
}

int ep_host_supported(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);   /* the host is little-endian (ep_host_supported) */
    return v;
}

/* Up to n bytes, fewer only at the end of the file; -1 on an error. */
static ssize_t read_up_to(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int write_all(int fd, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

struct patching {
    uint64_t location, expected, position;
    uint64_t last_time;          /* the new time of the last TIMESTAMP rewritten */
    uint64_t (*time)(void *, uint64_t, uint64_t, uint64_t);
    void *ctx;
    const char *why;             /* EP_CANNOT's reason */
    int ended;                   /* END_OF_BUFFER seen */
};

/* EP_CANNOT's reason noted; the value the callers return for it. */
static int cannot(struct patching *pt, const char *why, int value)
{
    pt->why = why;
    return value;
}

/* The length of the record at b[p] (its type byte included) whose bytes
 * end at n, or 0 when it runs past them or is not one this code knows. */
static uint64_t record_size(struct patching *pt, const uint8_t *b, uint64_t p, uint64_t n)
{
    uint8_t type = b[p];
    if (one_integer(type)) {
        if (p + 2 > n)
            return (uint64_t)cannot(pt, "a record runs past its chunk", 0);
        uint64_t s = b[p + 1] == 0xff ? 0 : b[p + 1];   /* 0xff: OTF2's undefined, alone */
        if (s > 8 || p + 2 + s > n)
            return (uint64_t)cannot(pt, "a record runs past its chunk", 0);
        return 2 + s;
    }
    if (type != ATTRIBUTE_LIST && (type < FIRST_EVENT || type > LAST_EVENT))
        return (uint64_t)cannot(pt, "a record of a type this copy does not know", 0);
    if (p + 2 > n)
        return (uint64_t)cannot(pt, "a record runs past its chunk", 0);
    uint64_t head = 2, len = b[p + 1];
    if (len == 0xff) {
        if (p + 10 > n)
            return (uint64_t)cannot(pt, "a record runs past its chunk", 0);
        head = 10;
        len = le64(b + p + 2);
    }
    if (len > n || p + head + len > n)
        return (uint64_t)cannot(pt, "a record runs past its chunk", 0);
    return head + len;
}

/* One chunk of n bytes, its times rewritten in place. 0, or -1 (pt->why). */
static int patch_chunk(struct patching *pt, uint8_t *b, uint64_t n)
{
    if (n < HEADER_SIZE || b[0] != CHUNK_HEADER)
        return cannot(pt, "a chunk without its header", -1);
    if (b[1] != LITTLE_ENDIAN_BYTE)
        return cannot(pt, "a big-endian chunk", -1);
    if (le64(b + 2) != pt->position + 1)
        return cannot(pt, "a chunk header whose first event is not the next", -1);
    uint64_t p = HEADER_SIZE, stamp = 0, at_stamp = 0;   /* stamp: the current TIMESTAMP's time bytes (0: none) */
    uint64_t raw = 0, group_time = 0;   /* the current TIMESTAMP's time as read, and as rewritten */
    for (;;) {
        if (p >= n)
            return cannot(pt, "a chunk without its end", -1);
        uint8_t type = b[p];
        if (type == END_OF_CHUNK || type == END_OF_BUFFER || type == END_OF_FILE) {
            pt->ended = type != END_OF_CHUNK;
            break;
        }
        if (type == TIMESTAMP) {
            if (p + 9 > n)
                return cannot(pt, "a record runs past its chunk", -1);
            if (stamp && at_stamp == 0)
                return cannot(pt, "a timestamp no event follows", -1);
            stamp = p + 1;
            raw = le64(b + stamp);
            at_stamp = 0;
            p += 9;
            continue;
        }
        uint64_t size = record_size(pt, b, p, n);
        if (size == 0)
            return -1;
        uint64_t record = p;
        p += size;
        if (type == ATTRIBUTE_LIST)   /* the next event's, not an event */
            continue;
        if (!stamp)
            return cannot(pt, "an event before any timestamp of its chunk", -1);
        if (++pt->position > pt->expected)
            return cannot(pt, "more events than the location's definition says", -1);
        uint64_t t = pt->time(pt->ctx, pt->location, pt->position, raw);
        if (at_stamp == 0) {
            if (t < pt->last_time)
                return cannot(pt, "a new time before the one before it", -1);
            group_time = pt->last_time = t;
            memcpy(b + stamp, &t, 8);   /* a timestamp's new time is its first event's */
        } else if (t != group_time) {
            return cannot(pt, "two events at one timestamp given different times", -1);
        }
        at_stamp++;
        if (type == BUFFER_FLUSH) {   /* type, length, the stop's 8 bytes (size 2 + its length) */
            if (size != 2 + (uint64_t)b[record + 1] || b[record + 1] < 8)
                return cannot(pt, "a BufferFlush without its stop time", -1);
            uint64_t stop = pt->time(pt->ctx, pt->location, pt->position, le64(b + record + 2));
            memcpy(b + record + 2, &stop, 8);
        }
    }
    if (stamp && at_stamp == 0)
        return cannot(pt, "a timestamp no event follows", -1);
    if (le64(b + 10) != pt->position)
        return cannot(pt, "a chunk header whose last event is not the last read", -1);
    return 0;
}

enum ep_result ep_patch_events(const char *in, const char *out, uint64_t location, uint64_t expected,
                               uint64_t chunk_size, uint8_t *buf,
                               uint64_t (*time)(void *ctx, uint64_t location, uint64_t position, uint64_t t),
                               void *ctx, uint64_t *events, char *err, size_t errlen)
{
    struct patching pt = { .location = location, .expected = expected, .time = time, .ctx = ctx };
    *events = 0;
    int fd = open(in, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", in, strerror(errno));
        return EP_CANNOT;
    }
    int wfd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (wfd < 0) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        close(fd);
        return EP_FAILED;
    }
    enum ep_result rc = EP_DONE;
    for (;;) {
        ssize_t n = read_up_to(fd, buf, chunk_size);
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", in, strerror(errno));
            rc = EP_CANNOT;
            break;
        }
        if (n == 0) {
            if (!pt.ended) {
                snprintf(err, errlen, "%s: the file ends before its last chunk does", in);
                rc = EP_CANNOT;
            }
            break;
        }
        if (pt.ended) {
            snprintf(err, errlen, "%s: data after the end of the events", in);
            rc = EP_CANNOT;
            break;
        }
        if (patch_chunk(&pt, buf, (uint64_t)n) != 0) {
            snprintf(err, errlen, "%s: %s (event %" PRIu64 ")", in, pt.why, pt.position);
            rc = EP_CANNOT;
            break;
        }
        if (write_all(wfd, buf, (size_t)n) != 0) {
            snprintf(err, errlen, "%s: %s", out, strerror(errno));
            rc = EP_FAILED;
            break;
        }
    }
    if (rc == EP_DONE && pt.position != expected) {
        snprintf(err, errlen, "%s: %" PRIu64 " events, the location's definition says %" PRIu64, in, pt.position,
                 expected);
        rc = EP_CANNOT;
    }
    close(fd);
    if (close(wfd) != 0 && rc == EP_DONE) {
        snprintf(err, errlen, "%s: %s", out, strerror(errno));
        rc = EP_FAILED;
    }
    if (rc != EP_DONE)
        unlink(out);
    else
        *events = pt.position;
    return rc;
}
