/* mtread.h — stream the events of a merged archive (OUT/traces.otf2, as
 * `synctrace merge` writes it) in global time order, one callback per
 * event, without holding the events in memory: OTF2's global event reader
 * keeps one buffer per location, whatever the trace's length.
 *
 * Events arrive as struct rt_event (rawtrace.h) with the location's index;
 * enter/leave carry the region in `ref`, messages and collectives carry the
 * communicator in `ref` and the peer/root as a communicator-local rank, as
 * in the raw archives; CommCreate/CommDestroy come as RT_COMM_CREATE /
 * RT_COMM_DESTROY with the communicator in `ref` (so every event of
 * our archives is delivered). Records of other kinds, which a foreign
 * archive's copy holds (ProgramBegin, OpenMP, metrics, ...), are read and
 * counted (location_skipped), not delivered: event indices count the
 * delivered ones. Times are ns of global time. */
#ifndef SYNCTRACE_MTREAD_H
#define SYNCTRACE_MTREAD_H

#include <stddef.h>
#include <stdint.h>
#include "rawtrace.h"

struct mt_comm {
    char *name;
    int self;                 /* OTF2's COMM_SELF group (MPI_COMM_SELF): each location's own rank */
    int inter;                /* an InterComm: members is group A, members_b group B */
    int events;               /* flagged CREATE_DESTROY_EVENTS: RT_COMM_CREATE/RT_COMM_DESTROY mark its life */
    uint32_t nmembers;
    uint64_t *members;        /* world ranks (= location indices), in communicator rank order */
    uint32_t nmembers_b;
    uint64_t *members_b;
    uint32_t cart_ndims;      /* a Cartesian topology (0: none): its dimensions' sizes and periodicity
                               * (0/1); ranks are placed in row-major order (MPI's) */
    uint32_t *cart_sizes;
    uint8_t *cart_periodic;
};

struct mt_trace {
    char *path;
    uint64_t resolution;      /* ticks per second (1e9 for merged archives) */
    uint64_t trace_length;
    uint32_t nlocations;
    uint64_t *locations;      /* location ids, sorted; the index is the track */
    char **location_names;
    uint64_t *location_events;/* declared events per location */
    uint64_t *location_skipped;   /* per location, read so far: records of kinds not delivered
                                   * (a foreign archive's ProgramBegin, OpenMP, metrics, ...) */
    char **regions;
    uint32_t nregions;
    struct mt_comm *comms;
    uint32_t ncomms;
    uint32_t *win_comm;       /* per RMA window, its communicator (UINT32_MAX: not defined): whom
                               * the window ranks of its events name */
    uint32_t nwins;
    uint32_t freed_attr[3];   /* freed_receive_comm, _source, _tag: RT_IRECV_FREED (freed_attrs == 7) */
    int freed_attrs;
    uint32_t calls_attr;      /* collapsed_calls: an RT_ENTER's `bytes` (have_calls_attr) */
    int have_calls_attr;
    uint32_t truth_attr;      /* true_time: an event's `truth` (have_truth_attr; SYNCTRACE_SKEW) */
    int have_truth_attr;
    void *reader;             /* OTF2_Reader */
    /* Optional, set by the caller: called right after the event callback
     * of a collective's exit that carries a sparse member's sources (the
     * coll_sources_* attributes; bits NULL with RT_SOURCES_UNKNOWN). */
    int (*on_sources)(void *user, uint32_t location, uint32_t nslots, const uint64_t *bits);
    struct rt_source_attrs source_attrs;   /* (the definitions) */
    /* Optional, set by the caller before mt_read_events: how many
     * locations it reads at once (0: MT_OPEN_LOCATIONS), and where the
     * events of more go to be put in time order (NULL: $TMPDIR, else /tmp). */
    uint32_t max_open;
    const char *spill_dir;
    struct mt_order *order;   /* (the events put in order, kept for another pass) */
};

/* OTF2 holds a chunk of 256 KiB per location being read (the merged
 * archive's chunk size): 64 MiB of them by default. */
#define MT_OPEN_LOCATIONS 256u

/* Open the archive and read its definitions. Returns 0, or -1 with a
 * one-line message naming the file. */
int mt_open(const char *anchor, struct mt_trace *t, char *err, size_t errlen);

/* Called for each event in time order; a non-zero return stops the read. */
typedef int (*mt_event_fn)(void *user, uint32_t location, const struct rt_event *e);

typedef int (*mt_sources_fn)(void *user, uint32_t location, uint32_t nslots, const uint64_t *bits);

/* Read every event once, in time order: by time, then by location index
 * (each location in its own order), whatever the number of locations.
 * Up to max_open locations are read at once, each by its own OTF2 reader;
 * beyond, every location is first read alone and its events written,
 * compactly encoded, to a nameless file in spill_dir (some 6 bytes an
 * event), and the time order is merged from that file through a 4 KiB
 * window per location (mtorder.c). A second call is a second pass (over
 * the same file, if there is one). */
int mt_read_events(struct mt_trace *t, mt_event_fn fn, void *user, char *err, size_t errlen);
/* Read every event once, location after location (each in its own
 * order, not in time order), done(user, location) after each location's
 * last: one location's reader and buffer at a time, where mt_read_events's
 * time order holds one per location at once (256 KiB each). A non-zero
 * return of fn or done stops the read (the caller says why). */
typedef int (*mt_location_fn)(void *user, uint32_t location);
int mt_read_location_events(struct mt_trace *t, mt_event_fn fn, mt_location_fn done, void *user, char *err,
                            size_t errlen);
void mt_close(struct mt_trace *t);

/* The world rank behind a communicator-local rank, or -1 (no intercommunicator
 * or MPI_COMM_SELF: see mt_peer_rank). */
int mt_world_rank(const struct mt_trace *t, uint32_t comm, uint32_t local);
/* The world rank behind the peer or root `local` of an event of world rank
 * `me`: on MPI_COMM_SELF me, on an intercommunicator a rank of the group me
 * is not in; or -1. */
int mt_peer_rank(const struct mt_trace *t, uint32_t me, uint32_t comm, uint32_t local);
const char *mt_region(const struct mt_trace *t, uint32_t region);

#endif
