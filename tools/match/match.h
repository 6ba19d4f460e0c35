/* match.h — pair every message and every collective instance of a raw
 * trace (docs/design.md, "The merge: stages").
 *
 * Messages pair first-in-first-out per (communicator, sender, receiver,
 * tag): sends in the order they were issued, receives in the order they
 * were posted (MPI matches in posting order), using the source and tag MPI
 * resolved. Collective instances: the k-th collective call on a
 * communicator is the same instance on every member. */
#ifndef SYNCTRACE_MATCH_H
#define SYNCTRACE_MATCH_H

#include <stddef.h>
#include <stdint.h>
#include "rawtrace.h"

struct mg_event_ref {
    uint32_t rank;            /* index into the ranks array (= world rank) */
    uint64_t index;           /* event index on that rank */
    uint64_t time;            /* its raw time (rt_time), taken while the match held it: the stages
                               * after it (constraints, report) read no event time by index */
};

struct mg_message {
    struct mg_event_ref send; /* SEND or ISEND: when the message left */
    struct mg_event_ref recv; /* RECV or IRECV: when it had arrived */
    uint32_t comm;            /* global communicator id */
    uint32_t tag;
    uint64_t bytes;
};

/* What a member moved, as its exit recorded it (filled by mg_match through
 * mg_flow_facts, flow.h; all zero means bytes both ways to everyone, the
 * old assumption, for results built by hand). */
#define MG_QUIET_SEND 1       /* sent no bytes */
#define MG_QUIET_RECV 2       /* received no bytes */

struct mg_member {
    struct mg_event_ref enter; /* COLL_BEGIN or NBC_REQUEST */
    struct mg_event_ref exit;  /* COLL_END or NBC_COMPLETE */
    uint32_t comm_rank;
    uint8_t quiet;            /* MG_QUIET_* */
    uint8_t side;             /* its group on an intercommunicator: 0 or 1 (0 on an intracommunicator) */
    uint8_t sparse;           /* received only from the members sources[src_at, src_at + nsrc) of the result
                               * (a sparse alltoallv/w member; every neighbourhood member) */
    uint32_t nsrc;
    uint32_t comm_ref;        /* the communicator its exit names, as a reference of its location's archive */
    size_t src_at;
};

struct mg_collective {
    uint32_t comm;            /* global communicator id */
    uint32_t op;              /* OTF2_CollectiveOp */
    int root;                 /* world rank, or -1 */
    int neighbor;             /* a neighbourhood collective: each exit follows its in-neighbours' entries */
    uint32_t nmembers;        /* members seen; the communicator may have more */
    struct mg_member *members;
    int inter;                /* on an intercommunicator: data flows between the members' two sides */
};

/* Communicators are told apart by the key their members agree on (a
 * trace without keys: by name). Every rank's MPI_COMM_SELF is one of them,
 * `self`, whose calls never match across ranks (no members: each rank's
 * own). An intercommunicator has two groups: `members` is group A (the
 * local group of the first rank read), `members_b` group B. */
struct mg_comm {
    char *name;
    uint64_t key;
    int self, inter;
    uint32_t size;
    uint64_t *members;        /* world ranks */
    uint32_t size_b;
    uint64_t *members_b;      /* an intercommunicator's group B */
};

struct mg_unmatched {
    struct mg_event_ref event;
    uint32_t comm, peer, tag; /* peer as a world rank */
};

/* Processes outside the trace (outside.c): rank nworld + i is labels[i]. */
struct outside_table {
    char **labels;
    uint32_t n;
};

struct mg_result {
    struct mg_comm *comms;
    uint32_t ncomms;
    uint32_t **rank_comm;     /* [rank][archive comm ref] -> global communicator id */
    uint32_t nranks;
    /* Read them with mg_msgs_begin/next (msgstream.h): held in `messages`,
     * or set aside in message_file when they outgrew the match's budget
     * (then messages is NULL). */
    struct mg_message *messages;
    size_t nmessages;
    struct ms_file *message_file;
    /* Read them with mg_colls_begin/next (collstream.h): held in
     * `collectives`, or set aside in coll_file when they outgrew the
     * match's budget (then collectives is NULL). */
    struct mg_collective *collectives;
    size_t ncollectives;
    struct mc_file *coll_file;
    struct mg_unmatched *unmatched_sends, *unmatched_recvs;
    size_t nunmatched_sends, nunmatched_recvs;
    size_t incomplete_collectives;   /* instances that not every member reached */
    /* Blocking collectives a thread entered while another thread of its
     * rank was still in one on the same communicator: erroneous (MPI
     * leaves their order undefined), so they may be paired as MPI did not. */
    size_t thread_overlapping_collectives;
    /* Processes outside the trace (outside.h: world ranks from nworld on):
     * messages to and from them are counted here, never unmatched; a
     * collective with such members is counted here, not incomplete, and
     * constrains only the members the trace has. */
    uint32_t nworld;
    size_t outside_sends, outside_recvs, outside_collectives;
    const struct outside_table *outside;   /* NULL: none (set by the caller after mg_match) */
    uint32_t *sources;        /* member indices, see mg_member.sparse */
    size_t nsources;
    size_t cancelled;
    size_t freed_receives;    /* sends paired with a receive released by MPI_Request_free before it
                               * completed: no mg_message, as its completion time is not known */
    /* one-sided orderings MPI guarantees (rma_flow.h): send = the operation
     * at its origin, recv = the end of the target's closing fence */
    struct mg_message *rma_flows;
    size_t nrma_flows;
    /* what the sorts wrote to disk beyond their memory (0, 0: none) */
    uint32_t sort_runs;
    uint64_t sort_spilled_bytes;
    const char *spill_dir;    /* where it set things aside (the constraints' hubs go there too) */
};

