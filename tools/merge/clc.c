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

/* The largest value, and the largest from a domain other than its own:
 * enough to answer "max over members of v + (other domain ? lat : 0)". */
struct top2 {
    double v1, v2;
    uint32_t d1;
};

static const struct top2 TOP2_EMPTY = { -INFINITY, -INFINITY, UINT32_MAX };

static void top2_add(struct top2 *a, double v, uint32_t d)
{
    if (d == a->d1) {
        if (v > a->v1)
            a->v1 = v;
    } else if (v > a->v1) {
        a->v2 = a->v1;   /* the old maximum is from another domain than d */
        a->v1 = v;
        a->d1 = d;
    } else if (v > a->v2) {
        a->v2 = v;
    }
}

/* max over added (v, dv) of v + (dv != d ? lat : 0) */
static double top2_query(const struct top2 *a, uint32_t d, double lat)
{
    if (a->v1 == -INFINITY)
        return -INFINITY;
    if (d != a->d1)
        return a->v1 + lat;
    return fmax(a->v1, a->v2 + lat);
}

struct coll {
    enum mg_shape sh;         /* MG_SCAN / MG_EXSCAN (a prefix), MG_ALL_TO_ALL (the flow's groups), MG_SKIP */
    uint32_t n, done;
    /* the data flow (flow.h): every entry of a group's sources before every exit of its sinks */
    struct mg_flow flow;
    struct top2 *gagg;        /* per group: over its sources' entries processed */
    uint32_t *gpending;       /* per group: sources not processed yet */
    uint32_t *src_first, *src_of;   /* member k is a source of groups src_of[src_first[k] .. src_first[k + 1]) */
    uint32_t *dst_first, *dst_of;   /* ... and a sink of dst_of[dst_first[k] .. dst_first[k + 1]) */
    /* scan and exscan: members in communicator rank order */
    uint32_t *order;          /* position -> member */
    uint32_t *pos;            /* member -> position */
    double *val;              /* entry time by position */
    uint32_t *dpos;           /* entry's domain by position */
    unsigned char *have;      /* entry processed, by position */
    struct top2 *pre;         /* aggregate of positions [0, k] */
    uint32_t p;               /* positions [0, p) all processed */
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
    uint32_t du = dom_of(x, from), dv = dom_of(x, to);
    if (du == dv || !x->lmin)
        return 0;
    return x->lmin[(size_t)du * x->ndomains + dv];
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

/* Member -> groups, both ways (counting sort), and the groups' aggregates. */
static int index_groups(struct coll *c)
{
    const struct mg_flow *f = &c->flow;
    uint32_t n = c->n, ng = f->ngroups;
    size_t ns = 0, nd = 0;
    for (uint32_t g = 0; g < ng; g++) {
        ns += f->groups[g].nsrc;
        nd += f->groups[g].ndst;
    }
    c->src_first = calloc(n + 1, sizeof *c->src_first);
    c->dst_first = calloc(n + 1, sizeof *c->dst_first);
    c->src_of = malloc(sizeof *c->src_of * (ns ? ns : 1));
    c->dst_of = malloc(sizeof *c->dst_of * (nd ? nd : 1));
    c->gagg = malloc(sizeof *c->gagg * (ng ? ng : 1));
    c->gpending = malloc(sizeof *c->gpending * (ng ? ng : 1));
    uint32_t *sp = malloc(sizeof *sp * (n + 1)), *dp = malloc(sizeof *dp * (n + 1));
    int ok = c->src_first && c->dst_first && c->src_of && c->dst_of && c->gagg && c->gpending && sp && dp;
    if (ok) {
        for (uint32_t g = 0; g < ng; g++) {
            c->gagg[g] = TOP2_EMPTY;
            c->gpending[g] = f->groups[g].nsrc;
            for (uint32_t a = 0; a < f->groups[g].nsrc; a++)
                c->src_first[f->groups[g].src[a] + 1]++;
            for (uint32_t a = 0; a < f->groups[g].ndst; a++)
                c->dst_first[f->groups[g].dst[a] + 1]++;
        }
        for (uint32_t k = 0; k < n; k++) {
            c->src_first[k + 1] += c->src_first[k];
            c->dst_first[k + 1] += c->dst_first[k];
        }
        memcpy(sp, c->src_first, sizeof *sp * (n + 1));
        memcpy(dp, c->dst_first, sizeof *dp * (n + 1));
        for (uint32_t g = 0; g < ng; g++) {
            for (uint32_t a = 0; a < f->groups[g].nsrc; a++)
                c->src_of[sp[f->groups[g].src[a]]++] = g;
            for (uint32_t a = 0; a < f->groups[g].ndst; a++)
                c->dst_of[dp[f->groups[g].dst[a]]++] = g;
        }
    }
    free(sp);
    free(dp);
    return ok ? 0 : -1;
}

/* Position in the prefix whose aggregate an exit of member m needs, or -1. */
static int64_t scan_need(const struct coll *c, uint32_t m)
{
    int64_t k = c->pos[m];
    return c->sh == MG_SCAN ? k : k - 1;
}

/* Whether event g (the next one of its rank) has all its predecessors done. */
static int ready(const struct ctx *x, size_t g)
{
    switch (x->role[g]) {
    case R_RECV: {
        const struct mg_message *msg = &x->match->messages[x->ref[g]];
        return x->cur[msg->send.rank] > msg->send.index;
    }
    case R_EXIT: {
        const struct coll *c = &x->co[x->ref[g]];
        uint32_t m = x->mem[g];
        switch (c->sh) {
        case MG_ALL_TO_ALL:
            for (uint32_t q = c->dst_first[m]; q < c->dst_first[m + 1]; q++)
                if (c->gpending[c->dst_of[q]])
                    return 0;
            return 1;
        case MG_SCAN:
        case MG_EXSCAN: return scan_need(c, m) < (int64_t)c->p;
        default: return 1;
        }
    }
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
    case R_EXIT: {
        const struct coll *c = &x->co[x->ref[g]];
        uint32_t m = x->mem[g], d = dom_of(x, r);
        switch (c->sh) {
        case MG_ALL_TO_ALL: {
            double v = -INFINITY;
            for (uint32_t q = c->dst_first[m]; q < c->dst_first[m + 1]; q++)
                v = fmax(v, top2_query(&c->gagg[c->dst_of[q]], d, x->lat_coll));
            return v;
        }
        case MG_SCAN:
        case MG_EXSCAN: {
            int64_t k = scan_need(c, m);
            if (k >= (int64_t)c->p)
                k = (int64_t)c->p - 1;
            return k >= 0 ? top2_query(&c->pre[k], d, x->lat_coll) : -INFINITY;
        }
        default: return -INFINITY;
        }
    }
    default:
        return -INFINITY;
    }
}

static void entry_done(struct ctx *x, size_t g, uint32_t r)
{
    struct coll *c = &x->co[x->ref[g]];
    uint32_t m = x->mem[g], d = dom_of(x, r);
    double v = x->c[g];
    c->done++;
    int wake = 0;
    if (c->sh == MG_ALL_TO_ALL)
        for (uint32_t q = c->src_first[m]; q < c->src_first[m + 1]; q++) {
            uint32_t k = c->src_of[q];
            top2_add(&c->gagg[k], v, d);
            wake |= --c->gpending[k] == 0;
        }
    if (c->sh == MG_SCAN || c->sh == MG_EXSCAN) {
        uint32_t k = c->pos[m];
        c->val[k] = v;
        c->dpos[k] = d;
        c->have[k] = 1;
        uint32_t p0 = c->p;
        while (c->p < c->n && c->have[c->p]) {
            c->pre[c->p] = c->p ? c->pre[c->p - 1] : TOP2_EMPTY;
            top2_add(&c->pre[c->p], c->val[c->p], c->dpos[c->p]);
            c->p++;
        }
        wake |= c->p != p0;
    }
    if (wake)
        wake_coll(x, c);
}

static void process(struct ctx *x, uint32_t r, double mu, struct clc_stats *st)
{
    uint64_t i = x->cur[r];
    size_t g = x->base[r] + i;
    double b = x->t[g];
    if (i > 0) {
        double dt = x->t[g] - x->t[g - 1];
        double keep = x->c[g - 1] + mu * (dt > 0 ? dt : 0);
        if (keep > b)
            b = keep;
    }
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
static void limits(struct ctx *x, double *lim)
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
        const struct coll *c = &x->co[ci];
        const struct mg_collective *mc = &mt->collectives[ci];
        if (c->sh == MG_SKIP)
            continue;
        /* aggregates of -C(exit): max of -C(f) + lat = -(min of C(f) - lat),
         * per group over its sinks, limiting its sources */
        if (c->sh == MG_ALL_TO_ALL) {
            for (uint32_t q = 0; q < c->flow.ngroups; q++) {
                const struct mg_flow_group *grp = &c->flow.groups[q];
                struct top2 a = TOP2_EMPTY;
                for (uint32_t k = 0; k < grp->ndst; k++)
                    top2_add(&a, -x->c[gid(x, mc->members[grp->dst[k]].exit)],
                             dom_of(x, mc->members[grp->dst[k]].exit.rank));
                for (uint32_t k = 0; k < grp->nsrc; k++) {
                    const struct mg_member *mb = &mc->members[grp->src[k]];
                    size_t ge = gid(x, mb->enter);
                    double l = -top2_query(&a, dom_of(x, mb->enter.rank), x->lat_coll);
                    if (l < lim[ge])
                        lim[ge] = l;
                }
            }
        } else {   /* scan, exscan: exits at positions >= k (> k) */
            struct top2 a = TOP2_EMPTY;
            for (int64_t k = (int64_t)c->n - 1; k >= 0; k--) {
                const struct mg_member *mb = &mc->members[c->order[k]];
                if (c->sh == MG_SCAN)
                    top2_add(&a, -x->c[gid(x, mb->exit)], dom_of(x, mb->exit.rank));
                size_t ge = gid(x, mb->enter);
                double q = top2_query(&a, dom_of(x, mb->enter.rank), x->lat_coll);
                if (-q < lim[ge])
                    lim[ge] = -q;
                if (c->sh == MG_EXSCAN)
                    top2_add(&a, -x->c[gid(x, mb->exit)], dom_of(x, mb->exit.rank));
            }
        }
    }
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
            double dprime = (c[k + 1] - j[k + 1]) - c[k];
            if (dprime < 0)
                dprime = 0;
            double u = s + j[k + 1] - gamma * dprime;
            double room = l[k] - c[k];
            if (u > room)
                u = room;
            if (u < 0)
                u = 0;
            s = u;
            double v = c[k] + s;
            if (v > l[k])
                v = l[k] > c[k] ? l[k] : c[k];   /* the limit itself, never below forward */
            if (v > o[k + 1])
                v = o[k + 1] > c[k] ? o[k + 1] : c[k];   /* floating-point rounding only */
            o[k] = v;
            st->backward_moved += s > 0;
        }
    }
}

