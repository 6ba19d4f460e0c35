/* pmerge.c — see pmerge.h. The merge's MPI calls, all of them: this file
 * and OTF2's own collective callbacks (OTF2_MPI_Collectives.h). */
#include <config.h>
#include "pmerge.h"

#include <mpi.h>
#include <otf2/otf2.h>
#if MPI_VERSION < 3
#define OTF2_MPI_UINT64_T MPI_UNSIGNED_LONG
#define OTF2_MPI_INT64_T MPI_LONG
#endif
#include <otf2/OTF2_MPI_Collectives.h>

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#define TAG_PIECE 71          /* a stream piece's length (8 bytes), then its bytes */
#define TAG_PIECE_DATA 72
#define PART_MAX ((size_t)1 << 30)   /* bytes per MPI message: counts are ints */

static int active;
static int starts;            /* pm_start calls not yet finished: the outermost finalises */
static int place, processes;

/* Wait for req without spinning: Open MPI's blocking calls poll at full
 * speed, and a process waiting here (a worker while process 0 solves, or
 * process 0 while the workers read) would take the core that the other
 * process's threads, the causal index's among them, need. Polls back off
 * from 20 us to 2 ms: small beside every step that is waited for. */
static void wait_quietly(MPI_Request *req, MPI_Status *status)
{
    long ns = 20000;
    for (;;) {
        int done = 0;
        MPI_Test(req, &done, status ? status : MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = { 0, ns };
        nanosleep(&ts, NULL);
        if (ns < 2000000)
            ns *= 2;
    }
}

/* mpirun binds each process to a core (Open MPI: --bind-to core with up
 * to two processes), made for ranks of one thread; the merge's threads
 * (readers, the causal index, its writer) would then share that core. So
 * every core this process may use (its cgroup's, which the kernel keeps
 * to whatever mask is asked) is allowed again. */
static void release_binding(void)
{
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    sched_setaffinity(0, sizeof all, &all);   /* a failure leaves the launcher's binding: slower, not wrong */
}

int pm_start(int *argc, char ***argv, uint32_t nprocs, char *err, size_t errlen)
{
    if (nprocs <= 1)
        return 0;
    if (active) {   /* the foreign path's, around its inner merge's */
        starts++;
        return 0;
    }
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        snprintf(err, errlen, "started as %u processes, but MPI could not be initialised", nprocs);
        return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &place);
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    active = 1;
    starts = 1;
    release_binding();
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(err, errlen, "the MPI library offers no MPI_THREAD_SERIALIZED, which the parallel merge needs "
                              "(run it as one process)");
        return -1;
    }
    if ((uint32_t)processes != nprocs) {
        snprintf(err, errlen, "the launcher said %u processes, MPI_COMM_WORLD has %d", nprocs, processes);
        return -1;
    }
    return 0;
}

int pm_start_command(uint32_t processes, const char *command)
{
    char err[512];
    if (pm_start(NULL, NULL, processes, err, sizeof err) == 0)
        return 0;
    if (pm_place() == 0)
        fprintf(stderr, "synctrace %s: %s\n", command, err);
    pm_finish();
    return -1;
}

void pm_abort(void)
{
    fflush(stderr);
    if (active)
        MPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

int pm_active(void)
{
    return active && processes > 1;
}

uint32_t pm_place(void)
{
    return active ? (uint32_t)place : 0;
}

uint32_t pm_processes(void)
{
    return active ? (uint32_t)processes : 1;
}

void pm_finish(void)
{
    if (active && --starts > 0)
        return;
    if (active)
        MPI_Finalize();
    active = 0;
}

uint32_t pm_local_processes(void)
{
    if (!pm_active())
        return 1;
    MPI_Comm node;
    int n = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
    }
    return n > 0 ? (uint32_t)n : 1;
}

