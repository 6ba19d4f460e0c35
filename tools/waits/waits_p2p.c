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
 *     receive was posted; the wait is posting - send entry, the sender's.
 *     An MPI_Issend waits so in the blocking call that completed it
 *     (MPI_Wait*): posting - that call's entry, in its region. A standard
 *     send (MPI_Send; an MPI_Isend in the blocking call completing it) may
 *     be rendezvous, or eager: it counts only where the call was still
 *     running when the receive was posted (its exit after the posting,
 *     Scalasca's evidence of a rendezvous); where the clock bounds leave
 *     that condition open, the instance is only possible (lo 0). The sends
 *     completed in one call (MPI_Waitall) wait once, for the latest
 *     receive (late_recv_done).
 *
 * In bounded memory: sends and receives come sorted by channel (waits_read.c),
 * receiver after receiver, so the k-th of each on a channel come out
 * together and are joined into messages; a receiver's messages are sorted,
 * last first, and walked so (a message is Late Sender / wrong order by the
 * messages the receiver takes after it); the instances go on a spool and
 * are counted from it last first: in each receiver's order, as they always
 * were, so that every sum adds in the same order. */
#include "table.h"
#include "waits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sends and receives in one order: by channel (destination first: each
 * receiver's messages come out together; communicator, source, tag), then
 * as posted. Two fields packed in one 64-bit key: the sorts' hottest code. */
#define KEY2(hi, lo) ((uint64_t)(hi) << 32 | (lo))
#define CMP64(x, y) ((x) != (y) ? ((x) < (y) ? -1 : 1) : 0)
#define BY_CHANNEL(a, b)                                                                              \
    (KEY2((a)->dst, (a)->comm) != KEY2((b)->dst, (b)->comm) ? CMP64(KEY2((a)->dst, (a)->comm), KEY2((b)->dst, (b)->comm)) \
     : KEY2((a)->src, (a)->tag) != KEY2((b)->src, (b)->tag) ? CMP64(KEY2((a)->src, (a)->tag), KEY2((b)->src, (b)->tag)) \
     : CMP64((a)->seq, (b)->seq))

/* Equal indices on one channel (threads of one rank) by location, as
 * the arrays of one reader were: a total order. */
int wt_by_channel_send(const void *pa, const void *pb)
{
    const struct wt_send *a = pa, *b = pb;
    int c = BY_CHANNEL(a, b);
    return c ? c : CMP64(a->loc, b->loc);
}

int wt_by_channel_recv(const void *pa, const void *pb)
{
    const struct wt_recv *a = pa, *b = pb;
    int c = BY_CHANNEL(a, b);
    return c ? c : CMP64(a->frame, b->frame);
}

/* The channels of a send and a receive compared (their orders aside). */
static int channel_cmp(const struct wt_send *s, const struct wt_recv *r)
{
    if (s->dst != r->dst)
        return s->dst < r->dst ? -1 : 1;
    if (s->comm != r->comm)
        return s->comm < r->comm ? -1 : 1;
    if (s->src != r->src)
        return s->src < r->src ? -1 : 1;
    return (s->tag > r->tag) - (s->tag < r->tag);
}

/* A matched message: what the rules need of its receive and its send;
 * the raw times last, left out without --raw (MESSAGE_BYTES). */
struct message {
    uint32_t dst, src, comm, tag, region, send_region;
    uint8_t blocking, sync, kind, done_blocking;
    uint32_t done_region;
    uint64_t seq, frame;      /* the receive's */
    uint64_t done_frame;      /* the send's completing call */
    double enter_g, enter_t, post_g, post_t, send_g, send_t;
    double done_g, done_t, leave_g, leave_t;
    double enter_r, post_r, send_r, done_r, leave_r;
};
#define MESSAGE_BYTES(raw) ((raw) ? sizeof(struct message) : offsetof(struct message, enter_r))

/* By receiver, each receiver's messages last first: the receiver's order
 * (its index; equal indices, of a receiver's threads, by channel, then
 * location, as the one reader's stable sort left them), backwards. A
 * total order. */
static int by_receiver_backwards(const void *pa, const void *pb)
{
    const struct message *a = pa, *b = pb;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? 1 : -1;
    if (KEY2(a->comm, a->src) != KEY2(b->comm, b->src))
        return CMP64(KEY2(b->comm, b->src), KEY2(a->comm, a->src));
    return CMP64(KEY2(b->tag, 0) | (b->frame >> 40), KEY2(a->tag, 0) | (a->frame >> 40));
}

/* An instance to count, with where its wait started (the probe). */
struct instance {
    uint32_t pattern, rank, region, comm;
    struct wt_diff d;
    struct wt_probe probe;
};

/* A candidate Late Receiver of a send's completing call (MPI_Issend,
 * MPI_Send, MPI_Isend), sorted by that call: one instance per call. */
struct late_recv {
    uint32_t src, region, comm, dst;
    uint64_t frame, seq;      /* the completing call; the receive's index (a total order) */
    struct wt_diff d;
    struct wt_probe probe;
};

static int by_completing_call(const void *pa, const void *pb)
{
    const struct late_recv *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->frame != b->frame)
        return CMP64(a->frame, b->frame);
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return CMP64(a->seq, b->seq);
}

