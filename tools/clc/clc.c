/* clc.c — see clc.h. Written from the papers' description of the
 * algorithm; no code of Scalasca's is used.
 *
 * Events of all ranks live in one array: event i of rank r is g = base[r] + i.
 * Each event has at most one incoming cross-rank role: the receive of a
 * message, or the entry or exit of a collective instance. The forward pass
 * runs each rank as far as its next event's predecessors allow (a rank
 * that blocks waits on the one rank or collective instance it needs, and is
 * queued again when that one moves): Kahn's order over ranks. Work is
 * about linear in events and collective members; scan instances wake their
 * waiters each time their prefix grows (quadratic in their size). */
#include "clc.h"
#include "clc_coll.h"
#include "eventspill.h"
#include "flow.h"
#include "collstream.h"
#include "msgstream.h"

#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum role { R_NONE, R_RECV, R_ENTRY, R_EXIT };

struct coll {
    struct clc_coll c;
    int64_t waiters;          /* head: ranks blocked on an exit of this instance */
};

struct ctx {
    uint32_t nranks, ndomains;
    const uint32_t *dom;
    const double *lmin;
    double lat_coll;
    const struct mg_result *match;
    const uint64_t *nev;
    size_t *base;
    double *t, *c, *j;
    unsigned char *role;
    uint64_t *ref;
    uint32_t *mem;
    struct coll *co;
    size_t nco;
    /* scheduling */
    uint64_t *cur;
    int64_t *rank_waiters;    /* head per rank: ranks waiting for it to move */
    int64_t *next_waiter;     /* per rank */
    unsigned char *wait_kind; /* 0 none, 1 on a rank, 2 on a collective */
    uint64_t *wait_on, *wait_idx;
    uint32_t *queue;
    size_t qhead, qlen;
    unsigned char *inq, *force;
};

static uint32_t dom_of(const struct ctx *x, uint32_t r)
{
    return x->dom ? x->dom[r] : r;
}

static double msg_lat(const struct ctx *x, uint32_t from, uint32_t to)
{
    return clc_msg_latency(x->dom, x->lmin, x->ndomains, from, to);
}

static size_t gid(const struct ctx *x, struct mg_event_ref e)
{
    return x->base[e.rank] + e.index;
}

static void push(struct ctx *x, uint32_t r)
{
    if (x->inq[r])
        return;
    x->inq[r] = 1;
    x->queue[(x->qhead + x->qlen++) % x->nranks] = r;
}

static uint32_t pop(struct ctx *x)
{
    uint32_t r = x->queue[x->qhead];
    x->qhead = (x->qhead + 1) % x->nranks;
    x->qlen--;
    x->inq[r] = 0;
    return r;
}

static int64_t *wait_head(struct ctx *x, uint32_t r)
{
    return x->wait_kind[r] == 1 ? &x->rank_waiters[x->wait_on[r]] : &x->co[x->wait_on[r]].waiters;
}

static void unlink_waiter(struct ctx *x, uint32_t r)
{
    if (!x->wait_kind[r])
        return;
    int64_t *h = wait_head(x, r);
    while (*h != -1 && *h != (int64_t)r)
        h = &x->next_waiter[*h];
    if (*h == (int64_t)r)
        *h = x->next_waiter[r];
    x->wait_kind[r] = 0;
}

static void wake_coll(struct ctx *x, struct coll *c)
{
    for (int64_t w = c->waiters; w != -1;) {
        int64_t nx = x->next_waiter[w];
        x->wait_kind[w] = 0;
        push(x, (uint32_t)w);
        w = nx;
    }
    c->waiters = -1;
}

static void wake_rank(struct ctx *x, uint32_t a)
{
    int64_t *h = &x->rank_waiters[a];
    while (*h != -1) {
        int64_t w = *h;
        if (x->wait_idx[w] < x->cur[a]) {
            *h = x->next_waiter[w];
            x->wait_kind[w] = 0;
            push(x, (uint32_t)w);
        } else {
            h = &x->next_waiter[w];
        }
    }
}

