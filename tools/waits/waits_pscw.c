/* waits_pscw.c — the general-active-target (post/start/complete/wait)
 * patterns, Scalasca's definitions (its MPI_RMA patterns), per epoch.
 *
 * Pairing: MPI matches origin O's k-th access epoch on a window naming
 * target T with T's k-th exposure epoch on it naming O; so do we.
 *   Late Post (origin): the access epoch waits for the last of its
 *     targets' MPI_Win_post entries, P. The call that waited is the one
 *     P falls in: MPI_Win_start when P precedes its exit (start blocks),
 *     else the first operation whose exit follows P, else
 *     MPI_Win_complete; the wait is P - that call's entry.
 *   Early Wait (target): MPI_Win_wait entered before the last of its
 *     origins' MPI_Win_complete entries, C: C - wait entry. MPI_Win_test
 *     does not block: no Early Wait.
 *   Late Complete (target, part of Early Wait): C - max(R, wait entry),
 *     R the latest exit of an origin's last operation to this target in
 *     the epoch; with no operation at all, the whole Early Wait.
 * The call that waited is chosen on the merged times. Maxima of
 * differences are bounded by the maxima of their bounds (waits_coll.c);
 * C - max(R, W) = max over origins o of min(C_o - W, min over o' C_o - R_o'). */
#include "waits.h"

#include <math.h>
#include <stdlib.h>

/* An epoch record by its channel (window, origin, target), then in its owner's order. */
struct key {
    uint32_t win, origin, target;
    uint64_t frame;
    size_t at;                /* the record */
};

static struct key key_of(const struct wt_epoch *e, size_t at)
{
    return (struct key){ e->win, e->access ? e->rank : e->peer, e->access ? e->peer : e->rank, e->frame, at };
}

static int channel_cmp(const struct key *a, const struct key *b)
{
    if (a->win != b->win)
        return a->win < b->win ? -1 : 1;
    if (a->origin != b->origin)
        return a->origin < b->origin ? -1 : 1;
    return (a->target > b->target) - (a->target < b->target);
}

static int by_channel(const void *pa, const void *pb)
{
    const struct key *a = pa, *b = pb;
    int c = channel_cmp(a, b);
    return c ? c : (a->frame > b->frame) - (a->frame < b->frame);
}

/* partner[i]: the epoch record paired with record i, or SIZE_MAX. */
static size_t *pair(const struct wt_records *rec, uint64_t *unpaired)
{
    size_t n = rec->nepochs, na = 0, nx = 0;
    size_t *partner = malloc((n ? n : 1) * sizeof *partner);
    struct key *acc = malloc((n ? n : 1) * sizeof *acc), *exp = malloc((n ? n : 1) * sizeof *exp);
    if (!partner || !acc || !exp) {
        free(partner);
        partner = NULL;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        partner[i] = SIZE_MAX;
        if (rec->epochs[i].access)
            acc[na++] = key_of(&rec->epochs[i], i);
        else
            exp[nx++] = key_of(&rec->epochs[i], i);
    }
    qsort(acc, na, sizeof *acc, by_channel);
    qsort(exp, nx, sizeof *exp, by_channel);
    for (size_t i = 0, j = 0; i < na && j < nx;) {
        int c = channel_cmp(&acc[i], &exp[j]);
        if (c == 0) {         /* the k-th of each on the channel */
            partner[acc[i].at] = exp[j].at;
            partner[exp[j].at] = acc[i].at;
            i++, j++;
        } else if (c < 0)
            i++;
        else
            j++;
    }
    for (size_t i = 0; i < n; i++)
        *unpaired += partner[i] == SIZE_MAX;
done:
    free(acc);
    free(exp);
    return partner;
}

static const struct wt_diff NONE_MAX = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };

