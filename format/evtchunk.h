/* evtchunk.h — a location's OTF2 event file, encoded here rather than
 * through OTF2's event writer.
 *
 * OTF2's writer spends about a hundred instructions per event (argument
 * checks, size estimates through function calls, an attribute list object)
 * on what is a handful of byte stores. The records of records.c are turned
 * into the same bytes here: OTF2 3.0's chunked event format, byte for byte
 * what OTF2_EvtWriter writes for the same calls (tests/unit/unit_evtchunk.c
 * checks that against the library), so every OTF2 reader reads it.
 *
 * The format: chunks of the archive's event chunk size, each starting with
 * a header (OTF2_BUFFER_CHUNK_HEADER, endianness, the numbers of its first
 * and last event) and then records: a timestamp record (0x05 + 8 bytes)
 * whenever the time changes, an optional attribute list record, and the
 * event record (type byte, for most a length byte, fields; integers
 * compressed as a byte count and that many little-endian bytes, 0 and the
 * all-ones value as one byte). A record that might not fit (OTF2's upper
 * bound of its size) starts a new chunk; a full chunk ends with
 * END_OF_CHUNK and is written whole; the last one ends with END_OF_FILE
 * and END_OF_BUFFER and is written up to there.
 *
 * Chunks are written to the file as soon as they are full, so a process
 * killed outright leaves every full chunk on disk (the journal names the
 * file: format/recover.c). */
#ifndef SYNCTRACE_EVTCHUNK_H
#define SYNCTRACE_EVTCHUNK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct st_evtfile {
    uint8_t *chunk;           /* chunk_size bytes: the chunk being filled */
    uint8_t *pos, *end;
    uint64_t time;            /* the last timestamp written */
    uint64_t nevents;         /* events encoded (all chunks) */
    uint64_t nwritten;        /* of them, in chunks that reached the file */
    uint64_t chunk_first;     /* the number (from 1) of the chunk's first event */
    size_t chunk_size;
    int fd;                   /* -1 until the first chunk is written */
    uint64_t offset;          /* bytes of the whole chunks written to the file */
    uint64_t limit;           /* RLIMIT_FSIZE: a write past it would raise SIGXFSZ, which ends the program */
    int failed;               /* the file cannot be written: events are counted, not kept */
    int error;                /* errno of the failure */
    char *path;
};

/* OTF2's record type ids (otf2_events_int.h, fixed by the format). */
enum {
    EVT_BUFFER_FLUSH = 10, EVT_ENTER = 12, EVT_LEAVE = 13, EVT_MPI_SEND = 14, EVT_MPI_ISEND = 15,
    EVT_MPI_ISEND_COMPLETE = 16, EVT_MPI_IRECV_REQUEST = 17, EVT_MPI_RECV = 18, EVT_MPI_IRECV = 19,
    EVT_MPI_REQUEST_TEST = 20, EVT_MPI_REQUEST_CANCELLED = 21, EVT_MPI_COLLECTIVE_BEGIN = 22,
    EVT_MPI_COLLECTIVE_END = 23, EVT_RMA_WIN_CREATE = 35, EVT_RMA_WIN_DESTROY = 36,
    EVT_RMA_COLLECTIVE_BEGIN = 37, EVT_RMA_COLLECTIVE_END = 38, EVT_RMA_REQUEST_LOCK = 40,
    EVT_RMA_RELEASE_LOCK = 43, EVT_RMA_SYNC = 44, EVT_RMA_PUT = 46, EVT_RMA_GET = 47, EVT_RMA_ATOMIC = 48,
    EVT_RMA_OP_COMPLETE_NON_BLOCKING = 50, EVT_RMA_OP_COMPLETE_REMOTE = 52,
    EVT_NBC_REQUEST = 85, EVT_NBC_COMPLETE = 86, EVT_COMM_CREATE = 87, EVT_COMM_DESTROY = 88
};

/* Field sizes as OTF2 bounds them: a compressed 32-bit value takes at most
 * 5 bytes, a 64-bit one 9, a timestamp 8, a byte 1. */
#define EVT_U8 1u
#define EVT_U32 5u
#define EVT_U64 9u
#define EVT_TS 8u

/* An attribute of an event (OTF2_Type_enum: UINT32, UINT64, INT32, COMM). */
struct st_evtattr {
    uint32_t ref;
    uint8_t type;
    uint64_t value;
};