/* Whether event g (the next one of its rank) has all its predecessors done. */
static int ready(const struct ctx *x, size_t g)
{
    switch (x->role[g]) {
    case R_RECV: {
        const struct mg_message *msg = &x->match->messages[x->ref[g]];
        return x->cur[msg->send.rank] > msg->send.index;
    }
    case R_EXIT:
        return clc_coll_exit_ready(&x->co[x->ref[g]].c, x->mem[g]);
    default:
        return 1;
    }
}

/* The lower bound cross-rank predecessors put on event g of rank r (from
 * those processed: all of them unless a cycle is being broken). */
static double bound(const struct ctx *x, size_t g, uint32_t r)
{
    switch (x->role[g]) {
    case R_RECV: {
        const struct mg_message *msg = &x->match->messages[x->ref[g]];
        if (x->cur[msg->send.rank] <= msg->send.index)
            return -INFINITY;
        return x->c[gid(x, msg->send)] + msg_lat(x, msg->send.rank, r);
    }
    case R_EXIT:
        return clc_coll_exit_bound(&x->co[x->ref[g]].c, x->mem[g], dom_of(x, r), x->lat_coll);
    default:
        return -INFINITY;
    }
}

static void entry_done(struct ctx *x, size_t g, uint32_t r)
{
    struct coll *c = &x->co[x->ref[g]];
    if (clc_coll_entry(&c->c, x->mem[g], x->c[g], dom_of(x, r)))
        wake_coll(x, c);
}

static void process(struct ctx *x, uint32_t r, double mu, struct clc_stats *st)
{
    uint64_t i = x->cur[r];
    size_t g = x->base[r] + i;
    double b = clc_forward_base(x->t[g], i == 0, i ? x->t[g - 1] : 0, i ? x->c[g - 1] : 0, mu);
    double lo = bound(x, g, r);
    x->c[g] = b;
    x->j[g] = 0;
    if (lo > b) {
        x->c[g] = lo;
        x->j[g] = lo - b;
        st->jumps++;
        if (lo - b > st->max_jump_ns)
            st->max_jump_ns = lo - b;
    }
    x->cur[r]++;
    if (x->role[g] == R_ENTRY)
        entry_done(x, g, r);
}

static void block(struct ctx *x, uint32_t r, size_t g)
{
    if (x->role[g] == R_RECV) {
        const struct mg_message *msg = &x->match->messages[x->ref[g]];
        x->wait_kind[r] = 1;
        x->wait_on[r] = msg->send.rank;
        x->wait_idx[r] = msg->send.index;
        x->next_waiter[r] = x->rank_waiters[msg->send.rank];
        x->rank_waiters[msg->send.rank] = r;
    } else {
        struct coll *c = &x->co[x->ref[g]];
        x->wait_kind[r] = 2;
        x->wait_on[r] = x->ref[g];
        x->next_waiter[r] = c->waiters;
        c->waiters = r;
    }
}

static void forward(struct ctx *x, double mu, struct clc_stats *st)
{
    for (uint32_t r = 0; r < x->nranks; r++)
        push(x, r);
    while (1) {
        if (x->qlen == 0) {
            /* Everyone left waits: a cycle. Break it at the earliest event. */
            int64_t best = -1;
            double bt = INFINITY;
            for (uint32_t r = 0; r < x->nranks; r++)
                if (x->cur[r] < x->nev[r] && (best < 0 || x->t[x->base[r] + x->cur[r]] < bt)) {
                    best = r;
                    bt = x->t[x->base[r] + x->cur[r]];
                }
            if (best < 0)
                break;   /* every rank finished */
            unlink_waiter(x, (uint32_t)best);
            x->force[best] = 1;
            st->cycles_broken++;
            push(x, (uint32_t)best);
        }
        uint32_t r = pop(x);
        while (x->cur[r] < x->nev[r]) {
            size_t g = x->base[r] + x->cur[r];
            if (!x->force[r] && !ready(x, g)) {
                block(x, r, g);
                break;
            }
            x->force[r] = 0;
            process(x, r, mu, st);
        }
        wake_rank(x, r);
    }
}

/* Latest time each event may have so its cross-rank successors stay met:
 * lim[g] (initialised to +inf). Uses the forward times; backward shifts
 * only move successors later, so these limits stay safe. */