static int valid_ref(const struct ctx *x, struct mg_event_ref e)
{
    return e.rank < x->nranks && e.index < x->nev[e.rank];
}

void clc_default_params(struct clc_params *p)
{
    p->mu = 0.99;
    p->gamma_back = 0.01;
    p->backward = 1;
}

static int correct_held(const double *const *t, const uint64_t *nevents, uint32_t nranks, const struct mg_result *match,
                        const uint32_t *domain_of, uint32_t ndomains, const double *lmin, const struct clc_params *p,
                        double *const *out, struct clc_stats *stats, char *err, size_t errlen)
{
    struct clc_params def;
    clc_default_params(&def);
    if (!p)
        p = &def;
    struct clc_stats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    if (!(p->mu >= 0 && p->mu <= 1) || !(p->gamma_back >= 0)) {
        snprintf(err, errlen, "clc: mu must lie in [0, 1] and gamma_back be >= 0");
        return -1;
    }
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
    x.lat_coll = 0;
    if (lmin && x.ndomains > 1) {
        x.lat_coll = INFINITY;
        for (uint32_t a = 0; a < x.ndomains; a++)
            for (uint32_t b = 0; b < x.ndomains; b++)
                if (a != b && lmin[(size_t)a * x.ndomains + b] < x.lat_coll)
                    x.lat_coll = lmin[(size_t)a * x.ndomains + b];
        if (x.lat_coll < 0)
            x.lat_coll = 0;
    }
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
        c->n = mc->nmembers;
        for (uint32_t k = 0; k < mc->nmembers; k++)
            if (!valid_ref(&x, mc->members[k].enter) || !valid_ref(&x, mc->members[k].exit)) {
                snprintf(err, errlen, "clc: collective %zu refers to an event that does not exist", ci);
                goto done;
            }
        /* what it forces: its data flow (flow.h) */
        if (mg_flow_of(match, mc, &c->flow) != 0)
            goto oom;
        c->sh = c->flow.order ? c->flow.prefix : c->flow.ngroups ? MG_ALL_TO_ALL : MG_SKIP;
        for (uint32_t k = 0; k < c->n && c->sh != MG_SKIP; k++) {
            size_t ge = gid(&x, mc->members[k].enter), gx = gid(&x, mc->members[k].exit);
            if (x.role[ge] != R_NONE || x.role[gx] != R_NONE || ge == gx)
                c->sh = MG_SKIP;   /* an event in two roles: a broken match; leave it out */
        }
        if (c->sh == MG_SKIP) {
            stats->skipped_collectives++;
            continue;
        }
        if (c->sh == MG_SCAN || c->sh == MG_EXSCAN) {
            c->order = malloc(sizeof *c->order * c->n);
            c->pos = malloc(sizeof *c->pos * c->n);
            c->val = malloc(sizeof *c->val * c->n);
            c->dpos = malloc(sizeof *c->dpos * c->n);
            c->have = calloc(c->n, 1);
            c->pre = malloc(sizeof *c->pre * c->n);
            if (!c->order || !c->pos || !c->val || !c->dpos || !c->have || !c->pre)
                goto oom;
            for (uint32_t k = 0; k < c->n; k++) {
                c->order[k] = c->flow.order[k];
                c->pos[c->order[k]] = k;
            }
        } else if (index_groups(c) != 0) {
            goto oom;
        }
        for (uint32_t k = 0; k < c->n; k++) {
            size_t ge = gid(&x, mc->members[k].enter), gx = gid(&x, mc->members[k].exit);
            x.role[ge] = R_ENTRY;
            x.role[gx] = R_EXIT;
            x.ref[ge] = x.ref[gx] = ci;
            x.mem[ge] = x.mem[gx] = k;
        }
    }

    forward(&x, p->mu, stats);

    if (p->backward) {
        /* t is not needed any more: it holds the limits */
        for (size_t g = 0; g < total; g++)
            x.t[g] = INFINITY;
        limits(&x, x.t);
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
    for (size_t ci = 0; x.co && ci < x.nco; ci++) {
        free(x.co[ci].order);
        free(x.co[ci].pos);
        free(x.co[ci].val);
        free(x.co[ci].dpos);
        free(x.co[ci].have);
        free(x.co[ci].pre);
        free(x.co[ci].gagg);
        free(x.co[ci].gpending);
        free(x.co[ci].src_first);
        free(x.co[ci].src_of);
        free(x.co[ci].dst_first);
        free(x.co[ci].dst_of);
        mg_flow_free(&x.co[ci].flow);
    }
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

int clc_correct(const struct rt_rank *ranks, uint32_t nranks, const struct mg_result *match, const double *lmin,
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
