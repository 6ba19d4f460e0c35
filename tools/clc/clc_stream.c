/* clc_stream.c — see clc_stream.h. The stages, in order:
 *
 *   roles     every message and instance member as records of the events
 *             they touch, a run per location in a file (clc_roles.h)
 *   input     the input times, location by location, into a file
 *   forward   a heap of locations by their next event's input time; each
 *             runs while it is the earliest and its next event's
 *             predecessors are done; forward values to a file (a jump is C - B, found again later),
 *             limits to a sort
 *   backward  location by location, back to front, over the forward
 *             values and the limits; the output over the input times
 *
 * Memory: per location a few numbers and three small windows (input
 * times, roles, forward values; together `memory` / 2), the two sorts'
 * budgets (`memory` / 4 each), the sends in flight and the instances open. */
#include <config.h>
#include "clc_stream.h"
#include "clc_coll.h"
#include "clc_roles.h"
#include "blockcache.h"
#include "collstream.h"
#include "extsort.h"
#include "fsutil.h"
#include "msgstream.h"
#include "u64map.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The latest time an event may be moved to (clc.h, L(e)). */
struct lim_rec {
    uint64_t idx;
    double v;
    uint32_t loc;
    uint32_t pad;
};

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* by location, events descending (the backward pass), the least value first */
static int lim_cmp(const void *pa, const void *pb)
{
    const struct lim_rec *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64(a->loc, b->loc)) || (c = cmp_u64(b->idx, a->idx)))
        return c;
    return a->v < b->v ? -1 : a->v > b->v;
}

/* An instance some of whose events were reached and not all. */
struct open_inst {
    struct mg_collective mc;  /* its members: borrowed from the match, or read back (owned) */
    int owned;
    struct clc_coll c;
    double *xc;               /* exits' forward values, by member */
    uint32_t reached;         /* entries and exits processed */
    int64_t waiters;          /* head: locations blocked on one of its exits */
};

enum lstate { L_RUN, L_BLOCKED, L_DONE };

struct sloc {
    uint64_t n, cur;          /* events; the next one to process */
    double tnext;             /* its input time (heap key) */
    double tp, cp;            /* the previous event's input and forward values */
    enum lstate state;
    int force;                /* process the next event whatever it waits for (a cycle broken) */
    uint64_t wait_msg;        /* blocked on a receive: its message; else UINT64_MAX */
    uint64_t wait_inst;       /* blocked on an exit: its instance */
    int64_t next_waiter;
    /* windows: input times [tfirst, tfirst + tn), role records [rfirst, rfirst + rn) of the file,
     * forward values not yet written [cfirst, cfirst + cn) */
    double *tw;
    uint64_t tfirst;
    size_t tn;
    struct role_rec *rw;
    uint64_t rfirst;
    size_t rn;
    uint64_t rnext, rend;     /* the location's records: [rnext, rend) not yet taken */
    double *cw;               /* forward values (a jump is C - B, B found again from the input times) */
    uint64_t cfirst;
    size_t cn;
};

struct sx {
    uint32_t n, ndomains;
    const uint64_t *nev;
    const uint32_t *dom;
    const double *lmin;
    double lat_coll, mu;
    const struct mg_result *match;
    uint64_t *base;           /* first event of each location in the per-event files */
    struct sloc *loc;
    size_t win;               /* events (and role records) per window */
    int fd_t, fd_c;           /* input (then output) times, forward values */
    struct clc_roles roles;
    /* in flight */
    struct u64map sent;       /* message -> its send's forward value (bits) */
    struct u64map waiting;    /* message -> the location blocked on its receive */
    struct u64map open;       /* instance -> struct open_inst * */
    uint64_t max_sent, max_open;
    struct st_extsort *lims;
    uint32_t *heap;
    size_t nheap;
    struct role_rec *ev;      /* the records of the event being processed */
    size_t nev_rec, cev_rec;
    struct clc_stats *st;
    int failed;
    char *err;
    size_t errlen;
    const char *dir;
};

static uint32_t dom_of(const struct sx *x, uint32_t r)
{
    return x->dom ? x->dom[r] : r;
}

static double msg_lat(const struct sx *x, uint32_t from, uint32_t to)
{
    return clc_msg_latency(x->dom, x->lmin, x->ndomains, from, to);
}

