/* waits_epochs.c — one location's general-active-target calls into
 * epochs, for the PSCW patterns (waits_pscw.c).
 *
 * What the archive holds (src/rma.c): MPI_Win_post and MPI_Win_start are
 * bare Enter/Leave (no window, no group); MPI_Win_complete writes an
 * RmaSync NOTIFY_OUT per target of the access epoch, MPI_Win_wait (and
 * the MPI_Win_test that finds the epoch over) an RmaSync NOTIFY_IN per
 * origin of the exposure epoch; operations are RmaPut/RmaGet/RmaAtomic
 * inside their call, naming window and target. An epoch's window and
 * partners are therefore those its closing call names, and the start
 * (post) it belongs to is the one open on this location: exact while a
 * location has one access (exposure) epoch open at a time. When a second
 * start (post) comes before the first is closed, MPI allows the two to
 * be on different windows and nothing recorded says which is which: the
 * epochs until none is open are left out (counted as unpaired). */
#include "table.h"
#include "waits.h"

#include <stdlib.h>

struct pend_op {
    uint32_t win, target, region;
    uint64_t frame;
    struct wt_moment enter, leave;
    int left;
};

struct partner {
    uint32_t win, comm, remote;
};

/* One kind of epoch (access or exposure) being read. */
struct side {
    unsigned open;            /* opening calls not yet closed */
    int tainted;              /* two open at once: not attributable */
    struct wt_moment at, at_leave;
    uint32_t region;
    uint64_t frame;
    uint64_t close_frame;     /* the closing call being read (0: none) */
    struct wt_moment close;
    uint32_t close_region;
    int blocking;
    struct partner *who;
    size_t nwho, capwho;
};

struct wt_epochs {
    uint32_t rank;
    struct side acc, exp;
    struct pend_op *ops;      /* operations while an access epoch is open */
    size_t nops, capops;
};

struct wt_epochs *wt_epochs_new(void)
{
    return calloc(1, sizeof(struct wt_epochs));
}

void wt_epochs_free(struct wt_epochs *s)
{
    if (!s)
        return;
    free(s->acc.who);
    free(s->exp.who);
    free(s->ops);
    free(s);
}

static void side_reset(struct side *d)
{
    struct partner *who = d->who;
    size_t cap = d->capwho;
    *d = (struct side){ .who = who, .capwho = cap };
}

void wt_epochs_reset(struct wt_epochs *s, uint32_t rank)
{
    s->rank = rank;
    side_reset(&s->acc);
    side_reset(&s->exp);
    s->nops = 0;
}

static void open_epoch(struct side *d, uint64_t frame, uint32_t region, const struct wt_moment *at)
{
    if (++d->open > 1) {
        d->tainted = 1;
        return;
    }
    d->at = d->at_leave = *at;
    d->region = region;
    d->frame = frame;
}

int wt_epochs_enter(struct wt_epochs *s, int call, uint64_t frame, uint32_t region, const struct wt_moment *at)
{
    struct side *d = call == WT_CALL_START || call == WT_CALL_COMPLETE ? &s->acc : &s->exp;
    switch (call) {
    case WT_CALL_START:
    case WT_CALL_POST:
        open_epoch(d, frame, region, at);
        break;
    case WT_CALL_COMPLETE:
    case WT_CALL_WAIT:
    case WT_CALL_TEST:
        d->close_frame = frame;
        d->close = *at;
        d->close_region = region;
        d->blocking = call != WT_CALL_TEST;
        d->nwho = 0;
        break;
    default:
        break;
    }
    return 0;
}

int wt_epochs_op(struct wt_epochs *s, uint32_t win, uint32_t target, uint64_t frame, uint32_t region,
                 const struct wt_moment *enter)
{
    if (!s->acc.open || s->acc.tainted)
        return 0;             /* not in an access epoch we can attribute */
    if (st_room((void **)&s->ops, s->nops, &s->capops, sizeof *s->ops) != 0)
        return -1;
    s->ops[s->nops++] = (struct pend_op){ win, target, region, frame, *enter, *enter, 0 };
    return 0;
}

int wt_epochs_sync(struct wt_epochs *s, uint32_t win, uint32_t comm, uint32_t remote, uint64_t frame, int out)
{
    struct side *d = out ? &s->acc : &s->exp;
    if (!frame || frame != d->close_frame)
        return 0;             /* not inside the closing call */
    if (st_room((void **)&d->who, d->nwho, &d->capwho, sizeof *d->who) != 0)
        return -1;
    d->who[d->nwho++] = (struct partner){ win, comm, remote };
    return 0;
}

