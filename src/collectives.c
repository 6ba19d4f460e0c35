/* collectives.c — collective events. A blocking collective is recorded as
 * MpiCollectiveBegin at entry and MpiCollectiveEnd at exit, both written
 * once it returned successfully; a non-blocking
 * one as NonBlockingCollectiveRequest when posted and
 * NonBlockingCollectiveComplete where its request completes.
 *
 * Bytes are this rank's view: what it sends and what it receives, counting
 * its own block where the operation moves one (as Score-P does; unlike
 * Score-P, MPI_IN_PLACE does not change the numbers). Nothing is counted
 * where MPI moves nothing: MPI_PROC_NULL neighbours of a Cartesian
 * topology, Exscan's result on rank 0 and the last rank's contribution.
 * Over all ranks of one collective, bytes sent = bytes received.
 * Arguments that MPI ignores on this rank (the receive side of a non-root,
 * the send side with MPI_IN_PLACE) are never read. */
#include <stdlib.h>

#include "communicators.h"
#include "hooks.h"
#include "requests.h"
#include "sync.h"
#include "writer.h"

static int comm_size(MPI_Comm comm)
{
    int n = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

static int comm_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

#define ALL_LIVE (~(uint64_t)0)

static int is_live(uint64_t live, int i)
{
    return i >= 64 || (live >> i & 1);
}

/* In- and out-degree for neighbourhood collectives, else the group size.
 * `live` has bit i clear for a slot that moves no data: at the border of a
 * non-periodic Cartesian dimension d the neighbour in slot 2d (negative
 * direction) or 2d+1 (positive) is MPI_PROC_NULL. */
void st_coll_peers(MPI_Comm comm, int neighbor, int *in, int *out, uint64_t *live)
{
    *in = *out = comm_size(comm);
    *live = ALL_LIVE;
    if (!neighbor)
        return;
    int topo = MPI_UNDEFINED;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        *in = *out = 2 * nd;
        for (int d = 0; d < nd && 2 * d + 1 < 64; d++) {
            int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &src, &dst);
            if (src == MPI_PROC_NULL)
                *live &= ~((uint64_t)1 << (2 * d));
            if (dst == MPI_PROC_NULL)
                *live &= ~((uint64_t)1 << (2 * d + 1));
        }
    } else if (topo == MPI_GRAPH) {
        int n = 0;
        PMPI_Graph_neighbors_count(comm, comm_rank(comm), &n);
        *in = *out = n;
    } else if (topo == MPI_DIST_GRAPH) {
        int weighted;
        PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted);
    }
}

static int count_live(int n, uint64_t live)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += is_live(live, i);
    return k;
}

/* Counts arrays may be NULL where MPI ignores them: read nothing then. */
static uint64_t sum_counts(const int *counts, int n, MPI_Datatype type, uint64_t live)
{
    uint64_t total = 0;
    for (int i = 0; counts && i < n; i++)
        if (is_live(live, i))
            total += st_type_bytes(counts[i], type);
    return total;
}

/* The root as OTF2 (and Score-P) records it: on an intercommunicator
 * MPI_ROOT is SELF and the other ranks of the root's group (MPI_PROC_NULL)
 * are THIS_GROUP; the receiving group names the root's remote rank. */
static uint32_t root_ref(int root)
{
    if (root == MPI_ROOT)
        return OTF2_COLLECTIVE_ROOT_SELF;
    if (root == MPI_PROC_NULL)
        return OTF2_COLLECTIVE_ROOT_THIS_GROUP;
    return root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root;
}

static struct st_coll make(OTF2_CollectiveOp op, MPI_Comm comm, uint32_t root, uint64_t sent, uint64_t received)
{
    struct st_coll c = { op, comm, root, sent, received, 0, NULL };
    return c;
}

/* One rank's part in a rooted collective (MPI 4.0 §6.2.2). On an
 * intercommunicator the root passes MPI_ROOT and talks to the n ranks of
 * the remote group, the rest of its group passes MPI_PROC_NULL and takes
 * no part, and the remote group names the root by its remote rank; on an
 * intracommunicator the root talks to all n ranks, itself included. */
enum part { PART_ROOT, PART_MEMBER, PART_NONE };
struct rooted {
    enum part part;
    int inter;
    int n;        /* the root's peers (root only) */
    int me;       /* rank in the local group */
};

