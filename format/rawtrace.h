/* rawtrace.h — read one rank's raw archive (as libsynctrace writes it) into
 * memory: its run facts, communicators, clock offsets and events, with
 * timestamps exactly as recorded (no clock offsets applied). */
#ifndef SYNCTRACE_RAWTRACE_H
#define SYNCTRACE_RAWTRACE_H

#include <stddef.h>
#include <stdint.h>
#include "eventstore.h"
#include "rawformat.h"

enum rt_kind {
    RT_ENTER, RT_LEAVE, RT_SEND, RT_ISEND, RT_ISEND_COMPLETE, RT_IRECV_REQUEST, RT_RECV, RT_IRECV,
    RT_CANCELLED, RT_COLL_BEGIN, RT_COLL_END, RT_NBC_REQUEST, RT_NBC_COMPLETE, RT_FLUSH,
    RT_IRECV_FREED,           /* MPI_Request_free released receive request `req` before it completed:
                               * ref, peer, tag as posted (RT_ANY for MPI_ANY_SOURCE, MPI_ANY_TAG) */
    RT_RMA,                   /* one-sided: `tag` says which record (enum rt_rma) */
    RT_COMM_CREATE,           /* communicator `ref` came into being on this rank (OTF2 CommCreate) */
    RT_COMM_DESTROY,          /* ... and ended (CommDestroy): neither is a message or a collective */
    RT_KIND_COUNT
};

/* An RMA event (kind RT_RMA): ref = window, and by record
 *   WIN_CREATE, WIN_DESTROY, COLL_BEGIN: nothing more
 *   COLL_END: req = operation << 32 | sync level, peer = root, bytes/received
 *   PUT, GET: peer = target rank, bytes, req = matching id
 *   ATOMIC: peer = target rank, bytes = sent, received, req = matching id, `tag` >> 8 = atomic type
 *   OP_COMPLETE_REMOTE, OP_COMPLETE_NON_BLOCKING: req = matching id (remote completion; local
 *       completion of a request-based operation, at its request's completion)
 *   REQUEST_LOCK: peer = target rank, req = lock id, bytes = lock type
 *   RELEASE_LOCK: peer = target rank, req = lock id
 *   SYNC: peer = remote rank, bytes = sync type (PSCW: complete's NOTIFY_OUT, wait's NOTIFY_IN) */
enum rt_rma {
    RT_RMA_WIN_CREATE, RT_RMA_WIN_DESTROY, RT_RMA_COLL_BEGIN, RT_RMA_COLL_END, RT_RMA_PUT, RT_RMA_GET,
    RT_RMA_ATOMIC, RT_RMA_OP_COMPLETE_REMOTE, RT_RMA_REQUEST_LOCK, RT_RMA_RELEASE_LOCK, RT_RMA_SYNC,
    RT_RMA_OP_COMPLETE_NON_BLOCKING
};
#define RT_ANY UINT32_MAX

/* One event, decoded: what streaming readers (mtread.h) are handed and
 * rt_event_at returns. A whole trace is held in rt_slot form (eventstore.h). */
struct rt_event {
    uint64_t time;
    uint64_t truth;           /* the true_time attribute, when has_truth */
    uint64_t req;             /* request id; flush: the stop time */
    uint64_t bytes;           /* message length; collectives: bytes sent; enter: the number of
                               * polling calls collapsed into this region (collapsed_calls
                               * attribute), 0 for a single call */
    uint64_t received;        /* collectives: bytes received */
    uint32_t ref;             /* region (enter/leave) or communicator */
    uint32_t peer;            /* rank in the communicator; collectives: root */
    uint32_t tag;             /* message tag; collectives: the OTF2 operation */
    uint8_t kind;             /* enum rt_kind */
    uint8_t has_truth;
};

/* A one-sided record's fields (kind RT_RMA, enum rt_rma above), from
 * OTF2's arguments: the one mapping, for the readers of raw archives
 * (rawtrace.c) and of merged ones (mtread.c). e is zeroed but for its
 * time; window `win` is OTF2_UNDEFINED_RMA_WIN for a collective's begin. */
