/* mpi_polling.c — polling loops, for tests/test-polling.sh and bench/polling.sh.
 *
 *   mpirun -np 2 mpi_polling main K      rank 0 polls, rank 1 answers
 *   mpirun -np 2 mpi_polling threads K   rank 0 polls on 2 threads (MPI_THREAD_MULTIPLE)
 *   mpirun -np 1 mpi_polling crash K     K unsuccessful MPI_Iprobe calls, then abort()
 *   mpirun -np 1 mpi_polling nested K    polling calls that fail with MPI_ERR_TAG, whose error
 *                                        handler makes MPI calls (polling ones too) inside them
 *
 * The structure is deterministic, its timing is not: in phase p rank 0
 * first makes exactly K + p calls that cannot succeed (rank 1 sends the
 * awaited message only after rank 0's "go" message for that phase), sends
 * "go", then polls until it succeeds (any number of calls). The phases:
 *   1 MPI_Test   2 MPI_Iprobe   3 MPI_Testany (2 requests and a null one)
 *   4 MPI_Testsome   5 MPI_Testall   6 MPI_Improbe + MPI_Mrecv
 *   7 MPI_Request_get_status + MPI_Wait
 *   8 MPI_Iprobe on tag 18 and 19 in turn, K + 8 times each, never matched
 *   9 MPI_Test with an MPI_Wtime call after each
 * stdout (the same traced or not): what rank 0 received. stderr: the
 * number of calls of each polling function, "polls RANK FUNCTION N". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_TEST, F_IPROBE, F_TESTANY, F_TESTSOME, F_TESTALL, F_IMPROBE, F_GET_STATUS, NFUNCS };
static const char *const names[NFUNCS] = { "MPI_Test", "MPI_Iprobe", "MPI_Testany", "MPI_Testsome",
                                           "MPI_Testall", "MPI_Improbe", "MPI_Request_get_status" };

struct counts {
    long n[NFUNCS];
};

static void fail(const char *what)
{
    fprintf(stderr, "mpi_polling: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void go(int phase)
{
    int one = 1;
    MPI_Send(&one, 1, MPI_INT, 1, 1000 + phase, MPI_COMM_WORLD);
}

/* Phase p on MPI_Test (with MPI_Wtime after each call when `wtime`). */
static int poll_test(struct counts *c, int phase, long k, int tag, int wtime)
{
    int v = -1, flag = 0;
    MPI_Request r;
    MPI_Irecv(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &r);
    double t = 0;
    for (long i = 0; i < k; i++) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        c->n[F_TEST]++;
        if (wtime)
            t += MPI_Wtime();
        if (flag)
            fail("MPI_Test succeeded before the message was sent");
    }
    go(phase);
    while (!flag) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        c->n[F_TEST]++;
        if (wtime)
            t += MPI_Wtime();
    }
    return t < 0 ? -1 : v;
}

