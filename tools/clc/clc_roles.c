/* clc_roles.c — see clc_roles.h. */
#include <config.h>
#include "clc_roles.h"
#include "clc_coll.h"
#include "collstream.h"
#include "extsort.h"
#include "fsutil.h"
#include "msgstream.h"
#include "table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KQ(kind, low) ((uint32_t)(kind) << 30 | (uint32_t)(low))

struct rb {
    const struct mg_result *m;
    uint32_t n;
    const uint64_t *nev;
    struct clc_roles *out;
    const char *dir;
    int failed;
    char *err;
    size_t errlen;
};

static int fail(struct rb *x, const char *what)
{
    if (!x->failed)
        snprintf(x->err, x->errlen, "clc: %s", what);
    x->failed = 1;
    return -1;
}

static int write_at(struct rb *x, const void *p, size_t len, uint64_t off)
{
    if (st_pwrite_all(x->out->fd, p, len, off) == 0)
        return 0;
    char m[4200];
    snprintf(m, sizeof m, "writing a file in %s: %s", x->dir, strerror(errno));
    return fail(x, m);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

int clc_sorted_has(const uint64_t *v, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == key;
}

static int role_cmp(const void *pa, const void *pb)
{
    const struct role_rec *a = pa, *b = pb;
    int c;
    if ((c = cmp_u64(a->loc, b->loc)) || (c = cmp_u64(a->idx, b->idx)) || (c = cmp_u64(KIND(a), KIND(b)))
        || (c = cmp_u64(a->ref, b->ref)))
        return c;
    return cmp_u64(a->kq, b->kq);
}

static int valid_ref(const struct rb *x, const struct mg_event_ref *e)
{
    return e->rank < x->n && e->index < x->nev[e->rank];
}

static int put_role(struct rb *x, struct st_extsort *s, uint32_t loc, uint64_t idx, enum clc_role_kind k, uint32_t low,
                    uint64_t ref, uint64_t aux)
{
    struct role_rec r = { idx, ref, aux, loc, KQ(k, low) };
    if (st_extsort_put(s, &r) != 0)
        return fail(x, st_extsort_error(s));
    return 0;
}

static int put_roles(struct rb *x, struct st_extsort *s)
{
    const struct mg_result *m = x->m;
    struct mg_msg_reader it;
    mg_msgs_begin(m, &it);
    for (const struct mg_message *msg; (msg = mg_msgs_next(&it));) {
        if (!valid_ref(x, &msg->send) || !valid_ref(x, &msg->recv)) {
            char w[200];
            snprintf(w, sizeof w, "message %zu refers to an event that does not exist", it.index);
            return fail(x, w);
        }
        if (put_role(x, s, msg->recv.rank, msg->recv.index, K_RECV, msg->send.rank, it.index, msg->send.index) != 0
            || put_role(x, s, msg->send.rank, msg->send.index, K_SEND, 0, it.index, 0) != 0)
            return -1;
    }
    if (mg_msgs_error(m))
        return fail(x, mg_msgs_error(m));
    struct mg_coll_reader ct;
    mg_colls_begin(m, &ct);
    struct mg_flow flow = { 0 };   /* each instance's, in the same storage */
    int rc = 0;
    for (const struct mg_collective *c; rc == 0 && (c = mg_colls_next(&ct));) {
        for (uint32_t k = 0; k < c->nmembers && rc == 0; k++)
            if (!valid_ref(x, &c->members[k].enter) || !valid_ref(x, &c->members[k].exit)) {
                char w[200];
                snprintf(w, sizeof w, "collective %zu refers to an event that does not exist", ct.index);
                rc = fail(x, w);
            }
        if (rc != 0)
            break;
        /* what its data flow forces (nothing: no records) */
        if (mg_flow_of(m, c, &flow) != 0) {
            rc = fail(x, "out of memory");
            break;
        }
        if (clc_coll_shape(&flow) == MG_SKIP) {
            x->out->skipped_collectives++;
            continue;
        }
        uint64_t at = m->coll_file ? ct.offset : 0;
        for (uint32_t k = 0; k < c->nmembers && rc == 0; k++)
            if (put_role(x, s, c->members[k].enter.rank, c->members[k].enter.index, K_ENTRY, k, ct.index, at) != 0
                || put_role(x, s, c->members[k].exit.rank, c->members[k].exit.index, K_EXIT, k, ct.index, at) != 0)
                rc = -1;
    }
    mg_colls_end(&ct);
    mg_flow_free(&flow);
    if (rc == 0 && mg_colls_error(m))
        rc = fail(x, mg_colls_error(m));
    return rc;
}

/* Events claimed by more than one role, seen while the sorted roles are
 * written: (instance, conflict) pairs, and whether a receive claimed it;
 * the event being read is noted as its records go by. */
struct claims {
    uint64_t (*pair)[2];      /* instance, conflict number */
    uint32_t npair, cpair;
    unsigned char *has_recv;  /* by conflict number */
    uint32_t nconf, cconf;
    /* the event being read: its receives and instance ends so far, its first pair */
    int open;
    uint32_t loc, mark;
    uint64_t idx;
    uint32_t nrecv, ncoll;
};

/* The event read so far ends: a conflict when two claimed it and one is an
 * instance's end (between receives the lowest message's wins, as the
 * forward pass takes the first). 0, or -1 when out of memory. */
static int close_event(struct claims *cl)
{
    if (!cl->open)
        return 0;
    cl->open = 0;
    if (cl->nrecv + cl->ncoll < 2 || !cl->ncoll) {
        cl->npair = cl->mark;   /* no conflict: its pairs were tentative */
        return 0;
    }
    if (cl->nconf == cl->cconf && st_grow((void **)&cl->has_recv, &cl->cconf, 1) != 0)
        return -1;
    cl->has_recv[cl->nconf++] = cl->nrecv > 0;
    return 0;
}

/* Record r's claim on its event (records come sorted by event). */
static int note_claim(struct claims *cl, const struct role_rec *r)
{
    if (cl->open && (r->loc != cl->loc || r->idx != cl->idx) && close_event(cl) != 0)
        return -1;
    if (!cl->open) {
        cl->open = 1;
        cl->loc = r->loc;
        cl->idx = r->idx;
        cl->nrecv = cl->ncoll = 0;
        cl->mark = cl->npair;
    }
    if (KIND(r) == K_RECV) {
        cl->nrecv++;
    } else if (KIND(r) == K_ENTRY || KIND(r) == K_EXIT) {
        if (cl->npair == cl->cpair && st_grow((void **)&cl->pair, &cl->cpair, sizeof *cl->pair) != 0)
            return -1;
        cl->pair[cl->npair][0] = r->ref;
        cl->pair[cl->npair++][1] = cl->nconf;   /* its number if it turns out a conflict */
        cl->ncoll++;
    }
    return 0;
}

static int cmp_pair(const void *pa, const void *pb)
{
    const uint64_t *a = pa, *b = pb;
    int c = cmp_u64(a[0], b[0]);
    return c ? c : cmp_u64(a[1], b[1]);
}

static int cmp_pair_by_conflict(const void *pa, const void *pb)
{
    const uint64_t *a = pa, *b = pb;
    int c = cmp_u64(a[1], b[1]);
    return c ? c : cmp_u64(a[0], b[0]);
}

/* clc.c's rule, in its order: receives claim first; an instance is left
 * out when one of its events has a role already (a receive's, an earlier
 * instance's that was not left out, its own). Only the instances in
 * conflicts are looked at. */
static int resolve(struct rb *x, struct claims *cl)
{
    if (!cl->npair)
        return 0;
    uint64_t(*byc)[2] = malloc(sizeof *byc * cl->npair);
    size_t *first = malloc(sizeof *first * (cl->nconf + 1));
    if (!byc || !first) {
        free(byc);
        free(first);
        return fail(x, "out of memory");
    }
    memcpy(byc, cl->pair, sizeof *byc * cl->npair);
    qsort(byc, cl->npair, sizeof *byc, cmp_pair_by_conflict);
    for (size_t c = 0, i = 0; c <= cl->nconf; c++) {
        while (i < cl->npair && byc[i][1] < c)
            i++;
        first[c] = i;
    }
    qsort(cl->pair, cl->npair, sizeof *cl->pair, cmp_pair);
    int rc = 0;
    uint32_t nsk = 0, csk = 0;
    uint64_t *sk = NULL;
    for (size_t i = 0; i < cl->npair && rc == 0;) {
        uint64_t ci = cl->pair[i][0];
        int skip = 0;
        for (; i < cl->npair && cl->pair[i][0] == ci; i++) {
            uint64_t cf = cl->pair[i][1];
            if (i + 1 < cl->npair && cl->pair[i + 1][0] == ci && cl->pair[i + 1][1] == cf)
                skip = 1;   /* two of its own ends on one event */
            if (cl->has_recv[cf])
                skip = 1;
            for (size_t q = first[cf]; q < first[cf + 1]; q++)
                if (byc[q][0] < ci && !clc_sorted_has(sk, nsk, byc[q][0]))
                    skip = 1;   /* an earlier instance kept it */
        }
        if (skip) {
            if (nsk == csk && st_grow((void **)&sk, &csk, sizeof *sk) != 0)
                rc = -1;
            else
                sk[nsk++] = ci;
            x->out->skipped_collectives++;
        }
    }
    free(byc);
    free(first);
    x->out->skipped = sk;
    x->out->nskipped = nsk;
    return rc == 0 ? 0 : fail(x, "out of memory");
}

/* Sort the roles, write them to the file (each location's a run: rstart),
 * and resolve what was claimed twice. */
static int sort_roles(struct rb *x, size_t budget)
{
    char e[4400];
    struct st_extsort *s = st_extsort_new(sizeof(struct role_rec), role_cmp, budget, x->dir, e, sizeof e);
    if (!s)
        return fail(x, e);
    struct claims cl = { 0 };
    int rc = put_roles(x, s);
    if (rc == 0 && st_extsort_finish(s) != 0)
        rc = fail(x, st_extsort_error(s));
    enum { BLOCK = 4096 };
    struct role_rec *buf = rc == 0 ? malloc(sizeof *buf * BLOCK) : NULL;
    size_t nb = 0;
    if (rc == 0 && !buf)
        rc = fail(x, "out of memory");
    uint64_t at = 0;
    while (rc == 0) {
        const struct role_rec *r = st_extsort_next(s);
        if (!r) {
            if (st_extsort_failed(s))
                rc = fail(x, st_extsort_error(s));
            else if (close_event(&cl) != 0)
                rc = fail(x, "out of memory");
            break;
        }
        if (note_claim(&cl, r) != 0) {
            rc = fail(x, "out of memory");
            break;
        }
        x->out->first[r->loc + 1]++;
        buf[nb++] = *r;
        if (nb == BLOCK) {
            rc = write_at(x, buf, sizeof *buf * nb, at * sizeof *buf);
            at += nb;
            nb = 0;
        }
    }
    if (rc == 0 && nb)
        rc = write_at(x, buf, sizeof *buf * nb, at * sizeof *buf);
    at += nb;
    x->out->spilled_bytes = st_extsort_spilled_bytes(s);
    st_extsort_free(s);
    free(buf);
    x->out->n = at;
    for (uint32_t l = 0; l < x->n; l++)
        x->out->first[l + 1] += x->out->first[l];
    if (rc == 0)
        rc = resolve(x, &cl);
    free(cl.pair);
    free(cl.has_recv);
    return rc;
}


int clc_roles_build(const struct mg_result *m, uint32_t nlocs, const uint64_t *nevents, const char *dir,
                    size_t budget, struct clc_roles *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    struct rb x = { m, nlocs, nevents, out, dir, 0, err, errlen };
    if (!(out->first = calloc((size_t)nlocs + 1, sizeof *out->first)))
        return fail(&x, "out of memory");
    if ((out->fd = st_nameless_file(dir, "clc")) < 0) {
        char w[4200];
        snprintf(w, sizeof w, "making a file in %s: %s", dir, strerror(errno));
        return fail(&x, w);
    }
    return sort_roles(&x, budget);
}

void clc_roles_free(struct clc_roles *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->first);
    free(r->skipped);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}