int pm_agree_zero(int ok, int *zero_ok)
{
    if (!pm_active()) {
        if (zero_ok)
            *zero_ok = ok;
        return ok;
    }
    int mine[2] = { ok ? 1 : 0, place != 0 || ok ? 1 : 0 }, all[2] = { 0, 0 };
    MPI_Request req;
    MPI_Iallreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
    wait_quietly(&req, NULL);
    if (zero_ok)
        *zero_ok = all[1];
    return all[0];
}

int pm_agree(int ok)
{
    return pm_agree_zero(ok, NULL);
}

/* v reduced over every process with op. */
static uint64_t reduce_u64(uint64_t v, MPI_Op op)
{
    if (!pm_active())
        return v;
    unsigned long long mine = v, all = 0;
    MPI_Request req;
    MPI_Iallreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, op, MPI_COMM_WORLD, &req);
    wait_quietly(&req, NULL);
    return all;
}

uint64_t pm_sum_u64(uint64_t v)
{
    return reduce_u64(v, MPI_SUM);
}

void pm_bcast(void *buf, size_t n)
{
    if (!pm_active())
        return;
    for (size_t at = 0; at < n; at += PART_MAX) {
        size_t k = n - at < PART_MAX ? n - at : PART_MAX;
        MPI_Request req;
        MPI_Ibcast((char *)buf + at, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
        wait_quietly(&req, NULL);
    }
}

uint64_t pm_max_u64(uint64_t v)
{
    return reduce_u64(v, MPI_MAX);
}

void pm_send_piece(const void *buf, size_t n)
{
    uint64_t len = n;
    MPI_Request req;
    MPI_Isend(&len, 8, MPI_BYTE, 0, TAG_PIECE, MPI_COMM_WORLD, &req);
    wait_quietly(&req, NULL);
    for (size_t at = 0; at < n; at += PART_MAX) {
        size_t k = n - at < PART_MAX ? n - at : PART_MAX;
        MPI_Isend((const char *)buf + at, (int)k, MPI_BYTE, 0, TAG_PIECE_DATA, MPI_COMM_WORLD, &req);
        wait_quietly(&req, NULL);
    }
}

uint32_t pm_receive_piece(uint8_t **buf, size_t *cap, size_t *len)
{
    uint64_t n = 0;
    MPI_Status s;
    MPI_Request req;
    MPI_Irecv(&n, 8, MPI_BYTE, MPI_ANY_SOURCE, TAG_PIECE, MPI_COMM_WORLD, &req);
    wait_quietly(&req, &s);
    if (n > *cap) {
        uint8_t *nb = realloc(*buf, n);
        if (!nb) {
            /* nothing sensible is left to do with the stream: the job ends */
            fprintf(stderr, "synctrace merge: out of memory receiving %llu bytes from process %d\n",
                    (unsigned long long)n, s.MPI_SOURCE);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        *buf = nb;
        *cap = n;
    }
    for (size_t at = 0; at < n; at += PART_MAX) {
        size_t k = n - at < PART_MAX ? n - at : PART_MAX;
        MPI_Irecv(*buf + at, (int)k, MPI_BYTE, s.MPI_SOURCE, TAG_PIECE_DATA, MPI_COMM_WORLD, &req);
        wait_quietly(&req, NULL);
    }
    *len = n;
    return (uint32_t)s.MPI_SOURCE;
}

int pm_archive_collective(void *archive)
{
    return OTF2_MPI_Archive_SetCollectiveCallbacks(archive, MPI_COMM_WORLD, MPI_COMM_NULL) == OTF2_SUCCESS ? 0 : -1;
}

void pm_share(const uint64_t *events, uint32_t n, uint32_t k, uint32_t *first)
{
    /* each archive counts at least 1: archives without events still take reading */
    long double total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += (long double)events[i] + 1;
    long double sum = 0;
    uint32_t p = 1, i = 0;
    first[0] = 0;
    for (; i < n && p < k; i++) {
        /* archive i goes to the process whose share its middle falls in */
        long double mid = sum + ((long double)events[i] + 1) / 2;
        while (p < k && mid >= total * p / k)
            first[p++] = i;
        sum += (long double)events[i] + 1;
    }
    while (p <= k)
        first[p++] = n;
}