static inline void rt_rma_fields(struct rt_event *e, enum rt_rma which, uint32_t win)
{
    e->kind = RT_RMA;
    e->tag = which;
    e->ref = win;
}
static inline void rt_rma_coll_end(struct rt_event *e, uint32_t win, uint32_t op, uint32_t level, uint32_t root,
                                   uint64_t sent, uint64_t received)
{
    rt_rma_fields(e, RT_RMA_COLL_END, win);
    e->req = (uint64_t)op << 32 | level;
    e->peer = root;
    e->bytes = sent;
    e->received = received;
}
static inline void rt_rma_access(struct rt_event *e, enum rt_rma which, uint32_t win, uint32_t remote,
                                 uint64_t bytes, uint64_t id)   /* put, get */
{
    rt_rma_fields(e, which, win);
    e->peer = remote;
    e->bytes = bytes;
    e->req = id;
}
static inline void rt_rma_atomic(struct rt_event *e, uint32_t win, uint32_t remote, uint32_t type, uint64_t sent,
                                 uint64_t received, uint64_t id)
{
    rt_rma_access(e, RT_RMA_ATOMIC, win, remote, sent, id);
    e->tag |= type << 8;
    e->received = received;
}
static inline void rt_rma_complete(struct rt_event *e, enum rt_rma which, uint32_t win, uint64_t id)
{
    rt_rma_fields(e, which, win);
    e->req = id;
}
static inline void rt_rma_lock(struct rt_event *e, enum rt_rma which, uint32_t win, uint32_t remote, uint64_t lock,
                               uint32_t type)   /* request (type: the lock's), release (type 0) */
{
    rt_rma_fields(e, which, win);
    e->peer = remote;
    e->req = lock;
    e->bytes = type;
}
static inline void rt_rma_sync(struct rt_event *e, uint32_t win, uint32_t remote, uint32_t type)
{
    rt_rma_fields(e, RT_RMA_SYNC, win);
    e->peer = remote;
    e->bytes = type;
}

struct rt_comm {
    char *name;               /* MPI's name ("" for none); older tracers wrote the key here */
    uint64_t key;             /* the key its members agree on (has_key) */
    int has_key;
    int self;                 /* MPI_COMM_SELF (written as a COMM_SELF group): members is this rank */
    int inter;                /* an intercommunicator: members is its remote group */
    uint32_t parent;          /* the communicator it was made from (a reference), or UINT32_MAX */
    int events;               /* CommCreate/CommDestroy events mark its life (CREATE_DESTROY_EVENTS) */
    uint32_t nmembers;
    uint64_t *members;        /* world ranks, in communicator rank order: whom peers name */
    int shared_members;       /* members belong to a table shared by locations (the merge's
                               * member_pool.c), not to this rank: never freed or changed here */
    uint32_t nlocal;
    uint64_t *local;          /* an intercommunicator's local group (world ranks) */
    int both_groups;          /* read from a merged archive, shared by the locations of both groups:
                               * `local` is group A, `members` group B, and a peer names a rank of
                               * the group its location is not in */
    int has_in;               /* a topology communicator: */
    uint32_t nin;
    uint64_t *in;             /* this rank's in-neighbours (world ranks), whom neighbourhood collectives receive from */
    uint32_t cart_ndims;      /* a Cartesian topology (0: none): sizes and periodicity of its dimensions, */
    uint32_t *cart_sizes;
    uint8_t *cart_periodic;
    int has_cart_coords;      /* and this rank's place in it (its rank in the communicator, coordinates) */
    uint32_t cart_rank;
    uint32_t *cart_coords;
};

/* An RMA window: its communicator (reference) and its name ("" when unnamed). */
struct rt_win {
    uint32_t comm;
    char *name;
};

/* A sparse alltoallv/w member (the tracer's coll_sources_* attributes):
 * its COLL_END / NBC_COMPLETE event `index` received from the slots whose
 * bits are set in source_words[first .. first + (nslots + 63) / 64). */
struct rt_sources {
    uint64_t index;
    uint32_t nslots;          /* RT_SOURCES_UNKNOWN: sparse, slots not recorded */
    size_t first;
};
#define RT_SOURCES_UNKNOWN RF_SOURCES_UNKNOWN

struct rt_offset {
    uint64_t time;
    int64_t offset;
    double stddev;
};

/* One OTF2 location of the raw trace: a rank's main thread, or another
 * thread of it (thread > 0), with what its rank archive defines and, once
 * read, its events (eventstore.h). The stages take them as an array of
 * every location, main locations first (location_order.h). */