static int poll_iprobe(struct counts *c, int phase, long k, int tag)
{
    int v = -1, flag = 0;
    for (long i = 0; i < k; i++) {
        MPI_Iprobe(1, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        c->n[F_IPROBE]++;
        if (flag)
            fail("MPI_Iprobe succeeded before the message was sent");
    }
    go(phase);
    while (!flag) {
        MPI_Iprobe(1, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        c->n[F_IPROBE]++;
    }
    MPI_Recv(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return v;
}

/* Phases 3-5: two receives (and a null request) completed by Testany, Testsome or Testall. */
static int poll_array(struct counts *c, int phase, long k, int f)
{
    int v[2] = { -1, -1 };
    MPI_Request r[3];
    MPI_Irecv(&v[0], 1, MPI_INT, 1, 10 * phase, MPI_COMM_WORLD, &r[0]);
    r[1] = MPI_REQUEST_NULL;
    MPI_Irecv(&v[1], 1, MPI_INT, 1, 10 * phase + 1, MPI_COMM_WORLD, &r[2]);
    int done = 0;
    for (long i = 0; i <= k || done < 2; i++) {
        if (i == k)
            go(phase);
        int flag = 0, index, outcount, idx[3];
        if (f == F_TESTANY) {
            MPI_Testany(3, r, &index, &flag, MPI_STATUS_IGNORE);
            done += flag && index != MPI_UNDEFINED;
        } else if (f == F_TESTSOME) {
            MPI_Testsome(3, r, &outcount, idx, MPI_STATUSES_IGNORE);
            flag = outcount > 0 && outcount != MPI_UNDEFINED;
            done += flag ? outcount : 0;
        } else {
            MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE);
            done += flag ? 2 : 0;
        }
        c->n[f]++;
        if (flag && i < k)
            fail("a test succeeded before the messages were sent");
    }
    return v[0] * 100 + v[1];
}

static int poll_improbe(struct counts *c, int phase, long k, int tag)
{
    int v = -1, flag = 0;
    MPI_Message m;
    for (long i = 0; i < k; i++) {
        MPI_Improbe(1, tag, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
        c->n[F_IMPROBE]++;
        if (flag)
            fail("MPI_Improbe succeeded before the message was sent");
    }
    go(phase);
    while (!flag) {
        MPI_Improbe(1, tag, MPI_COMM_WORLD, &flag, &m, MPI_STATUS_IGNORE);
        c->n[F_IMPROBE]++;
    }
    MPI_Mrecv(&v, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    return v;
}

static int poll_get_status(struct counts *c, int phase, long k, int tag)
{
    int v = -1, flag = 0;
    MPI_Request r;
    MPI_Irecv(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &r);
    for (long i = 0; i < k; i++) {
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
        c->n[F_GET_STATUS]++;
        if (flag)
            fail("MPI_Request_get_status succeeded before the message was sent");
    }
    go(phase);
    while (!flag) {
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
        c->n[F_GET_STATUS]++;
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return v;
}

/* Rank 1: after "go" of phase p, the message(s) that phase waits for. */
static void answer(int phase, const int *tags, int ntags)
{
    int one;
    MPI_Recv(&one, 1, MPI_INT, 0, 1000 + phase, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < ntags; i++) {
        int v = 7 * phase + i;
        MPI_Send(&v, 1, MPI_INT, 0, tags[i], MPI_COMM_WORLD);
    }
}

static void report(int rank, const struct counts *c)
{
    for (int f = 0; f < NFUNCS; f++)
        fprintf(stderr, "polls %d %s %ld\n", rank, names[f], c->n[f]);
}

static int run_main(int rank, long k)
{
    struct counts c;
    memset(&c, 0, sizeof c);
    if (rank == 0) {
        printf("phase 1 got %d\n", poll_test(&c, 1, k + 1, 1, 0));
        printf("phase 2 got %d\n", poll_iprobe(&c, 2, k + 2, 2));
        printf("phase 3 got %d\n", poll_array(&c, 3, k + 3, F_TESTANY));
        printf("phase 4 got %d\n", poll_array(&c, 4, k + 4, F_TESTSOME));
        printf("phase 5 got %d\n", poll_array(&c, 5, k + 5, F_TESTALL));
        printf("phase 6 got %d\n", poll_improbe(&c, 6, k + 6, 6));
        printf("phase 7 got %d\n", poll_get_status(&c, 7, k + 7, 7));
        int flag = 0;
        for (long i = 0; i < k + 8; i++)
            for (int tag = 18; tag <= 19; tag++) {
                MPI_Iprobe(1, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                c.n[F_IPROBE]++;
                if (flag)
                    fail("an MPI_Iprobe on tag 18 or 19 succeeded");
            }
        printf("phase 8 got nothing\n");
        printf("phase 9 got %d\n", poll_test(&c, 9, k + 9, 9, 1));
    } else if (rank == 1) {
        static const int one[][2] = { { 1 }, { 2 }, { 30, 31 }, { 40, 41 }, { 50, 51 }, { 6 }, { 7 } };
        for (int p = 1; p <= 7; p++)
            answer(p, one[p - 1], p >= 3 && p <= 5 ? 2 : 1);
        answer(9, (const int[]){ 9 }, 1);
        printf("rank 1 answered\n");
    }
    fflush(stdout);
    report(rank, &c);
    return 0;
}

/* threads: rank 0's threads t = 0, 1 each poll MPI_Test (K + t unsuccessful
 * calls first) and MPI_Iprobe (K + 10 + t), with phases 20 + t and 30 + t. */
struct thread_arg {
    long k;
    int t;
    int got[2];
    struct counts c;
};

static void *poller(void *p)
{
    struct thread_arg *a = p;
    a->got[0] = poll_test(&a->c, 20 + a->t, a->k + a->t, 20 + a->t, 0);
    a->got[1] = poll_iprobe(&a->c, 30 + a->t, a->k + 10 + a->t, 30 + a->t);
    return NULL;
}

static int run_threads(int rank, long k)
{
    if (rank == 0) {
        struct thread_arg a[2];
        pthread_t th[2];
        for (int t = 0; t < 2; t++) {
            memset(&a[t], 0, sizeof a[t]);
            a[t].k = k;
            a[t].t = t;
            if (pthread_create(&th[t], NULL, poller, &a[t]) != 0)
                fail("pthread_create");
        }
        struct counts sum;
        memset(&sum, 0, sizeof sum);
        for (int t = 0; t < 2; t++) {
            pthread_join(th[t], NULL);
            printf("thread %d got %d %d\n", t, a[t].got[0], a[t].got[1]);
            for (int f = 0; f < NFUNCS; f++)
                sum.n[f] += a[t].c.n[f];
        }
        fflush(stdout);
        report(rank, &sum);
    } else if (rank == 1) {
        /* in this order whatever the threads do: each go arrives in time */
        static const int phases[] = { 20, 21, 30, 31 };
        for (int i = 0; i < 4; i++)
            answer(phases[i], (const int[]){ phases[i] }, 1);
        printf("rank 1 answered\n");
        fflush(stdout);
    }
    return 0;
}

/* nested: the error handler of `errcomm` polls and queries, inside the
 * erroneous call; counted in *handler_counts. */
static struct counts *handler_counts;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)code;
    int flag, rank;
    for (int i = 0; i < 3; i++) {
        MPI_Iprobe(0, 5, *comm, &flag, MPI_STATUS_IGNORE);
        handler_counts->n[F_IPROBE]++;
    }
    MPI_Comm_rank(*comm, &rank);
}

static int run_nested(long k)
{
    struct counts c;
    memset(&c, 0, sizeof c);
    handler_counts = &c;
    MPI_Comm errcomm;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &errcomm);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(errcomm, eh);
    int flag, errors = 0;
    for (long i = 0; i < k; i++) {
        MPI_Iprobe(0, 5, errcomm, &flag, MPI_STATUS_IGNORE);   /* unsuccessful: nothing is sent */
        c.n[F_IPROBE]++;
        if (i % 10 == 9) {   /* a negative tag: MPI_ERR_TAG, the handler runs inside the call */
            errors += MPI_Iprobe(0, -5, errcomm, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS;
            c.n[F_IPROBE]++;
        }
    }
    printf("nested: %d erroneous calls returned an error\n", errors);
    fflush(stdout);
    report(0, &c);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&errcomm);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "main";
    long k = argc > 2 ? atol(argv[2]) : 1000;
    int provided = MPI_THREAD_SINGLE;
    if (strcmp(mode, "threads") == 0)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int one_rank = strcmp(mode, "crash") == 0 || strcmp(mode, "nested") == 0;
    if (k < 1 || (one_rank ? size != 1 : size != 2)
        || (strcmp(mode, "threads") == 0 && provided != MPI_THREAD_MULTIPLE)) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 mpi_polling main|threads [K] (threads needs MPI_THREAD_MULTIPLE),"
                            " mpirun -np 1 mpi_polling crash|nested [K]\n");
        MPI_Finalize();
        return 2;
    }
    int rc = 2;
    if (strcmp(mode, "main") == 0) {
        rc = run_main(rank, k);
    } else if (strcmp(mode, "threads") == 0) {
        rc = run_threads(rank, k);
    } else if (strcmp(mode, "nested") == 0) {
        rc = run_nested(k);
    } else if (strcmp(mode, "crash") == 0) {
        int flag;
        for (long i = 0; i < k; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        fprintf(stderr, "polls %d MPI_Iprobe %ld\n", rank, k);
        abort();   /* the run is still open: the fatal-signal path must write it */
    }
    MPI_Finalize();
    return rc;
}
