/* hubstore.c — see hubstore.h.
 *
 * A record: a u32 kind and count(s), then the members.
 *   group: HS_GROUP, nsrc, ndst; nsrc (u32 vertex, f64 weight); ndst likewise
 *   chain: HS_CHAIN, n, 0;       n (u32 enter vertex, f64 weight, u32 exit vertex, f64 weight)
 * The records are read back front to back through a buffer that holds at
 * least the largest record. */
#include <config.h>
#include "hubstore.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { HS_GROUP = 1, HS_CHAIN = 2 };
#define READ_BLOCK ((size_t)1 << 20)

struct rec_head {
    uint32_t kind, a, b;
};

void hs_init(struct hub_store *h, const char *dir)
{
    memset(h, 0, sizeof *h);
    h->file.fd = -1;
    h->dir = dir;
}

void hs_free(struct hub_store *h)
{
    free(h->mem);
    if (h->spilled)
        st_aside_close(&h->file);
    pmin_free(&h->pairs);
    memset(h, 0, sizeof *h);
    h->file.fd = -1;
}

static int fail(struct hub_store *h, const char *why)
{
    if (!h->failed)
        snprintf(h->err, sizeof h->err, "%s", why);
    h->failed = 1;
    return -1;
}

/* n bytes at the end of the records: memory, or the file beyond HS_MEMORY */
static int append(struct hub_store *h, const void *p, size_t n)
{
    if (h->failed)
        return -1;
    if (!h->spilled && h->len + n > HS_MEMORY) {
        char err[512];
        if (st_aside_open(&h->file, h->dir, "synctrace-hubs", "the collectives' hubs", err, sizeof err) != 0)
            return fail(h, err);
        h->spilled = 1;
        if (st_aside_write(&h->file, h->mem, h->len) != 0)
            return fail(h, h->file.err);
        h->len = 0;
    }
    if (h->len + n > h->cap) {
        size_t cap = h->cap ? h->cap : 4096;
        while (cap < h->len + n)
            cap *= 2;
        uint8_t *m = realloc(h->mem, cap);
        if (!m)
            return fail(h, "out of memory");
        h->mem = m;
        h->cap = cap;
    }
    memcpy(h->mem + h->len, p, n);
    h->len += n;
    /* spilled: the buffer goes out whole, a block at a time */
    if (h->spilled && h->len >= READ_BLOCK) {
        if (st_aside_write(&h->file, h->mem, h->len) != 0)
            return fail(h, h->file.err);
        h->len = 0;
    }
    return 0;
}

static int append_side(struct hub_store *h, uint32_t n, const uint32_t *v, const double *w)
{
    for (uint32_t k = 0; k < n; k++) {
        uint8_t one[12];
        memcpy(one, &v[k], 4);
        memcpy(one + 4, &w[k], 8);
        if (append(h, one, sizeof one) != 0)
            return -1;
        if (fabs(w[k]) > h->wmax)
            h->wmax = fabs(w[k]);
    }
    return 0;
}

int hs_add_group(struct hub_store *h, uint32_t nsrc, const uint32_t *src, const double *sw, uint32_t ndst,
                 const uint32_t *dst, const double *dw)
{
    struct rec_head head = { HS_GROUP, nsrc, ndst };
    if (append(h, &head, sizeof head) != 0 || append_side(h, nsrc, src, sw) != 0
        || append_side(h, ndst, dst, dw) != 0)
        return -1;
    h->groups++;
    h->group_edges += (uint64_t)nsrc + ndst;
    return 0;
}

int hs_add_chain(struct hub_store *h, uint32_t n, const uint32_t *enter_v, const double *enter_w,
                 const uint32_t *exit_v, const double *exit_w)
{
    struct rec_head head = { HS_CHAIN, n, 0 };
    if (append(h, &head, sizeof head) != 0)
        return -1;
    for (uint32_t k = 0; k < n; k++) {
        uint8_t one[24];
        memcpy(one, &enter_v[k], 4);
        memcpy(one + 4, &enter_w[k], 8);
        memcpy(one + 12, &exit_v[k], 4);
        memcpy(one + 16, &exit_w[k], 8);
        if (append(h, one, sizeof one) != 0)
            return -1;
    }
    h->chain_hubs += n;
    return 0;
}

