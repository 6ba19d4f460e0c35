/* waits_coll.c — the collective patterns (Scalasca's definitions), per
 * instance: the k-th collective (blocking or not, in call order) of every
 * member on a communicator. Only complete instances count (every member's
 * record present). A member waits from its entry (of the call that
 * completed it: MPI_Wait* for a non-blocking one; none where that call
 * does not block, MPI_Test*) for the others' posts (entries of the calls
 * that started theirs: MPI_I... for a non-blocking one).
 *   Wait at Barrier, Wait at NxN (MPI_Barrier; all-to-all kinds:
 *     Allgather(v), Alltoall(v/w), Allreduce, Reduce_scatter(_block)):
 *     each member waits from its entry to the last member's entry.
 *   Late Broadcast, Late Scatter (Bcast; Scatter(v)): a non-root waits
 *     from its entry to the root's.
 *   Early Reduce, Early Gather (Reduce; Gather(v)): the root waits from
 *     its entry to the first other member's (Scalasca: until data could
 *     first arrive).
 *   Early Scan (Scan, Exscan): member i waits from its entry to the last
 *     entry of the members before it in communicator order.
 *   Wait at Fence (MPI_Win_fence, an RMA collective of the window's
 *     members): as Wait at Barrier.
 * A maximum (minimum) of differences is bounded by the maximum (minimum)
 * of their bounds.
 * The members come sorted by instance (waits_read.c): one instance in
 * memory at a time, at most one member per rank. */
#include "waits.h"

#include "mtread.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <otf2/OTF2_Events.h>

int wt_by_instance(const void *pa, const void *pb)
{
    const struct wt_member *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    /* a rank's threads as the one reader's stable sort left them: a total order */
    return (a->loc > b->loc) - (a->loc < b->loc);
}

static int pattern_of(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        return WT_WAIT_BARRIER;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return WT_WAIT_NXN;
    case OTF2_COLLECTIVE_OP_BCAST:
        return WT_LATE_BROADCAST;
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        return WT_LATE_SCATTER;
    case OTF2_COLLECTIVE_OP_REDUCE:
        return WT_EARLY_REDUCE;
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
        return WT_EARLY_GATHER;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
        return WT_EARLY_SCAN;
    default:
        return -1;
    }
}

/* Member m's wait w counted. A member that receives nothing (a
 * zero-count MPI_Bcast) may leave before those it would wait for enter:
 * it waited until it left at the latest. Its entry and exit are on one
 * clock, so that cap is exact but for the rate (wt_diff_of). Where data
 * comes to it, MPI orders its exit after the senders' entries, as the
 * merged timeline does: no cap, and a view on other clocks (--raw)
 * shows what they make of it. */
static int add_member(struct wt_table *tb, const struct wt_bounds *bd, int p, const struct wt_member *m,
                      uint32_t comm, struct wt_diff *w)
{
    if (m->receives_nothing && !isnan(m->leave.g)) {
        /* (from m's entry, as every rule's differences: the probe unchanged) */
        struct wt_diff stay = wt_diff_of(bd, &m->enter, m->rank, &m->leave, m->rank);
        if (!bd->have) {      /* without the merge's report nothing is bounded, not even this */
            stay.lo = -INFINITY;
            stay.hi = INFINITY;
        }
        wt_diff_min(w, &stay);
    }
    return wt_add(tb, p, m->rank, m->region, comm, w);
}

static const struct wt_diff NONE_MAX = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
static const struct wt_diff NONE_MIN = { INFINITY, INFINITY, INFINITY, INFINITY, INFINITY };

/* Member i's wait until the last post of members [from, to). */
static struct wt_diff until_last(const struct wt_bounds *bd, const struct wt_member *v, size_t i, size_t from,
                                 size_t to)
{
    struct wt_diff w = NONE_MAX;
    for (size_t j = from; j < to; j++) {
        struct wt_diff d = wt_diff_of(bd, &v[i].enter, v[i].rank, &v[j].post, v[j].rank);
        wt_diff_max(&w, &d);
    }
    return w;
}

/* The member of world rank r in v (sorted by rank), or n. */
static size_t member_at(const struct wt_member *v, size_t n, uint64_t r)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].rank < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].rank == r ? lo : n;
}

/* A neighbourhood collective on a Cartesian communicator: each member
 * waits until the last post of its in-neighbours, the ranks at shift -1
 * and +1 in each dimension (row-major coordinates, as MPI places them;
 * beyond a non-periodic border MPI_PROC_NULL, nobody). Members are
 * found by communicator rank through order[] (member k's index in v). */
