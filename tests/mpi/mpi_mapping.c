/* mpi_mapping.c — one call of each kind whose OTF2 representation Vampir
 * reads (region roles, named and derived communicators, an intercommunicator
 * with MPI_ROOT / MPI_PROC_NULL roots, one-sided calls, a Cartesian and a
 * graph topology), for tests/checkers/mapping_check.py; and the communicators whose
 * life events (CommCreate/CommDestroy) it checks: MPI_COMM_SELF used on every
 * rank, a duplicate freed early, a split with MPI_UNDEFINED on all ranks but
 * 0 (MPI_COMM_NULL there: no event), an MPI_Comm_idup completed by MPI_Wait,
 * the intercommunicator. 4 ranks (any even number >= 2).
 * Prints one line per rank with a checksum of what it received. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int x = me + 1, y = 0, sum = 0;
    int *all = calloc((size_t)n, sizeof *all), *counts = calloc((size_t)n, sizeof *counts);
    int *displs = calloc((size_t)n, sizeof *displs);
    if (!all || !counts || !displs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* MPI_COMM_SELF on every rank */
    MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    sum += y;
    /* a duplicate used once and freed early */
    MPI_Comm early;
    MPI_Comm_dup(MPI_COMM_WORLD, &early);
    MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_MAX, early);
    sum += y;
    MPI_Comm_free(&early);
    /* a split only rank 0 is in: the others get MPI_COMM_NULL */
    MPI_Comm solo;
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
    if ((solo == MPI_COMM_NULL) != (me != 0))
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (solo != MPI_COMM_NULL) {
        MPI_Barrier(solo);
        MPI_Comm_free(&solo);
    }
    /* a non-blocking duplicate: it exists once MPI_Wait completed it */
    MPI_Comm idup;
    MPI_Request req;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_MIN, idup);
    sum += y;
    MPI_Comm_free(&idup);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&me, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(&me, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(all, 1, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
    sum += y;
    MPI_Scatterv(all, counts, displs, MPI_INT, &y, 1, MPI_INT, 0, MPI_COMM_WORLD);
    sum += y;
    MPI_Alltoall(counts, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(counts, counts, displs, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += y;
    MPI_Reduce(&me, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Scan(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    sum += y;
    MPI_Exscan(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    /* a named split and an unnamed duplicate of it */
    MPI_Comm half, halfdup;
    MPI_Comm_split(MPI_COMM_WORLD, me < n / 2, me, &half);
    MPI_Comm_set_name(half, me < n / 2 ? "lower half" : "upper half");
    MPI_Comm_dup(half, &halfdup);
    MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, halfdup);
    sum += y;

    /* an intercommunicator between the halves: a rooted collective */
    MPI_Comm inter;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me < n / 2 ? n / 2 : 0, 7, &inter);
    int lr;
    MPI_Comm_rank(inter, &lr);
    int root = me < n / 2 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    x = 42;
    MPI_Bcast(&x, 1, MPI_INT, root, inter);
    sum += me >= n / 2 ? x : 0;

    /* one-sided: fence + put, lock/unlock + accumulate, lock_all + get, post/start/complete/wait */
    int buf[4] = { 0, 0, 0, 0 };   /* [0] put under fence, [1] accumulated under lock, [2] put under PSCW */
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_name(win, "halo window");
    MPI_Win_fence(0, win);
    MPI_Put(&me, 1, MPI_INT, (me + 1) % n, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, (me + 1) % n, 0, win);
    MPI_Accumulate(&x, 1, MPI_INT, (me + 1) % n, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock((me + 1) % n, win);
    /* lock_all: a get of the previous rank's [3] (never written), a put to MPI_PROC_NULL (no event) */
    int prev3 = -1;
    MPI_Win_lock_all(0, win);
    MPI_Get(&prev3, 1, MPI_INT, (me + n - 1) % n, 3, 1, MPI_INT, win);
    MPI_Put(&me, 1, MPI_INT, MPI_PROC_NULL, 3, 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
    sum += prev3;
    /* post/start/complete/wait: odd ranks put into their even neighbour */
    MPI_Group world, peer;
    int partner = me ^ 1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &partner, &peer);
    if (me % 2 == 0) {
        MPI_Win_post(peer, 0, win);
        MPI_Win_wait(win);
    } else {
        MPI_Win_start(peer, 0, win);
        MPI_Put(&me, 1, MPI_INT, partner, 2, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    sum += buf[2];
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    sum += buf[0] + buf[1];

    /* a 2-D Cartesian topology */
    MPI_Comm cart;
    int dims[2] = { 2, n / 2 }, periods[2] = { 1, 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Barrier(cart);
    /* a graph topology (a ring): OTF2 has no definition for it */
    MPI_Comm ring;
    int *index = calloc((size_t)n, sizeof *index), *edges = calloc(2 * (size_t)n, sizeof *edges), got[2] = { 0, 0 };
    if (!index || !edges)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + n - 1) % n;
        edges[2 * i + 1] = (i + 1) % n;
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &ring);
    MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, ring);
    sum += got[0] + got[1];
    free(index);
    free(edges);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&halfdup);
    MPI_Comm_free(&half);
    printf("rank %d sum %d\n", me, sum);
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
