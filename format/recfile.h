/* recfile.h — the tracer's compact records and the records file that keeps
 * them, DIR/rank-NNNNNN.records: the one definition of both, for the
 * tracer that writes them (src/recput.h, src/records.c) and for the
 * recovery that reads them after a SIGKILL (recfile.c, recover.c).
 *
 * A record is a header word, the timestamp, its argument words and, with
 * SYNCTRACE_SKEW, the true time. The header holds the kind (reckinds.h),
 * the number of argument words, whether a true time follows, and in its
 * upper half one 32-bit argument (a region, a peer, a communicator): an
 * Enter or Leave is two words. Each record becomes exactly one OTF2 event
 * (convert.c), so a location's n-th record is its n-th event.
 *
 * The tracer keeps its chunks of records in pages of the records file
 * (MAP_SHARED): what a process killed outright (SIGKILL, the OOM killer)
 * had recorded stays in the page cache and reaches the file. The file is
 * a header page, then chunks of chunk_bytes each, made as they are needed.
 * A chunk in use starts with struct rf_recchunk_head: magic RF_RECCHUNK_LIVE,
 * its location, its place among that location's chunks (seq, from 1, with
 * no gaps), the number of the location's events before its first record
 * once it is converted (RF_RECCHUNK_UNCONVERTED before), and where its
 * whole records end (`fill`, set after each record: the commit point). A
 * chunk stays live until every event converted from it is in a whole
 * chunk of the event file, so the live chunks of a location, in seq order,
 * continue its event file. A free chunk has magic 0. The file is removed
 * when the archive is closed. The header page and chunks are the tracer's
 * native (little-endian) words. */
#ifndef SYNCTRACE_RECFILE_H
#define SYNCTRACE_RECFILE_H

#include <stdint.h>

/* ---------- records ---------- */

#define ST_REC_KIND(h) ((uint32_t)(h) & 0xff)
#define ST_REC_NARGS(h) (((uint32_t)(h) >> 8) & 0xffff)
#define ST_REC_TRUTH ((uint64_t)1 << 24)
#define ST_REC_A0(h) ((uint32_t)((h) >> 32))
/* A BufferFlush record (writer.c): header, time, stop time, true time. */
#define ST_REC_FLUSH_WORDS 4
/* The largest record every chunk holds, in words. */
#define ST_REC_MAX_WORDS 1000
/* The first two kinds of reckinds.h, written inline by the tracer. */
enum { ST_REC_ENTER_KIND = 0, ST_REC_LEAVE_KIND = 1 };

/* ---------- the records file ---------- */

#define RF_RECORDS_SUFFIX ".records"
/* The file header, at offset 0: this magic (NUL-padded to 24 bytes), then
 * as native little-endian uint64: the header's size (the page size: the
 * chunks are mapped at page offsets) and each chunk's size in bytes. */
#define RF_RECORDS_MAGIC "synctrace-records 1\n"
#define RF_RECORDS_MAGIC_BYTES 24
#define RF_RECORDS_HEADER_AT 24
#define RF_RECORDS_CHUNK_BYTES_AT 32

#define RF_RECCHUNK_LIVE UINT64_C(0x45564c4b48435453)   /* "STCHKLVE" */
#define RF_RECCHUNK_UNCONVERTED UINT64_MAX

/* A polling run still open (src/polling.c: consecutive unsuccessful polls,
 * written as one region when the run ends) is in no record yet: its
 * location's current chunk keeps it, set as it opens and grows, cleared
 * before its records are written. The recovery adds it after the records:
 * an Enter with the collapsed_calls attribute and a Leave. */
struct rf_recrun {
    uint64_t open;       /* RF_RECRUN_OPEN while open, else 0 */
    uint64_t region;
    uint64_t calls;
    uint64_t enter, enter_truth;   /* the first call's Enter (and its true time) */
    uint64_t leave, leave_truth;   /* the last call's Leave */
};
#define RF_RECRUN_OPEN UINT64_C(0x4e55524e45504f53)   /* "SOPENRUN" */

struct rf_recchunk_head {
    uint64_t magic;      /* RF_RECCHUNK_LIVE while it holds a location's records, 0 when free */
    uint64_t location;   /* the OTF2 location id */
    uint64_t seq;        /* its place among the location's chunks, from 1 */
    uint64_t first;      /* the location's events before its first record, or RF_RECCHUNK_UNCONVERTED */
    uint64_t base;       /* the tracer's address of the chunk's first record word */
    uint64_t fill;       /* the tracer's address just past its last whole record */
    struct rf_recrun run;   /* the location's open polling run, while this is its current chunk */
};

/* A chunk's record words start this far into it (the head, then the
 * tracer's own bookkeeping, which readers skip). */
#define RF_RECCHUNK_WORDS_AT 192

#endif