static int neighbours(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb,
                      const struct wt_member *v, size_t n, uint32_t *order, int p)
{
    const struct mt_comm *c = &rec->comm_defs[v[0].comm];
    const uint64_t *members = rec->comm_members[v[0].comm];
    for (size_t k = 0; k < n; k++)
        if ((order[k] = (uint32_t)member_at(v, n, members[k])) == n)
            return 0;         /* (a member twice: not an instance of ours) */
    for (size_t k = 0; k < n; k++) {
        const struct wt_member *me = &v[order[k]];
        if (!me->blocking)
            continue;
        struct wt_diff w = NONE_MAX;
        size_t stride = 1;    /* of dimension d: the product of the later dimensions' sizes */
        for (uint32_t d = c->cart_ndims; d-- > 0;) {
            uint32_t size = c->cart_sizes[d];
            uint32_t at = (uint32_t)(k / stride % size);
            for (int s = -1; s <= 1; s += 2) {
                int64_t to = (int64_t)at + s;
                if (to < 0 || to >= size) {
                    if (!c->cart_periodic[d])
                        continue;   /* MPI_PROC_NULL */
                    to = (to + size) % size;
                }
                size_t j = k - (size_t)at * stride + (size_t)to * stride;
                const struct wt_member *o = &v[order[j]];
                struct wt_diff x = wt_diff_of(bd, &me->enter, me->rank, &o->post, o->rank);
                wt_diff_max(&w, &x);
            }
            stride *= size;
        }
        if (w.w == -INFINITY)
            continue;         /* no neighbour at all */
        if (add_member(tb, bd, p, me, me->comm, &w) != 0)
            return -1;
    }
    return 0;
}

/* A neighbourhood collective on a graph communicator: each member waits
 * until the last post of its in-neighbours as OUT/neighbours.txt lists
 * them. 1 when every member's are known, else 0 (nothing counted). */
static int graph_neighbours(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb,
                            const struct wt_member *v, size_t n, int p, int *rc)
{
    *rc = 0;
    for (size_t i = 0; i < n; i++)
        if (!wt_nbrs_of(rec, v[i].comm, v[i].rank))
            return 0;
    for (size_t i = 0; i < n; i++) {
        const struct wt_nbr *x = wt_nbrs_of(rec, v[i].comm, v[i].rank);
        if (!v[i].blocking)
            continue;
        struct wt_diff w = NONE_MAX;
        for (size_t k = x->first; k < x->first + x->n; k++) {
            size_t j = member_at(v, n, rec->nbr_list[k]);
            if (j == n)
                continue;     /* (not a member: no such neighbour) */
            struct wt_diff d = wt_diff_of(bd, &v[i].enter, v[i].rank, &v[j].post, v[j].rank);
            wt_diff_max(&w, &d);
        }
        if (w.w != -INFINITY && add_member(tb, bd, p, &v[i], v[i].comm, &w) != 0) {
            *rc = -1;
            break;
        }
    }
    return 1;
}

/* Whether a Cartesian communicator's sizes cover its n members. */
static int cart_fits(const struct mt_comm *c, size_t n)
{
    size_t prod = 1;
    for (uint32_t d = 0; d < c->cart_ndims; d++) {
        if (!c->cart_sizes[d] || prod > SIZE_MAX / c->cart_sizes[d])
            return 0;
        prod *= c->cart_sizes[d];
    }
    return c->cart_ndims && prod == n;
}

