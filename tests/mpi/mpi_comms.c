/* mpi_comms.c — creates communicators in every way MPI offers and sends a
 * ring of messages inside each one, for tests/test-communicators.sh.
 *
 *   mpirun -np 4 mpi_comms
 *
 * For every communicator it is a member of, each rank prints one line
 *   COMM label=L tag=T inter=0|1 world=W rank=R size=N members=a,b,c next=X prev=Y
 * where members are the world ranks of the communicator's ranks in rank
 * order (for an intercommunicator: of the remote group), next/prev the world
 * ranks this rank sends to / receives from. Each communicator has its own
 * tag, so the checker can find the messages of each one in the trace.
 * Needs exactly 4 ranks; prints "FAIL ..." and aborts when MPI itself does
 * not behave as expected. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;
static MPI_Group world_group;
static int ncomms;   /* communicators used so far: alternates send styles */

static void fail(const char *what)
{
    printf("FAIL %s (world rank %d)\n", what, wrank);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int world_of(MPI_Group g, int r)
{
    int w;
    MPI_Group_translate_ranks(g, 1, &r, world_group, &w);
    return w;
}

static void members_of(MPI_Group g, char *out, size_t len)
{
    int n;
    MPI_Group_size(g, &n);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%d", i ? "," : "", world_of(g, i));
    }
}

/* A ring inside `comm`: comm rank r sends to r+1 and receives from r-1
 * (on an intercommunicator: sends to and receives from remote rank r).
 * Peers are comm-local ranks, as a program uses them. */