struct rt_location {
    char *path;
    int rank, world_size, domain;
    char *host, *clock, *run_id, *version;
    double skew_offset_us, skew_drift_ppm;
    uint64_t resolution, global_offset, trace_length;
    uint64_t last_time;       /* as read: the latest raw time of the rank's events (a flush's stop included) */
    char **regions;           /* region names by reference */
    uint32_t nregions;
    uint8_t *region_roles;    /* OTF2_RegionRole by region reference, as the tracer wrote it */
    uint32_t nregion_roles;
    struct rt_comm *comms;    /* by reference */
    uint32_t ncomms;
    char **outside;           /* outside sets by number (RF_PROP_OUTSIDE_FMT): "KIND KEY" */
    uint32_t noutside;
    struct rt_win *wins;      /* RMA windows by reference */
    uint32_t nwins;
    struct rt_offset *offsets;
    uint32_t noffsets;
    /* eventstore.h: time, kind, ref, peer, tag; the rest through
     * rt_event_at. The slots held are events [events_from, events_from +
     * nheld): all of them (from 0) unless a reader takes a location chunk
     * by chunk (the merge, beyond --event-memory). */
    struct rt_slot *events;
    uint64_t nevents;
    uint64_t events_from, nheld;
    struct rt_store_side side;   /* the events' rare and wide fields (of the slots held) */
    /* Set aside (eventspill.h): events, their side columns but true times,
     * and sources are in a spill file (`spill`), in chunks (spill_chunks),
     * with what later readers need of the rest (rt_facts). Their times are
     * in the file too, read through rt_time_read. */
    struct rt_spill_chunk *spill_chunks;
    uint32_t nspill_chunks;
    struct rt_spill *spill;
    struct rt_facts spilled_facts;
    struct rt_sources *sources;   /* by event index, ascending; only sparse members */
    size_t nsources;
    uint64_t *source_words;
    size_t nsource_words;
    uint64_t declared_events; /* what the location definition says (recovered: its whole chunks' events) */
    int verified_seal;        /* a closed archive whose checksums held when it was read */
    int recovered;            /* the rank was killed before closing its archive: rebuilt
                               * from its journal, each location's events up to its last
                               * buffer flush (its threads' too, when they had flushed),
                               * continued by its records file's */
    uint64_t recovered_from_records;   /* of the main location's rank, all locations' events
                                        * that came from its records file */
    int recovered_records_file;        /* it left a records file (recfile.h) */
    char *recovered_note;              /* why some of its records could not be used, or NULL */
    /* One rt_location per OTF2 location. A rank whose threads called MPI
     * (MPI_THREAD_SERIALIZED or MULTIPLE) has several: the main one (the
     * thread that called MPI_Init, location id = rank) holds the others in
     * `threads`; theirs borrow the main one's definitions (borrowed = 1:
     * path, host, clock, run id, version, regions, comms, offsets). */
    uint64_t location;        /* OTF2 location id */
    uint32_t thread;          /* 0: the main thread; N: the others, id N << 32 | rank, in id order */
    int borrowed;
    struct rt_location *threads;
    uint32_t nthreads;
};

/* Read DIR's archive for one anchor file (".../rank-000003.otf2").
 * When the anchor is missing or empty but DIR has the rank's recovery
 * journal (rank-000003.journal: the rank was killed, e.g. by SIGKILL), the
 * archive is rebuilt from it in a temporary directory (DIR is not touched)
 * and read from there, and out->recovered is set. Returns 0, or -1 with a
 * one-line message naming the file. */
int rt_read_rank(const char *anchor, struct rt_location *out, char *err, size_t errlen);
/* The same in two steps, for a reader that wants every rank's definitions
 * before any event (the merge): rt_read_rank_defs reads all rt_read_rank
 * reads but the events (the locations are there, with no events; a sealed
 * archive's checksums are verified here); rt_read_rank_events then reads
 * them into the rank's locations, locs[0] its main one (as defs made it,
 * maybe moved out of it: rt_take_threads), matched by thread number (the
 * main one first; the rank may have been renumbered in between). Each
 * returns 0, or -1 with a one-line message naming the file. */
int rt_read_rank_defs(const char *anchor, struct rt_location *out, char *err, size_t errlen);
/* A reader that takes each location as it is read (the merge): sink->chunk
 * (NULL: always 0) says how many events of a location to read at a time
 * (0: all), and sink->done is called after each of them with that chunk's
 * slots held (loc->events_from ..; last = 1 for the location's last
 * chunk, maybe empty), the main location first, then the others in
 * order. done may let the slots go (rt_spill_out, rt_store_drop): the
 * next chunk continues after them. It returns 0, or -1 with a one-line
 * message, which ends the read. A killed rank (read from its journal) is
 * read whole, then handed over. sink may be NULL. */
struct rt_event_sink {
    uint64_t (*chunk)(void *ctx, const struct rt_location *loc);
    int (*done)(void *ctx, struct rt_location *loc, int last, char *err, size_t errlen);
    void *ctx;
};
int rt_read_rank_events(struct rt_location *const *locs, uint32_t nlocs, const struct rt_event_sink *sink, char *err,
                        size_t errlen);
void rt_free_location(struct rt_location *r);
/* Move a rank's thread locations out of it: *out (malloc'd) gets them,
 * returns how many. They borrow r's definitions: free them first. */
uint32_t rt_take_threads(struct rt_location *r, struct rt_location **out);
/* The world rank behind a communicator-local rank, or -1. */
int rt_world_rank(const struct rt_location *r, uint32_t comm, uint32_t local);
/* The group whose ranks r's peers on communicator c name (world ranks, *n
 * of them): c's members, but on an intercommunicator read from a merged
 * archive (both_groups) the group r is not in. */
