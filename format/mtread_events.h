/* mtread_events.h — mtread.c's readers of single locations of a merged
 * archive, for mtorder.c, which puts them in time order: any number of
 * locations may be open at once (each holds OTF2's chunk buffer). */
#ifndef SYNCTRACE_MTREAD_EVENTS_H
#define SYNCTRACE_MTREAD_EVENTS_H

#include "mtread.h"

struct mt_events;

/* The archive opened for events: each event read is handed to fn, and a
 * collective's sources to `sources` (may be NULL). NULL with a message. */
struct mt_events *mt_events_begin(struct mt_trace *t, mt_event_fn fn, mt_sources_fn sources, void *user, char *err,
                                  size_t errlen);
/* Up to max more events of location i (its reader opened at the first
 * call), *got of them (0: its end). 0, or -1 with a message, or -1 when
 * a callback stopped the read (the callback says why). */
int mt_events_read(struct mt_events *ev, uint32_t i, uint64_t max, uint64_t *got, char *err, size_t errlen);
/* Location i's reader and its buffer let go. */
void mt_events_close_location(struct mt_events *ev, uint32_t i);
void mt_events_end(struct mt_events *ev);

/* mtorder.c: the file of events kept between passes let go (mt_close). */
void mt_order_free(struct mt_order *o);

#endif
