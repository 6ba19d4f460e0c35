/* foreign_requests.c — requests the tracer did not make among the ones
 * it did: generalized requests (MPI_Grequest_start, completed by the
 * program before and after the wait) and MPI-IO's nonblocking file
 * operations, waited on in the same MPI_Waitall / MPI_Testsome /
 * MPI_Waitany as point-to-point requests; persistent buffered and ready
 * sends (MPI_Bsend_init, MPI_Rsend_init) started with MPI_Startall;
 * MPI_Ineighbor_alltoallw on a periodic ring; MPI_Pcontrol. 4 ranks. */
#include "conformance.h"

#include <string.h>
#include <unistd.h>

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra; (void)complete; return MPI_SUCCESS; }

int main(int argc, char **argv)
{
    cf_init(&argc, &argv, 4);
    int n = cf_size, to = (cf_rank + 1) % n, from = (cf_rank + n - 1) % n;
    MPI_Pcontrol(0);
    MPI_Pcontrol(1);

    /* 1. generalized requests among receives and sends */
    for (int round = 0; round < 3; round++) {
        MPI_Request rq[4];
        int in[4], out[4];
        cf_fill(out, 4, round);
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &rq[0]);
        MPI_Irecv(in, 4, MPI_INT, from, 10 + round, MPI_COMM_WORLD, &rq[1]);
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &rq[2]);
        cf_expect(cf_rank, to);
        MPI_Isend(out, 4, MPI_INT, to, 10 + round, MPI_COMM_WORLD, &rq[3]);
        MPI_Grequest_complete(rq[0]);
        if (round == 0) {
            MPI_Grequest_complete(rq[2]);
            MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        } else if (round == 1) {
            int left = 4, done[4], outcount;
            MPI_Grequest_complete(rq[2]);
            while (left > 0) {
                MPI_Testsome(4, rq, &outcount, done, MPI_STATUSES_IGNORE);
                if (outcount != MPI_UNDEFINED)
                    left -= outcount;
            }
        } else {
            int idx;
            for (int k = 0; k < 3; k++)
                MPI_Waitany(4, rq, &idx, MPI_STATUS_IGNORE);   /* never the open generalized one */
            if (rq[2] == MPI_REQUEST_NULL)
                cf_fail("an incomplete generalized request completed");
            MPI_Grequest_complete(rq[2]);
            MPI_Wait(&rq[2], MPI_STATUS_IGNORE);
        }
        cf_fold_ints(in, 4);
    }

    /* 2. MPI-IO's nonblocking operations among a ring's messages */
    char path[4096];
    if (cf_rank == 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/foreign_requests.%ld", dir && *dir ? dir : "/tmp", (long)getpid());
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                      MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        cf_fail("MPI_File_open");
    for (int round = 0; round < 2; round++) {
        int mine[8], ring[8], back[8];
        cf_fill(mine, 8, round);
        MPI_Request rq[3];
        MPI_Offset at = (MPI_Offset)(round * n + cf_rank) * (MPI_Offset)sizeof mine;
        MPI_File_iwrite_at(fh, at, mine, 8, MPI_INT, &rq[0]);
        MPI_Irecv(ring, 8, MPI_INT, from, 20, MPI_COMM_WORLD, &rq[1]);
        cf_expect(cf_rank, to);
        MPI_Isend(mine, 8, MPI_INT, to, 20, MPI_COMM_WORLD, &rq[2]);
        MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
        /* read back what the rank before wrote, beside the next message */
        MPI_Offset theirs = (MPI_Offset)(round * n + from) * (MPI_Offset)sizeof mine;
        MPI_File_iread_at(fh, theirs, back, 8, MPI_INT, &rq[0]);
        MPI_Irecv(ring, 8, MPI_INT, from, 21, MPI_COMM_WORLD, &rq[1]);
        cf_expect(cf_rank, to);
        MPI_Isend(mine, 8, MPI_INT, to, 21, MPI_COMM_WORLD, &rq[2]);
        int idx, flag = 0;
        MPI_Waitany(3, rq, &idx, MPI_STATUS_IGNORE);
        while (!flag)
            MPI_Testall(3, rq, &flag, MPI_STATUSES_IGNORE);
        if (memcmp(back, ring, sizeof ring) != 0)
            cf_fail("the file does not hold what the rank before sent");
        cf_fold_ints(back, 8);
        cf_fold_ints(ring, 8);
    }
    MPI_File_close(&fh);

    /* 3. persistent buffered and ready sends */
    int bufsize = 4 * (int)(16 * sizeof(int) + MPI_BSEND_OVERHEAD);
    char *bsend = malloc((size_t)bufsize);
    MPI_Buffer_attach(bsend, bufsize);
    int bout[16], rout[16], bin[16], rin[16];
    MPI_Request ps[2], pr[2];
    MPI_Bsend_init(bout, 16, MPI_INT, to, 30, MPI_COMM_WORLD, &ps[0]);
    MPI_Rsend_init(rout, 16, MPI_INT, to, 31, MPI_COMM_WORLD, &ps[1]);
    MPI_Recv_init(bin, 16, MPI_INT, from, 30, MPI_COMM_WORLD, &pr[0]);
    MPI_Recv_init(rin, 16, MPI_INT, from, 31, MPI_COMM_WORLD, &pr[1]);
    for (int round = 0; round < 3; round++) {
        cf_fill(bout, 16, round);
        cf_fill(rout, 16, round + 100);
        MPI_Startall(2, pr);
        MPI_Barrier(MPI_COMM_WORLD);   /* every ready send finds its receive posted */
        cf_expect(cf_rank, to);
        cf_expect(cf_rank, to);
        MPI_Startall(2, ps);
        MPI_Waitall(2, ps, MPI_STATUSES_IGNORE);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
        cf_fold_ints(bin, 16);
        cf_fold_ints(rin, 16);
    }
    for (int k = 0; k < 2; k++) {
        MPI_Request_free(&ps[k]);
        MPI_Request_free(&pr[k]);
    }
    void *detached;
    int dsize;
    MPI_Buffer_detach(&detached, &dsize);
    free(bsend);

    /* 4. neighbourhood all-to-all with a datatype per neighbour */
    MPI_Comm ring;
    int dims[1] = { n }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int sendv[2][3], recvv[2][3], counts[2] = { 3, 2 };
    MPI_Aint displs[2] = { 0, (MPI_Aint)sizeof sendv[0] };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT };
    cf_fill(&sendv[0][0], 6, 7);
    memset(recvv, 0, sizeof recvv);
    /* neighbours of a 1-D cart: the one below, then the one above (a
     * collective: the checker counts no messages for it) */
    int rcounts[2] = { 2, 3 };   /* what the neighbour sends me: below sends its second count, above its first */
    MPI_Request nq;
    MPI_Ineighbor_alltoallw(sendv, counts, displs, types, recvv, rcounts, displs, types, ring, &nq);
    MPI_Wait(&nq, MPI_STATUS_IGNORE);
    cf_fold_ints(&recvv[0][0], 6);
    MPI_Comm_free(&ring);
    MPI_Pcontrol(0);
    cf_finish();
    return 0;
}
