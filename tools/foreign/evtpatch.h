/* evtpatch.h — a location's OTF2 event file copied byte for byte with
 * only its timestamps rewritten: the copy's fast path (otf2copy.h).
 *
 * Decoding and re-encoding every record through OTF2's reader and writer
 * is most of a copy's cost, yet a copy that changes only times needs
 * neither: an OTF2 event file is a run of fixed-size chunks, each a
 * header and then records framed by a type byte and a length (or, for
 * the ten one-field records of OTF2 1.1, a compressed integer), and a
 * time is a TIMESTAMP record of 8 bytes that holds for every event up to
 * the next one. Rewriting those 8 bytes in place keeps every record,
 * chunk and event number as it was.
 *
 * Only what is certain is done here. Anything else gives EP_CANNOT and
 * the caller copies the location through OTF2 instead: a framing this
 * code does not know (another endianness, a reserved or newer record
 * type, a chunk header that disagrees with the events counted, a record
 * running past its chunk, fewer or more events than the definition says
 * -- a damaged file, which OTF2's reader then names), or two events that
 * share one TIMESTAMP getting different new times (the merge's repair may
 * move one of them; the records would need another TIMESTAMP between
 * them, which this in-place rewrite cannot add). */
#ifndef SYNCTRACE_EVTPATCH_H
#define SYNCTRACE_EVTPATCH_H

#include <stddef.h>
#include <stdint.h>
#include "otf2copy.h"

enum ep_result {
    EP_DONE = 0,       /* OUT written, *events events */
    EP_CANNOT = 1,     /* nothing left at OUT: copy this location through OTF2 (err says why) */
    EP_FAILED = -1     /* OUT could not be written (err names it); nothing left at OUT */
};

/* Whether this machine's byte order is the one the fast path reads
 * (little-endian files on a little-endian host). */
int ep_host_supported(void);

/* Copy the event file IN (of location `location`, `expected` events,
 * OTF2 chunks of chunk_size bytes) to OUT, a new file, each event's time
 * t made time(ctx, location, position, t) as otf2copy.h's time map says
 * (positions from 1, in order; a location the caller then copies through
 * OTF2 starts over at position 1). buf: chunk_size bytes of the caller's. */
enum ep_result ep_patch_events(const char *in, const char *out, uint64_t location, uint64_t expected,
                               uint64_t chunk_size, uint8_t *buf,
                               uint64_t (*time)(void *ctx, uint64_t location, uint64_t position, uint64_t t),
                               void *ctx, uint64_t *events, char *err, size_t errlen);

#endif
