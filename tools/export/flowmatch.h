/* flowmatch.h — pair messages while streaming a trace, without holding it.
 *
 * Messages pair first-in-first-out per (communicator, sender, receiver,
 * tag), sends in issue order, receives in the order they were *posted*
 * (docs/design.md, "The merge: stages", tools/match/match.c), cancelled requests left out.
 * Instead of sorting all sends and receives, count: the k-th receive of a
 * key is the k-th in posting order, known when every receive posted
 * earlier on the same rank has been completed (its source and tag
 * resolved) or cancelled; likewise the k-th send, once every Isend issued
 * earlier is known not to be cancelled (completed). So each rank keeps a
 * queue of the sends and one of the receives not yet counted: their
 * lengths are the program's outstanding requests, not the trace's length.
 * Then (key, k) names the message at both ends, computed independently.
 *
 * Memory: one counter pair per distinct key, plus the queues. A request
 * never completed nor cancelled (MPI_Request_free) holds its rank's queue
 * until fm_finish, which counts what it held (a send: as issued; a
 * receive that never resolved its source: dropped, like the matcher's). */
#ifndef SYNCTRACE_FLOWMATCH_H
#define SYNCTRACE_FLOWMATCH_H

#include <stdint.h>

struct fm_key {
    uint32_t comm, src, dst, tag;   /* global communicator id, world ranks */
};

/* Called for every send and receive once its k is known, in issue/posting
 * order per rank. `time` and `cookie` are what fm_send/fm_recv got. */
typedef void (*fm_end_fn)(void *user, int is_send, const struct fm_key *key, uint64_t k, uint32_t rank,
                          uint64_t time, uint64_t cookie);

struct fm_matcher;

struct fm_matcher *fm_new(uint32_t nranks, fm_end_fn on_end, void *user);
void fm_free(struct fm_matcher *m);
/* A send was issued on `rank`: MpiSend (has_req = 0) or MpiIsend. 0 or -1 (memory). */
int fm_send(struct fm_matcher *m, uint32_t rank, int has_req, uint64_t req, const struct fm_key *key,
            uint64_t time, uint64_t cookie);
/* An Isend's request completed (MpiIsendComplete): it was not cancelled. */
void fm_send_complete(struct fm_matcher *m, uint32_t rank, uint64_t req);
/* A receive request was posted (MpiIrecvRequest) on `rank`. 0 or -1 (memory). */
int fm_post(struct fm_matcher *m, uint32_t rank, uint64_t req);
/* A receive completed: MpiRecv (has_req = 0: posted now) or MpiIrecv. */
int fm_recv(struct fm_matcher *m, uint32_t rank, int has_req, uint64_t req, const struct fm_key *key, uint64_t time,
            uint64_t cookie);
/* MPI_Request_free released the posted receive `req` before it completed
 * (RT_IRECV_FREED): with `key` (what it was posted for) it takes its turn
 * and its end is reported with time FM_TIME_UNKNOWN; with key NULL (a
 * wildcard) it is dropped. Either way it no longer holds the rank's queue. */
#define FM_TIME_UNKNOWN UINT64_MAX
void fm_freed(struct fm_matcher *m, uint32_t rank, uint64_t req, const struct fm_key *key, uint64_t cookie);
/* A request was cancelled: the send or posted receive with it never matches. */
void fm_cancel(struct fm_matcher *m, uint32_t rank, uint64_t req);
/* End of the trace: count what is still queued behind requests that never
 * completed. Returns how many posted receives never completed. */
uint64_t fm_finish(struct fm_matcher *m);

#endif