static int add_epoch(struct wt_records *rec, const struct wt_epoch *e)
{
    if (st_room((void **)&rec->epochs, rec->nepochs, &rec->capepochs, sizeof *rec->epochs) != 0)
        return -1;
    rec->epochs[rec->nepochs++] = *e;
    return 0;
}

/* The access epoch closed by the complete being left at `at`: its
 * operations on the window it names, one record per target. */
static int emit_access(struct wt_epochs *s, struct wt_records *rec, const struct wt_moment *at)
{
    struct side *d = &s->acc;
    uint32_t win = d->who[0].win;
    size_t first = rec->nops;
    for (size_t i = 0; i < s->nops; i++)
        if (s->ops[i].win == win) {
            if (st_room((void **)&rec->ops, rec->nops, &rec->capops, sizeof *rec->ops) != 0)
                return -1;
            rec->ops[rec->nops++] = (struct wt_rma_op){ s->ops[i].enter, s->ops[i].leave, s->ops[i].region };
        }
    for (size_t k = 0; k < d->nwho; k++) {
        struct wt_epoch e = {
            .win = win, .rank = s->rank, .peer = d->who[k].remote, .comm = d->who[k].comm, .frame = d->close_frame,
            .open = d->at, .open_leave = d->at_leave, .close = d->close, .close_leave = *at,
            .open_region = d->region, .close_region = d->close_region, .op_first = first,
            .nops = rec->nops - first, .access = 1, .blocking = 1,
        };
        for (size_t i = s->nops; i-- > 0;)
            if (s->ops[i].win == win && s->ops[i].target == d->who[k].remote) {
                e.last_op = s->ops[i].leave;
                e.has_op = 1;
                break;
            }
        if (add_epoch(rec, &e) != 0)
            return -1;
    }
    return 0;
}

static int emit_exposure(struct wt_epochs *s, struct wt_records *rec, const struct wt_moment *at)
{
    struct side *d = &s->exp;
    for (size_t k = 0; k < d->nwho; k++) {
        struct wt_epoch e = {
            .win = d->who[k].win, .rank = s->rank, .peer = d->who[k].remote, .comm = d->who[k].comm,
            .frame = d->close_frame, .open = d->at, .open_leave = d->at_leave, .close = d->close,
            .close_leave = *at, .open_region = d->region, .close_region = d->close_region,
            .blocking = (uint8_t)d->blocking,
        };
        if (add_epoch(rec, &e) != 0)
            return -1;
    }
    return 0;
}

/* The closing call left: the epoch ends (a test only when it named its
 * origins: found the epoch over). */
static int close_epoch(struct wt_epochs *s, struct wt_records *rec, int access, const struct wt_moment *at)
{
    struct side *d = access ? &s->acc : &s->exp;
    if (!access && !d->blocking && !d->nwho) {
        d->close_frame = 0;
        return 0;             /* MPI_Win_test: not over yet */
    }
    int rc = 0;
    if (!d->open || d->tainted)
        rec->epochs_unpaired += d->nwho;
    else if (d->nwho)
        rc = access ? emit_access(s, rec, at) : emit_exposure(s, rec, at);
    d->close_frame = 0;
    if (d->open && --d->open == 0) {
        d->tainted = 0;
        if (access)
            s->nops = 0;
    }
    return rc;
}

int wt_epochs_leave(struct wt_epochs *s, struct wt_records *rec, int call, uint64_t frame,
                    const struct wt_moment *at)
{
    for (size_t i = s->nops; i-- > 0 && s->ops[i].frame == frame;)
        if (!s->ops[i].left) {
            s->ops[i].leave = *at;
            s->ops[i].left = 1;
        }
    switch (call) {
    case WT_CALL_START:
    case WT_CALL_POST: {
        struct side *d = call == WT_CALL_START ? &s->acc : &s->exp;
        if (d->open == 1 && frame == d->frame)
            d->at_leave = *at;
        return 0;
    }
    case WT_CALL_COMPLETE:
        return frame == s->acc.close_frame ? close_epoch(s, rec, 1, at) : 0;
    case WT_CALL_WAIT:
    case WT_CALL_TEST:
        return frame == s->exp.close_frame ? close_epoch(s, rec, 0, at) : 0;
    default:
        return 0;
    }
}
