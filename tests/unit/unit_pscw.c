/* TAP unit test for foreign_pscw.c: Score-P's RmaGroupSyncs of PSCW as
 * RmaSync notifications. On definitions made here (4 world ranks; a
 * window on MPI_COMM_WORLD, one on a communicator of ranks {3, 1}, one on
 * no communicator): a complete notifies the targets of the start before
 * it, only when exactly one access epoch is open on the window (else it
 * is counted); a wait and a successful test notify their group's origins,
 * a failed test (level NONE) nothing; members are translated to ranks of
 * the window's communicator, those outside it left out; COMM_SELF groups,
 * groups that are no rank lists, windows the rank is not in. */
#include <config.h>
#include "foreign_pscw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define SYNCED (OTF2_RMA_SYNC_LEVEL_MEMORY | OTF2_RMA_SYNC_LEVEL_PROCESS)

static uint64_t world[] = { 0, 1, 2, 3 }, sub[] = { 3, 1 }, g_one[] = { 1 }, g_two_three[] = { 2, 3 },
                g_zero_two[] = { 0, 2 };

static struct fd_group groups[] = {
    { 1, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 4, world },
    { 1, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 2, sub },
    { 1, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 1, g_one },
    { 1, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 2, g_two_three },
    { 1, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 2, g_zero_two },
    { 1, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, 0, NULL },
    { 1, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, 4, world },
};
enum { G_WORLD, G_SUB, G_ONE, G_TWO_THREE, G_ZERO_TWO, G_SELF, G_LOCATIONS };
enum { W_WORLD, W_SUB, W_NONE };

static struct fd_comm comms[] = {
    { 1, 0, 0, G_WORLD, FD_NONE, FD_NONE, 0 },
    { 1, 0, 0, G_SUB, FD_NONE, FD_NONE, 0 },
};
static uint32_t win_comm[] = { 0, 1, FD_NONE };
static char *strings[] = { "", "MPI_Win_start", "MPI_Win_complete", "MPI_Win_post", "MPI_Win_wait", "MPI_Win_test",
                           "MPI_Win_completed", "mpi_win_start" };
static struct fd_region regions[] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 }, { 3, 0, 0 },
                                      { 4, 0, 0 }, { 5, 0, 0 }, { 6, 0, 0 }, { 7, 0, 0 } };

/* l's remotes as text ("2,3"; "" when none). */
static const char *remotes(const struct fp_location *l)
{
    static char buf[64];
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < l->nremotes && at < sizeof buf - 12; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%u", i ? "," : "", l->remotes[i]);
    return buf;
}

static void expect(struct fp_location *l, const struct foreign_defs *d, int rank, enum fp_call call,
                   OTF2_RmaSyncLevel level, uint32_t win, uint32_t group, enum fp_notify want, const char *want_remotes,
                   uint64_t want_unordered, const char *what)
{
    enum fp_notify got = fp_group_sync(l, d, rank, call, level, win, group);
    const char *r = got == FP_NOTIFY_NONE ? "" : remotes(l);
    ok(got == want && strcmp(r, want_remotes) == 0 && l->unordered == want_unordered,
       "%s: notify %d (want %d), remotes \"%s\" (want \"%s\"), %llu unordered (want %llu)", what, got, want, r,
       want_remotes, (unsigned long long)l->unordered, (unsigned long long)want_unordered);
}

