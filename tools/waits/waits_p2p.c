/* waits_p2p.c — the point-to-point patterns (Scalasca's definitions).
 *
 * Messages pair as MPI pairs them: first-in-first-out per (communicator,
 * sender, receiver, tag), the k-th send with the k-th receive.
 *   Late Sender: a receive completed in a blocking call (MPI_Recv,
 *     MPI_Sendrecv, MPI_Wait*, ...) entered before the matching send's call
 *     was entered; the wait is send entry - receive call entry. Receives
 *     completed in one call (MPI_Waitall) wait once, for the latest of
 *     their senders.
 *   Late Sender / wrong order: a Late Sender whose message was sent after
 *     another message to the same receiver that it receives later (the
 *     receiver asked for the messages in another order than they were
 *     sent); counted under this pattern instead of late_sender.
 *   Late Receiver: a synchronous send (MPI_Ssend) entered before its
 *     receive was posted; the wait is posting - send entry, the sender's. */
#include "waits.h"

#include <math.h>
#include <stdlib.h>

/* Sends and receives in one order: by channel (communicator, source,
 * destination, tag), then as posted. */
#define BY_CHANNEL(a, b)                                                              \
    ((a)->comm != (b)->comm ? ((a)->comm < (b)->comm ? -1 : 1)                        \
     : (a)->src != (b)->src ? ((a)->src < (b)->src ? -1 : 1)                          \
     : (a)->dst != (b)->dst ? ((a)->dst < (b)->dst ? -1 : 1)                          \
     : (a)->tag != (b)->tag ? ((a)->tag < (b)->tag ? -1 : 1)                          \
     : ((a)->seq > (b)->seq) - ((a)->seq < (b)->seq))

static int by_channel_send(const void *pa, const void *pb)
{
    const struct wt_send *a = pa, *b = pb;
    return BY_CHANNEL(a, b);
}

static int by_channel_recv(const void *pa, const void *pb)
{
    const struct wt_recv *a = pa, *b = pb;
    return BY_CHANNEL(a, b);
}

/* A matched message, as the receiver saw it. */
struct message {
    const struct wt_recv *recv;
    const struct wt_send *send;
};

static int by_receiver_order(const void *pa, const void *pb)
{
    const struct message *a = pa, *b = pb;
    if (a->recv->dst != b->recv->dst)
        return a->recv->dst < b->recv->dst ? -1 : 1;
    return (a->recv->seq > b->recv->seq) - (a->recv->seq < b->recv->seq);
}

static int same_channel(const struct wt_send *s, const struct wt_recv *r)
{
    return s->comm == r->comm && s->src == r->src && s->dst == r->dst && s->tag == r->tag;
}

/* Pair sends and receives; the messages in each receiver's order. */
static struct message *pair(const struct wt_records *rec, struct wt_send *s, struct wt_recv *r, size_t *nout,
                            uint64_t *unmatched)
{
    qsort(s, rec->nsends, sizeof *s, by_channel_send);
    qsort(r, rec->nrecvs, sizeof *r, by_channel_recv);
    struct message *m = malloc((rec->nrecvs ? rec->nrecvs : 1) * sizeof *m);
    if (!m)
        return NULL;
    size_t i = 0, j = 0, n = 0;
    while (i < rec->nsends && j < rec->nrecvs) {
        int c = same_channel(&s[i], &r[j]) ? 0 : by_channel_send(&s[i], &(struct wt_send){
                                                     .comm = r[j].comm, .src = r[j].src, .dst = r[j].dst,
                                                     .tag = r[j].tag, .seq = s[i].seq });
        if (c == 0)
            m[n++] = (struct message){ &r[j++], &s[i++] };
        else if (c < 0)
            i++, (*unmatched)++;
        else
            j++, (*unmatched)++;
    }
    *unmatched += (rec->nsends - i) + (rec->nrecvs - j);
    qsort(m, n, sizeof *m, by_receiver_order);
    *nout = n;
    return m;
}

int wt_p2p(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb)
{
    /* the rules sort copies; the records stay as read */
    struct wt_send *s = malloc((rec->nsends ? rec->nsends : 1) * sizeof *s);
    struct wt_recv *r = malloc((rec->nrecvs ? rec->nrecvs : 1) * sizeof *r);
    double *later_min = malloc((rec->nrecvs ? rec->nrecvs : 1) * sizeof *later_min);
    struct message *m = NULL;
    size_t n = 0;
    uint64_t unmatched = 0;
    int rc = -1;
    if (!s || !r || !later_min)
        goto done;
    for (size_t i = 0; i < rec->nsends; i++)
        s[i] = rec->sends[i];
    for (size_t i = 0; i < rec->nrecvs; i++)
        r[i] = rec->recvs[i];
    if (!(m = pair(rec, s, r, &n, &unmatched)))
        goto done;
    ((struct wt_records *)rec)->unmatched = unmatched;
    /* per receiver, the earliest send entry among the messages it receives
     * after each one: a Late Sender sent after it came in the wrong order */
    for (size_t k = n; k-- > 0;) {
        int last = k + 1 == n || m[k + 1].recv->dst != m[k].recv->dst;
        later_min[k] = last ? INFINITY : fmin(later_min[k + 1], m[k + 1].send->enter.g);
    }
    for (size_t k = 0; k < n;) {
        /* the receives completed in one call: one wait, for the latest sender */
        size_t end = k + 1;
        while (end < n && m[end].recv->dst == m[k].recv->dst && m[end].recv->frame == m[k].recv->frame)
            end++;
        const struct wt_recv *rv = m[k].recv;
        if (rv->blocking) {
            struct wt_diff wait = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
            int wrong = 0;
            double latest = -INFINITY;
            for (size_t q = k; q < end; q++) {
                struct wt_diff d = wt_diff_of(bd, &m[q].recv->enter, rv->dst, &m[q].send->enter, m[q].send->src);
                if (d.w > latest) {
                    latest = d.w;
                    wrong = later_min[end - 1] < m[q].send->enter.g;
                }
                wt_diff_max(&wait, &d);
            }
            if (wt_add(tb, wrong ? WT_LATE_SENDER_WRONG_ORDER : WT_LATE_SENDER, rv->dst, rv->region, rv->comm,
                       &wait) != 0)
                goto done;
        }
        for (size_t q = k; q < end; q++)
            if (m[q].send->sync) {
                const struct wt_send *sd = m[q].send;
                struct wt_diff d = wt_diff_of(bd, &sd->enter, sd->src, &m[q].recv->post, m[q].recv->dst);
                if (wt_add(tb, WT_LATE_RECEIVER, sd->src, sd->region, sd->comm, &d) != 0)
                    goto done;
            }
        k = end;
    }
    rc = 0;
done:
    free(s);
    free(r);
    free(later_min);
    free(m);
    return rc;
}