static struct rooted rooted(MPI_Comm comm, int root)
{
    struct rooted r = { PART_MEMBER, 0, 0, 0 };
    PMPI_Comm_test_inter(comm, &r.inter);
    PMPI_Comm_rank(comm, &r.me);
    if (r.inter) {
        r.part = root == MPI_ROOT ? PART_ROOT : root == MPI_PROC_NULL ? PART_NONE : PART_MEMBER;
        if (r.part == PART_ROOT)
            PMPI_Comm_remote_size(comm, &r.n);
    } else if (r.me == root) {
        r.part = PART_ROOT;
        PMPI_Comm_size(comm, &r.n);
    }
    return r;
}

struct st_coll st_coll_barrier(MPI_Comm comm)
{
    return make(OTF2_COLLECTIVE_OP_BARRIER, comm, OTF2_UNDEFINED_UINT32, 0, 0);
}

struct st_coll st_coll_bcast(const void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    (void)buf;
    struct rooted r = rooted(comm, root);
    uint64_t b = r.part == PART_NONE ? 0 : st_type_bytes(count, type);
    uint64_t sent = r.part == PART_ROOT ? b * (uint64_t)r.n : 0;
    /* An intracommunicator root sends n blocks, its own included, so it also receives that one. */
    uint64_t recv = r.part == PART_MEMBER || (r.part == PART_ROOT && !r.inter) ? b : 0;
    return make(OTF2_COLLECTIVE_OP_BCAST, comm, root_ref(root), sent, recv);
}

struct st_coll st_coll_gather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                              MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct rooted r = rooted(comm, root);
    uint64_t sent = 0, recv = 0;
    if (r.part == PART_ROOT) {
        recv = st_type_bytes(rcount, rtype) * (uint64_t)r.n;
        if (!r.inter)   /* an intercommunicator root sends nothing */
            sent = sendbuf == MPI_IN_PLACE ? st_type_bytes(rcount, rtype) : st_type_bytes(scount, stype);
    } else if (r.part == PART_MEMBER) {
        sent = st_type_bytes(scount, stype);
    }
    return make(OTF2_COLLECTIVE_OP_GATHER, comm, root_ref(root), sent, recv);
}

struct st_coll st_coll_gatherv(const void *sendbuf, int scount, MPI_Datatype stype, const int *rcounts,
                               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct rooted r = rooted(comm, root);
    uint64_t sent = 0, recv = 0;
    if (r.part == PART_ROOT) {
        recv = sum_counts(rcounts, r.n, rtype, ALL_LIVE);
        if (!r.inter)
            sent = sendbuf != MPI_IN_PLACE ? st_type_bytes(scount, stype)
                   : rcounts && r.me < r.n ? st_type_bytes(rcounts[r.me], rtype) : 0;
    } else if (r.part == PART_MEMBER) {
        sent = st_type_bytes(scount, stype);
    }
    return make(OTF2_COLLECTIVE_OP_GATHERV, comm, root_ref(root), sent, recv);
}

struct st_coll st_coll_scatter(int scount, MPI_Datatype stype, const void *recvbuf, int rcount,
                               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct rooted r = rooted(comm, root);
    uint64_t sent = 0, recv = 0;
    if (r.part == PART_ROOT) {
        sent = st_type_bytes(scount, stype) * (uint64_t)r.n;
        if (!r.inter)   /* an intercommunicator root receives nothing */
            recv = recvbuf == MPI_IN_PLACE ? st_type_bytes(scount, stype) : st_type_bytes(rcount, rtype);
    } else if (r.part == PART_MEMBER) {
        recv = st_type_bytes(rcount, rtype);
    }
    return make(OTF2_COLLECTIVE_OP_SCATTER, comm, root_ref(root), sent, recv);
}

struct st_coll st_coll_scatterv(const int *scounts, MPI_Datatype stype, const void *recvbuf, int rcount,
                                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    struct rooted r = rooted(comm, root);
    uint64_t sent = 0, recv = 0;
    if (r.part == PART_ROOT) {
        sent = sum_counts(scounts, r.n, stype, ALL_LIVE);
        if (!r.inter)
            recv = recvbuf != MPI_IN_PLACE ? st_type_bytes(rcount, rtype)
                   : scounts && r.me < r.n ? st_type_bytes(scounts[r.me], stype) : 0;
    } else if (r.part == PART_MEMBER) {
        recv = st_type_bytes(rcount, rtype);
    }
    return make(OTF2_COLLECTIVE_OP_SCATTERV, comm, root_ref(root), sent, recv);
}