int main(void)
{
    struct foreign_defs d;
    memset(&d, 0, sizeof d);
    d.strings = strings;
    d.nstrings = sizeof strings / sizeof strings[0];
    d.regions = regions;
    d.nregions = sizeof regions / sizeof regions[0];
    d.groups = groups;
    d.ngroups = sizeof groups / sizeof groups[0];
    d.comms = comms;
    d.ncomms = sizeof comms / sizeof comms[0];
    d.win_comm = win_comm;
    d.nwins = sizeof win_comm / sizeof win_comm[0];

    uint8_t *calls = fp_region_calls(&d);
    ok(calls && calls[0] == FP_OTHER && calls[1] == FP_START && calls[2] == FP_COMPLETE && calls[3] == FP_POST
           && calls[4] == FP_WAIT && calls[5] == FP_TEST && calls[6] == FP_OTHER && calls[7] == FP_OTHER,
       "regions named by their exact MPI names only");
    free(calls);

    struct fp_location l;
    memset(&l, 0, sizeof l);
    int me = 1;
    expect(&l, &d, me, FP_POST, OTF2_RMA_SYNC_LEVEL_PROCESS, W_WORLD, G_ONE, FP_NOTIFY_NONE, "", 0, "post: nothing");
    expect(&l, &d, me, FP_START, OTF2_RMA_SYNC_LEVEL_PROCESS, W_WORLD, G_TWO_THREE, FP_NOTIFY_NONE, "", 0,
           "start: nothing yet");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_WORLD, G_ONE, FP_NOTIFY_OUT, "2,3", 0,
           "complete: the start's targets, not its own group's");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_WORLD, G_TWO_THREE, FP_NOTIFY_NONE, "", 1,
           "a complete with no start before it: nothing, counted");
    expect(&l, &d, me, FP_START, OTF2_RMA_SYNC_LEVEL_PROCESS, W_WORLD, G_ONE, FP_NOTIFY_NONE, "", 1, "a start");
    expect(&l, &d, me, FP_START, OTF2_RMA_SYNC_LEVEL_PROCESS, W_WORLD, G_TWO_THREE, FP_NOTIFY_NONE, "", 1,
           "a second start on the window");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_WORLD, G_TWO_THREE, FP_NOTIFY_NONE, "", 2,
           "a complete with two epochs open: nothing, counted");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_WORLD, G_TWO_THREE, FP_NOTIFY_NONE, "", 3,
           "and the next complete neither");
    expect(&l, &d, me, FP_START, OTF2_RMA_SYNC_LEVEL_PROCESS, W_SUB, G_TWO_THREE, FP_NOTIFY_NONE, "", 3,
           "a start on the sub-communicator's window");
    expect(&l, &d, me, FP_START, OTF2_RMA_SYNC_LEVEL_PROCESS, W_WORLD, G_ONE, FP_NOTIFY_NONE, "", 3,
           "and one on the world's: each window its own epoch");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_SUB, G_TWO_THREE, FP_NOTIFY_OUT, "0", 3,
           "complete on {3, 1}: world rank 3 is its rank 0, rank 2 outside it left out");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_WORLD, G_ONE, FP_NOTIFY_OUT, "1", 3, "complete on the world's");
    expect(&l, &d, me, FP_WAIT, SYNCED, W_WORLD, G_TWO_THREE, FP_NOTIFY_IN, "2,3", 3, "wait: its group's origins");
    expect(&l, &d, me, FP_TEST, OTF2_RMA_SYNC_LEVEL_NONE, W_WORLD, G_ONE, FP_NOTIFY_NONE, "", 3,
           "a failed test: nothing");
    expect(&l, &d, me, FP_TEST, SYNCED, W_WORLD, G_ONE, FP_NOTIFY_IN, "1", 3, "a successful test: its origins");
    expect(&l, &d, me, FP_WAIT, SYNCED, W_SUB, G_ZERO_TWO, FP_NOTIFY_NONE, "", 3,
           "wait whose origins are all outside the window's communicator: nothing");
    expect(&l, &d, me, FP_WAIT, SYNCED, W_WORLD, G_SELF, FP_NOTIFY_IN, "1", 3, "a COMM_SELF group: the rank itself");
    expect(&l, &d, me, FP_WAIT, SYNCED, W_WORLD, G_LOCATIONS, FP_NOTIFY_NONE, "", 3,
           "a group of locations, not ranks: nothing");
    expect(&l, &d, me, FP_WAIT, SYNCED, W_WORLD, 99, FP_NOTIFY_NONE, "", 3, "an undefined group: nothing");
    expect(&l, &d, me, FP_WAIT, SYNCED, W_NONE, G_ONE, FP_NOTIFY_NONE, "", 3, "a window on no communicator: nothing");
    expect(&l, &d, me, FP_COMPLETE, SYNCED, W_NONE, G_ONE, FP_NOTIFY_NONE, "", 4, "a complete there: counted");
    expect(&l, &d, me, FP_WAIT, SYNCED, 7, G_ONE, FP_NOTIFY_NONE, "", 4, "an undefined window: nothing");
    expect(&l, &d, me, FP_OTHER, SYNCED, W_WORLD, G_ONE, FP_NOTIFY_NONE, "", 4,
           "an RmaGroupSync outside the PSCW calls: nothing");
    fp_location_free(&l);
    /* rank 0 is not in {3, 1}: that window's records are none of its own */
    expect(&l, &d, 0, FP_START, OTF2_RMA_SYNC_LEVEL_PROCESS, W_SUB, G_TWO_THREE, FP_NOTIFY_NONE, "", 0,
           "rank 0: a start on a window it is not in");
    expect(&l, &d, 0, FP_WAIT, SYNCED, W_SUB, G_TWO_THREE, FP_NOTIFY_NONE, "", 0, "rank 0: nor a wait");
    fp_location_free(&l);
    return tap_finish();
}
