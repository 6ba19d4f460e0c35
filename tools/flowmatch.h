/* flowmatch.h — pair messages while streaming a trace, without holding it.
 *
 * Messages pair first-in-first-out per (communicator, sender, receiver,
 * tag), receives in the order they were *posted* (DESIGN.md "Matching",
 * tools/match.c). Instead of sorting all sends and receives, count: the
 * k-th send of a key is issued in event order, so k is known at once; the
 * k-th receive is the k-th in posting order, known when every receive
 * posted earlier on the same rank has been completed (its source and tag
 * resolved) or cancelled. So each rank keeps a queue of the receives
 * posted but not yet counted: its length is the program's outstanding
 * receives, not the trace's length. Then (key, k) names the message at
 * both ends, computed independently.
 *
 * Memory: one counter pair per distinct key, plus the queues. A receive
 * request never completed nor cancelled holds its rank's queue until
 * fm_finish (it is then dropped, like the matcher's unmatched receives). */
#ifndef SYNCTRACE_FLOWMATCH_H
#define SYNCTRACE_FLOWMATCH_H

#include <stdint.h>

struct fm_key {
    uint32_t comm, src, dst, tag;   /* global communicator id, world ranks */
};

/* Called for every receive once its k is known, in posting order per rank.
 * `time` and `cookie` are what fm_recv got. */
typedef void (*fm_recv_fn)(void *user, const struct fm_key *key, uint64_t k, uint32_t rank, uint64_t time,
                           uint64_t cookie);

struct fm_matcher;

struct fm_matcher *fm_new(uint32_t nranks, fm_recv_fn on_recv, void *user);
void fm_free(struct fm_matcher *m);
/* A send was issued: returns its k (or UINT64_MAX when out of memory). */
uint64_t fm_send(struct fm_matcher *m, const struct fm_key *key);
/* A receive request was posted (MpiIrecvRequest) on `rank`. 0 or -1 (memory). */
int fm_post(struct fm_matcher *m, uint32_t rank, uint64_t req);
/* A receive completed: MpiRecv (has_req = 0: posted now) or MpiIrecv. */
int fm_recv(struct fm_matcher *m, uint32_t rank, int has_req, uint64_t req, const struct fm_key *key, uint64_t time,
            uint64_t cookie);
/* A request was cancelled: a posted receive with it will never match. */
void fm_cancel(struct fm_matcher *m, uint32_t rank, uint64_t req);
/* End of the trace: count the receives still queued behind ones that never
 * completed. Returns how many posted receives never completed. */
uint64_t fm_finish(struct fm_matcher *m);
/* The largest queue any rank held (for the memory bound). */
uint64_t fm_max_queue(const struct fm_matcher *m);

#endif