static int fail(struct sx *x, const char *what)
{
    if (!x->failed)
        snprintf(x->err, x->errlen, "clc: %s", what);
    x->failed = 1;
    return -1;
}

static int fail_io(struct sx *x, const char *what)
{
    char m[4200];
    snprintf(m, sizeof m, "%s a file in %s: %s", what, x->dir, strerror(errno));
    return fail(x, m);
}

static int write_at(struct sx *x, int fd, const void *p, size_t len, uint64_t off)
{
    return st_pwrite_all(fd, p, len, off) == 0 ? 0 : fail_io(x, "writing");
}

static int read_at(struct sx *x, int fd, void *p, size_t len, uint64_t off)
{
    size_t got;
    if (st_pread_all(fd, p, len, off, &got) != 0)
        return fail_io(x, "reading");
    if (got != len) {
        errno = EIO;
        return fail_io(x, "reading (short)");
    }
    return 0;
}

/* ------------------------------------------------------------ input */

static int stage_input(struct sx *x, clc_fill_fn fill, void *ctx)
{
    enum { BLOCK = 1 << 16 };
    double *buf = malloc(sizeof *buf * BLOCK);
    if (!buf)
        return fail(x, "out of memory");
    int rc = 0;
    for (uint32_t r = 0; r < x->n && rc == 0; r++)
        for (uint64_t i = 0; i < x->nev[r] && rc == 0; i += BLOCK) {
            size_t k = x->nev[r] - i < BLOCK ? (size_t)(x->nev[r] - i) : BLOCK;
            char e[4400];
            if (fill(ctx, r, i, buf, k, e, sizeof e) != 0) {
                snprintf(x->err, x->errlen, "%s", e);
                x->failed = 1;
                rc = -1;
            } else {
                rc = write_at(x, x->fd_t, buf, sizeof *buf * k, (x->base[r] + i) * sizeof *buf);
            }
        }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------ forward */

/* Location r's input time of event i (i in [cur, n)). */
static double t_at(struct sx *x, uint32_t r, uint64_t i)
{
    struct sloc *l = &x->loc[r];
    if (i - l->tfirst >= l->tn) {
        uint64_t k = l->n - i < x->win ? l->n - i : x->win;
        if (read_at(x, x->fd_t, l->tw, sizeof *l->tw * k, (x->base[r] + i) * sizeof *l->tw) != 0)
            return 0;
        l->tfirst = i;
        l->tn = (size_t)k;
    }
    return l->tw[i - l->tfirst];
}

/* Location r's role record j (j in [rnext, rend)). */
static const struct role_rec *role_at(struct sx *x, uint32_t r, uint64_t j)
{
    struct sloc *l = &x->loc[r];
    if (j - l->rfirst >= l->rn) {
        uint64_t k = l->rend - j < x->win ? l->rend - j : x->win;
        if (read_at(x, x->roles.fd, l->rw, sizeof *l->rw * k, j * sizeof *l->rw) != 0)
            return NULL;
        l->rfirst = j;
        l->rn = (size_t)k;
    }
    return &l->rw[j - l->rfirst];
}

/* The records of location r's next event into x->ev (not taken yet). */
static int gather(struct sx *x, uint32_t r)
{
    struct sloc *l = &x->loc[r];
    x->nev_rec = 0;
    for (uint64_t j = l->rnext; j < l->rend; j++) {
        const struct role_rec *rec = role_at(x, r, j);
        if (!rec)
            return -1;
        if (rec->idx != l->cur)
            break;
        if (x->nev_rec == x->cev_rec) {
            size_t c = x->cev_rec ? x->cev_rec * 2 : 16;
            struct role_rec *p = realloc(x->ev, sizeof *p * c);
            if (!p)
                return fail(x, "out of memory");
            x->ev = p;
            x->cev_rec = c;
        }
        x->ev[x->nev_rec++] = *rec;
    }
    return 0;
}

static int live_inst(const struct sx *x, const struct role_rec *rec)
{
    return (KIND(rec) == K_ENTRY || KIND(rec) == K_EXIT) && !clc_sorted_has(x->roles.skipped, x->roles.nskipped, rec->ref);
}

/* The event's role: its receive (the first message: the others lost it),
 * or its end of an instance not left out; NULL: none. */
static const struct role_rec *role_of(const struct sx *x)
{
    for (size_t i = 0; i < x->nev_rec; i++)
        if (KIND(&x->ev[i]) == K_RECV || live_inst(x, &x->ev[i]))
            return &x->ev[i];
    return NULL;
}

static void inst_free(struct open_inst *o)
{
    clc_coll_free(&o->c);
    free(o->xc);
    if (o->owned)
        free(o->mc.members);
    free(o);
}

static struct open_inst *inst_of(struct sx *x, const struct role_rec *rec)
{
    uint64_t v;
    if (u64map_get(&x->open, rec->ref, &v))
        return (struct open_inst *)(uintptr_t)v;
    struct open_inst *o = calloc(1, sizeof *o);
    if (!o) {
        fail(x, "out of memory");
        return NULL;
    }
    o->waiters = -1;
    const struct mg_result *m = x->match;
    if (m->coll_file) {
        if (mg_colls_read_at(m, rec->aux, &o->mc) != 0) {
            free(o);
            fail(x, mg_colls_error(m) ? mg_colls_error(m) : "out of memory");
            return NULL;
        }
        o->owned = 1;
    } else {
        o->mc = m->collectives[rec->ref];
    }
    if (clc_coll_init(&o->c, m, &o->mc) != 0 || !(o->xc = malloc(sizeof *o->xc * (o->mc.nmembers + 1)))
        || u64map_put(&x->open, rec->ref, (uint64_t)(uintptr_t)o) != 0) {
        inst_free(o);
        fail(x, "out of memory");
        return NULL;
    }
    if (x->open.n > x->max_open)
        x->max_open = x->open.n;
    return o;
}

/* ---- the heap of locations that may run, by (next input time, location) */

static int before(const struct sx *x, uint32_t a, uint32_t b)
{
    double ta = x->loc[a].tnext, tb = x->loc[b].tnext;
    return ta < tb || (ta == tb && a < b);
}

static void heap_push(struct sx *x, uint32_t r)
{
    size_t i = x->nheap++;
    while (i > 0 && before(x, r, x->heap[(i - 1) / 2])) {
        x->heap[i] = x->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    x->heap[i] = r;
}

static uint32_t heap_pop(struct sx *x)
{
    uint32_t top = x->heap[0], last = x->heap[--x->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= x->nheap)
            break;
        if (c + 1 < x->nheap && before(x, x->heap[c + 1], x->heap[c]))
            c++;
        if (!before(x, x->heap[c], last))
            break;
        x->heap[i] = x->heap[c];
        i = c;
    }
    if (x->nheap)
        x->heap[i] = last;
    return top;
}

static void wake(struct sx *x, uint32_t r)
{
    x->loc[r].state = L_RUN;
    x->loc[r].wait_msg = UINT64_MAX;
    heap_push(x, r);
}

static void wake_inst(struct sx *x, struct open_inst *o)
{
    for (int64_t w = o->waiters; w != -1;) {
        int64_t nx = x->loc[w].next_waiter;
        wake(x, (uint32_t)w);
        w = nx;
    }
    o->waiters = -1;
}

/* Whether the event's predecessors are all done; if not, r waits. */
static int ready_or_wait(struct sx *x, uint32_t r, const struct role_rec *role)
{
    struct sloc *l = &x->loc[r];
    if (!role)
        return 1;
    if (KIND(role) == K_RECV) {
        if (u64map_get(&x->sent, role->ref, NULL))
            return 1;
        if (u64map_put(&x->waiting, role->ref, r) != 0)
            return fail(x, "out of memory"), 1;
        l->wait_msg = role->ref;
    } else if (KIND(role) == K_EXIT) {
        struct open_inst *o = inst_of(x, role);
        if (!o || clc_coll_exit_ready(&o->c, LOW(role)))
            return 1;
        l->wait_inst = role->ref;
        l->next_waiter = o->waiters;
        o->waiters = r;
    } else {
        return 1;
    }
    l->state = L_BLOCKED;
    return 0;
}

static int flush_cw(struct sx *x, uint32_t r)
{
    struct sloc *l = &x->loc[r];
    int rc = l->cn ? write_at(x, x->fd_c, l->cw, sizeof *l->cw * l->cn, (x->base[r] + l->cfirst) * sizeof *l->cw) : 0;
    l->cfirst += l->cn;
    l->cn = 0;
    return rc;
}

static int put_limit(struct sx *x, uint32_t loc, uint64_t idx, double v)
{
    struct lim_rec lr = { idx, v, loc, 0 };
    return st_extsort_put(x->lims, &lr) == 0 ? 0 : fail(x, st_extsort_error(x->lims));
}

/* An instance's last end is processed: its limits on the entries. */
static int inst_done(struct sx *x, uint64_t ci, struct open_inst *o)
{
    uint32_t n = o->mc.nmembers;
    double *lm = malloc(sizeof *lm * (n + 1));
    uint32_t *xd = malloc(sizeof *xd * (n + 1)), *ed = malloc(sizeof *ed * (n + 1));
    int rc = lm && xd && ed ? 0 : fail(x, "out of memory");
    for (uint32_t k = 0; rc == 0 && k < n; k++) {
        xd[k] = dom_of(x, o->mc.members[k].exit.rank);
        ed[k] = dom_of(x, o->mc.members[k].enter.rank);
        lm[k] = INFINITY;
    }
    if (rc == 0)
        clc_coll_limits(&o->c, o->xc, xd, ed, x->lat_coll, lm);
    for (uint32_t k = 0; rc == 0 && k < n; k++)
        if (lm[k] < INFINITY)
            rc = put_limit(x, o->mc.members[k].enter.rank, o->mc.members[k].enter.index, lm[k]);
    free(lm);
    free(xd);
    free(ed);
    u64map_remove(&x->open, ci, NULL);
    inst_free(o);
    return rc;
}

/* Process location r's next event (its records in x->ev). */
static int process(struct sx *x, uint32_t r, const struct role_rec *role)
{
    struct sloc *l = &x->loc[r];
    uint64_t i = l->cur;
    double t = l->tnext;
    double b = clc_forward_base(t, i == 0, l->tp, l->cp, x->mu);
    double lo = -INFINITY;
    struct open_inst *o = NULL;
    uint64_t bits;
    if (role && KIND(role) == K_RECV) {
        if (u64map_remove(&x->sent, role->ref, &bits)) {
            double cs;
            memcpy(&cs, &bits, sizeof cs);
            lo = cs + msg_lat(x, LOW(role), r);
        }
    } else if (role) {
        if (!(o = inst_of(x, role)))
            return -1;
        if (KIND(role) == K_EXIT)
            lo = clc_coll_exit_bound(&o->c, LOW(role), dom_of(x, r), x->lat_coll);
    }
    double c = b, j = 0;
    if (lo > b) {
        c = lo;
        j = lo - b;
        x->st->jumps++;
        if (j > x->st->max_jump_ns)
            x->st->max_jump_ns = j;
    }
    l->cw[l->cn] = c;
    if (++l->cn == x->win && flush_cw(x, r) != 0)
        return -1;
    l->tp = t;
    l->cp = c;
    if (role && KIND(role) == K_RECV && put_limit(x, LOW(role), role->aux, c - msg_lat(x, LOW(role), r)) != 0)
        return -1;
    if (o && KIND(role) == K_ENTRY && clc_coll_entry(&o->c, LOW(role), c, dom_of(x, r)))
        wake_inst(x, o);
    if (o && KIND(role) == K_EXIT)
        o->xc[LOW(role)] = c;
    if (o && ++o->reached == 2 * o->mc.nmembers && inst_done(x, role->ref, o) != 0)
        return -1;
    /* its sends: the receive takes the value, now or when it comes (a
     * message whose receive event another message took: never) */
    memcpy(&bits, &c, sizeof bits);
    for (size_t k = 0; k < x->nev_rec; k++) {
        const struct role_rec *s = &x->ev[k];
        if (KIND(s) != K_SEND)
            continue;
        if (u64map_put(&x->sent, s->ref, bits) != 0)
            return fail(x, "out of memory");
        uint64_t w;
        if (u64map_remove(&x->waiting, s->ref, &w))
            wake(x, (uint32_t)w);
    }
    if (x->sent.n > x->max_sent)
        x->max_sent = x->sent.n;
    l->rnext += x->nev_rec;
    l->cur++;
    if (l->cur == l->n) {
        l->state = L_DONE;
        return flush_cw(x, r);
    }
    l->tnext = t_at(x, r, l->cur);
    return x->failed ? -1 : 0;
}

/* Run r while it is the earliest and may run. */
static int run(struct sx *x, uint32_t r)
{
    struct sloc *l = &x->loc[r];
    for (;;) {
        if (gather(x, r) != 0)
            return -1;
        const struct role_rec *role = role_of(x);
        if (l->force)
            l->force = 0;
        else if (!ready_or_wait(x, r, role))
            return x->failed ? -1 : 0;
        if (x->failed || process(x, r, role) != 0)
            return -1;
        if (l->state == L_DONE)
            return 0;
        if (x->nheap && before(x, x->heap[0], r)) {
            heap_push(x, r);
            return 0;
        }
    }
}

/* Everyone left waits: a cycle (a wrong match). Break it at the earliest
 * event, as clc.c does: it runs once without its predecessor. */
static int break_cycle(struct sx *x)
{
    int64_t best = -1;
    for (uint32_t r = 0; r < x->n; r++)
        if (x->loc[r].state == L_BLOCKED && (best < 0 || x->loc[r].tnext < x->loc[best].tnext))
            best = r;
    if (best < 0)
        return 0;
    struct sloc *l = &x->loc[best];
    if (l->wait_msg != UINT64_MAX) {
        u64map_remove(&x->waiting, l->wait_msg, NULL);
    } else {
        uint64_t v;
        if (u64map_get(&x->open, l->wait_inst, &v)) {
            struct open_inst *o = (struct open_inst *)(uintptr_t)v;
            int64_t *h = &o->waiters;
            while (*h != -1 && *h != best)
                h = &x->loc[*h].next_waiter;
            if (*h == best)
                *h = l->next_waiter;
        }
    }
    x->st->cycles_broken++;
    wake(x, (uint32_t)best);
    l->force = 1;
    return 1;
}

static int stage_forward(struct sx *x)
{
    for (uint32_t r = 0; r < x->n; r++) {
        struct sloc *l = &x->loc[r];
        l->wait_msg = UINT64_MAX;
        l->next_waiter = -1;
        l->tfirst = UINT64_MAX;
        l->rfirst = UINT64_MAX;
        if (!l->n) {
            l->state = L_DONE;
            continue;
        }
        l->tnext = t_at(x, r, 0);
        if (x->failed)
            return -1;
        heap_push(x, r);
    }
    for (;;) {
        if (!x->nheap && !break_cycle(x))
            break;
        if (run(x, heap_pop(x)) != 0)
            return -1;
    }
    /* every event is processed: an instance still open has events that do not exist (none: refs are checked) */
    for (size_t i = 0; i < x->open.cap; i++)
        if (x->open.used[i])
            inst_free((struct open_inst *)(uintptr_t)x->open.values[i]);
    u64map_free(&x->open);
    return 0;
}

/* ------------------------------------------------------------ backward */

/* The jump J = C - B of each event is not stored: B is the forward base
 * found again from the input times and the previous forward value, by the
 * same function, so C - B is the forward pass's J to the bit (lo - b where
 * it jumped, 0 where C = B). */
static int stage_backward(struct sx *x, double gamma, double mu, int backward)
{
    enum { BLOCK = 1 << 15 };
    double *cb = malloc(sizeof *cb * BLOCK), *tb = malloc(sizeof *tb * BLOCK);
    if (!cb || !tb) {
        free(cb);
        free(tb);
        return fail(x, "out of memory");
    }
    int rc = 0;
    const struct lim_rec *lr = backward ? st_extsort_next(x->lims) : NULL;
    for (uint32_t r = 0; r < x->n && rc == 0; r++) {
        uint64_t n = x->nev[r];
        double s = 0, c1 = 0, t1 = 0, o1 = 0;   /* event k + 1's forward value, input and output */
        for (uint64_t hi = n; hi > 0 && rc == 0;) {
            uint64_t lo = hi > BLOCK ? hi - BLOCK : 0;
            size_t m = (size_t)(hi - lo);
            uint64_t at = (x->base[r] + lo) * sizeof(double);
            if ((rc = read_at(x, x->fd_c, cb, sizeof *cb * m, at)) != 0
                || (backward && (rc = read_at(x, x->fd_t, tb, sizeof *tb * m, at)) != 0))
                break;
            /* the output goes over the inputs of the block, read: tb[k - lo] becomes event k's output */
            for (uint64_t k = hi; k-- > lo;) {
                double c = cb[k - lo], v = c;
                if (backward) {
                    double t = tb[k - lo], lim = INFINITY;
                    while (lr && lr->loc == r && lr->idx >= k) {
                        if (lr->idx == k && lr->v < lim)
                            lim = lr->v;
                        lr = st_extsort_next(x->lims);
                    }
                    if (k + 1 < n) {
                        double j1 = c1 - clc_forward_base(t1, 0, t, c, mu);
                        v = clc_backward_step(&s, c, lim, c1, j1, o1, gamma);
                        x->st->backward_moved += s > 0;
                    }
                    t1 = t;
                }
                tb[k - lo] = v;
                c1 = c;
                o1 = v;
            }
            rc = write_at(x, x->fd_t, tb, sizeof *tb * m, at);
            hi = lo;
        }
        while (rc == 0 && lr && lr->loc == r)   /* none: every event was passed */
            lr = st_extsort_next(x->lims);
    }
    if (rc == 0 && backward && st_extsort_failed(x->lims))
        rc = fail(x, st_extsort_error(x->lims));
    free(cb);
    free(tb);
    return rc;
}

/* ------------------------------------------------------------ output */

#define CT_BLOCK 512          /* events a cache slot holds */
#define CT_SLOTS 1024         /* 4 MiB of cache */

struct clc_times {
    int fd;
    uint32_t n;
    uint64_t *base;
    uint64_t total;
    struct st_blockcache cache;   /* CT_SLOTS blocks of CT_BLOCK times, by a hash of the block */
    char dir[4096];           /* where the file is (nameless): for the message */
    char err[4400];
    int failed;
};

double clc_times_get(struct clc_times *ct, uint32_t r, uint64_t i)
{
    uint64_t g = ct->base[r] + i, blk = g / CT_BLOCK;
    uint32_t s = (uint32_t)(((blk * UINT64_C(0x9e3779b97f4a7c15)) >> 52) % CT_SLOTS);
    uint64_t from = blk * CT_BLOCK, k = ct->total - from < CT_BLOCK ? ct->total - from : CT_BLOCK;
    const double *v = st_blockcache_get(&ct->cache, s, blk, from * sizeof *v, sizeof *v * k);
    if (!v) {
        if (!ct->failed)
            snprintf(ct->err, sizeof ct->err, "reading the repaired times back from their file in %s: %s", ct->dir,
                     st_blockcache_why(&ct->cache));
        ct->failed = 1;
        return 0;
    }
    return v[g % CT_BLOCK];
}

const char *clc_times_error(const struct clc_times *ct)
{
    return ct->failed ? ct->err : NULL;
}

void clc_times_free(struct clc_times *ct)
{
    if (!ct)
        return;
    if (ct->fd >= 0)
        close(ct->fd);
    st_blockcache_free(&ct->cache);
    free(ct->base);
    free(ct);
}

/* ------------------------------------------------------------ the whole */

int clc_stream_correct(uint32_t nlocs, const uint64_t *nevents, clc_fill_fn fill, void *fill_ctx,
                       const struct mg_result *match, const uint32_t *domain_of, uint32_t ndomains, const double *lmin,
                       const struct clc_params *p, const struct clc_stream_config *cfg, struct clc_times **out,
                       struct clc_stats *stats, struct clc_stream_usage *usage, char *err, size_t errlen)
{
    *out = NULL;
    struct clc_params def;
    struct clc_stats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    if (usage)
        memset(usage, 0, sizeof *usage);
    if (!(p = clc_params_checked(p, &def, err, errlen)))
        return -1;
    if (nlocs >= (1u << 30)) {
        snprintf(err, errlen, "clc: %u locations: at most 2^30", nlocs);
        return -1;
    }
    size_t memory = cfg && cfg->memory ? cfg->memory : (size_t)64 << 20;
    struct sx x = { 0 };
    x.n = nlocs;
    x.nev = nevents;
    x.dom = domain_of;
    x.ndomains = domain_of ? ndomains : nlocs;
    x.lmin = lmin;
    x.lat_coll = clc_coll_latency(lmin, x.ndomains);
    x.mu = p->mu;
    x.match = match;
    x.st = stats;
    x.err = err;
    x.errlen = errlen;
    x.dir = cfg && cfg->spill_dir ? cfg->spill_dir : st_temp_dir();
    x.fd_t = x.fd_c = -1;
    x.roles.fd = -1;
    struct clc_times *ct = NULL;
    size_t nl = nlocs ? nlocs : 1;
    for (uint32_t r = 0; domain_of && r < nlocs; r++)
        if (domain_of[r] >= ndomains) {
            snprintf(err, errlen, "clc: location %u: clock domain %u of %u", r, domain_of[r], ndomains);
            return -1;
        }
    /* windows: half the memory, shared by the locations, 4 to 4096 events each */
    x.win = memory / 2 / ((sizeof(double) + sizeof(double) + sizeof(struct role_rec)) * nl);
    x.win = x.win < 4 ? 4 : x.win > 65536 ? 65536 : x.win;
    x.base = malloc(sizeof *x.base * (nl + 1));
    x.loc = calloc(nl, sizeof *x.loc);
    x.heap = malloc(sizeof *x.heap * nl);
    if (!x.base || !x.loc || !x.heap) {
        fail(&x, "out of memory");
        goto done;
    }
    uint64_t total = 0;
    for (uint32_t r = 0; r < nlocs; r++) {
        x.base[r] = total;
        total += nevents[r];
        x.loc[r].n = nevents[r];
        if (nevents[r] && (!(x.loc[r].tw = malloc(sizeof *x.loc[r].tw * x.win))
                           || !(x.loc[r].rw = malloc(sizeof *x.loc[r].rw * x.win))
                           || !(x.loc[r].cw = malloc(sizeof *x.loc[r].cw * x.win)))) {
            fail(&x, "out of memory");
            goto done;
        }
    }
    x.base[nlocs] = total;
    if ((x.fd_t = st_nameless_file(x.dir, "clc")) < 0 || (x.fd_c = st_nameless_file(x.dir, "clc")) < 0) {
        fail_io(&x, "making");
        goto done;
    }
    char e[4400];
    if (!(x.lims = st_extsort_new(sizeof(struct lim_rec), lim_cmp, memory / 4, x.dir, e, sizeof e))) {
        fail(&x, e);
        goto done;
    }
    if (clc_roles_build(match, nlocs, nevents, x.dir, memory / 4, &x.roles, err, errlen) != 0) {
        x.failed = 1;
        goto done;
    }
    stats->skipped_collectives = x.roles.skipped_collectives;
    for (uint32_t r = 0; r < nlocs; r++) {
        x.loc[r].rnext = x.roles.first[r];
        x.loc[r].rend = x.roles.first[r + 1];
    }
    if (stage_input(&x, fill, fill_ctx) != 0 || stage_forward(&x) != 0)
        goto done;
    uint64_t role_bytes = x.roles.n * sizeof(struct role_rec) + x.roles.spilled_bytes;
    clc_roles_free(&x.roles);
    if (st_extsort_finish(x.lims) != 0) {
        fail(&x, st_extsort_error(x.lims));
        goto done;
    }
    if (stage_backward(&x, p->gamma_back, p->mu, p->backward) != 0)
        goto done;
    if (!(ct = calloc(1, sizeof *ct)) || st_blockcache_init(&ct->cache, x.fd_t, sizeof(double) * CT_BLOCK, CT_SLOTS) != 0) {
        free(ct);
        ct = NULL;
        fail(&x, "out of memory");
        goto done;
    }
    ct->fd = x.fd_t;
    x.fd_t = -1;
    snprintf(ct->dir, sizeof ct->dir, "%s", x.dir);
    ct->n = nlocs;
    ct->base = x.base;
    x.base = NULL;
    ct->total = total;
    if (usage) {
        usage->disk_bytes = role_bytes + st_extsort_spilled_bytes(x.lims) + total * 2 * sizeof(double);
        usage->max_messages_in_flight = x.max_sent;
        usage->max_open_instances = x.max_open;
    }
    *out = ct;
done:
    for (uint32_t r = 0; x.loc && r < nlocs; r++) {
        free(x.loc[r].tw);
        free(x.loc[r].rw);
        free(x.loc[r].cw);
    }
    for (size_t i = 0; i < x.open.cap; i++)
        if (x.open.used[i])
            inst_free((struct open_inst *)(uintptr_t)x.open.values[i]);
    u64map_free(&x.open);
    u64map_free(&x.sent);
    u64map_free(&x.waiting);
    st_extsort_free(x.lims);
    free(x.loc);
    free(x.heap);
    free(x.base);
    free(x.ev);
    clc_roles_free(&x.roles);
    if (x.fd_t >= 0)
        close(x.fd_t);
    if (x.fd_c >= 0)
        close(x.fd_c);
    return *out ? 0 : -1;
}
