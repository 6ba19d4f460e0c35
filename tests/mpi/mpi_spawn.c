/* mpi_spawn.c — dynamic processes: the parents (started by mpirun) spawn
 * children (this program again, told apart by MPI_Comm_get_parent), then
 * over the parent/child intercommunicator: messages both ways (blocking
 * and non-blocking), a broadcast from a parent (MPI_ROOT/MPI_PROC_NULL)
 * and one from a child, an allreduce; then MPI_Intercomm_merge, an
 * allreduce and a ring exchange on the merged intracommunicator; the
 * children also talk among themselves in their own MPI_COMM_WORLD; finally
 * MPI_Comm_disconnect. With "twice" the parents spawn a second set of
 * children after the first is disconnected; with "multiple" they use
 * MPI_Comm_spawn_multiple (two commands: the program with two argument
 * lists); with "nested" the children spawn grandchildren and talk with
 * them the same way before they report (their lines carry what they got
 * from the grandchildren). Every parent and child reports what it received to parent 0,
 * which prints everything in a fixed order, so the output is the same
 * with and without the tracer.
 *
 * Usage: mpirun -np P mpi_spawn [CHILDREN [twice|multiple|nested]] (CHILDREN: 2) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE 320

static int value(int side, int rank, int k) { return 1000 * side + 100 * rank + k; }

/* One round of traffic over intercommunicator `ic`; `side` is 0 for the
 * parents, 1 for the children. Returns this process's report line. */
static void talk(MPI_Comm ic, int side, int round, char *line)
{
    int me, lsize, rsize;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    int n = 0;
    n += snprintf(line + n, LINE - (size_t)n, "round %d %s %d:", round, side ? "child" : "parent", me);

    /* Each process sends to the remote rank me % rsize and receives from
     * every remote rank r with r % lsize == me. */
    int out = value(side, me, round), sum = 0;
    MPI_Request rq;
    MPI_Isend(&out, 1, MPI_INT, me % rsize, 10 + side, ic, &rq);
    for (int r = 0; r < rsize; r++)
        if (r % lsize == me) {
            int in = 0;
            MPI_Recv(&in, 1, MPI_INT, r, 10 + !side, ic, MPI_STATUS_IGNORE);
            sum += in;
        }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    n += snprintf(line + n, LINE - (size_t)n, " p2p %d", sum);

    /* A broadcast from parent 0 to the children, then from child 1 (or 0). */
    int b = side == 0 && me == 0 ? 4242 + round : -1;
    int root0 = side == 0 ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&b, 1, MPI_INT, root0, ic);
    int croot = (side ? lsize : rsize) > 1 ? 1 : 0;
    int c = side == 1 && me == croot ? 777 + round : -1;
    int root1 = side == 1 ? (me == croot ? MPI_ROOT : MPI_PROC_NULL) : croot;
    MPI_Bcast(&c, 1, MPI_INT, root1, ic);
    n += snprintf(line + n, LINE - (size_t)n, " bcast %d %d", b, c);

    int all = 0;
    MPI_Allreduce(&out, &all, 1, MPI_INT, MPI_SUM, ic);
    n += snprintf(line + n, LINE - (size_t)n, " allreduce %d", all);

    /* The merged intracommunicator: parents first. */
    MPI_Comm merged;
    MPI_Intercomm_merge(ic, side, &merged);
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    int msum = 0, in = -1;
    MPI_Allreduce(&mr, &msum, 1, MPI_INT, MPI_SUM, merged);
    MPI_Sendrecv(&mr, 1, MPI_INT, (mr + 1) % ms, 20, &in, 1, MPI_INT, (mr + ms - 1) % ms, 20, merged,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
    snprintf(line + n, LINE - (size_t)n, " merged %d/%d sum %d from %d", mr, ms, msum, in);
}

/* Every process's line to parent 0: children's over the intercommunicator,
 * parents' over MPI_COMM_WORLD. */
