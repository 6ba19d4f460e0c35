/* mpi_fortran_ref.c — the C twin of tests/mpi/mpi_fortran.F90: the same MPI calls
 * in the same order with the same arguments, so that tests/test-fortran.sh
 * can require the Fortran programs' traces to equal this one's, event by
 * event. Change the two together. Prints "rank R errors N" (N = failed
 * checks of MPI's results). */
#include <mpi.h>
#include <stdio.h>

static int errors;

static void expect(int cond, int rank, const char *what)
{
    if (!cond) {
        errors++;
        fprintf(stderr, "rank %d: %s\n", rank, what);
    }
}

int main(int argc, char **argv)
{
    int rank, size, count, idx, buf[8], out[8], all[64];
    MPI_Status st, sts[4];
    MPI_Request reqs[4];
    (void)argc; (void)argv;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* Blocking ring with wildcards: the status names the sender and tag. */
    for (int i = 0; i < 8; i++)
        out[i] = rank;
    MPI_Send(out, 8, MPI_INT, right, 10 + rank, MPI_COMM_WORLD);
    MPI_Recv(buf, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    expect(st.MPI_SOURCE == left && st.MPI_TAG == 10 + left && count == 8 && buf[0] == left, rank, "recv");
    MPI_Sendrecv(out, 4, MPI_INT, right, 20, buf, 4, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, &st);
    expect(st.MPI_SOURCE == left && buf[0] == left, rank, "sendrecv");
    MPI_Sendrecv(out, 2, MPI_INT, left, 21, buf, 2, MPI_INT, right, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(buf[0] == right, rank, "sendrecv ignore");

    /* Non-blocking, completed together: statuses in request order. */
    MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(buf + 1, 1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(out, 1, MPI_INT, right, 30, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(out, 1, MPI_INT, left, 31, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, sts);
    expect(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 30 && sts[1].MPI_SOURCE == right
           && sts[1].MPI_TAG == 31 && buf[0] == left && buf[1] == right, rank, "waitall statuses");
    expect(reqs[0] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL, rank, "waitall frees requests");
    MPI_Irecv(buf, 1, MPI_INT, left, 32, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(out, 1, MPI_INT, right, 32, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    /* Waitany: index of the one live request (C 1, Fortran 2). */
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(out, 1, MPI_INT, right, 40, MPI_COMM_WORLD, &reqs[2]);
    MPI_Waitany(2, reqs, &idx, &st);
    expect(idx == 1 && st.MPI_SOURCE == left && st.MPI_TAG == 40, rank, "waitany");
    MPI_Wait(&reqs[2], MPI_STATUS_IGNORE);

    /* Collectives. */
    MPI_Barrier(MPI_COMM_WORLD);
    buf[0] = rank == 0 ? 77 : -1;
    MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    expect(buf[0] == 77, rank, "bcast");
    MPI_Reduce(out, buf, 1, MPI_INT, MPI_SUM, 1 % size, MPI_COMM_WORLD);
    expect(rank != 1 % size || buf[0] == size * (size - 1) / 2, rank, "reduce");
    buf[0] = rank;
    MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    expect(buf[0] == size - 1, rank, "allreduce in place");
    MPI_Gather(out, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    expect(rank != 0 || all[2 * (size - 1)] == size - 1, rank, "gather");
    MPI_Allgather(out, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    expect(all[size - 1] == size - 1, rank, "allgather");
    for (int i = 0; i < size; i++)
        all[i] = 100 * rank + i;
    MPI_Alltoall(all, 1, MPI_INT, all + 16, 1, MPI_INT, MPI_COMM_WORLD);
    expect(all[16 + left] == 100 * left + rank, rank, "alltoall");
    int counts[16], displs[16];
    MPI_Datatype types[16];
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = 4 * i;
        types[i] = MPI_INT;
    }
    MPI_Alltoallw(all, counts, displs, types, all + 32, counts, displs, types, MPI_COMM_WORLD);
    expect(all[32 + left] == 100 * left + rank, rank, "alltoallw");
    MPI_Scatter(all, 1, MPI_INT, buf, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    expect(buf[0] == 100 * (size - 1) + rank, rank, "scatter");

    /* A communicator split: collectives and wildcard receives inside it. */
    MPI_Comm sub;
    int subrank, subsize;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
    MPI_Comm_rank(sub, &subrank);
    MPI_Comm_size(sub, &subsize);
    buf[0] = 1;
    MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, sub);
    expect(buf[1] == subsize, rank, "split allreduce");
    if (subsize > 1) {
        MPI_Send(out, 3, MPI_INT, (subrank + 1) % subsize, 50, sub);
        MPI_Recv(buf, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, sub, &st);
        expect(st.MPI_SOURCE == (subrank + subsize - 1) % subsize && st.MPI_TAG == 50, rank, "split recv");
    }
    MPI_Comm_free(&sub);
    expect(sub == MPI_COMM_NULL, rank, "comm free");
    /* More conversions: persistent requests, Waitsome's indices, matched
     * probes, MPI_BOTTOM, a non-blocking duplicate, a distributed graph
     * with MPI_UNWEIGHTED and a neighbourhood MPI_Alltoallw. */
    int outcount, indices[4];
    MPI_Send_init(out, 2, MPI_INT, right, 60, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(buf, 2, MPI_INT, left, 60, MPI_COMM_WORLD, &reqs[1]);
    MPI_Startall(2, reqs);
    MPI_Waitall(2, reqs, sts);
    expect(sts[1].MPI_SOURCE == left && buf[0] == left, rank, "persistent");
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    expect(reqs[0] == MPI_REQUEST_NULL, rank, "request free");
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(buf, 1, MPI_INT, left, 61, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send(out, 1, MPI_INT, right, 61, MPI_COMM_WORLD);
    MPI_Waitsome(2, reqs, &outcount, indices, sts);
    expect(outcount == 1 && indices[0] == 1 && sts[0].MPI_SOURCE == left, rank, "waitsome");
    MPI_Message msg;
    MPI_Isend(out, 5, MPI_INT, right, 62, MPI_COMM_WORLD, &reqs[0]);
    MPI_Mprobe(left, 62, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Mrecv(buf, count, MPI_INT, &msg, &st);
    expect(count == 5 && st.MPI_TAG == 62 && msg == MPI_MESSAGE_NULL, rank, "mprobe");
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Aint addr, displs_w[1] = { 0 };
    MPI_Datatype abs_type;
    int one = 1;
    MPI_Get_address(&out[3], &addr);
    MPI_Type_create_hindexed(1, &one, &addr, MPI_INT, &abs_type);
    MPI_Type_commit(&abs_type);
    MPI_Sendrecv(MPI_BOTTOM, 1, abs_type, right, 63, buf, 1, MPI_INT, left, 63, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expect(buf[0] == left, rank, "MPI_BOTTOM");
    MPI_Type_free(&abs_type);
    MPI_Comm dup;
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Barrier(dup);
    MPI_Comm graph;
    /* MPI_UNWEIGHTED is a sentinel address, not an array GCC may check. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
    MPI_Dist_graph_create_adjacent(dup, 1, &left, MPI_UNWEIGHTED, 1, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
#pragma GCC diagnostic pop
    MPI_Neighbor_allgather(out, 1, MPI_INT, buf, 1, MPI_INT, graph);
    expect(buf[0] == left, rank, "neighbor allgather");
    MPI_Neighbor_alltoallw(out, counts, displs_w, types, buf, counts, displs_w, types, graph);
    expect(buf[0] == left, rank, "neighbor alltoallw");
    MPI_Ibcast(buf, 2, MPI_INT, 0, graph, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    expect(buf[0] == size - 1, rank, "ibcast");
    MPI_Comm_free(&graph);
    MPI_Comm_free(&dup);

    /* Test variants on null requests (flag, MPI_UNDEFINED index and
     * outcount), v-collectives, scans and a periodic Cartesian ring. */
    int flag = 0;
    reqs[0] = reqs[1] = MPI_REQUEST_NULL;
    MPI_Testany(2, reqs, &idx, &flag, &st);
    expect(flag && idx == MPI_UNDEFINED, rank, "testany");
    MPI_Testall(2, reqs, &flag, sts);
    expect(flag, rank, "testall");
    MPI_Testsome(2, reqs, &outcount, indices, sts);
    expect(outcount == MPI_UNDEFINED, rank, "testsome");
    int elem_displs[16];
    for (int i = 0; i < size; i++)
        elem_displs[i] = i;
    MPI_Gatherv(out, 1, MPI_INT, all, counts, elem_displs, MPI_INT, size - 1, MPI_COMM_WORLD);
    expect(rank != size - 1 || all[size - 1] == size - 1, rank, "gatherv");
    MPI_Alltoallv(all, counts, elem_displs, MPI_INT, all + 16, counts, elem_displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Scan(out, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(buf[0] == rank * (rank + 1) / 2, rank, "scan");
    MPI_Exscan(out, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(rank == 0 || buf[0] == rank * (rank - 1) / 2, rank, "exscan");
    MPI_Reduce_scatter_block(all, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm cart;
    int dims[1] = { size }, periods[1] = { 1 }, src, dst;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_set_name(cart, "fortran ring");
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    expect(src == left && dst == right, rank, "cart shift");
    MPI_Neighbor_alltoall(all, 1, MPI_INT, buf, 1, MPI_INT, cart);
    MPI_Comm_free(&cart);

    /* One-sided: a named window; a fence epoch with put, get, accumulate
     * and an MPI_PROC_NULL put; an exclusive lock with fetch_and_op;
     * lock_all with request-based operations, every atomic and flushes; a
     * dynamic window. */
    int wbuf[16], fetched = 0;
    for (int i = 0; i < 16; i++)
        wbuf[i] = rank * 100 + i;
    MPI_Win win;
    MPI_Win_create(wbuf, 64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_name(win, "fortran window");
    MPI_Win_fence(0, win);
    MPI_Put(&one, 1, MPI_INT, right, rank, 1, MPI_INT, win);
    MPI_Get(buf, 2, MPI_INT, left, 8, 2, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, 12, 1, MPI_INT, MPI_SUM, win);
    MPI_Put(&one, 1, MPI_INT, MPI_PROC_NULL, 12, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    expect(buf[0] == left * 100 + 8 && buf[1] == left * 100 + 9, rank, "rma get");
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Fetch_and_op(&one, &fetched, MPI_INT, 0, 13, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    expect(fetched >= 13 && fetched < 13 + size, rank, "fetch_and_op");
    MPI_Win_lock_all(0, win);
    MPI_Rget(buf, 1, MPI_INT, right, 9, 1, MPI_INT, win, &reqs[0]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(right, win);
    /* a zero-count put, an atomic read, a compare_and_swap that never swaps,
     * a request-based accumulate, an MPI_PROC_NULL get, flush_all */
    int never = -5, old = 0, peek = 0, dbuf[4];
    MPI_Put(&one, 0, MPI_INT, right, 14, 0, MPI_INT, win);
    MPI_Raccumulate(&one, 1, MPI_INT, right, 14, 1, MPI_INT, MPI_SUM, win, &reqs[1]);
    MPI_Get_accumulate(&one, 1, MPI_INT, &peek, 1, MPI_INT, right, 15, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Compare_and_swap(&one, &never, &old, MPI_INT, right, 15, win);
    MPI_Get(&fetched, 1, MPI_INT, MPI_PROC_NULL, 15, 1, MPI_INT, win);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    expect(buf[0] == right * 100 + 9, rank, "rget");
    expect(peek == right * 100 + 15 && old == right * 100 + 15, rank, "get_accumulate, compare_and_swap");
    MPI_Win_free(&win);
    /* a dynamic window with memory attached and detached */
    MPI_Win dwin;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dwin);
    MPI_Win_attach(dwin, dbuf, 16);
    MPI_Win_detach(dwin, dbuf);
    MPI_Win_free(&dwin);

    double t = MPI_Wtime();
    expect(MPI_Wtime() >= t, rank, "wtime");
    printf("rank %d errors %d\n", rank, errors);
    MPI_Finalize();
    return 0;
}