static int is_inter(MPI_Comm comm)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    return inter;
}

static int local_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

/* The peers whose blocks this rank receives when that is not all of them
 * or none: the merge's data-flow constraints need it (docs/design.md, "The
 * merge: stages"); the common dense case records nothing. Slots are
 * numbered over the live ones only, as the communicator's recorded
 * in-neighbours are (a Cartesian border's MPI_PROC_NULL has none). */
static int block_nonempty(const int *counts, int i, const MPI_Datatype *types, int type_size)
{
    return types ? st_type_bytes(counts[i], types[i]) > 0 : counts[i] > 0 && type_size > 0;
}

static void note_sources(struct st_coll *c, int n, uint64_t live, const int *counts, MPI_Datatype type,
                         const MPI_Datatype *types)
{
    int nonzero = 0, slots = 0, size = 0;
    if (!counts || n <= 0)
        return;
    if (!types && (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS))
        return;
    for (int i = 0; i < n; i++) {
        if (!is_live(live, i))
            continue;
        slots++;
        nonzero += block_nonempty(counts, i, types, size);
    }
    if (nonzero == 0 || nonzero == slots)
        return;
    uint32_t words = (uint32_t)(slots + 63) / 64;
    c->sources = calloc(words, sizeof *c->sources);
    if (!c->sources) {
        c->nslots = ST_COLL_SOURCES_UNKNOWN;   /* sparse, but we cannot say how */
        return;
    }
    c->nslots = (uint32_t)slots;
    for (int i = 0, s = 0; i < n; i++) {
        if (!is_live(live, i))
            continue;
        if (block_nonempty(counts, i, types, size))
            c->sources[s / 64] |= (uint64_t)1 << (s % 64);
        s++;
    }
}

struct st_coll st_coll_allgather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                                 MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t block = sendbuf == MPI_IN_PLACE ? st_type_bytes(rcount, rtype) : st_type_bytes(scount, stype);
    return make(OTF2_COLLECTIVE_OP_ALLGATHER, comm, OTF2_UNDEFINED_UINT32, block * (uint64_t)count_live(out, live),
                st_type_bytes(rcount, rtype) * (uint64_t)count_live(in, live));
}

struct st_coll st_coll_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, const int *rcounts,
                                  MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    int me = comm_rank(comm);
    /* MPI_IN_PLACE: this rank's block is rcounts[me] (intracommunicators only) */
    uint64_t block = sendbuf != MPI_IN_PLACE ? st_type_bytes(scount, stype)
                     : !neighbor && rcounts && me < in && !is_inter(comm) ? st_type_bytes(rcounts[me], rtype) : 0;
    /* Every receiver gets a sender's whole block: sent > 0 says where data flows. */
    return make(OTF2_COLLECTIVE_OP_ALLGATHERV, comm, OTF2_UNDEFINED_UINT32, block * (uint64_t)count_live(out, live),
                sum_counts(rcounts, in, rtype, live));
}

struct st_coll st_coll_alltoall(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                                MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t recv = st_type_bytes(rcount, rtype) * (uint64_t)count_live(in, live);
    uint64_t sent = sendbuf == MPI_IN_PLACE ? recv : st_type_bytes(scount, stype) * (uint64_t)count_live(out, live);
    return make(OTF2_COLLECTIVE_OP_ALLTOALL, comm, OTF2_UNDEFINED_UINT32, sent, recv);
}

struct st_coll st_coll_alltoallv(const void *sendbuf, const int *scounts, MPI_Datatype stype,
                                 const int *rcounts, MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t recv = sum_counts(rcounts, in, rtype, live);
    uint64_t sent = sendbuf == MPI_IN_PLACE ? recv : sum_counts(scounts, out, stype, live);
    struct st_coll c = make(OTF2_COLLECTIVE_OP_ALLTOALLV, comm, OTF2_UNDEFINED_UINT32, sent, recv);
    note_sources(&c, in, live, rcounts, rtype, NULL);
    return c;
}