/* ---------- reading the records back ---------- */

struct reader {
    struct hub_store *h;
    uint8_t *buf;
    size_t cap, pos, len;
    uint64_t off;             /* next byte of the file */
};

/* A record's bytes, its head included. */
static size_t record_size(const struct rec_head *head)
{
    return sizeof *head + (head->kind == HS_GROUP ? 12 * ((size_t)head->a + head->b) : 24 * (size_t)head->a);
}

/* The next record, whole, at *p (its head first): 1, 0 at the end, -1. */
static int next_record(struct reader *r, const uint8_t **p, struct rec_head *head)
{
    struct hub_store *h = r->h;
    if (!h->spilled) {   /* all in memory */
        if (r->pos >= h->len)
            return 0;
        memcpy(head, h->mem + r->pos, sizeof *head);
        size_t n = record_size(head);
        *p = h->mem + r->pos;
        r->pos += n;
        return 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        size_t avail = r->len - r->pos;
        if (avail >= sizeof *head) {
            memcpy(head, r->buf + r->pos, sizeof *head);
            size_t n = record_size(head);
            if (avail >= n) {
                *p = r->buf + r->pos;
                r->pos += n;
                return 1;
            }
            if (n > r->cap) {   /* a record larger than the buffer */
                uint8_t *b = realloc(r->buf, n);
                if (!b)
                    return fail(h, "out of memory");
                r->buf = b;
                r->cap = n;
            }
        }
        /* refill: what is left to the front, then the file */
        memmove(r->buf, r->buf + r->pos, avail);
        r->pos = 0;
        r->len = avail;
        uint64_t left = h->file.end - r->off;
        size_t want = r->cap - r->len;
        if (want > left)
            want = (size_t)left;
        if (want && st_aside_read(&h->file, r->buf + r->len, want, r->off) != 0)
            return fail(h, h->file.err);
        r->off += want;
        r->len += want;
        if (!want && avail == 0)
            return 0;
        if (!want)
            return fail(h, "the collectives' hubs set aside: a record cut short");
    }
    return fail(h, "the collectives' hubs set aside: a damaged record");
}

static int reader_begin(struct reader *r, struct hub_store *h)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    if (h->spilled) {
        /* what is still buffered goes to the file first */
        if (h->len) {
            if (st_aside_write(&h->file, h->mem, h->len) != 0)
                return fail(h, h->file.err);
            h->len = 0;
        }
        r->cap = READ_BLOCK;
        if (!(r->buf = malloc(r->cap)))
            return fail(h, "out of memory");
    }
    return 0;
}

static void reader_end(struct reader *r)
{
    free(r->buf);
}

static void side_at(const uint8_t *p, uint32_t k, uint32_t *v, double *w)
{
    memcpy(v, p + 12 * (size_t)k, 4);
    memcpy(w, p + 12 * (size_t)k + 4, 8);
}

/* ---------- into the graph ---------- */

uint64_t hs_explicit_edges(void)
{
    const char *v = getenv("SYNCTRACE_HUB_EDGES");
    if (v && *v) {
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        if (!*end)
            return n;
    }
    return HS_EXPLICIT_EDGES;
}

int hs_plan(struct hub_store *h, uint32_t nbefore, uint64_t explicit_edges, uint32_t *nvert)
{
    h->lazy = h->group_edges > explicit_edges;
    uint64_t add = h->chain_hubs + (h->lazy ? 0 : h->groups);
    if (add > (uint64_t)UINT32_MAX - 1 - nbefore)
        return -1;
    *nvert = nbefore + (uint32_t)add;
    h->base_vertices = *nvert;
    return 0;
}

