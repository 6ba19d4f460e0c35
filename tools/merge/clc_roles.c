/* clc_roles.c — see clc_roles.h. */
#include <config.h>
#include "clc_roles.h"
#include "clc_coll.h"
#include "collstream.h"
#include "extsort.h"
#include "fsutil.h"
#include "msgstream.h"

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
        struct clc_coll shape;
        int ok = clc_coll_init(&shape, m, c) == 0;
        enum mg_shape sh = shape.sh;
        clc_coll_free(&shape);
        if (!ok) {
            rc = fail(x, "out of memory");
            break;
        }
        if (sh == MG_SKIP) {
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
    if (rc == 0 && mg_colls_error(m))
        rc = fail(x, mg_colls_error(m));
    return rc;
}

/* Events claimed by more than one role, seen while the sorted roles are
 * written: (instance, event) pairs, and whether a receive claimed it. */
struct claims {
    uint64_t (*pair)[2];      /* instance, conflict number */
    size_t npair, cpair;
    unsigned char *has_recv;  /* by conflict number */
    size_t nconf, cconf;
    uint64_t *losing;         /* messages whose receive event another took first */
    size_t nlosing, closing;
};

static int push_u64(uint64_t **v, size_t *n, size_t *cap, uint64_t a)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        uint64_t *p = realloc(*v, sizeof *p * c);
        if (!p)
            return -1;
        *v = p;
        *cap = c;
    }
    (*v)[(*n)++] = a;
    return 0;
}

/* The records of one event, g[0 .. n): a conflict when two claim it. */
static int note_claims(struct claims *cl, const struct role_rec *g, size_t n)
{
    size_t nrecv = 0, ncoll = 0;
    for (size_t i = 0; i < n; i++) {
        nrecv += KIND(&g[i]) == K_RECV;
        ncoll += KIND(&g[i]) == K_ENTRY || KIND(&g[i]) == K_EXIT;
    }
    if (nrecv + ncoll < 2)
        return 0;
    int first = 1;
    for (size_t i = 0; i < n; i++)
        if (KIND(&g[i]) == K_RECV) {
            if (!first && push_u64(&cl->losing, &cl->nlosing, &cl->closing, g[i].ref) != 0)
                return -1;
            first = 0;
        }
    if (!ncoll)
        return 0;
    if (cl->nconf == cl->cconf) {
        size_t c = cl->cconf ? cl->cconf * 2 : 16;
        unsigned char *p = realloc(cl->has_recv, c);
        if (!p)
            return -1;
        cl->has_recv = p;
        cl->cconf = c;
    }
    cl->has_recv[cl->nconf] = nrecv > 0;
    for (size_t i = 0; i < n; i++)
        if (KIND(&g[i]) == K_ENTRY || KIND(&g[i]) == K_EXIT) {
            if (cl->npair == cl->cpair) {
                size_t c = cl->cpair ? cl->cpair * 2 : 16;
                void *p = realloc(cl->pair, sizeof *cl->pair * c);
                if (!p)
                    return -1;
                cl->pair = p;
                cl->cpair = c;
            }
            cl->pair[cl->npair][0] = g[i].ref;
            cl->pair[cl->npair++][1] = cl->nconf;
        }
    cl->nconf++;
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

static int cmp_u64p(const void *a, const void *b)
{
    return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* clc.c's rule, in its order: receives claim first; an instance is left
 * out when one of its events has a role already (a receive's, an earlier
 * instance's that was not left out, its own). Only the instances in
 * conflicts are looked at. */
static int resolve(struct rb *x, struct claims *cl)
{
    if (cl->nlosing)
        qsort(cl->losing, cl->nlosing, sizeof *cl->losing, cmp_u64p);
    x->out->losing = cl->losing;
    x->out->nlosing = cl->nlosing;
    cl->losing = NULL;
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
    size_t nsk = 0, csk = 0;
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
            rc = push_u64(&sk, &nsk, &csk, ci);
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
    size_t nb = 0, gfrom = 0;   /* buf[gfrom .. nb): the event being gathered */
    if (rc == 0 && !buf)
        rc = fail(x, "out of memory");
    uint64_t at = 0;
    for (const struct role_rec *r; rc == 0;) {
        r = st_extsort_next(s);
        if (!r && st_extsort_failed(s)) {
            rc = fail(x, st_extsort_error(s));
            break;
        }
        if (!r || (nb > gfrom && (r->loc != buf[gfrom].loc || r->idx != buf[gfrom].idx))) {
            if (nb > gfrom && note_claims(&cl, buf + gfrom, nb - gfrom) != 0)
                rc = fail(x, "out of memory");
            gfrom = nb;
        }
        if (rc != 0 || ((!r || nb == BLOCK) && nb > 0)) {
            /* write the block; keep the event being gathered */
            size_t keep = r ? nb - gfrom : 0;
            if (rc == 0 && keep == BLOCK)
                rc = fail(x, "an event with more than 4096 roles (a broken match)");
            if (rc == 0)
                rc = write_at(x, buf, sizeof *buf * (nb - keep), at * sizeof *buf);
            at += nb - keep;
            if (keep)
                memmove(buf, buf + gfrom, sizeof *buf * keep);
            nb = keep;
            gfrom = 0;
        }
        if (!r || rc != 0)
            break;
        x->out->first[r->loc + 1]++;
        buf[nb++] = *r;
    }
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
    free(cl.losing);
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
    free(r->losing);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}
