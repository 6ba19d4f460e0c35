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

static uint64_t sum_counts(const int *counts, int n, MPI_Datatype type, uint64_t live)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        if (is_live(live, i))
            total += st_type_bytes(counts[i], type);
    return total;
}

static struct st_coll make(OTF2_CollectiveOp op, MPI_Comm comm, int root, uint64_t sent, uint64_t received)
{
    struct st_coll c = { op, comm, root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, sent, received };
    return c;
}

struct st_coll st_coll_barrier(MPI_Comm comm)
{
    return make(OTF2_COLLECTIVE_OP_BARRIER, comm, -1, 0, 0);
}

struct st_coll st_coll_bcast(const void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    (void)buf;
    uint64_t b = st_type_bytes(count, type);
    int me = comm_rank(comm);
    /* The root sends n blocks, its own included, so it also receives that one. */
    return make(OTF2_COLLECTIVE_OP_BCAST, comm, root, me == root ? b * (uint64_t)comm_size(comm) : 0, b);
}

struct st_coll st_coll_gather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                              MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int me = comm_rank(comm), n = comm_size(comm);
    uint64_t recv = me == root ? st_type_bytes(rcount, rtype) * (uint64_t)n : 0;
    uint64_t sent = sendbuf == MPI_IN_PLACE ? st_type_bytes(rcount, rtype) : st_type_bytes(scount, stype);
    return make(OTF2_COLLECTIVE_OP_GATHER, comm, root, sent, recv);
}

struct st_coll st_coll_gatherv(const void *sendbuf, int scount, MPI_Datatype stype, const int *rcounts,
                               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int me = comm_rank(comm), n = comm_size(comm);
    uint64_t recv = me == root ? sum_counts(rcounts, n, rtype, ALL_LIVE) : 0;
    uint64_t sent = sendbuf == MPI_IN_PLACE ? st_type_bytes(rcounts[me], rtype) : st_type_bytes(scount, stype);
    return make(OTF2_COLLECTIVE_OP_GATHERV, comm, root, sent, recv);
}

struct st_coll st_coll_scatter(int scount, MPI_Datatype stype, const void *recvbuf, int rcount,
                               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int me = comm_rank(comm), n = comm_size(comm);
    uint64_t sent = me == root ? st_type_bytes(scount, stype) * (uint64_t)n : 0;
    uint64_t recv = recvbuf == MPI_IN_PLACE ? st_type_bytes(scount, stype) : st_type_bytes(rcount, rtype);
    return make(OTF2_COLLECTIVE_OP_SCATTER, comm, root, sent, recv);
}

struct st_coll st_coll_scatterv(const int *scounts, MPI_Datatype stype, const void *recvbuf, int rcount,
                                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    int me = comm_rank(comm), n = comm_size(comm);
    uint64_t sent = me == root ? sum_counts(scounts, n, stype, ALL_LIVE) : 0;
    uint64_t recv = recvbuf == MPI_IN_PLACE ? st_type_bytes(scounts[me], stype) : st_type_bytes(rcount, rtype);
    return make(OTF2_COLLECTIVE_OP_SCATTERV, comm, root, sent, recv);
}

struct st_coll st_coll_allgather(const void *sendbuf, int scount, MPI_Datatype stype, int rcount,
                                 MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t block = sendbuf == MPI_IN_PLACE ? st_type_bytes(rcount, rtype) : st_type_bytes(scount, stype);
    return make(OTF2_COLLECTIVE_OP_ALLGATHER, comm, -1, block * (uint64_t)count_live(out, live),
                st_type_bytes(rcount, rtype) * (uint64_t)count_live(in, live));
}

