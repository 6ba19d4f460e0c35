/* mpi_p2p.c — every point-to-point variant, for tests/test-p2p.sh.
 *
 * Each variant uses its own tags and message sizes so that the checker
 * (tests/checkers/trace_check.py, "p2p") can find exactly the events it expects.
 * Messages go around the ring (rank -> rank+1) unless said otherwise;
 * a message from world rank s carries COUNT(base, s) = base + s ints
 * unless said otherwise. Keep the table in trace_check.py in step.
 *
 * The program verifies every payload and every status it gets, and rank 0
 * prints a deterministic report: the test compares it with and without the
 * tracer. Runs with any number of ranks >= 2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 512
#define COUNT(base, s) ((base) + (s))

static int rank, np, right, left;
static int errors;
static long checksum;
static MPI_Comm dupcomm, revcomm;   /* MPI_Comm_dup of world; world with reversed ranks */

static void fail(const char *what, long got, long want)
{
    errors++;
    fprintf(stderr, "mpi_p2p: rank %d: %s: got %ld, want %ld\n", rank, what, got, want);
}

static void fill(int *b, int n, int sender, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = sender * 1000000 + tag * 1000 + i;
}

/* Check a received payload of n ints from sender with tag. */
static void verify(const int *b, int n, int sender, int tag, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != sender * 1000000 + tag * 1000 + i) {
            fail(what, b[i], sender * 1000000 + tag * 1000 + i);
            return;
        }
    checksum += (long)n * (sender + 1) * tag;
}

static void verify_status(const MPI_Status *st, int source, int tag, int n, const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    if (st->MPI_SOURCE != source)
        fail(what, st->MPI_SOURCE, source);
    if (st->MPI_TAG != tag)
        fail(what, st->MPI_TAG, tag);
    if (count != n)
        fail(what, count, n);
}

