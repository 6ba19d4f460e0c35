/* foreign_pscw.c — see foreign_pscw.h. */
#include <config.h>
#include "foreign_pscw.h"

#include <stdlib.h>
#include <string.h>

uint8_t *fp_region_calls(const struct foreign_defs *d)
{
    static const struct { const char *name; enum fp_call call; } calls[] = {
        { "MPI_Win_start", FP_START }, { "MPI_Win_complete", FP_COMPLETE }, { "MPI_Win_post", FP_POST },
        { "MPI_Win_wait", FP_WAIT },   { "MPI_Win_test", FP_TEST },
    };
    uint8_t *kind = calloc(d->nregions ? d->nregions : 1, 1);
    for (uint32_t r = 0; kind && r < d->nregions; r++)
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            if (strcmp(fd_string(d, d->regions[r].name), calls[i].name) == 0)
                kind[r] = (uint8_t)calls[i].call;
    return kind;
}

/* The window's communicator's group, when `rank` is in the intra-
 * communicator the window is on (FD_NONE otherwise). */
static uint32_t window_group(const struct foreign_defs *d, uint32_t win, int rank)
{
    if (win >= d->nwins || d->win_comm[win] == FD_NONE || !fd_comm_has(d, d->win_comm[win], rank, NULL))
        return FD_NONE;
    const struct fd_comm *c = &d->comms[d->win_comm[win]];
    if (c->inter || c->group >= d->ngroups || !d->groups[c->group].defined)
        return FD_NONE;
    return c->group;
}

/* l->remotes: group g's members (world ranks; COMM_SELF: rank itself) as
 * ranks of the communicator group wg. 0, or -1 when out of memory. */
static int translate(struct fp_location *l, const struct foreign_defs *d, int rank, uint32_t g, uint32_t wg)
{
    l->nremotes = 0;
    if (g >= d->ngroups || !d->groups[g].defined)
        return 0;
    const struct fd_group *gr = &d->groups[g], *w = &d->groups[wg];
    int self = gr->type == OTF2_GROUP_TYPE_COMM_SELF;
    if (!self && gr->type != OTF2_GROUP_TYPE_COMM_GROUP)
        return 0;   /* not a group of ranks */
    uint32_t n = self ? 1 : gr->n;
    if (n > l->cremotes) {
        uint32_t *p = realloc(l->remotes, sizeof *p * n);
        if (!p)
            return -1;
        l->remotes = p;
        l->cremotes = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t member = self ? (uint64_t)rank : gr->members[i];
        if (w->type == OTF2_GROUP_TYPE_COMM_SELF) {
            if (member == (uint64_t)rank)
                l->remotes[l->nremotes++] = 0;
            continue;
        }
        for (uint32_t j = 0; j < w->n; j++)
            if (w->members[j] == member) {
                l->remotes[l->nremotes++] = j;
                break;
            }
    }
    return 0;
}

/* The window's tables grown to hold `win`: 0, or -1. */
static int reserve(struct fp_location *l, const struct foreign_defs *d)
{
    if (l->open || d->nwins == 0)
        return 0;
    l->open = calloc(d->nwins, sizeof *l->open);
    l->group = malloc(sizeof *l->group * d->nwins);
    return l->open && l->group ? 0 : -1;
}

enum fp_notify fp_group_sync(struct fp_location *l, const struct foreign_defs *d, int rank, enum fp_call call,
                             OTF2_RmaSyncLevel level, uint32_t win, uint32_t group)
{
    l->nremotes = 0;
    uint32_t wg = window_group(d, win, rank);
    if (call == FP_COMPLETE && wg == FD_NONE)
        l->unordered++;
    if (wg == FD_NONE || reserve(l, d) != 0)
        return wg == FD_NONE ? FP_NOTIFY_NONE : FP_NOTIFY_FAILED;
    switch (call) {
    case FP_START:
        l->open[win]++;
        l->group[win] = group;
        return FP_NOTIFY_NONE;
    case FP_COMPLETE: {
        /* the targets of the one access epoch open on the window; with
         * none or several (a start not seen, an erroneous program), which
         * complete goes with which start is not known */
        uint32_t open = l->open[win];
        l->open[win] = 0;   /* after several, none is known open either */
        if (open != 1) {
            l->unordered++;
            return FP_NOTIFY_NONE;
        }
        if (translate(l, d, rank, l->group[win], wg) != 0)
            return FP_NOTIFY_FAILED;
        return l->nremotes ? FP_NOTIFY_OUT : FP_NOTIFY_NONE;
    }
    case FP_WAIT:
    case FP_TEST:
        if (level == OTF2_RMA_SYNC_LEVEL_NONE)   /* a test that found the epoch still open */
            return FP_NOTIFY_NONE;
        if (translate(l, d, rank, group, wg) != 0)
            return FP_NOTIFY_FAILED;
        return l->nremotes ? FP_NOTIFY_IN : FP_NOTIFY_NONE;
    default:
        return FP_NOTIFY_NONE;
    }
}

void fp_complete_unseen(struct fp_location *l)
{
    l->unordered++;
}

void fp_location_free(struct fp_location *l)
{
    free(l->open);
    free(l->group);
    free(l->remotes);
    memset(l, 0, sizeof *l);
}