struct st_coll st_coll_alltoallw(const void *sendbuf, const int *scounts, const MPI_Datatype *stypes,
                                 const int *rcounts, const MPI_Datatype *rtypes, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t recv = 0, sent = 0;
    for (int i = 0; rcounts && rtypes && i < in; i++)
        if (is_live(live, i))
            recv += st_type_bytes(rcounts[i], rtypes[i]);
    if (sendbuf == MPI_IN_PLACE)
        sent = recv;
    else
        for (int i = 0; scounts && stypes && i < out; i++)
            if (is_live(live, i))
                sent += st_type_bytes(scounts[i], stypes[i]);
    struct st_coll c = make(OTF2_COLLECTIVE_OP_ALLTOALLW, comm, OTF2_UNDEFINED_UINT32, sent, recv);
    if (rtypes)
        note_sources(&c, in, live, rcounts, MPI_DATATYPE_NULL, rtypes);
    return c;
}

struct st_coll st_coll_allreduce(int count, MPI_Datatype type, MPI_Comm comm)
{
    uint64_t b = st_type_bytes(count, type) * (uint64_t)comm_size(comm);
    return make(OTF2_COLLECTIVE_OP_ALLREDUCE, comm, OTF2_UNDEFINED_UINT32, b, b);
}

struct st_coll st_coll_reduce(int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    struct rooted r = rooted(comm, root);
    uint64_t b = r.part == PART_NONE ? 0 : st_type_bytes(count, type);
    uint64_t sent = r.part == PART_MEMBER || (r.part == PART_ROOT && !r.inter) ? b : 0;
    return make(OTF2_COLLECTIVE_OP_REDUCE, comm, root_ref(root), sent, r.part == PART_ROOT ? b * (uint64_t)r.n : 0);
}

/* Each rank contributes sum(recvcounts) elements (its local group's
 * counts) and receives its block from every rank of the (remote) group. */
struct st_coll st_coll_reduce_scatter(const int *rcounts, MPI_Datatype type, MPI_Comm comm)
{
    int me = comm_rank(comm), nl = local_size(comm);
    uint64_t mine = rcounts && me < nl ? st_type_bytes(rcounts[me], type) : 0;
    return make(OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, OTF2_UNDEFINED_UINT32, sum_counts(rcounts, nl, type, ALL_LIVE),
                mine * (uint64_t)comm_size(comm));
}

struct st_coll st_coll_reduce_scatter_block(int rcount, MPI_Datatype type, MPI_Comm comm)
{
    uint64_t b = st_type_bytes(rcount, type);
    return make(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, OTF2_UNDEFINED_UINT32, b * (uint64_t)local_size(comm),
                b * (uint64_t)comm_size(comm));
}

struct st_coll st_coll_scan(int count, MPI_Datatype type, MPI_Comm comm, OTF2_CollectiveOp op)
{
    uint64_t b = st_type_bytes(count, type);
    if (op == OTF2_COLLECTIVE_OP_EXSCAN) {
        /* Rank 0 receives nothing; nobody receives the last rank's data. */
        int me = comm_rank(comm);
        return make(op, comm, OTF2_UNDEFINED_UINT32, me == comm_size(comm) - 1 ? 0 : b, me == 0 ? 0 : b);
    }
    return make(op, comm, OTF2_UNDEFINED_UINT32, b, b);
}

static void write_begin(struct st_call *call)
{
    call->opened = 1;
    if (call->loc)
        st_write_coll_begin(call->loc, call->enter);
}

void st_coll_defer_begin(struct st_call *call)
{
    st_call_defer(call, write_begin);
}

/* Both records are written after the call, stamped with its entry and exit:
 * a collective that MPI refused did not happen. (A periodic sync round runs
 * after the end record and moves the call's leave time past itself.) */
void st_coll_end(struct st_call *call, int ret, struct st_coll info)
{
    int begun = st_call_undefer(call);   /* by a record made inside the call (tracer.h) */
    if (ret != MPI_SUCCESS) {
        free(info.sources);
        return;
    }
    if (!begun)
        st_write_coll_begin(call->loc, call->enter);
    st_write_coll_end(call->loc, call->leave, info.op, st_comm_ref(info.comm), info.root, info.sent,
                      info.received, info.nslots, info.sources);
    free(info.sources);
    if (info.comm == MPI_COMM_WORLD)
        st_sync_at_world_collective(call);
}

void st_coll_post(struct st_call *call, int ret, struct st_coll info, MPI_Request request)
{
    if (ret != MPI_SUCCESS) {
        free(info.sources);
        return;
    }
    uint32_t c = st_comm_ref(info.comm);
    struct st_req *r = st_req_new(request, ST_KIND_NBC, c);
    if (!r) {
        free(info.sources);
        return;
    }
    r->coll = info;
    r->coll_comm = c;
    st_write_nbc_request(call->loc, call->enter, r->id);
}
