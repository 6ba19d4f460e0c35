/* flow.h — which entries of a collective instance precede which exits:
 * the data-flow rule of docs/design.md, "The merge: stages", in one place
 * for the constraint graph, the causal index, the CLC comparison and the
 * report's violation counts.
 *
 * Member i's entry precedes member j's exit only where bytes flow from i to
 * j, as the members recorded them (bytes sent and received, the root, a
 * sparse alltoallv/w member's source slots, a neighbourhood member's
 * in-neighbours):
 *   barrier: every entry before every exit;
 *   allreduce, allgather(v), alltoall(v/w), reduce_scatter(_block): i to j
 *     where i sent and j received bytes (and, for alltoallv/w, j's recorded
 *     sources include i);
 *   bcast, scatter(v): the root's entry before the exit of every member
 *     that received bytes, if the root sent any;
 *   reduce, gather(v): the entry of every member that sent bytes before the
 *     root's exit, if the root received any;
 *   scan / exscan: entries at communicator ranks <= r (< r) before the exit
 *     of rank r, when the count is not zero;
 *   neighbourhood collectives: from each in-neighbour that sent bytes (and
 *     whose slot the receiver's sources include) to a member that received.
 * On an intercommunicator, data flows only between the two groups. Zero
 * counts force nothing: implementations complete them locally.
 *
 * The rule is given as groups: every entry of a group's sources precedes
 * every exit of its sinks. Dense patterns are one or two groups (O(P) to
 * encode, a hub each in the constraint graph); sparse ones a group per
 * receiver. Scan and exscan are a prefix over `order` instead. */
#ifndef SYNCTRACE_FLOW_H
#define SYNCTRACE_FLOW_H

#include <stdint.h>
#include "match.h"
#include "rawtrace.h"

struct mg_flow_group {
    const uint32_t *src, *dst;   /* member indices */
    uint32_t nsrc, ndst;
    size_t src_at, dst_at;       /* (while building: offsets into pool) */
};

struct mg_flow {
    uint32_t n;                  /* members */
    struct mg_flow_group *groups;
    uint32_t ngroups;
    /* MG_SCAN / MG_EXSCAN with a non-zero count: order[p] is the member at
     * position p (communicator rank order); entries at positions <= p
     * (< p) precede the exit at position p. Else MG_SKIP, order NULL. */
    enum mg_shape prefix;
    uint32_t *order;
    uint32_t *pool;              /* storage of the groups' member lists */
    size_t npool, cpool;
    uint32_t cgroups;
};

/* Fill what each member of a collective moved (mg_member's side and
 * sparse sources; mg_collective.inter) from the members' quiet and
 * comm_ref (which mg_match took from their exits), the sources the exits
 * recorded and the definitions of `ranks`: called by mg_match for each
 * instance as it is gathered, in order, before it may be set aside. No
 * event is read. begin and one return 0, or -1 (memory); end hands the
 * sources to out (mg_result.sources), abandon frees them. */
struct mg_facts {
    const struct rt_location *ranks;
    uint32_t *member_of;      /* world rank -> member, NONE between instances */
    uint32_t n;
    uint32_t *pool;
    size_t npool, cpool;
};
int mg_flow_facts_begin(struct mg_facts *x, const struct rt_location *ranks, uint32_t nranks);
int mg_flow_facts_one(struct mg_facts *x, struct mg_collective *c);
void mg_flow_facts_end(struct mg_facts *x, struct mg_result *out);
void mg_flow_facts_abandon(struct mg_facts *x);

/* Fill f (zeroed by the caller, or reused) with the data flow of instance
 * c of result m, by the facts its members carry. Returns 0, or -1 when
 * out of memory. */
int mg_flow_of(const struct mg_result *m, const struct mg_collective *c, struct mg_flow *f);
void mg_flow_reset(struct mg_flow *f);   /* empty, keeps the storage */
void mg_flow_free(struct mg_flow *f);

/* Does member i's entry precede member j's exit (i != j)? By the groups
 * and the prefix, in O(size of the groups): for tests and small checks. */
int mg_flow_pair(const struct mg_flow *f, uint32_t i, uint32_t j);

/* Violations of the rule under times[rank][index]: with neighbour = 0,
 * the instances (neighbourhood ones apart) where some entry that precedes
 * an exit is later than it; with neighbour = 1, the (member, in-neighbour)
 * pairs of neighbourhood instances that are out of order. */
size_t mg_flow_violations(const struct mg_result *match, uint64_t *const *times, int neighbour);
/* The same with each time from at(ctx, event): for times that are
 * computed (from the event's raw time, e->time), not stored. */
size_t mg_flow_violations_at(const struct mg_result *match,
                             uint64_t (*at)(const void *ctx, const struct mg_event_ref *e), const void *ctx,
                             int neighbour);

#endif