/* The access epoch of records [k, end) (one per target): Late Post. */
static int late_post(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb,
                     const size_t *partner, size_t k, size_t end)
{
    const struct wt_epoch *e = &rec->epochs[k];
    double last = -INFINITY;
    for (size_t i = k; i < end; i++)
        if (partner[i] != SIZE_MAX)
            last = fmax(last, rec->epochs[partner[i]].open.g);
    if (last == -INFINITY)
        return 0;
    const struct wt_moment *at = &e->close;
    uint32_t region = e->close_region;
    if (last < e->open_leave.g) {
        at = &e->open;
        region = e->open_region;
    } else
        for (size_t i = e->op_first; i < e->op_first + e->nops; i++)
            if (rec->ops[i].leave.g > last) {
                at = &rec->ops[i].enter;
                region = rec->ops[i].region;
                break;
            }
    struct wt_diff w = NONE_MAX;
    for (size_t i = k; i < end; i++)
        if (partner[i] != SIZE_MAX) {
            const struct wt_epoch *x = &rec->epochs[partner[i]];
            struct wt_diff d = wt_diff_of(bd, at, e->rank, &x->open, x->rank);
            wt_diff_max(&w, &d);
        }
    return wt_add(tb, WT_LATE_POST, e->rank, region, e->comm, &w);
}

/* The exposure epoch of records [k, end) (one per origin): Early Wait, Late Complete. */
static int early_wait(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb,
                      const size_t *partner, size_t k, size_t end)
{
    const struct wt_epoch *x = &rec->epochs[k];
    if (!x->blocking)
        return 0;
    struct wt_diff ew = NONE_MAX, lc = NONE_MAX;
    int any = 0;
    for (size_t i = k; i < end; i++) {
        if (partner[i] == SIZE_MAX)
            continue;
        const struct wt_epoch *a = &rec->epochs[partner[i]];
        struct wt_diff d = wt_diff_of(bd, &x->close, x->rank, &a->close, a->rank), c = d;
        wt_diff_max(&ew, &d);
        for (size_t j = k; j < end; j++) {
            const struct wt_epoch *b = partner[j] == SIZE_MAX ? NULL : &rec->epochs[partner[j]];
            if (b && b->has_op) {
                struct wt_diff r = wt_diff_of(bd, &b->last_op, b->rank, &a->close, a->rank);
                wt_diff_min(&c, &r);
            }
        }
        wt_diff_max(&lc, &c);
        any = 1;
    }
    if (!any)
        return 0;
    /* Where each wait lies on the target (the views shade it): Early Wait
     * from its MPI_Win_wait's entry, Late Complete the end of that; the
     * probe was left on an origin by the last operation's difference. */
    if (bd->probe)
        *bd->probe = (struct wt_probe){ x->close.g, x->rank };
    if (wt_add(tb, WT_EARLY_WAIT, x->rank, x->close_region, x->comm, &ew) != 0)
        return -1;
    if (bd->probe)
        *bd->probe = (struct wt_probe){ x->close.g + fmax(ew.w, 0) - fmax(fmin(lc.w, ew.w), 0), x->rank };
    return wt_add(tb, WT_LATE_COMPLETE, x->rank, x->close_region, x->comm, &lc);
}

int wt_pscw(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb)
{
    uint64_t unpaired = 0;
    size_t *partner = pair(rec, &unpaired);
    if (!partner)
        return -1;
    ((struct wt_records *)rec)->epochs_unpaired += unpaired;
    int rc = 0;
    /* an epoch's records are adjacent, as read: same owner, same closing call */
    for (size_t k = 0; k < rec->nepochs && rc == 0;) {
        size_t end = k + 1;
        while (end < rec->nepochs && rec->epochs[end].rank == rec->epochs[k].rank
               && rec->epochs[end].frame == rec->epochs[k].frame && rec->epochs[end].access == rec->epochs[k].access)
            end++;
        rc = rec->epochs[k].access ? late_post(rec, bd, tb, partner, k, end)
                                   : early_wait(rec, bd, tb, partner, k, end);
        k = end;
    }
    free(partner);
    return rc;
}
