/* records.h — compact on-line event records, converted to OTF2 off the
 * call path.
 *
 * An st_write_* call appends one record to its location's chunk: a header
 * word (kind, number of argument words, whether a true time follows, one
 * 32-bit argument), the timestamp, the other arguments (one word each;
 * variable payloads such as a collective's source bits are simply more
 * words), and with SYNCTRACE_SKEW the true time. Full chunks are converted
 * into OTF2 events (writer.c's table of record kinds) by the I/O thread, or
 * by the recording thread itself in a flush once the buffer is spent
 * (records.c); the last chunks are converted when the archive is closed
 * (MPI_Finalize, exit, fatal signal, MPI_Abort). The chunks are pages of
 * the records file (format/recfile.h), so that those not yet in the
 * event file when the process is SIGKILLed are recovered by the merge. */
#ifndef SYNCTRACE_RECORDS_H
#define SYNCTRACE_RECORDS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "location.h"
#include "recput.h"

/* Start recording: chunk memory at most `budget` bytes (at least two
 * chunks per location); `io_thread` converts on a thread of the tracer's
 * own; the chunks are kept in the records file `records_path` (recfile.h)
 * where it can be made, else (or when NULL) in anonymous memory. Returns
 * 0, or -1 when the I/O thread could not be started. */
/* What records.c calls in the writer, which passes it to st_rec_start:
 * the records sit below the writer that reads them. */
struct st_rec_sink {
    /* Around a chunk's hand-over, which takes locks and may convert: a
     * termination signal waits (and is acted on at the end). */
    void (*slow_begin)(void);
    void (*slow_end)(void);
    /* The records [w, end) of location loc, in order, into its event file. */
    void (*convert)(struct st_loc *loc, const uint64_t *w, const uint64_t *end);
    /* A flush record at t: the recording thread converted until `stop`. */
    void (*flush)(struct st_loc *loc, struct st_time t, uint64_t stop);
};
int st_rec_start(size_t budget, int io_thread, const char *records_path, const struct st_rec_sink *sink);
/* Whether an I/O thread converts (so OTF2 is used by two threads). */
int st_rec_threaded(void);
/* Give a new location its first chunk; -1 when out of memory. */
int st_rec_attach(struct st_loc *loc);
/* Convert everything still recorded, in order, for the `n` locations
 * given, and stop the I/O thread: the archive is about to be closed. */
void st_rec_drain(struct st_loc *const *locs, uint32_t n);
/* Release the chunks of the n locations (after st_rec_drain and the
 * event files' close) and remove the records file. */
void st_rec_release(struct st_loc *const *locs, uint32_t n);

/* st_rec_put with the arguments listed: ST_REC(loc, KIND, t, a, b, ...);
 * ST_RECA puts its first argument, 32 bits, in the header. */
#define ST_REC(loc, kind, t, ...) ST_RECA(loc, kind, t, 0, __VA_ARGS__)
#define ST_RECA(loc, kind, t, a0, ...)                                                                        \
    do {                                                                                                      \
        const uint64_t st_rec_v_[] = { __VA_ARGS__ };                                                        \
        st_rec_put((loc), (kind), (t), (a0), st_rec_v_, (uint32_t)(sizeof st_rec_v_ / sizeof st_rec_v_[0])); \
    } while (0)
#define ST_RECA0(loc, kind, t, a0) st_rec_put((loc), (kind), (t), (a0), NULL, 0)
#define ST_REC0(loc, kind, t) ST_RECA0(loc, kind, t, 0)

#endif