static void ring(const char *label, MPI_Comm comm, int tag)
{
    if (comm == MPI_COMM_NULL)
        return;
    int inter, rank, size, rsize;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Group g;
    if (inter) {
        MPI_Comm_remote_size(comm, &rsize);
        MPI_Comm_remote_group(comm, &g);
    } else {
        rsize = size;
        MPI_Comm_group(comm, &g);
    }
    int next = inter ? rank : (rank + 1) % size;
    int prev = inter ? rank : (rank + size - 1) % size;
    if (next >= rsize)
        fail("intercommunicator groups of different sizes");
    char members[256];
    members_of(g, members, sizeof members);
    int next_w = world_of(g, next), prev_w = world_of(g, prev);
    MPI_Group_free(&g);
    printf("COMM label=%s tag=%d inter=%d world=%d rank=%d size=%d members=%s next=%d prev=%d\n", label, tag,
           inter, wrank, rank, size, members, next_w, prev_w);

    int out = wrank * 1000 + tag, in = -1;
    MPI_Request req;
    MPI_Status st;
    if (ncomms++ % 2 == 0) {
        MPI_Isend(&out, 1, MPI_INT, next, tag, comm, &req);
        MPI_Recv(&in, 1, MPI_INT, prev, tag, comm, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Irecv(&in, 1, MPI_INT, prev, tag, comm, &req);
        MPI_Send(&out, 1, MPI_INT, next, tag, comm);
        MPI_Wait(&req, &st);
    }
    if (in != prev_w * 1000 + tag || st.MPI_SOURCE != prev || st.MPI_TAG != tag)
        fail("wrong message received");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize != 4)
        fail("needs 4 ranks");
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);

    /* dup, dup_with_info */
    MPI_Comm dup1, dupinfo;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
    ring("dup", dup1, 101);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "false");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dupinfo);
    MPI_Info_free(&info);
    ring("dup_with_info", dupinfo, 102);

    /* split: colour by parity, keys reversed: {2,0} and {3,1} */
    MPI_Comm half;
    int colour = wrank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, colour, wsize - wrank, &half);
    ring(colour ? "split_odd" : "split_even", half, 103 + colour);

    /* split_type SHARED (one node: everyone), reversed */
    MPI_Comm shm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wsize - wrank, MPI_INFO_NULL, &shm);
    ring("split_type", shm, 105);

    /* create: the subgroup [3,1]; 0 and 2 get MPI_COMM_NULL */
    MPI_Group sub;
    int subranks[] = { 3, 1 };
    MPI_Group_incl(world_group, 2, subranks, &sub);
    MPI_Comm created;
    MPI_Comm_create(MPI_COMM_WORLD, sub, &created);
    MPI_Group_free(&sub);
    if ((created == MPI_COMM_NULL) != (wrank % 2 == 0))
        fail("MPI_Comm_create membership");
    ring("create", created, 106);

    /* create_group: only the members [2,3,1] call it */
    MPI_Comm cgroup = MPI_COMM_NULL;
    if (wrank != 0) {
        int granks[] = { 2, 3, 1 };
        MPI_Group_incl(world_group, 3, granks, &sub);
        MPI_Comm_create_group(MPI_COMM_WORLD, sub, 7, &cgroup);
        MPI_Group_free(&sub);
    }
    ring("create_group", cgroup, 107);

    /* Cartesian 2x2 grid over the reversed shm communicator, then its columns */
    MPI_Comm cart, column;
    int dims[2] = { 2, 2 }, periods[2] = { 1, 0 };
    MPI_Cart_create(shm, 2, dims, periods, 0, &cart);
    ring("cart", cart, 108);
    int remain[2] = { 1, 0 };
    MPI_Cart_sub(cart, remain, &column);
    int coords[2], cr;
    MPI_Comm_rank(cart, &cr);
    MPI_Cart_coords(cart, cr, 2, coords);
    ring(coords[1] ? "cart_sub_1" : "cart_sub_0", column, 109 + coords[1]);

    /* graph: a ring over the world */
    MPI_Comm graph;
    int index[4] = { 2, 4, 6, 8 }, edges[8] = { 1, 3, 0, 2, 1, 3, 2, 0 };
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
    ring("graph", graph, 111);

    /* distributed graph: each rank's neighbours are rank+-1 */
    MPI_Comm dgraph;
    int nb[2] = { (wrank + 1) % wsize, (wrank + wsize - 1) % wsize }, weights[2] = { 1, 1 };
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, weights, 2, nb, weights, MPI_INFO_NULL, 0, &dgraph);
    ring("dist_graph", dgraph, 112);

    /* intercommunicator between the halves of the split, and its merge.
     * Local leaders are half rank 0 (world 2 and 3); the bridge is the world. */
    MPI_Comm inter, merged;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, colour ? 2 : 3, 33, &inter);
    ring(colour ? "inter_odd" : "inter_even", inter, 113);
    MPI_Intercomm_merge(inter, colour, &merged);
    ring("merged", merged, 114);

    /* idup, completed by MPI_Wait */
    MPI_Comm idup;
    MPI_Request req;
    MPI_Comm_idup(half, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    ring(colour ? "idup_odd" : "idup_even", idup, 115 + colour);

    /* two idups of the world in flight, completed in opposite orders on
     * even and odd ranks (as MPI_Waitany may): the ids must still agree */
    MPI_Comm idup_a, idup_b;
    MPI_Request reqs[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &idup_a, &reqs[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &idup_b, &reqs[1]);
    MPI_Wait(&reqs[colour], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1 - colour], MPI_STATUS_IGNORE);
    ring("idup_a", idup_a, 118);
    ring("idup_b", idup_b, 119);

    /* free a dup, then dup again: MPI may hand out the same handle */
    MPI_Comm old = dup1, dup2;
    MPI_Comm_free(&dup1);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
    if (wrank == 0)
        printf("INFO handle %s after free\n", dup2 == old ? "reused" : "not reused");
    ring("dup_after_free", dup2, 117);

    MPI_Comm *all[] = { &dupinfo, &half, &shm, &created, &cgroup, &cart, &column, &graph, &dgraph,
                        &inter, &merged, &idup, &idup_a, &idup_b, &dup2 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i] != MPI_COMM_NULL)
            MPI_Comm_free(all[i]);
    MPI_Group_free(&world_group);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