struct walk {
    struct wt_bounds *bd;
    struct wt_sorted *late_recv;   /* struct late_recv, counted after all receivers */
    int raw;                  /* the records hold raw times */
    struct wt_spool *spool;
    struct message *group;    /* the messages of one receiving call, last first */
    size_t n, cap;
    struct instance *inst;    /* its instances, in counting order */
    size_t ninst, capinst;
    double after;             /* the earliest send entry of the receiver's later messages */
    struct wt_sorted *msgs;   /* the messages of receiver dst */
    uint32_t dst;
    size_t budget;            /* of msgs */
    uint64_t spilled;         /* by the receivers' sorters let go */
    int add_failed;
};

static int add_instance(struct walk *w, uint32_t p, uint32_t rank, uint32_t region, uint32_t comm,
                        const struct wt_diff *d)
{
    if (ST_ROOM(w->inst, w->ninst, w->capinst) != 0)
        return -1;
    w->inst[w->ninst++] = (struct instance){ p, rank, region, comm, *d,
                                             w->bd->probe ? *w->bd->probe : (struct wt_probe){ NAN, UINT32_MAX } };
    return 0;
}

/* A standard or MPI_Issend send's wait for its receive's posting, in the
 * call that completed it, onto w->late_recv. A standard send counts only
 * where its call's exit came after the posting: on the merged times for
 * w; on true and raw times for t and r; lo 0 unless the bounds make it
 * sure. 0, or -1. */
static int late_recv_put(struct walk *w, const struct message *m)
{
    const struct wt_bounds *bd = w->bd;
    struct wt_moment done = WT_MOMENT(m->done_g, m->done_t, m->done_r, w->raw),
                     leave = WT_MOMENT(m->leave_g, m->leave_t, m->leave_r, w->raw),
                     post = WT_MOMENT(m->post_g, m->post_t, m->post_r, w->raw);
    struct wt_diff still = { 0 };
    int standard = m->kind == WT_SEND_STD || m->kind == WT_SEND_ISTD;
    if (standard) {
        if (isnan(m->leave_g))
            return 0;         /* its exit not seen: no evidence */
        still = wt_diff_of(bd, &post, m->dst, &leave, m->src);   /* exit - posting */
        if (!(still.hi > 0))
            return 0;         /* it left before the receive was posted on every clock allowed */
    }
    struct wt_diff d = wt_diff_of(bd, &done, m->src, &post, m->dst);   /* (the probe: the call's entry) */
    if (standard) {
        if (!(still.w > 0))
            d.w = 0;          /* on the merged times it had left: possibly a wait, not one */
        if (!(still.t > 0))
            d.t = isnan(still.t) ? NAN : 0;
        if (!(still.r > 0))
            d.r = isnan(still.r) ? NAN : 0;
        if (!(still.lo > 0))
            d.lo = fmin(d.lo, 0);
    }
    struct late_recv lr = { m->src, m->done_region, m->comm, m->dst, m->done_frame, m->seq, d,
                            bd->probe ? *bd->probe : (struct wt_probe){ NAN, UINT32_MAX } };
    return wt_sorted_put(w->late_recv, 0, &lr);
}

/* The candidates of late_recv_put, by completing call: one Late
 * Receiver each, the latest of its sends' waits. 0, or -1. */
static int late_recv_done(struct walk *w, struct wt_table *tb)
{
    if (wt_sorted_finish(w->late_recv) != 0)
        return -1;
    struct late_recv cur;
    int have = 0;
    for (const struct late_recv *lr;;) {
        lr = wt_sorted_next(w->late_recv);
        if (have && (!lr || lr->src != cur.src || lr->frame != cur.frame)) {
            if (w->bd->probe)
                *w->bd->probe = cur.probe;
            if (wt_add(tb, WT_LATE_RECEIVER, cur.src, cur.region, cur.comm, &cur.d) != 0) {
                w->add_failed = 1;
                return -1;
            }
            have = 0;
        }
        if (!lr)
            break;
        if (have)
            wt_diff_max(&cur.d, &lr->d);
        else {
            cur = *lr;
            have = 1;
        }
    }
    return *wt_sorted_error(w->late_recv) ? -1 : 0;
}

