/* rma_flow.h — one-sided communication in the merge: windows unified across
 * ranks, and the orderings MPI guarantees between one-sided events, used as
 * constraints like messages (docs/design.md: a constraint is a fact about data
 * flow).
 *
 * Recorded by the tracer (src/rma.c): an operation (RmaPut/RmaGet/RmaAtomic)
 * and its completion (RmaOpCompleteRemote, same matching id) inside the
 * synchronisation call that completed it. When that call is a fence (an RMA
 * collective BARRIER on the window), the operation belongs to the epoch the
 * fence closes, and MPI says it completes at its target before the target's
 * own closing fence returns: the operation's issue precedes the end of the
 * target's fence of the same ordinal on the window. PSCW: MPI_Win_wait
 * returns only after every origin of the exposure epoch called
 * MPI_Win_complete, so origin o's k-th complete toward target t (its
 * RmaSync NOTIFY_OUT, stamped at complete's entry) precedes the end of t's
 * k-th wait naming o (its RmaSync NOTIFY_IN, stamped at wait's exit).
 * Nothing is inferred for passive-target epochs (MPI_Win_lock/unlock,
 * lock_all, flush): the target takes no part, so no event of the target's
 * is ordered by them. Mutual exclusion of exclusive locks gives no
 * constraint either: MPI orders lock acquisitions in no way (any waiting
 * origin may get the lock next, and MPI_Win_lock may return before the lock
 * is granted, which may happen as late as in MPI_Win_unlock), so two
 * exclusive epochs of origins A and B on one target say only "A's epoch
 * before B's, or B's before A's" -- a disjunction, which difference
 * constraints cannot state, and picking the order the skewed timestamps
 * show would be assuming what the merge is there to find out. */
#ifndef SYNCTRACE_RMA_FLOW_H
#define SYNCTRACE_RMA_FLOW_H

#include <stddef.h>
#include <stdint.h>
#include "match.h"
#include "rawtrace.h"

/* The n-th window a rank makes on a communicator is the same window on all
 * its members. win_map[r][k] (each sized ranks[r].nwins) gets rank r's
 * window k's merged id; *names[w] the first name a member gave window w
 * (borrowed, "" when none), *comm_of[w] its global communicator. Threads
 * take their rank's windows. Returns 0, or -1 when out of memory. */
int rma_unify_windows(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match, uint32_t **win_map,
                     uint32_t *nwins, const char ***names, uint32_t **comm_of);

/* The fence and PSCW orderings: flows[i].send is an operation (or a
 * complete) at its origin, flows[i].recv the end of the target's closing
 * fence (or wait) (malloc'd, *n of them). Returns 0, or -1 with a one-line message. */
int rma_fence_flows(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                   struct mg_message **flows, size_t *n, char *err, size_t errlen);
/* The same in steps, like mg_match_begin (match.h): begin reads the
 * definitions (NULL when out of memory), location one location's events
 * (any order, one at a time; 0 or -1, which sticks), end joins them (0,
 * or -1 with a one-line message); free frees the orderer. */
struct rma_orderer;
struct rma_orderer *rma_order_begin(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match);
int rma_order_location(struct rma_orderer *o, uint32_t r);
/* The same for a location read in chunks (as mg_match_chunk, match.h). */
int rma_order_chunk(struct rma_orderer *o, uint32_t r, int last);
int rma_order_end(struct rma_orderer *o, struct mg_message **flows, size_t *n, char *err, size_t errlen);
void rma_order_free(struct rma_orderer *o);
/* The parallel merge (pmerge.h): what location r's walk found, after its
 * last chunk, packed where it was read (malloc'd into *buf, *len bytes;
 * *buf NULL when it found nothing) and unpacked on process 0 as if its
 * own walk had found it. 0, or -1 (out of memory, or bytes that are no
 * packing: which sticks). */
int rma_order_pack(const struct rma_orderer *o, uint32_t r, void **buf, size_t *len);
int rma_order_unpack(struct rma_orderer *o, uint32_t r, const void *buf, size_t len);

#endif
