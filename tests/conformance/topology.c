/* topology.c — a periodic 2x2 Cartesian communicator (Cart_shift, Cart_sub,
 * neighbourhood collectives), a graph communicator, and a distributed graph
 * with neighbourhood Alltoallv/w and a non-blocking neighbourhood
 * collective; messages along Cart_shift. 4 ranks. */
#include "conformance.h"
#include <string.h>

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int dims[2] = { 2, 2 }, periods[2] = { 1, 0 }, v[16], out[32];
    MPI_Comm cart, row, graph, dist;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    cf_expect_record("cart");
    int me, coords[2];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, coords);
    cf_fill(v, 16, 1);
    memset(out, 0, sizeof out);
    MPI_Neighbor_allgather(v, 2, MPI_INT, out, 2, MPI_INT, cart);
    cf_fold_ints(out, 8);   /* 4 neighbours, some MPI_PROC_NULL: untouched */
    memset(out, 0, sizeof out);
    MPI_Neighbor_alltoall(v, 1, MPI_INT, out, 1, MPI_INT, cart);
    cf_fold_ints(out, 4);
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    cf_expect(cf_rank, cf_world_of(cart, dst));
    MPI_Sendrecv(v, 3, MPI_INT, dst, 4, out, 3, MPI_INT, src, 4, cart, MPI_STATUS_IGNORE);
    cf_fold_ints(out, 3);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);   /* not periodic: PROC_NULL at the ends */
    if (dst != MPI_PROC_NULL)
        cf_expect(cf_rank, cf_world_of(cart, dst));
    memset(out, 0, sizeof out);
    MPI_Sendrecv(v, 2, MPI_INT, dst, 5, out, 2, MPI_INT, src, 5, cart, MPI_STATUS_IGNORE);
    if (src != MPI_PROC_NULL)
        cf_fold_ints(out, 2);
    int keep[2] = { 0, 1 };
    MPI_Cart_sub(cart, keep, &row);
    int x = me, y;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, row);
    cf_fold_ints(&y, 1);

    /* graph: a star around rank 0 */
    int index[4] = { 3, 4, 5, 6 }, edges[6] = { 1, 2, 3, 0, 0, 0 };
    MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
    if (cf_rank == 1)
        cf_sleep_ms(10);
    memset(out, 0, sizeof out);
    MPI_Neighbor_allgather(v, 2, MPI_INT, out, 2, MPI_INT, graph);
    cf_fold_ints(out, cf_rank == 0 ? 6 : 2);

    /* distributed graph: r -> r+1 and r -> r+2 */
    int wts[2] = { 1, 1 }, n = cf_size, dests[2] = { (cf_rank + 1) % n, (cf_rank + 2) % n },
        srcs[2] = { (cf_rank + n - 1) % n, (cf_rank + n - 2) % n };
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs, wts, 2, dests, wts,
                                   MPI_INFO_NULL, 0, &dist);
    int sc[2] = { 1, 2 }, sd[2] = { 0, 4 }, rc[2] = { 1, 2 }, rd[2] = { 0, 4 };
    MPI_Aint sb[2] = { 0, 16 }, rb[2] = { 0, 16 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
    memset(out, 0, sizeof out);
    MPI_Neighbor_alltoallv(v, sc, sd, MPI_INT, out, rc, rd, MPI_INT, dist);
    cf_fold_ints(out, 1);
    cf_fold_ints(out + 4, 2);
    memset(out, 0, sizeof out);
    MPI_Neighbor_alltoallw(v, sc, sb, ty, out, rc, rb, ty, dist);
    cf_fold_ints(out, 1);
    cf_fold_ints(out + 4, 2);
    MPI_Request rq;
    memset(out, 0, sizeof out);
    MPI_Ineighbor_allgather(v, 3, MPI_INT, out, 3, MPI_INT, dist, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    cf_fold_ints(out, 6);
    MPI_Comm_free(&dist);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    cf_finish();
    return 0;
}