const uint64_t *rt_peer_group(const struct rt_location *r, const struct rt_comm *c, uint32_t *n);
/* The source slots of event `index` (a collective's exit): NULL with
 * *nslots = 0 when it received from every slot or none (the common case),
 * NULL with RT_SOURCES_UNKNOWN when sparse but unrecorded, else the bits. */
const uint64_t *rt_sources_of(const struct rt_location *r, uint64_t index, uint32_t *nslots);
/* Append a side-table entry for event `index` of r (the events of r come in
 * index order): nslots slots, bits (NULL: RT_SOURCES_UNKNOWN). 0 or -1. */
int rt_add_sources(struct rt_location *r, uint64_t index, uint32_t nslots, const uint64_t *bits);
/* The coll_sources_* attributes as an archive defines them, for readers:
 * rt_source_attr_def for every attribute definition (0, or -1 when out of
 * memory), rt_source_attr_read per event (otf2_attrs: its
 * OTF2_AttributeList; *nslots = 0 when it has none; the bits go to *buf,
 * grown as needed). */
struct rt_source_attrs {
    uint32_t slots_ref;
    int have_slots;
    uint32_t *word_of;        /* attribute ref -> 1 + k for coll_sources_<k>, else 0 */
    uint32_t nword_of, word_of_cap;
};
int rt_source_attr_def(struct rt_source_attrs *a, uint32_t self, const char *name, int type);
int rt_source_attr_read(const struct rt_source_attrs *a, void *otf2_attrs, uint64_t **buf, size_t *cap,
                        uint32_t *nslots);
void rt_source_attr_free(struct rt_source_attrs *a);
/* eventstore.c: append e to r's events (0, or -1 out of memory); give
 * back the unused room once r is read; free the events. */
int rt_store_event(struct rt_location *r, const struct rt_event *e);
int rt_store_reserve(struct rt_location *r, uint64_t n);   /* room for n events: 0 or -1 */
void rt_store_shrink(struct rt_location *r);
void rt_store_free(struct rt_location *r);
/* Free the events but keep their number (nevents): for a reader that needs
 * only the count from then on (the merge once a location is written). */
void rt_store_release(struct rt_location *r);
/* Move from's events (slots, side columns, sources) to `to`, whose own are
 * overwritten unfreed; from is left without events. */
void rt_store_move(struct rt_location *to, struct rt_location *from);
/* Event i's time, its slot held; an event of a set-aside location is read
 * through rt_time_read (eventspill.h). */
static inline uint64_t rt_time(const struct rt_location *r, uint64_t i)
{
    return r->events[i - r->events_from].time;
}
/* What the merge's stages after the match need of a location's events
 * besides their times, from its events or, set aside, as they were. */
void rt_facts(const struct rt_location *r, struct rt_facts *f);
/* The facts of the slots r holds alone (one chunk's), and two chunks' put together. */
void rt_facts_held(const struct rt_location *r, struct rt_facts *f);
void rt_facts_add(struct rt_facts *to, const struct rt_facts *f);
/* eventstore.c: the times of n slots in rt_times form (numbered from 0),
 * or NULL when out of memory. Freed by rt_times_free. */
struct rt_times *rt_times_of(const struct rt_slot *slots, uint64_t n);
void rt_times_free(struct rt_times *t);
/* The slots held and their side columns freed; the window moves to the
 * end (events_from = nevents): what is read next continues it. True
 * times and sources stay. */
void rt_store_drop(struct rt_location *r);
/* Event i of r, decoded; and its fields that are not read from the slot. */
struct rt_event rt_event_at(const struct rt_location *r, uint64_t i);
uint64_t rt_req(const struct rt_location *r, uint64_t i);
uint64_t rt_bytes(const struct rt_location *r, uint64_t i);
uint64_t rt_received(const struct rt_location *r, uint64_t i);
int rt_truth_known(const struct rt_location *r, uint64_t i);
uint64_t rt_truth(const struct rt_location *r, uint64_t i);   /* 0 when unknown or taken */
void rt_set_truth(struct rt_location *r, uint64_t i, uint64_t truth);
/* The true times of the events read since the last call handed to put
 * (raw ticks: event from + k's in raw[k] where bit k of known is set; not
 * called while no event has one) and dropped from memory: all of them
 * when `last` (the location is read), else up to a multiple of 64 events,
 * the last event read kept (a buffer flush before it takes the next
 * one's true time). 0, or put's -1. */
int rt_truth_hand(struct rt_location *r, int last,
                  int (*put)(void *ctx, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known),
                  void *ctx);
const char *rt_kind_name(enum rt_kind kind);
const char *rt_collective_name(uint32_t op);

#endif