static void report(MPI_Comm ic, int side, const char *line)
{
    int me, lsize, rsize;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    if (side == 1) {
        MPI_Send(line, LINE, MPI_CHAR, 0, 30, ic);
        return;
    }
    if (me != 0) {
        MPI_Send(line, LINE, MPI_CHAR, 0, 31, MPI_COMM_WORLD);
        return;
    }
    char buf[LINE];
    printf("%s\n", line);
    for (int r = 1; r < lsize; r++) {
        MPI_Recv(buf, LINE, MPI_CHAR, r, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("%s\n", buf);
    }
    for (int r = 0; r < rsize; r++) {
        MPI_Recv(buf, LINE, MPI_CHAR, r, 30, ic, MPI_STATUS_IGNORE);
        printf("%s\n", buf);
    }
    fflush(stdout);
}

static MPI_Comm spawn(const char *self, int children, int multiple, int round, const char *mode);

/* A parent's side of the grandchildren: their report lines, folded into
 * one checksum on rank 0 (the others have nothing to fold). */
static unsigned absorb(MPI_Comm ic)
{
    int me, rsize;
    unsigned sum = 0;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_remote_size(ic, &rsize);
    for (int r = 0; me == 0 && r < rsize; r++) {
        char buf[LINE];
        MPI_Recv(buf, LINE, MPI_CHAR, r, 30, ic, MPI_STATUS_IGNORE);
        for (const char *p = buf; *p; p++)
            sum = sum * 31 + (unsigned char)*p;
    }
    return sum;
}

static void child(MPI_Comm parent, int round, const char *self, const char *mode)
{
    char line[LINE];
    talk(parent, 1, round, line);
    if (strcmp(mode, "nested") == 0) {
        /* grandchildren: spawned by the children, over their world */
        MPI_Comm g = spawn(self, 2, 0, round, "grand");
        char gline[LINE];
        talk(g, 0, round, gline);
        unsigned folded = absorb(g);
        MPI_Comm_disconnect(&g);
        size_t n = strlen(line);
        snprintf(line + n, LINE - n, " | %.150s; grandchildren %08x", gline, folded);
    }
    /* The children's own world: a ring. */
    int w, np, in = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Sendrecv(&w, 1, MPI_INT, (w + 1) % np, 40, &in, 1, MPI_INT, (w + np - 1) % np, 40, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    size_t n = strlen(line);
    snprintf(line + n, LINE - n, " world %d/%d from %d", w, np, in);
    report(parent, 1, line);
    MPI_Comm_disconnect(&parent);
}

static MPI_Comm spawn(const char *self, int children, int multiple, int round, const char *mode)
{
    MPI_Comm ic;
    char rbuf[16];
    snprintf(rbuf, sizeof rbuf, "%d", round);
    if (multiple) {
        /* Two commands: the first child gets one argument list, the rest another. */
        char *cmds[2] = { (char *)self, (char *)self };
        char *argv_a[] = { "child", rbuf, "a", NULL }, *argv_b[] = { "child", rbuf, "b", NULL };
        char **argvs[2] = { argv_a, argv_b };
        int np[2] = { 1, children - 1 };
        MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
        MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
    } else {
        char *args[] = { "child", rbuf, (char *)mode, NULL };
        MPI_Comm_spawn(self, args, children, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
    }
    return ic;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent, argc > 2 ? atoi(argv[2]) : 0, argv[0], argc > 3 ? argv[3] : "");
        MPI_Finalize();
        return 0;
    }
    int children = argc > 1 ? atoi(argv[1]) : 2;
    const char *mode = argc > 2 ? argv[2] : "";
    int multiple = strcmp(mode, "multiple") == 0, rounds = strcmp(mode, "twice") == 0 ? 2 : 1;
    int nested = strcmp(mode, "nested") == 0;
    if (children < 2 || (*mode && !multiple && !nested && rounds == 1)) {
        fprintf(stderr, "usage: mpi_spawn [CHILDREN (2 or more) [twice|multiple|nested]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int round = 0; round < rounds; round++) {
        MPI_Comm ic = spawn(argv[0], children, multiple, round, nested ? "nested" : "");
        char line[LINE];
        talk(ic, 0, round, line);
        report(ic, 0, line);
        MPI_Comm_disconnect(&ic);
    }
    MPI_Finalize();
    return 0;
}