static int limits(struct ctx *x, double *lim)
{
    const struct mg_result *mt = x->match;
    for (size_t i = 0; i < mt->nmessages; i++) {
        const struct mg_message *msg = &mt->messages[i];
        size_t gr = gid(x, msg->recv), gs = gid(x, msg->send);
        if (x->role[gr] != R_RECV || x->ref[gr] != i)
            continue;   /* a constraint the forward pass did not hold */
        double l = x->c[gr] - msg_lat(x, msg->send.rank, msg->recv.rank);
        if (l < lim[gs])
            lim[gs] = l;
    }
    for (size_t ci = 0; ci < x->nco; ci++) {
        const struct clc_coll *c = &x->co[ci].c;
        const struct mg_collective *mc = &mt->collectives[ci];
        if (c->sh == MG_SKIP)
            continue;
        uint32_t n = c->n;
        double *xc = malloc(sizeof *xc * n), *lm = malloc(sizeof *lm * n);
        uint32_t *xd = malloc(sizeof *xd * n), *ed = malloc(sizeof *ed * n);
        int ok = xc && lm && xd && ed;
        for (uint32_t k = 0; ok && k < n; k++) {
            xc[k] = x->c[gid(x, mc->members[k].exit)];
            xd[k] = dom_of(x, mc->members[k].exit.rank);
            ed[k] = dom_of(x, mc->members[k].enter.rank);
            lm[k] = INFINITY;
        }
        if (ok) {
            clc_coll_limits(c, xc, xd, ed, x->lat_coll, lm);
            for (uint32_t k = 0; k < n; k++) {
                size_t ge = gid(x, mc->members[k].enter);
                if (lm[k] < lim[ge])
                    lim[ge] = lm[k];
            }
        }
        free(xc);
        free(lm);
        free(xd);
        free(ed);
        if (!ok)
            return -1;
    }
    return 0;
}

static void backward(struct ctx *x, const double *lim, double gamma, double *const *out, struct clc_stats *st)
{
    for (uint32_t r = 0; r < x->nranks; r++) {
        uint64_t n = x->nev[r];
        if (!n)
            continue;
        const double *c = x->c + x->base[r], *j = x->j + x->base[r], *l = lim + x->base[r];
        double *o = out[r];
        double s = 0;   /* shift of event k + 1 */
        o[n - 1] = c[n - 1];
        for (uint64_t k = n - 1; k-- > 0;) {
            o[k] = clc_backward_step(&s, c[k], l[k], c[k + 1], j[k + 1], o[k + 1], gamma);
            st->backward_moved += s > 0;
        }
    }
}

static int valid_ref(const struct ctx *x, struct mg_event_ref e)
{
    return e.rank < x->nranks && e.index < x->nev[e.rank];
}