/* The receives completed in one call (group[0] its last): one Late Sender
 * wait, for the latest sender, and a Late Receiver for each synchronous
 * send; the instances put on the spool last first. */
static int group_done(struct walk *w)
{
    const struct wt_bounds *bd = w->bd;
    const struct message *rv = &w->group[w->n - 1];   /* the call's first receive */
    w->ninst = 0;
    if (rv->blocking) {
        struct wt_diff wait = { -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY };
        int wrong = 0;
        double latest = -INFINITY;
        for (size_t q = w->n; q-- > 0;) {
            const struct message *m = &w->group[q];
            struct wt_moment enter = WT_MOMENT(m->enter_g, m->enter_t, m->enter_r, w->raw),
                             send = WT_MOMENT(m->send_g, m->send_t, m->send_r, w->raw);
            struct wt_diff d = wt_diff_of(bd, &enter, rv->dst, &send, m->src);
            if (d.w > latest) {
                latest = d.w;
                wrong = w->after < m->send_g;
            }
            wt_diff_max(&wait, &d);
        }
        if (add_instance(w, wrong ? WT_LATE_SENDER_WRONG_ORDER : WT_LATE_SENDER, rv->dst, rv->region, rv->comm,
                         &wait) != 0)
            return -1;
    }
    for (size_t q = w->n; q-- > 0;) {
        const struct message *m = &w->group[q];
        if (m->sync) {
            struct wt_moment send = WT_MOMENT(m->send_g, m->send_t, m->send_r, w->raw),
                             post = WT_MOMENT(m->post_g, m->post_t, m->post_r, w->raw);
            struct wt_diff d = wt_diff_of(bd, &send, m->src, &post, m->dst);
            if (add_instance(w, WT_LATE_RECEIVER, m->src, m->send_region, m->comm, &d) != 0)
                return -1;
        } else if (m->kind != WT_SEND_OTHER && m->done_blocking && late_recv_put(w, m) != 0)
            return -1;
    }
    for (size_t i = w->ninst; i-- > 0;)
        if (wt_spool_put(w->spool, &w->inst[i]) != 0)
            return -1;
    for (size_t q = 0; q < w->n; q++)
        w->after = fmin(w->after, w->group[q].send_g);
    w->n = 0;
    return 0;
}

/* One receiver's messages (msgs), last first, into instances on the
 * spool; then counted from it, in the receiver's order. 0, or -1. */
static int receiver_done(struct walk *w, struct wt_sorted *msgs, struct wt_table *tb)
{
    w->after = INFINITY;
    if (wt_sorted_finish(msgs) != 0)
        return -1;
    for (const struct message *m; (m = wt_sorted_next(msgs));) {
        if (w->n && m->frame != w->group[0].frame && group_done(w) != 0)
            return -1;
        if (ST_ROOM(w->group, w->n, w->cap) != 0)
            return -1;
        memcpy(&w->group[w->n++], m, MESSAGE_BYTES(w->raw));   /* (the record may stop before the raw times) */
    }
    if (*wt_sorted_error(msgs) || (w->n && group_done(w) != 0))
        return -1;
    for (const struct instance *in; (in = wt_spool_pop(w->spool));) {
        if (w->bd->probe)
            *w->bd->probe = in->probe;
        if (wt_add(tb, in->pattern, in->rank, in->region, in->comm, &in->d) != 0) {
            w->add_failed = 1;
            return -1;
        }
    }
    return *wt_spool_error(w->spool) ? -1 : 0;
}

/* Pair sends and receives (the k-th of each on a channel); each
 * receiver's messages, as they come, sorted in a sorter of their own. */