int hs_add_edges(struct hub_store *h, struct sv_graph *g, uint32_t first)
{
    struct reader r;
    if (reader_begin(&r, h) != 0)
        return -1;
    uint32_t next = first;
    const uint8_t *p;
    struct rec_head head;
    int rc;
    while ((rc = next_record(&r, &p, &head)) == 1) {
        const uint8_t *m = p + sizeof head;
        if (head.kind == HS_GROUP) {
            if (h->lazy)
                continue;
            uint32_t hub = next++, v;
            double w;
            for (uint32_t k = 0; k < head.a; k++) {
                side_at(m, k, &v, &w);
                if (sv_add_edge(g, v, hub, w) != 0)
                    goto oom;
            }
            for (uint32_t k = 0; k < head.b; k++) {
                side_at(m + 12 * (size_t)head.a, k, &v, &w);
                if (sv_add_edge(g, hub, v, w) != 0)
                    goto oom;
            }
        } else {
            /* prefix hubs in communicator rank order: entry k into hub k,
             * hub k-1 into hub k, hub k into the exit it bounds */
            uint32_t base = next;
            next += head.a;
            for (uint32_t k = 0; k < head.a; k++) {
                const uint8_t *q = m + 24 * (size_t)k;
                uint32_t ev, xv;
                double ew, xw;
                memcpy(&ev, q, 4);
                memcpy(&ew, q + 4, 8);
                memcpy(&xv, q + 12, 4);
                memcpy(&xw, q + 16, 8);
                if (sv_add_edge(g, ev, base + k, ew) != 0 || (k > 0 && sv_add_edge(g, base + k - 1, base + k, 0.0) != 0)
                    || (xv != UINT32_MAX && sv_add_edge(g, base + k, xv, xw) != 0))
                    goto oom;
            }
        }
    }
    reader_end(&r);
    if (rc < 0)
        return -1;
    if (h->lazy)
        sv_count_weight(g, h->wmax);
    return 0;
oom:
    reader_end(&r);
    return fail(h, "out of memory");
}

/* ---------- the lazy groups: checks and pair vertices ---------- */

/* The pair (s, t) at weight w or tighter; its vertex follows the base
 * ones in the order pairs were first made. 1, 0, -1 as pmin_put. */
static int pair_put(struct hub_store *h, uint32_t s, uint32_t t, double w)
{
    if (h->base_vertices + (uint64_t)h->pairs.n >= UINT32_MAX - 1)
        return -1;
    return pmin_put(&h->pairs, s, t, w);
}

/* One side of a group, decoded once for all the vectors of a pass. */
struct side {
    uint32_t *v;
    double *w;                /* the edge's weight */
    double *wd;               /* w + delta, as the solver adds them */
    uint32_t cap;
};

static void side_free(struct side *x)
{
    free(x->v);
    free(x->w);
    free(x->wd);
}

static int side_load(struct side *x, const uint8_t *p, uint32_t n, double delta)
{
    if (n > x->cap) {
        uint32_t *v = realloc(x->v, sizeof *v * n);
        double *w = v ? realloc(x->w, sizeof *w * n) : NULL, *wd = w ? realloc(x->wd, sizeof *wd * n) : NULL;
        if (v)
            x->v = v;
        if (w)
            x->w = w;
        if (wd)
            x->wd = wd;
        if (!v || !w || !wd)
            return -1;
        x->cap = n;
    }
    for (uint32_t j = 0; j < n; j++) {
        side_at(p, j, &x->v[j], &x->w[j]);
        x->wd[j] = x->w[j] + delta;
    }
    return 0;
}

/* Through the hub from side `from` to side `to` (forward: sources to
 * sinks; for distances to a vertex, sinks to sources): the labels of `to`
 * the best of `from` lowers by more than `two`. Returns how many, or -1. */
static int through(struct hub_store *h, double *d, uint32_t nv, const struct side *from, uint32_t nfrom,
                   const struct side *to, uint32_t nto, double two, int backward, int pairs, size_t *made)
{
    uint32_t best_j = UINT32_MAX;
    double best = INFINITY;
    for (uint32_t j = 0; j < nfrom; j++) {
        uint32_t v = from->v[j];
        double x = v < nv ? d[v] + from->wd[j] : INFINITY;
        if (x < best)
            best = x, best_j = j;
    }
    if (!(best < INFINITY))
        return 0;
    int lowered = 0;
    for (uint32_t j = 0; j < nto; j++) {
        uint32_t v = to->v[j];
        double x = best + to->wd[j];
        if (v >= nv || !(x < d[v] - two))
            continue;
        if (pairs) {
            uint32_t b = from->v[best_j];
            int put = backward ? pair_put(h, v, b, to->w[j] + from->w[best_j])
                               : pair_put(h, b, v, from->w[best_j] + to->w[j]);
            if (put < 0)
                return -1;
            *made += (size_t)put;
        }
        d[v] = x;
        lowered++;
    }
    return lowered;
}