static int correct_held(const double *const *t, const uint64_t *nevents, uint32_t nranks, const struct mg_result *match,
                        const uint32_t *domain_of, uint32_t ndomains, const double *lmin, const struct clc_params *p,
                        double *const *out, struct clc_stats *stats, char *err, size_t errlen)
{
    struct clc_params def;
    if (!(p = clc_params_checked(p, &def, err, errlen)))
        return -1;
    struct clc_stats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    struct ctx x = { 0 };
    x.nranks = nranks;
    x.dom = domain_of;
    x.ndomains = domain_of ? ndomains : nranks;
    x.lmin = lmin;
    x.match = match;
    x.nev = nevents;
    int rc = -1;
    size_t total = 0;
    x.base = malloc(sizeof *x.base * (nranks ? nranks : 1));
    if (!x.base)
        goto oom;
    for (uint32_t r = 0; r < nranks; r++) {
        x.base[r] = total;
        total += nevents[r];
        if (domain_of && domain_of[r] >= ndomains) {
            snprintf(err, errlen, "clc: rank %u: clock domain %u of %u", r, domain_of[r], ndomains);
            goto done;
        }
    }
    /* collectives use one latency: the smallest between different domains */
    x.lat_coll = clc_coll_latency(lmin, x.ndomains);
    size_t tn = total ? total : 1, rn = nranks ? nranks : 1;
    x.t = malloc(sizeof *x.t * tn);
    x.c = malloc(sizeof *x.c * tn);
    x.j = malloc(sizeof *x.j * tn);
    x.role = calloc(tn, 1);
    x.ref = malloc(sizeof *x.ref * tn);
    x.mem = malloc(sizeof *x.mem * tn);
    x.nco = match->ncollectives;
    x.co = calloc(x.nco ? x.nco : 1, sizeof *x.co);
    x.cur = calloc(rn, sizeof *x.cur);
    x.rank_waiters = malloc(sizeof *x.rank_waiters * rn);
    x.next_waiter = malloc(sizeof *x.next_waiter * rn);
    x.wait_kind = calloc(rn, 1);
    x.wait_on = calloc(rn, sizeof *x.wait_on);
    x.wait_idx = calloc(rn, sizeof *x.wait_idx);
    x.queue = malloc(sizeof *x.queue * rn);
    x.inq = calloc(rn, 1);
    x.force = calloc(rn, 1);
    if (!x.t || !x.c || !x.j || !x.role || !x.ref || !x.mem || !x.co || !x.cur || !x.rank_waiters || !x.next_waiter
        || !x.wait_kind || !x.wait_on || !x.wait_idx || !x.queue || !x.inq || !x.force)
        goto oom;
    for (uint32_t r = 0; r < nranks; r++) {
        x.rank_waiters[r] = x.next_waiter[r] = -1;
        memcpy(x.t + x.base[r], t[r], sizeof *x.t * nevents[r]);
    }

    /* roles: receives */
    for (size_t i = 0; i < match->nmessages; i++) {
        const struct mg_message *msg = &match->messages[i];
        if (!valid_ref(&x, msg->send) || !valid_ref(&x, msg->recv)) {
            snprintf(err, errlen, "clc: message %zu refers to an event that does not exist", i);
            goto done;
        }
        size_t g = gid(&x, msg->recv);
        if (x.role[g] == R_NONE) {
            x.role[g] = R_RECV;
            x.ref[g] = i;
        }
    }
    /* roles: collective entries and exits */
    for (size_t ci = 0; ci < x.nco; ci++) {
        const struct mg_collective *mc = &match->collectives[ci];
        struct coll *c = &x.co[ci];
        c->waiters = -1;
        for (uint32_t k = 0; k < mc->nmembers; k++)
            if (!valid_ref(&x, mc->members[k].enter) || !valid_ref(&x, mc->members[k].exit)) {
                snprintf(err, errlen, "clc: collective %zu refers to an event that does not exist", ci);
                goto done;
            }
        /* what it forces: its data flow (flow.h) */
        if (clc_coll_init(&c->c, match, mc) != 0)
            goto oom;
        /* its events take their roles; one that has a role already (a
         * receive's, another instance's, its own other end's) is a broken
         * match: the instance is left out */
        uint32_t k = 0;
        for (; k < mc->nmembers && c->c.sh != MG_SKIP; k++) {
            size_t ge = gid(&x, mc->members[k].enter), gx = gid(&x, mc->members[k].exit);
            if (x.role[ge] != R_NONE || x.role[gx] != R_NONE || ge == gx)
                break;
            x.role[ge] = R_ENTRY;
            x.role[gx] = R_EXIT;
            x.ref[ge] = x.ref[gx] = ci;
            x.mem[ge] = x.mem[gx] = k;
        }
        if (c->c.sh != MG_SKIP && k < mc->nmembers) {
            while (k-- > 0)
                x.role[gid(&x, mc->members[k].enter)] = x.role[gid(&x, mc->members[k].exit)] = R_NONE;
            c->c.sh = MG_SKIP;
        }
        if (c->c.sh == MG_SKIP)
            stats->skipped_collectives++;
    }

    forward(&x, p->mu, stats);

    if (p->backward) {
        /* t is not needed any more: it holds the limits */
        for (size_t g = 0; g < total; g++)
            x.t[g] = INFINITY;
        if (limits(&x, x.t) != 0)
            goto oom;
        backward(&x, x.t, p->gamma_back, out, stats);
    } else {
        for (uint32_t r = 0; r < nranks; r++)
            memcpy(out[r], x.c + x.base[r], sizeof *x.c * nevents[r]);
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "clc: out of memory");
done:
    for (size_t ci = 0; x.co && ci < x.nco; ci++)
        clc_coll_free(&x.co[ci].c);
    free(x.co);
    free(x.base);
    free(x.t);
    free(x.c);
    free(x.j);
    free(x.role);
    free(x.ref);
    free(x.mem);
    free(x.cur);
    free(x.rank_waiters);
    free(x.next_waiter);
    free(x.wait_kind);
    free(x.wait_on);
    free(x.wait_idx);
    free(x.queue);
    free(x.inq);
    free(x.force);
    return rc;
}