struct st_coll st_coll_allgatherv(const void *sendbuf, int scount, MPI_Datatype stype, const int *rcounts,
                                  MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t block = sendbuf == MPI_IN_PLACE ? st_type_bytes(rcounts[comm_rank(comm)], rtype)
                                             : st_type_bytes(scount, stype);
    return make(OTF2_COLLECTIVE_OP_ALLGATHERV, comm, -1, block * (uint64_t)count_live(out, live),
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
    return make(OTF2_COLLECTIVE_OP_ALLTOALL, comm, -1, sent, recv);
}

struct st_coll st_coll_alltoallv(const void *sendbuf, const int *scounts, MPI_Datatype stype,
                                 const int *rcounts, MPI_Datatype rtype, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t recv = sum_counts(rcounts, in, rtype, live);
    uint64_t sent = sendbuf == MPI_IN_PLACE ? recv : sum_counts(scounts, out, stype, live);
    return make(OTF2_COLLECTIVE_OP_ALLTOALLV, comm, -1, sent, recv);
}

struct st_coll st_coll_alltoallw(const void *sendbuf, const int *scounts, const MPI_Datatype *stypes,
                                 const int *rcounts, const MPI_Datatype *rtypes, MPI_Comm comm, int neighbor)
{
    int in, out;
    uint64_t live;
    st_coll_peers(comm, neighbor, &in, &out, &live);
    uint64_t recv = 0, sent = 0;
    for (int i = 0; i < in; i++)
        if (is_live(live, i))
            recv += st_type_bytes(rcounts[i], rtypes[i]);
    if (sendbuf == MPI_IN_PLACE)
        sent = recv;
    else
        for (int i = 0; i < out; i++)
            if (is_live(live, i))
                sent += st_type_bytes(scounts[i], stypes[i]);
    return make(OTF2_COLLECTIVE_OP_ALLTOALLW, comm, -1, sent, recv);
}

struct st_coll st_coll_allreduce(int count, MPI_Datatype type, MPI_Comm comm)
{
    uint64_t b = st_type_bytes(count, type) * (uint64_t)comm_size(comm);
    return make(OTF2_COLLECTIVE_OP_ALLREDUCE, comm, -1, b, b);
}

struct st_coll st_coll_reduce(int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    uint64_t b = st_type_bytes(count, type);
    int me = comm_rank(comm);
    return make(OTF2_COLLECTIVE_OP_REDUCE, comm, root, b, me == root ? b * (uint64_t)comm_size(comm) : 0);
}

struct st_coll st_coll_reduce_scatter(const int *rcounts, MPI_Datatype type, MPI_Comm comm)
{
    int n = comm_size(comm);
    return make(OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, -1, sum_counts(rcounts, n, type, ALL_LIVE),
                st_type_bytes(rcounts[comm_rank(comm)], type) * (uint64_t)n);
}

struct st_coll st_coll_reduce_scatter_block(int rcount, MPI_Datatype type, MPI_Comm comm)
{
    uint64_t b = st_type_bytes(rcount, type) * (uint64_t)comm_size(comm);
    return make(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, -1, b, b);
}

struct st_coll st_coll_scan(int count, MPI_Datatype type, MPI_Comm comm, OTF2_CollectiveOp op)
{
    uint64_t b = st_type_bytes(count, type);
    if (op == OTF2_COLLECTIVE_OP_EXSCAN) {
        /* Rank 0 receives nothing; nobody receives the last rank's data. */
        int me = comm_rank(comm);
        return make(op, comm, -1, me == comm_size(comm) - 1 ? 0 : b, me == 0 ? 0 : b);
    }
    return make(op, comm, -1, b, b);
}

/* Both records are written after the call, stamped with its entry and exit:
 * a collective that MPI refused did not happen. (A periodic sync round runs
 * after the end record and moves the call's leave time past itself.) */
void st_coll_end(struct st_call *call, int ret, struct st_coll info)
{
    if (ret != MPI_SUCCESS)
        return;
    st_write_coll_begin(call->loc, call->enter);
    st_write_coll_end(call->loc, call->leave, info.op, st_comm_ref(info.comm), info.root, info.sent,
                      info.received);
    if (info.comm == MPI_COMM_WORLD)
        st_sync_at_world_collective(call);
}

void st_coll_post(struct st_call *call, int ret, struct st_coll info, MPI_Request request)
{
    if (ret != MPI_SUCCESS)
        return;
    uint32_t c = st_comm_ref(info.comm);
    struct st_req *r = st_req_new(request, ST_KIND_NBC, c);
    if (!r)
        return;
    r->coll = info;
    r->coll_comm = c;
    st_write_nbc_request(call->loc, call->enter, r->id);
}