/* The pattern of a collective operation; what it forces between members
 * follows the data it moved: see flow.h, the one rule.
 *   MG_ALL_TO_ALL  every entry before every exit (barrier, allreduce, ...)
 *   MG_ONE_TO_ALL  the root's entry before every exit (bcast, scatter)
 *   MG_ALL_TO_ONE  every entry before the root's exit (reduce, gather)
 *   MG_SCAN        entries of ranks <= r before the exit of r; MG_EXSCAN: < r
 *   MG_SKIP        nothing known */
enum mg_shape { MG_ALL_TO_ALL, MG_ONE_TO_ALL, MG_ALL_TO_ONE, MG_SCAN, MG_EXSCAN, MG_SKIP };
enum mg_shape mg_shape_of(uint32_t otf2_op);

/* A neighbourhood collective member's in-neighbours (world ranks), as its
 * rank recorded them for the communicator; NULL when the trace does not
 * say (then the instance constrains nothing). */
const uint64_t *mg_in_neighbours(const struct rt_location *ranks, const struct mg_member *m, uint32_t *n);

/* The match's sorts (extsort.h) hold at most `memory` bytes between them
 * and spill the rest to files in spill_dir (NULL: mg_default_spill_dir);
 * the matched messages stay in memory up to message_memory bytes, else go
 * to a file there (msgstream.h; SIZE_MAX: always in memory). */
#define MG_SORT_MEMORY_DEFAULT ((size_t)64 << 20)
struct mg_sort_config {
    const char *spill_dir;
    size_t memory;
    size_t message_memory;
};
const char *mg_default_spill_dir(void);   /* $TMPDIR, else /tmp */

/* Returns 0, or -1 with a one-line message (allocation failure, a spill
 * file that could not be written or read back). cfg NULL: the defaults. */
int mg_match_sorted(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                    struct mg_result *out, char *err, size_t errlen);
int mg_match(const struct rt_location *ranks, uint32_t nranks, struct mg_result *out, char *err, size_t errlen);

/* The same in steps, for a reader that hands each location over as soon
 * as its events are read and may then let them go (the merge):
 * mg_match_begin reads only the definitions of `ranks` (communicators;
 * the array must stay in place until the end) and fills out's
 * communicators (comms, rank_comm, nworld), mg_match_location one
 * location's events, in any order of locations, one at a time (the caller
 * serialises threads), mg_match_end pairs what they left in the sorts and
 * frees the matcher. The result is the same whatever the order. begin
 * returns NULL with a one-line message; location 0 or -1 (the error
 * sticks: end reports it); end 0, or -1 with a one-line message (out is
 * then freed). mg_match_abandon frees a matcher and out without pairing. */
struct mg_matcher;
struct mg_matcher *mg_match_begin(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                                  struct mg_result *out, char *err, size_t errlen);
int mg_match_location(struct mg_matcher *m, uint32_t r);
/* The same for a location read in chunks: each call walks the events it
 * holds (r->events_from ..), continuing where the last one stopped;
 * `last` ends the location. Chunks of different locations may come in
 * any order, one call at a time. */
int mg_match_chunk(struct mg_matcher *m, uint32_t r, int last);
int mg_match_end(struct mg_matcher *m, char *err, size_t errlen);
void mg_match_abandon(struct mg_matcher *m);
void mg_free(struct mg_result *r);

/* The parallel merge (pmerge.h) walks a location where it was read and
 * pairs on process 0. A worker's matcher has no sorts: each record the
 * walks make goes to relay(ctx, which, record) (0, or -1: the walk
 * fails), and out gets only the communicators and the walks' counters
 * (outside_sends, outside_recvs, cancelled). Process 0 puts such records
 * into its own sorts with mg_match_put (n of them; 0 or -1, which sticks)
 * and adds the counters with mg_match_add_counts: the result is the same
 * as had it walked the locations itself. */
enum mg_sink { MG_SINK_SENDS, MG_SINK_RECVS, MG_SINK_CALLS, MG_SINK_REQUESTS, MG_SINKS };
size_t mg_record_size(enum mg_sink which);
struct mg_matcher *mg_match_begin_relay(const struct rt_location *ranks, uint32_t nranks, const struct mg_sort_config *cfg,
                                        int (*relay)(void *ctx, enum mg_sink which, const void *record), void *ctx,
                                        struct mg_result *out, char *err, size_t errlen);
int mg_match_put(struct mg_matcher *m, enum mg_sink which, const void *records, size_t n);
void mg_match_add_counts(struct mg_matcher *m, uint64_t outside_sends, uint64_t outside_recvs, uint64_t cancelled);
/* A worker's matcher freed, out (its communicators) kept. */
void mg_match_relay_end(struct mg_matcher *m);

#endif