/* Lanes: with several vectors in a pass (the precision's rows) each
 * vertex's labels in all of them lie side by side, two doubles at a time
 * (GCC's and Clang's vector extensions: SSE2 or NEON), so that a group's
 * members are read once per pass, not once per vector; the same sums and
 * comparisons as `through`, so the same labels. Unused lanes are +INF. */
typedef double f64x2 __attribute__((vector_size(16)));
typedef int64_t i64x2 __attribute__((vector_size(16)));

static inline f64x2 load2(const double *p)
{
    f64x2 x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline f64x2 pick(f64x2 yes, f64x2 no, i64x2 mask)
{
    return (f64x2)(((i64x2)yes & mask) | ((i64x2)no & ~mask));
}

struct lanes {
    double *d;                /* [nv][stride] */
    size_t stride;            /* lanes per vertex, even */
    double *best;             /* [stride] */
    uint32_t k[64];           /* the vectors in the lanes */
    uint32_t n;
};

/* Through the hub from `from` to `to` in every lane: labels lowered. */
static uint64_t through_lanes(struct lanes *l, uint32_t nv, const struct side *from, uint32_t nfrom,
                              const struct side *to, uint32_t nto, double two)
{
    size_t st = l->stride;
    for (size_t q = 0; q < st; q++)
        l->best[q] = INFINITY;
    for (uint32_t j = 0; j < nfrom; j++) {
        if (from->v[j] >= nv)
            continue;
        const double *row = l->d + (size_t)from->v[j] * st;
        f64x2 wd = { from->wd[j], from->wd[j] };
        for (size_t q = 0; q < st; q += 2) {
            f64x2 x = load2(row + q) + wd, b = load2(l->best + q);
            f64x2 m = pick(x, b, (i64x2)(x < b));
            memcpy(l->best + q, &m, sizeof m);
        }
    }
    uint64_t lowered = 0;
    f64x2 tw = { two, two };
    for (uint32_t j = 0; j < nto; j++) {
        if (to->v[j] >= nv)
            continue;
        double *row = l->d + (size_t)to->v[j] * st;
        f64x2 wd = { to->wd[j], to->wd[j] };
        for (size_t q = 0; q < st; q += 2) {
            f64x2 x = load2(l->best + q) + wd, d = load2(row + q);
            i64x2 lt = (i64x2)(x < d - tw);
            f64x2 m = pick(x, d, lt);
            memcpy(row + q, &m, sizeof m);
            lowered -= (uint64_t)(lt[0] + lt[1]);
        }
    }
    return lowered;
}

/* The vectors of one direction into lanes (0: none of them), or back. */
static int lanes_fill(struct lanes *l, double *const *vec, const int *backward, uint32_t nvec, uint32_t nv,
                      int want_backward)
{
    l->n = 0;
    for (uint32_t k = 0; k < nvec && l->n < 64; k++)
        if (!backward[k] == !want_backward)
            l->k[l->n++] = k;
    if (l->n < 2)
        return 0;
    l->stride = (l->n + 1) & ~(size_t)1;
    l->d = malloc(sizeof *l->d * l->stride * (nv ? nv : 1));
    l->best = malloc(sizeof *l->best * l->stride);
    if (!l->d || !l->best)
        return -1;
    for (uint32_t v = 0; v < nv; v++) {
        double *row = l->d + (size_t)v * l->stride;
        for (uint32_t q = 0; q < l->n; q++)
            row[q] = vec[l->k[q]][v];
        for (size_t q = l->n; q < l->stride; q++)
            row[q] = INFINITY;
    }
    return 1;
}

static void lanes_back(struct lanes *l, double *const *vec, uint32_t nv)
{
    for (uint32_t v = 0; v < nv; v++)
        for (uint32_t q = 0; q < l->n; q++)
            vec[l->k[q]][v] = l->d[(size_t)v * l->stride + q];
}

static void lanes_free(struct lanes *l)
{
    free(l->d);
    free(l->best);
    l->d = l->best = NULL;
}

int hs_check(struct hub_store *h, double *const *vec, const int *backward, uint32_t nvec, uint32_t nv,
             double delta, double tol, size_t *pairs_made)
{
    if (!h->lazy || !h->groups)
        return 0;
    struct reader r;
    if (reader_begin(&r, h) != 0)
        return -1;
    h->passes++;
    struct side src = { 0 }, dst = { 0 };
    struct lanes fw = { 0 }, bw = { 0 };   /* several vectors of one direction, without pairs */
    uint64_t lowered = 0;
    int rc, has_fw = 0, has_bw = 0;
    size_t made = 0;
    const uint8_t *p;
    struct rec_head head;
    double two = 2 * tol;
    if (!pairs_made && nvec <= 64) {
        if ((has_fw = lanes_fill(&fw, vec, backward, nvec, nv, 0)) < 0
            || (has_bw = lanes_fill(&bw, vec, backward, nvec, nv, 1)) < 0)
            goto oom;
    }
    while ((rc = next_record(&r, &p, &head)) == 1) {
        if (head.kind != HS_GROUP)
            continue;
        if (side_load(&src, p + sizeof head, head.a, delta) != 0
            || side_load(&dst, p + sizeof head + 12 * (size_t)head.a, head.b, delta) != 0)
            goto oom;
        if (has_fw)
            lowered += through_lanes(&fw, nv, &src, head.a, &dst, head.b, two);
        if (has_bw)
            lowered += through_lanes(&bw, nv, &dst, head.b, &src, head.a, two);
        for (uint32_t k = 0; k < nvec; k++) {
            if ((backward[k] && has_bw) || (!backward[k] && has_fw))
                continue;   /* in the lanes */
            int n = backward[k] ? through(h, vec[k], nv, &dst, head.b, &src, head.a, two, 1, pairs_made != NULL, &made)
                                : through(h, vec[k], nv, &src, head.a, &dst, head.b, two, 0, pairs_made != NULL, &made);
            if (n < 0)
                goto oom;
            lowered += (uint64_t)n;
        }
    }
    reader_end(&r);
    side_free(&src);
    side_free(&dst);
    if (has_fw)
        lanes_back(&fw, vec, nv);
    if (has_bw)
        lanes_back(&bw, vec, nv);
    lanes_free(&fw);
    lanes_free(&bw);
    if (rc < 0)
        return -1;
    if (pairs_made)
        *pairs_made = made;
    return lowered > INT32_MAX ? INT32_MAX : (int)lowered;
oom:
    reader_end(&r);
    side_free(&src);
    side_free(&dst);
    lanes_free(&fw);
    lanes_free(&bw);
    return fail(h, "out of memory");
}

struct sv_graph *hs_regraph(struct hub_store *h, struct sv_graph *g)
{
    const struct pair_min *p = &h->pairs;
    uint32_t nv = h->base_vertices + (uint32_t)p->n;
    struct sv_graph *ng = sv_graph_grow(g, nv - sv_vertices(g), 2 * p->n);
    if (!ng)
        return NULL;
    for (size_t i = 0; i < p->n; i++) {
        uint32_t m = h->base_vertices + (uint32_t)i;
        if (sv_add_edge(ng, p->u[i], m, p->w[i]) != 0 || sv_add_edge(ng, m, p->v[i], 0.0) != 0) {
            sv_graph_free(ng);
            return NULL;
        }
    }
    if (sv_finish(ng) != 0) {
        sv_graph_free(ng);
        return NULL;
    }
    sv_graph_free(g);
    return ng;
}

uint32_t hs_full_vertices(const struct hub_store *h, uint32_t nv_graph)
{
    if (!h->lazy)
        return nv_graph;
    uint64_t n = (uint64_t)h->base_vertices + h->groups;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

size_t hs_full_edges(const struct hub_store *h, size_t ne_graph)
{
    return h->lazy ? h->base_edges + (size_t)h->group_edges : ne_graph;
}
