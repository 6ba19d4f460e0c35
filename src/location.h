/* location.h — one recording thread's state: an OTF2 location. The
 * records buffer (records.h) fills it on the call path; the writer
 * (writer.h) turns its records into the location's OTF2 event file. */
#ifndef SYNCTRACE_LOCATION_H
#define SYNCTRACE_LOCATION_H

#include <stdint.h>
#include "tracer.h"
#include "evtchunk.h"

struct st_loc {
    struct st_recbuf rec;        /* first (recput.h): the call path touches only this */
    struct st_evtfile evt;       /* its OTF2 event file, encoded by evtchunk.h */
    uint64_t id;
    uint64_t nevents;            /* counted at close */
};

#endif