/* Open PATH for writing (created, truncated) lazily at the first full
 * chunk; 0, or -1 when out of memory. */
int st_evt_open(struct st_evtfile *f, const char *path, size_t chunk_size);
/* Continue PATH, an existing file whose first `chunks` whole chunks hold
 * `events` events (a killed rank's, format/recover.c): what is
 * encoded next is written after them. 0, or -1 (errno set). */
int st_evt_resume(struct st_evtfile *f, const char *path, size_t chunk_size, uint64_t chunks, uint64_t events);
/* End the file (its last chunk written) and free it; 0, or -1 when some
 * of it could not be written (f->failed, f->error; f->nwritten events are
 * in the file: the definitions must say so). */
int st_evt_close(struct st_evtfile *f);
/* Write the full chunk and start the next one at time t. */
void st_evt_next_chunk(struct st_evtfile *f, uint64_t t);

/* Begin an event at time t whose record (type, length, fields, attribute
 * list; not its timestamp) takes at most `bound` bytes by OTF2's count:
 * a new chunk when it might not fit with a timestamp and the final byte,
 * then the timestamp when it changed. Returns where the record goes. */
static inline uint8_t *st_evt_begin(struct st_evtfile *f, uint64_t t, size_t bound)
{
    if ((size_t)(f->end - f->pos) <= bound + 9)
        st_evt_next_chunk(f, t);
    uint8_t *p = f->pos;
    if (t > f->time || (t == 0 && f->time == 0)) {
        *p++ = 5;   /* OTF2_BUFFER_TIMESTAMP */
        memcpy(p, &t, 8);
        p += 8;
        f->time = t;
    }
    f->nevents++;
    return p;
}

static inline void st_evt_end(struct st_evtfile *f, uint8_t *p)
{
    f->pos = p;
}

/* Compressed integers as OTF2_Buffer_WriteUint32/64 write them: 0 and the
 * all-ones value as that byte, else the count of significant bytes and
 * the bytes, little-endian (a little-endian host, as the chunk header
 * says, stores them with one memcpy). */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "evtchunk.h encodes OTF2 chunks for little-endian hosts only"
#endif
static inline uint8_t *st_evt_u64(uint8_t *p, uint64_t v)
{
    if (v == 0 || v == UINT64_MAX) {
        *p = (uint8_t)v;
        return p + 1;
    }
    unsigned n = 8 - (unsigned)(__builtin_clzll(v) >> 3);
    *p = (uint8_t)n;
    memcpy(p + 1, &v, 8);   /* the buffer always has room for the whole word */
    return p + 1 + n;
}

static inline uint8_t *st_evt_u32(uint8_t *p, uint32_t v)
{
    if (v == 0 || v == UINT32_MAX) {
        *p = (uint8_t)v;
        return p + 1;
    }
    unsigned n = 4 - (unsigned)(__builtin_clz(v) >> 3);
    *p = (uint8_t)n;
    memcpy(p + 1, &v, 4);
    return p + 1 + n;
}

/* A signed 32-bit value: negative ones take all four bytes; no special
 * all-ones byte (OTF2_Buffer_WriteInt32). */
static inline uint8_t *st_evt_i32(uint8_t *p, int32_t v)
{
    unsigned n = v == 0 ? 0 : v < 0 ? 4 : 4 - (unsigned)(__builtin_clz((uint32_t)v) >> 3);
    *p = (uint8_t)n;
    memcpy(p + 1, &v, 4);
    return p + 1 + n;
}

/* OTF2's bound of an attribute list record of n entries (0 for none). */
static inline size_t st_evt_attrs_bound(uint32_t n)
{
    if (!n)
        return 0;
    size_t data = (size_t)n * 15 + 5;
    return data + (data < 255 ? 1 : 9) + 1;
}

/* The attribute list record of n > 0 entries. */
uint8_t *st_evt_attrs(uint8_t *p, const struct st_evtattr *a, uint32_t n);

/* A record's length byte, filled in once its fields are written
 * (OTF2_Buffer_WriteInitial/FinalRecordLength: every record of ours is
 * bounded below 255 bytes, so one byte). */
static inline void st_evt_set_length(uint8_t *len_at, const uint8_t *end)
{
    *len_at = (uint8_t)(end - len_at - 1);
}

#endif
