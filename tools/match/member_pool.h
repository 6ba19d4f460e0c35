/* member_pool.h — one copy of each communicator's member list for all the
 * locations that name it.
 *
 * Every rank's archive lists the world ranks of each communicator it is in
 * (the membership file), so a merge that keeps them per location holds
 * MPI_COMM_WORLD's P ranks P times: 800 MB of 10,000-rank lists for a trace
 * of a few MB. The read stage hands each rank's lists to the pool as the
 * rank is read; equal lists are kept once, and the ranks point at that copy
 * (rt_comm.shared_members). A stage that must change a rank's list (the
 * renumbering of spawned jobs, outside processes) first takes a copy of
 * its own with member_pool_own. */
#ifndef SYNCTRACE_MEMBER_POOL_H
#define SYNCTRACE_MEMBER_POOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "rawtrace.h"

struct member_pool {
    pthread_mutex_t lock;     /* the read stage's threads share it */
    struct member_list *slots;
    size_t cap, n;
};

void member_pool_init(struct member_pool *p);
/* Share the member lists of rank r's communicators (its threads borrow
 * them) with the other ranks'; a list the pool cannot take stays r's own. */
void member_pool_share(struct member_pool *p, struct rt_location *r);
/* Make c's member list its own again before it is changed; 0, or -1 when
 * out of memory. */
int member_pool_own(struct rt_comm *c);
/* Free the shared lists (after every rank that points at them). */
void member_pool_free(struct member_pool *p);

#endif