static int pair(struct wt_records *rec, struct walk *w, struct wt_table *tb, uint64_t *unmatched, char *err,
                size_t errlen)
{
    const struct wt_send *s = wt_sorted_next(rec->sends);
    const struct wt_recv *r = wt_sorted_next(rec->recvs);
    while (s && r) {
        int c = channel_cmp(s, r);
        if (c == 0) {
            if (w->msgs && r->dst != w->dst) {
                int bad = receiver_done(w, w->msgs, tb);
                w->spilled += wt_sorted_spilled(w->msgs);
                wt_sorted_free(w->msgs);
                w->msgs = NULL;
                if (bad)
                    return -1;
            }
            if (!w->msgs && !(w->msgs = wt_sorted_new(1, MESSAGE_BYTES(w->raw), by_receiver_backwards,
                                                      w->budget, rec->spill_dir, err, errlen)))
                return -1;
            w->dst = r->dst;
            struct message m = {
                .dst = r->dst, .src = r->src, .comm = r->comm, .tag = r->tag, .region = r->region,
                .send_region = s->region,
                .blocking = r->blocking, .sync = s->sync, .seq = r->seq, .frame = r->frame,
                .enter_g = r->enter_g, .enter_t = r->enter_t, .post_g = r->post_g, .post_t = r->post_t,
                .send_g = s->enter_g, .send_t = s->enter_t, .enter_r = NAN, .post_r = NAN, .send_r = NAN,
                .kind = s->kind, .done_blocking = s->done_blocking, .done_region = s->done_region,
                .done_frame = s->done_frame, .done_g = s->done_g, .done_t = s->done_t, .leave_g = s->leave_g,
                .leave_t = s->leave_t, .done_r = NAN, .leave_r = NAN,
            };
            if (w->raw) {
                m.enter_r = r->enter_r;
                m.post_r = r->post_r;
                m.send_r = s->enter_r;
                m.done_r = s->done_r;
                m.leave_r = s->leave_r;
            }
            if (wt_sorted_put(w->msgs, 0, &m) != 0)
                return -1;
        } else
            (*unmatched)++;
        if (c <= 0)
            s = wt_sorted_next(rec->sends);
        if (c >= 0)
            r = wt_sorted_next(rec->recvs);
    }
    for (; s; s = wt_sorted_next(rec->sends))
        (*unmatched)++;
    for (; r; r = wt_sorted_next(rec->recvs))
        (*unmatched)++;
    if (*wt_sorted_error(rec->sends) || *wt_sorted_error(rec->recvs))
        return -1;
    return w->msgs ? receiver_done(w, w->msgs, tb) : 0;
}

int wt_p2p(struct wt_records *rec, struct wt_bounds *bd, struct wt_table *tb, char *err, size_t errlen)
{
    struct walk w = { .bd = bd, .raw = rec->have_raw, .after = INFINITY };
    uint64_t unmatched = 0;
    int rc = -1;
    *err = '\0';
    if (wt_sorted_finish(rec->sends) != 0 || wt_sorted_finish(rec->recvs) != 0
        || !(w.spool = wt_spool_new(sizeof(struct instance), rec->budget / 16, rec->spill_dir, err, errlen)))
        goto done;
    /* a receiver's messages are sorted in what the sends, receives and
     * members leave of the budget (their records in memory, or their
     * runs' read buffers) beside the spool's 1/16; at the least 1 MB */
    uint64_t held = wt_sorted_held(rec->sends) + wt_sorted_held(rec->recvs) + wt_sorted_held(rec->members)
                    + rec->budget / 16;
    w.budget = held + (1u << 20) < rec->budget ? rec->budget - held : 1u << 20;
    if (!(w.late_recv = wt_sorted_new(1, sizeof(struct late_recv), by_completing_call, rec->budget / 16,
                                      rec->spill_dir, err, errlen))
        || pair(rec, &w, tb, &unmatched, err, errlen) != 0 || late_recv_done(&w, tb) != 0)
        goto done;
    rec->unmatched = unmatched;
    rc = 0;
done:
    if (rc != 0 && !*err) {
        const char *why = wt_sorted_error(rec->sends);
        if (!*why)
            why = wt_sorted_error(rec->recvs);
        if (!*why && w.msgs)
            why = wt_sorted_error(w.msgs);
        if (!*why && w.spool)
            why = wt_spool_error(w.spool);
        if (!*why && w.late_recv)
            why = wt_sorted_error(w.late_recv);
        if (w.add_failed)
            why = "the wait instances: cannot be written";
        snprintf(err, errlen, "%s", *why ? why : "out of memory for the point-to-point waits");
    }
    rec->spilled_bytes += wt_sorted_spilled(rec->sends) + wt_sorted_spilled(rec->recvs) + w.spilled
                          + wt_sorted_spilled(w.msgs) + wt_spool_spilled(w.spool) + wt_sorted_spilled(w.late_recv);
    /* the sorters' memory let go before the collectives' */
    wt_sorted_free(rec->sends);
    wt_sorted_free(rec->recvs);
    rec->sends = rec->recvs = NULL;
    wt_sorted_free(w.msgs);
    wt_sorted_free(w.late_recv);
    wt_spool_free(w.spool);
    free(w.group);
    free(w.inst);
    return rc;
}
