/* rma.c — one-sided communication in the three synchronisation modes:
 * fence epochs with Put/Get/Accumulate, passive target Lock/Unlock
 * (exclusive and shared, Lock_all), and post-start-complete-wait; windows
 * from MPI_Win_create and MPI_Win_allocate, both named. Every operation
 * and lock is announced (window, target, bytes) for the checker. 4 ranks. */
#include "conformance.h"

#define W 16

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, right = (cf_rank + 1) % n, left = (cf_rank + n - 1) % n;
    int *mem, got[W], v[W];
    MPI_Win win, win2;
    MPI_Alloc_mem(W * sizeof(int), MPI_INFO_NULL, &mem);
    for (int i = 0; i < W; i++)
        mem[i] = 0;
    MPI_Win_create(mem, W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_name(win, "conformance window");
    cf_expect_record("name conformance window");
    cf_expect_record("window");

    /* fence: put to the right, get from the left, accumulate into rank 0 */
    cf_fill(v, W, 1);
    MPI_Win_fence(0, win);
    MPI_Put(v, 4, MPI_INT, right, 0, 4, MPI_INT, win);
    cf_expect_record("put");
    cf_expect_rma("conformance window", "put", MPI_COMM_WORLD, right, 16, 0);
    MPI_Win_fence(0, win);
    if (cf_rank == 3)
        cf_sleep_ms(10);
    MPI_Get(got, 4, MPI_INT, left, 0, 4, MPI_INT, win);
    cf_expect_record("get");
    cf_expect_rma("conformance window", "get", MPI_COMM_WORLD, left, 0, 16);
    MPI_Accumulate(v, 2, MPI_INT, 0, 8, 2, MPI_INT, MPI_SUM, win);
    cf_expect_rma("conformance window", "accumulate", MPI_COMM_WORLD, 0, 8, 0);
    MPI_Win_fence(0, win);
    cf_fold_ints(got, 4);
    cf_fold_ints(mem, W);
    MPI_Barrier(MPI_COMM_WORLD);

    /* passive target: each rank in turn writes rank 1's window exclusively */
    for (int r = 0; r < n; r++) {
        if (r == cf_rank) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            cf_expect_lock("conformance window", MPI_COMM_WORLD, 1, "exclusive");
            MPI_Accumulate(&cf_rank, 1, MPI_INT, 1, 12, 1, MPI_INT, MPI_SUM, win);
            cf_expect_rma("conformance window", "accumulate", MPI_COMM_WORLD, 1, 4, 0);
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    cf_expect_lock("conformance window", MPI_COMM_WORLD, 1, "shared");
    MPI_Get(got, 1, MPI_INT, 1, 12, 1, MPI_INT, win);
    cf_expect_record("get");
    cf_expect_rma("conformance window", "get", MPI_COMM_WORLD, 1, 0, 4);
    MPI_Win_unlock(1, win);
    cf_fold_ints(got, 1);
    MPI_Win_lock_all(0, win);
    cf_expect_lock("conformance window", MPI_COMM_WORLD, -1, "shared");
    MPI_Get(got, 2, MPI_INT, right, 0, 2, MPI_INT, win);
    cf_expect_rma("conformance window", "get", MPI_COMM_WORLD, right, 0, 8);
    MPI_Win_flush(right, win);
    MPI_Win_unlock_all(win);
    cf_fold_ints(got, 2);
    MPI_Barrier(MPI_COMM_WORLD);

    /* PSCW: even ranks expose their windows to the next odd rank, which puts */
    int *mem2;
    MPI_Win_allocate(W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem2, &win2);
    cf_expect_record("window");
    MPI_Win_set_name(win2, "pscw window");
    cf_expect_record("name pscw window");
    for (int i = 0; i < W; i++)
        mem2[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Group wg, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int other = cf_rank % 2 ? cf_rank - 1 : cf_rank + 1;
    MPI_Group_incl(wg, 1, &other, &peer);
    if (cf_rank % 2 == 0) {
        MPI_Win_post(peer, 0, win2);
        MPI_Win_wait(win2);
        cf_fold_ints(mem2, W);
    } else {
        cf_sleep_ms(5);
        cf_fill(v, W, 2);
        MPI_Win_start(peer, 0, win2);
        MPI_Put(v, W, MPI_INT, other, 0, W, MPI_INT, win2);
        cf_expect_record("put");
        cf_expect_rma("pscw window", "put", MPI_COMM_WORLD, other, 4 * W, 0);
        MPI_Win_complete(win2);
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&wg);
    MPI_Win_free(&win2);
    MPI_Win_free(&win);
    MPI_Free_mem(mem);
    (void)left;
    cf_finish();
    return 0;
}