void clc_free_times(uint64_t **times, uint32_t nranks)
{
    for (uint32_t r = 0; times && r < nranks; r++) {
        free(times[r]);
        times[r] = NULL;
    }
}

/* The replay reads messages by index: set-aside ones (msgstream.h) are
 * loaded for it. It runs only on traces with true times (the report's
 * comparison), which are test-sized. */
int clc_correct_times(const double *const *t, const uint64_t *nevents, uint32_t nranks, const struct mg_result *match,
                      const uint32_t *domain_of, uint32_t ndomains, const double *lmin, const struct clc_params *p,
                      double *const *out, struct clc_stats *stats, char *err, size_t errlen)
{
    if (!match->message_file && !match->coll_file)
        return correct_held(t, nevents, nranks, match, domain_of, ndomains, lmin, p, out, stats, err, errlen);
    struct mg_result held = *match;
    held.message_file = NULL;
    held.coll_file = NULL;
    held.messages = match->message_file ? mg_msgs_load(match) : match->messages;
    held.collectives = match->coll_file ? mg_colls_load(match) : match->collectives;
    int rc = -1;
    if ((match->message_file && !held.messages) || (match->coll_file && !held.collectives)) {
        const char *why = mg_msgs_error(match) ? mg_msgs_error(match) : mg_colls_error(match);
        snprintf(err, errlen, "clc: %s", why ? why : "out of memory");
    } else {
        rc = correct_held(t, nevents, nranks, &held, domain_of, ndomains, lmin, p, out, stats, err, errlen);
    }
    if (match->message_file)
        free(held.messages);
    if (match->coll_file)
        mg_colls_free(held.collectives, held.collectives ? match->ncollectives : 0);
    return rc;
}

int clc_correct(const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match, const double *lmin,
                const struct cm_model *m, const struct clc_params *p, uint64_t **out_times, struct clc_stats *stats,
                char *err, size_t errlen)
{
    for (uint32_t r = 0; r < nranks; r++)
        out_times[r] = NULL;
    double **t = calloc(nranks ? nranks : 1, sizeof *t);
    uint64_t *nev = malloc(sizeof *nev * (nranks ? nranks : 1));
    int rc = -1;
    if (!t || !nev)
        goto oom;
    for (uint32_t r = 0; r < nranks; r++) {
        nev[r] = ranks[r].nevents;
        t[r] = malloc(sizeof **t * (nev[r] ? nev[r] : 1));
        if (!t[r])
            goto oom;
        struct rt_time_reader tr;
        rt_time_reader_init(&tr, &ranks[r]);
        for (uint64_t i = 0; i < nev[r]; i++)
            t[r][i] = cm_interpolated(&ranks[r], rt_time_read(&tr, i));
        rt_time_reader_free(&tr);
    }
    /* corrected in place: clc_correct_times copies its input first */
    if (clc_correct_times((const double *const *)t, nev, nranks, match, m ? m->domain_of : NULL,
                          m ? m->ndomains : nranks, lmin, p, t, stats, err, errlen) != 0)
        goto done;
    double gmin = INFINITY;
    for (uint32_t r = 0; r < nranks; r++)
        if (nev[r] && t[r][0] < gmin)
            gmin = t[r][0];
    for (uint32_t r = 0; r < nranks; r++) {
        out_times[r] = malloc(sizeof **out_times * (nev[r] ? nev[r] : 1));
        if (!out_times[r])
            goto oom;
        uint64_t prev = 0;
        for (uint64_t i = 0; i < nev[r]; i++) {
            double v = t[r][i] - gmin;
            uint64_t u = v <= 0 ? 0 : (uint64_t)llround(v);
            if (u < prev)
                u = prev;   /* never: C is non-decreasing per rank */
            out_times[r][i] = prev = u;
        }
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "clc: out of memory");
done:
    if (rc != 0)
        clc_free_times(out_times, nranks);
    for (uint32_t r = 0; t && r < nranks; r++)
        free(t[r]);
    free(t);
    free(nev);
    return rc;
}