static void next_variant(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- blocking sends (101 Send, 102 Bsend, 103 Ssend): even ranks send first ---- */
enum { K_SEND, K_BSEND, K_SSEND };
static void blocking(int kind, int tag, int base)
{
    int sb[MAXN], rb[MAXN];
    int n = COUNT(base, rank);
    fill(sb, n, rank, tag);
    for (int phase = 0; phase < 2; phase++) {
        if ((rank % 2 == 0) == (phase == 0)) {
            if (kind == K_SEND)
                MPI_Send(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD);
            else if (kind == K_BSEND)
                MPI_Bsend(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD);
            else
                MPI_Ssend(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD);
        } else {
            MPI_Status st;
            MPI_Recv(rb, MAXN, MPI_INT, left, tag, MPI_COMM_WORLD, &st);
            verify_status(&st, left, tag, COUNT(base, left), "blocking recv status");
            verify(rb, COUNT(base, left), left, tag, "blocking recv data");
        }
    }
    next_variant();
}

/* ---- 104 Rsend: the receive is posted before a barrier ---- */
static void rsend(void)
{
    int sb[MAXN], rb[MAXN], tag = 104, n = COUNT(40, rank);
    MPI_Request r;
    MPI_Status st;
    fill(sb, n, rank, tag);
    MPI_Irecv(rb, MAXN, MPI_INT, left, tag, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    verify_status(&st, left, tag, COUNT(40, left), "rsend status");
    verify(rb, COUNT(40, left), left, tag, "rsend data");
    next_variant();
}

/* ---- 105 Isend, 106 Ibsend, 107 Issend, 108 Irsend ---- */
static void nonblocking_sends(void)
{
    int sb[MAXN], rb[MAXN], n;
    MPI_Request s, r, two[2];
    MPI_Status st, sts[2];

    n = COUNT(50, rank);     /* Isend, received by a blocking Recv */
    fill(sb, n, rank, 105);
    MPI_Isend(sb, n, MPI_INT, right, 105, MPI_COMM_WORLD, &s);
    MPI_Recv(rb, MAXN, MPI_INT, left, 105, MPI_COMM_WORLD, &st);
    verify_status(&st, left, 105, COUNT(50, left), "isend/recv status");
    verify(rb, COUNT(50, left), left, 105, "isend/recv data");
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    next_variant();

    n = COUNT(55, rank);     /* Ibsend */
    fill(sb, n, rank, 106);
    MPI_Ibsend(sb, n, MPI_INT, right, 106, MPI_COMM_WORLD, &two[1]);
    MPI_Irecv(rb, MAXN, MPI_INT, left, 106, MPI_COMM_WORLD, &two[0]);
    MPI_Waitall(2, two, sts);
    verify_status(&sts[0], left, 106, COUNT(55, left), "ibsend status");
    verify(rb, COUNT(55, left), left, 106, "ibsend data");
    next_variant();

    n = COUNT(60, rank);     /* Issend */
    fill(sb, n, rank, 107);
    MPI_Irecv(rb, MAXN, MPI_INT, left, 107, MPI_COMM_WORLD, &two[0]);
    MPI_Issend(sb, n, MPI_INT, right, 107, MPI_COMM_WORLD, &two[1]);
    MPI_Waitall(2, two, sts);
    verify_status(&sts[0], left, 107, COUNT(60, left), "issend status");
    verify(rb, COUNT(60, left), left, 107, "issend data");
    next_variant();

    n = COUNT(65, rank);     /* Irsend: receive posted before the barrier */
    fill(sb, n, rank, 108);
    MPI_Irecv(rb, MAXN, MPI_INT, left, 108, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irsend(sb, n, MPI_INT, right, 108, MPI_COMM_WORLD, &s);
    two[0] = s;
    two[1] = r;
    MPI_Waitall(2, two, sts);
    verify_status(&sts[1], left, 108, COUNT(65, left), "irsend status");
    verify(rb, COUNT(65, left), left, 108, "irsend data");
    next_variant();
}

/* ---- wildcards: 110+s to rank 0 (Recv ANY/ANY, STATUS_IGNORE);
 *      120+s to rank np-1 (Irecv ANY/ANY, Waitall STATUSES_IGNORE) ---- */
static int decode_sender(const int *b) { return b[0] / 1000000; }
static int decode_tag(const int *b) { return (b[0] / 1000) % 1000; }

static void wildcards(void)
{
    int sb[MAXN];
    if (rank != 0) {
        int n = COUNT(70, rank);
        fill(sb, n, rank, 110 + rank);
        MPI_Send(sb, n, MPI_INT, 0, 110 + rank, MPI_COMM_WORLD);
    } else {
        long seen = 0;
        for (int k = 1; k < np; k++) {
            int rb[MAXN];
            MPI_Recv(rb, MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int s = decode_sender(rb);
            if (s < 1 || s >= np || decode_tag(rb) != 110 + s) {
                fail("wildcard recv sender", s, -1);
                continue;
            }
            verify(rb, COUNT(70, s), s, 110 + s, "wildcard recv data");
            seen |= 1L << s;
        }
        if (seen != (1L << np) - 2)
            fail("wildcard recv senders", seen, (1L << np) - 2);
    }
    next_variant();

    int last = np - 1;
    if (rank != last) {
        MPI_Request s;
        int n = COUNT(75, rank);
        fill(sb, n, rank, 120 + rank);
        MPI_Isend(sb, n, MPI_INT, last, 120 + rank, MPI_COMM_WORLD, &s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else {
        static int rb[64][MAXN];
        MPI_Request rq[64];
        for (int k = 0; k < np - 1; k++)
            MPI_Irecv(rb[k], MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[k]);
        MPI_Waitall(np - 1, rq, MPI_STATUSES_IGNORE);
        long seen = 0;
        for (int k = 0; k < np - 1; k++) {
            int s = decode_sender(rb[k]);
            if (s < 0 || s >= last || decode_tag(rb[k]) != 120 + s) {
                fail("wildcard irecv sender", s, -1);
                continue;
            }
            verify(rb[k], COUNT(75, s), s, 120 + s, "wildcard irecv data");
            seen |= 1L << s;
        }
        if (seen != (1L << last) - 1)
            fail("wildcard irecv senders", seen, (1L << last) - 1);
    }
    next_variant();
}

/* ---- 130 Sendrecv, 131 Sendrecv_replace (fixed 25 ints) ---- */
static void sendrecvs(void)
{
    int sb[MAXN], rb[MAXN];
    MPI_Status st;
    int n = COUNT(80, rank);
    fill(sb, n, rank, 130);
    MPI_Sendrecv(sb, n, MPI_INT, right, 130, rb, MAXN, MPI_INT, left, 130, MPI_COMM_WORLD, &st);
    verify_status(&st, left, 130, COUNT(80, left), "sendrecv status");
    verify(rb, COUNT(80, left), left, 130, "sendrecv data");
    next_variant();

    fill(sb, 25, rank, 131);
    MPI_Sendrecv_replace(sb, 25, MPI_INT, right, 131, MPI_ANY_SOURCE, 131, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    verify(sb, 25, left, 131, "sendrecv_replace data");
    next_variant();
}

/* ---- 140 persistent Send_init/Recv_init, started 3 times ---- */
static void persistent(void)
{
    int sb[MAXN], rb[MAXN], n = COUNT(100, rank), flag = 0;
    MPI_Request rq[2];
    MPI_Status sts[2];
    fill(sb, n, rank, 140);
    MPI_Recv_init(rb, MAXN, MPI_INT, left, 140, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(sb, n, MPI_INT, right, 140, MPI_COMM_WORLD, &rq[1]);
    for (int it = 0; it < 3; it++) {
        memset(rb, 0, sizeof rb);
        if (it == 0) {
            MPI_Start(&rq[0]);
            MPI_Start(&rq[1]);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            MPI_Wait(&rq[0], &sts[0]);
        } else if (it == 1) {
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, sts);
        } else {
            MPI_Startall(2, rq);
            do
                MPI_Testall(2, rq, &flag, sts);
            while (!flag);
        }
        verify_status(&sts[0], left, 140, COUNT(100, left), "persistent status");
        verify(rb, COUNT(100, left), left, 140, "persistent data");
    }
    /* Freeing completed (inactive) persistent requests. */
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    next_variant();
}

/* ---- 150 Probe+Recv, 151 Iprobe+Recv, 152 Mprobe+Mrecv on dupcomm,
 *      153 Improbe+Imrecv on revcomm ---- */
static void probes(void)
{
    int sb[MAXN], rb[MAXN], n, count, flag;
    MPI_Request s, r;
    MPI_Status st;
    MPI_Message msg;

    n = COUNT(110, rank);
    fill(sb, n, rank, 150);
    MPI_Isend(sb, n, MPI_INT, right, 150, MPI_COMM_WORLD, &s);
    MPI_Probe(left, 150, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Recv(rb, count, MPI_INT, left, 150, MPI_COMM_WORLD, &st);
    verify_status(&st, left, 150, COUNT(110, left), "probe status");
    verify(rb, COUNT(110, left), left, 150, "probe data");
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    next_variant();

    n = COUNT(120, rank);
    fill(sb, n, rank, 151);
    MPI_Isend(sb, n, MPI_INT, right, 151, MPI_COMM_WORLD, &s);
    do
        MPI_Iprobe(MPI_ANY_SOURCE, 151, MPI_COMM_WORLD, &flag, &st);
    while (!flag);
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Recv(rb, count, MPI_INT, st.MPI_SOURCE, 151, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    verify(rb, COUNT(120, left), left, 151, "iprobe data");
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    next_variant();

    n = COUNT(130, rank);
    fill(sb, n, rank, 152);
    MPI_Isend(sb, n, MPI_INT, right, 152, dupcomm, &s);
    MPI_Mprobe(left, 152, dupcomm, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Mrecv(rb, count, MPI_INT, &msg, MPI_STATUS_IGNORE);
    verify(rb, COUNT(130, left), left, 152, "mprobe data");
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    next_variant();

    /* revcomm rank of world rank w is np-1-w */
    n = COUNT(140, rank);
    fill(sb, n, rank, 153);
    MPI_Isend(sb, n, MPI_INT, np - 1 - right, 153, revcomm, &s);
    flag = 0;
    do
        MPI_Improbe(MPI_ANY_SOURCE, 153, revcomm, &flag, &msg, &st);
    while (!flag);
    MPI_Imrecv(rb, MAXN, MPI_INT, &msg, &r);
    MPI_Wait(&r, &st);
    verify_status(&st, np - 1 - left, 153, COUNT(140, left), "improbe status");
    verify(rb, COUNT(140, left), left, 153, "improbe data");
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    next_variant();
}

/* ---- 198/199: receives that never match, cancelled ---- */
static void cancels(void)
{
    int rb[MAXN], cancelled = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(rb, MAXN, MPI_INT, left, 199, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &cancelled);
    if (!cancelled)
        fail("cancel (wait)", cancelled, 1);

    MPI_Request two[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Irecv(rb, MAXN, MPI_INT, MPI_ANY_SOURCE, 198, MPI_COMM_WORLD, &two[1]);
    MPI_Cancel(&two[1]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    next_variant();
}

/* ---- 160..169: MPI_PROC_NULL everywhere: no message may be recorded ---- */
static void proc_null(void)
{
    int sb[MAXN], rb[MAXN];
    MPI_Request rq[4];
    MPI_Status st;
    fill(sb, 8, rank, 160);
    MPI_Send(sb, 8, MPI_INT, MPI_PROC_NULL, 160, MPI_COMM_WORLD);
    MPI_Recv(rb, 8, MPI_INT, MPI_PROC_NULL, 161, MPI_COMM_WORLD, &st);
    if (st.MPI_SOURCE != MPI_PROC_NULL)
        fail("proc_null recv source", st.MPI_SOURCE, MPI_PROC_NULL);
    MPI_Isend(sb, 8, MPI_INT, MPI_PROC_NULL, 162, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(rb, 8, MPI_INT, MPI_PROC_NULL, 163, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(sb, 8, MPI_INT, MPI_PROC_NULL, 164, rb, 8, MPI_INT, MPI_PROC_NULL, 164, MPI_COMM_WORLD, &st);
    MPI_Send_init(sb, 8, MPI_INT, MPI_PROC_NULL, 165, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(rb, 8, MPI_INT, MPI_PROC_NULL, 165, MPI_COMM_WORLD, &rq[1]);
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    MPI_Bsend(sb, 8, MPI_INT, MPI_PROC_NULL, 166, MPI_COMM_WORLD);
    MPI_Ssend(sb, 8, MPI_INT, MPI_PROC_NULL, 167, MPI_COMM_WORLD);
    MPI_Issend(sb, 8, MPI_INT, MPI_PROC_NULL, 168, MPI_COMM_WORLD, &rq[2]);
    MPI_Wait(&rq[2], MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(sb, 8, MPI_INT, MPI_PROC_NULL, 169, MPI_PROC_NULL, 169, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Message msg;
    MPI_Mprobe(MPI_PROC_NULL, 169, MPI_COMM_WORLD, &msg, &st);
    MPI_Mrecv(rb, 8, MPI_INT, &msg, &st);
    if (st.MPI_SOURCE != MPI_PROC_NULL)
        fail("proc_null mrecv source", st.MPI_SOURCE, MPI_PROC_NULL);
    int flag = 0;
    MPI_Improbe(MPI_PROC_NULL, 169, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Imrecv(rb, 8, MPI_INT, &msg, &rq[3]);
    MPI_Wait(&rq[3], &st);
    next_variant();
}

/* ---- 170..178: completion by every Wait/Test function, mixed arrays ---- */
static void post_pair(int tag, int base, int *sb, int *rb, MPI_Request *s, MPI_Request *r)
{
    int n = COUNT(base, rank);
    fill(sb, n, rank, tag);
    MPI_Irecv(rb, MAXN, MPI_INT, left, tag, MPI_COMM_WORLD, r);
    MPI_Isend(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD, s);
}

static void completions(void)
{
    int sb[MAXN], rb[MAXN], idx, flag, outcount, indices[16];
    MPI_Request rq[16], s, r;
    MPI_Status st, sts[16];

    /* 170 Wait */
    post_pair(170, 150, sb, rb, &s, &r);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, &st);
    verify_status(&st, left, 170, COUNT(150, left), "wait status");
    verify(rb, COUNT(150, left), left, 170, "wait data");
    next_variant();

    /* 171 Waitall: {recv, NULL, send} */
    post_pair(171, 155, sb, rb, &rq[2], &rq[0]);
    rq[1] = MPI_REQUEST_NULL;
    MPI_Waitall(3, rq, sts);
    verify_status(&sts[0], left, 171, COUNT(155, left), "waitall status");
    verify(rb, COUNT(155, left), left, 171, "waitall data");
    next_variant();

    /* 172 Waitany: {send, NULL, recv}, then once more with nothing active */
    post_pair(172, 160, sb, rb, &rq[0], &rq[2]);
    rq[1] = MPI_REQUEST_NULL;
    for (int k = 0; k < 3; k++) {
        MPI_Waitany(3, rq, &idx, &st);
        if (k < 2 && idx == 2)
            verify_status(&st, left, 172, COUNT(160, left), "waitany status");
        if (k == 2 && idx != MPI_UNDEFINED)
            fail("waitany on null requests", idx, MPI_UNDEFINED);
    }
    verify(rb, COUNT(160, left), left, 172, "waitany data");
    next_variant();

    /* 173 Waitsome: {recv, send, NULL}, statuses ignored */
    post_pair(173, 165, sb, rb, &rq[1], &rq[0]);
    rq[2] = MPI_REQUEST_NULL;
    for (int done = 0; done < 2;) {
        MPI_Waitsome(3, rq, &outcount, indices, MPI_STATUSES_IGNORE);
        done += outcount;
    }
    verify(rb, COUNT(165, left), left, 173, "waitsome data");
    next_variant();

    /* 174 Test loop */
    post_pair(174, 170, sb, rb, &s, &r);
    do
        MPI_Test(&r, &flag, &st);
    while (!flag);
    verify_status(&st, left, 174, COUNT(170, left), "test status");
    do
        MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
    while (!flag);
    verify(rb, COUNT(170, left), left, 174, "test data");
    next_variant();

    /* 175 Testall loop: {NULL, send, recv} */
    post_pair(175, 175, sb, rb, &rq[1], &rq[2]);
    rq[0] = MPI_REQUEST_NULL;
    do
        MPI_Testall(3, rq, &flag, sts);
    while (!flag);
    verify_status(&sts[2], left, 175, COUNT(175, left), "testall status");
    verify(rb, COUNT(175, left), left, 175, "testall data");
    next_variant();

    /* 176 Testany loop: {recv, NULL, send} */
    post_pair(176, 180, sb, rb, &rq[2], &rq[0]);
    rq[1] = MPI_REQUEST_NULL;
    for (int done = 0; done < 2;) {
        MPI_Testany(3, rq, &idx, &flag, &st);
        if (flag && idx != MPI_UNDEFINED) {
            if (idx == 0)
                verify_status(&st, left, 176, COUNT(180, left), "testany status");
            done++;
        }
    }
    verify(rb, COUNT(180, left), left, 176, "testany data");
    next_variant();

    /* 177 Testsome loop: {send, recv, NULL, NULL}, statuses ignored */
    post_pair(177, 185, sb, rb, &rq[0], &rq[1]);
    rq[2] = rq[3] = MPI_REQUEST_NULL;
    for (int done = 0; done < 2;) {
        MPI_Testsome(4, rq, &outcount, indices, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED)
            done += outcount;
    }
    verify(rb, COUNT(185, left), left, 177, "testsome data");
    next_variant();

    /* 178: 12 requests (more than the tracer's small save array): five
     * receives and five sends of 190+k ints (k = 0..4) interleaved with
     * two MPI_REQUEST_NULL; FIFO order decides which receive gets which. */
    {
        static int sbk[5][MAXN], rbk[5][MAXN];
        int slot = 0;
        for (int k = 0; k < 5; k++) {
            fill(sbk[k], 190 + k, rank, 178);
            MPI_Irecv(rbk[k], MAXN, MPI_INT, left, 178, MPI_COMM_WORLD, &rq[slot++]);
            if (k == 2)
                rq[slot++] = MPI_REQUEST_NULL;
            MPI_Isend(sbk[k], 190 + k, MPI_INT, right, 178, MPI_COMM_WORLD, &rq[slot++]);
        }
        rq[slot++] = MPI_REQUEST_NULL;
        MPI_Waitall(slot, rq, sts);
        for (int k = 0; k < 5; k++)
            verify(rbk[k], 190 + k, left, 178, "waitall-12 data");
    }
    next_variant();
}

/* ---- 180 on dupcomm and on world at once (distinct sizes), 181 on revcomm ---- */
static void communicators(void)
{
    int sb[MAXN], sb2[MAXN], rb[MAXN], rb2[MAXN];
    MPI_Request rq[4];
    MPI_Status sts[4];
    int n = COUNT(200, rank), n2 = COUNT(210, rank);
    fill(sb, n, rank, 180);
    fill(sb2, n2, rank, 180);
    MPI_Irecv(rb, MAXN, MPI_INT, left, 180, dupcomm, &rq[0]);
    MPI_Irecv(rb2, MAXN, MPI_INT, left, 180, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sb2, n2, MPI_INT, right, 180, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(sb, n, MPI_INT, right, 180, dupcomm, &rq[3]);
    MPI_Waitall(4, rq, sts);
    verify_status(&sts[0], left, 180, COUNT(200, left), "dupcomm status");
    verify_status(&sts[1], left, 180, COUNT(210, left), "world/dup status");
    verify(rb, COUNT(200, left), left, 180, "dupcomm data");
    verify(rb2, COUNT(210, left), left, 180, "world/dup data");
    next_variant();

    /* Blocking on revcomm: peers are revcomm ranks, the trace must show world ranks. */
    n = COUNT(220, rank);
    fill(sb, n, rank, 181);
    for (int phase = 0; phase < 2; phase++) {
        if ((rank % 2 == 0) == (phase == 0)) {
            MPI_Send(sb, n, MPI_INT, np - 1 - right, 181, revcomm);
        } else {
            MPI_Status st;
            MPI_Recv(rb, MAXN, MPI_INT, np - 1 - left, 181, revcomm, &st);
            verify_status(&st, np - 1 - left, 181, COUNT(220, left), "revcomm status");
            verify(rb, COUNT(220, left), left, 181, "revcomm data");
        }
    }
    next_variant();
}

/* ---- 190: Isend freed while active (no completion can be recorded) ---- */
static void freed_active(void)
{
    static int sb[MAXN];
    int rb[MAXN], n = COUNT(230, rank);
    MPI_Request s;
    fill(sb, n, rank, 190);
    MPI_Isend(sb, n, MPI_INT, right, 190, MPI_COMM_WORLD, &s);
    MPI_Request_free(&s);
    MPI_Recv(rb, MAXN, MPI_INT, left, 190, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    verify(rb, COUNT(230, left), left, 190, "freed isend data");
    next_variant();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || np > 60) {
        if (rank == 0)
            fprintf(stderr, "mpi_p2p: needs 2..60 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    right = (rank + 1) % np;
    left = (rank + np - 1) % np;
    MPI_Comm_dup(MPI_COMM_WORLD, &dupcomm);
    MPI_Comm_split(MPI_COMM_WORLD, 0, np - rank, &revcomm);

    int bsize = 4 * (MAXN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);

    blocking(K_SEND, 101, 10);
    blocking(K_BSEND, 102, 20);
    blocking(K_SSEND, 103, 30);
    rsend();
    nonblocking_sends();
    wildcards();
    sendrecvs();
    persistent();
    probes();
    cancels();
    proc_null();
    completions();
    communicators();
    freed_active();

    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
    MPI_Comm_free(&revcomm);
    MPI_Comm_free(&dupcomm);

    int total_errors = 0;
    long total_sum = 0;
    MPI_Reduce(&errors, &total_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&checksum, &total_sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_p2p: %d ranks, %d errors, checksum %ld\n", np, total_errors, total_sum);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