static int instance(struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb,
                    const struct wt_member *v, size_t n, uint32_t *order, int pattern)
{
    int p = pattern >= 0 ? pattern : pattern_of(v[0].op);
    if (p < 0)
        return 0;
    int neighbor = 0;
    for (size_t i = 0; i < n; i++)
        neighbor |= v[i].neighbor;
    if (neighbor && pattern < 0) {
        /* neighbour alltoall/allgather (the only kinds MPI has): Wait at NxN, by in-neighbours */
        if (p != WT_WAIT_NXN)
            return 0;
        if (rec->comm_members[v[0].comm] && cart_fits(&rec->comm_defs[v[0].comm], n))
            return neighbours(rec, bd, tb, v, n, order, p);
        int rc;
        if (!graph_neighbours(rec, bd, tb, v, n, p, &rc))
            rec->unknown_neighbours++;   /* neither Cartesian nor in OUT/neighbours.txt */
        return rc;
    }
    uint32_t comm = v[0].comm, root = v[0].root;
    size_t ri = n;
    for (size_t i = 0; i < n; i++)
        if (v[i].rank == root)
            ri = i;
    switch (p) {
    case WT_WAIT_BARRIER:
    case WT_WAIT_NXN:
    case WT_WAIT_FENCE:
        for (size_t i = 0; i < n; i++) {
            if (!v[i].blocking)
                continue;
            struct wt_diff w = until_last(bd, v, i, 0, n);
            if (add_member(tb, bd, p, &v[i], comm, &w) != 0)
                return -1;
        }
        return 0;
    case WT_LATE_BROADCAST:
    case WT_LATE_SCATTER:
        if (ri == n)
            return 0;
        for (size_t i = 0; i < n; i++)
            if (i != ri && v[i].blocking) {
                struct wt_diff w = wt_diff_of(bd, &v[i].enter, v[i].rank, &v[ri].post, root);
                if (add_member(tb, bd, p, &v[i], comm, &w) != 0)
                    return -1;
            }
        return 0;
    case WT_EARLY_REDUCE:
    case WT_EARLY_GATHER: {
        if (ri == n || n < 2 || !v[ri].blocking)
            return 0;
        struct wt_diff w = NONE_MIN;
        for (size_t j = 0; j < n; j++)
            if (j != ri) {
                struct wt_diff d = wt_diff_of(bd, &v[ri].enter, root, &v[j].post, v[j].rank);
                wt_diff_min(&w, &d);
            }
        return add_member(tb, bd, p, &v[ri], comm, &w);
    }
    case WT_EARLY_SCAN: {
        /* v is in world-rank order; the scan's is the communicator's */
        const uint64_t *members = rec->comm_members[comm];
        if (!members)
            return 0;
        for (size_t k = 0; k < n; k++)
            for (size_t i = 0; i < n; i++)
                if (v[i].rank == members[k])
                    order[k] = (uint32_t)i;
        for (size_t k = 1; k < n; k++) {
            if (!v[order[k]].blocking)
                continue;
            struct wt_diff w = NONE_MAX;
            for (size_t q = 0; q < k; q++) {
                struct wt_diff d = wt_diff_of(bd, &v[order[k]].enter, v[order[k]].rank, &v[order[q]].post,
                                              v[order[q]].rank);
                wt_diff_max(&w, &d);
            }
            if (add_member(tb, bd, p, &v[order[k]], comm, &w) != 0)
                return -1;
        }
        return 0;
    }
    }
    return 0;
}

/* The instances of the members of `kind` (the next in rec->members),
 * each complete when it has size_of(group) members, handed to instance()
 * as `pattern`'s (-1: by operation). 0, or -1 with a message in err. */
static int instances(struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb, uint32_t kind,
                     const uint32_t *size_of, uint32_t ngroups, int pattern, char *err, size_t errlen)
{
    struct wt_member *v = NULL;
    uint32_t *order = NULL;
    size_t n = 0, cap = 0;
    uint64_t incomplete = 0;
    int rc = 0;
    for (;;) {
        const struct wt_member *m = wt_sorted_peek(rec->members);
        if (n && (!m || m->kind != kind || m->comm != v[0].comm || m->seq != v[0].seq)) {
            if (v[0].comm < ngroups && n == size_of[v[0].comm]) {
                if ((rc = instance(rec, bd, tb, v, n, order, pattern)) != 0)
                    break;
            } else
                incomplete++;
            n = 0;
        }
        if (!m || m->kind != kind)
            break;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 64;
            struct wt_member *nv = realloc(v, c * sizeof *nv);
            uint32_t *no = nv ? realloc(order, c * sizeof *no) : NULL;
            if (nv)
                v = nv;
            if (!no) {
                rc = -1;
                break;
            }
            order = no;
            cap = c;
        }
        v[n++] = *(const struct wt_member *)wt_sorted_next(rec->members);
    }
    rec->incomplete_collectives += incomplete;
    if (rc != 0 || *wt_sorted_error(rec->members)) {
        const char *why = wt_sorted_error(rec->members);
        snprintf(err, errlen, "%s", *why ? why : "out of memory for the collective waits");
        rc = -1;
    }
    free(v);
    free(order);
    return rc;
}

int wt_coll(struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb, char *err, size_t errlen)
{
    if (wt_sorted_finish(rec->members) != 0) {
        snprintf(err, errlen, "%s", wt_sorted_error(rec->members));
        return -1;
    }
    return instances(rec, bd, tb, WT_MEMBER_COLL, rec->comm_size, rec->ncomms, -1, err, errlen);
}

/* Wait at Fence (Scalasca): MPI_Win_fence is a barrier of the window's
 * members (the ranks that created it): each waits from its entry to the
 * last member's. After wt_coll, which leaves the fences in rec->members. */
int wt_rma(struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb, char *err, size_t errlen)
{
    int rc = instances(rec, bd, tb, WT_MEMBER_FENCE, rec->win_size, rec->nwins, WT_WAIT_FENCE, err, errlen);
    rec->spilled_bytes += wt_sorted_spilled(rec->members);
    return rc;
}
