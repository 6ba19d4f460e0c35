/* clc_coll.c — see clc_coll.h. */
#include "clc_coll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Member -> groups, both ways (counting sort), and the groups' aggregates. */
static int index_groups(struct clc_coll *c)
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

const struct clc_params *clc_params_checked(const struct clc_params *p, struct clc_params *def, char *err,
                                            size_t errlen)
{
    clc_default_params(def);
    if (!p)
        p = def;
    if (!(p->mu >= 0 && p->mu <= 1) || !(p->gamma_back >= 0)) {
        snprintf(err, errlen, "clc: mu must lie in [0, 1] and gamma_back be >= 0");
        return NULL;
    }
    return p;
}

double clc_coll_latency(const double *lmin, uint32_t ndomains)
{
    if (!lmin || ndomains < 2)
        return 0;
    double lat = INFINITY;
    for (uint32_t a = 0; a < ndomains; a++)
        for (uint32_t b = 0; b < ndomains; b++)
            if (a != b && lmin[(size_t)a * ndomains + b] < lat)
                lat = lmin[(size_t)a * ndomains + b];
    return lat < 0 ? 0 : lat;
}

int clc_coll_init(struct clc_coll *c, const struct mg_result *m, const struct mg_collective *mc)
{
    memset(c, 0, sizeof *c);
    c->n = mc->nmembers;
    if (mg_flow_of(m, mc, &c->flow) != 0)
        return -1;
    c->sh = clc_coll_shape(&c->flow);
    if (c->sh == MG_SKIP)
        return 0;
    if (c->sh == MG_ALL_TO_ALL)
        return index_groups(c);
    c->pos = malloc(sizeof *c->pos * c->n);
    c->val = malloc(sizeof *c->val * c->n);
    c->dpos = malloc(sizeof *c->dpos * c->n);
    c->have = calloc(c->n, 1);
    c->pre = malloc(sizeof *c->pre * c->n);
    if (!c->pos || !c->val || !c->dpos || !c->have || !c->pre)
        return -1;
    for (uint32_t k = 0; k < c->n; k++)
        c->pos[c->flow.order[k]] = k;
    return 0;
}

void clc_coll_free(struct clc_coll *c)
{
    free(c->pos);
    free(c->val);
    free(c->dpos);
    free(c->have);
    free(c->pre);
    free(c->gagg);
    free(c->gpending);
    free(c->src_first);
    free(c->src_of);
    free(c->dst_first);
    free(c->dst_of);
    mg_flow_free(&c->flow);
    memset(c, 0, sizeof *c);
}

int clc_coll_entry(struct clc_coll *c, uint32_t k, double v, uint32_t d)
{
    int wake = 0;
    if (c->sh == MG_ALL_TO_ALL)
        for (uint32_t q = c->src_first[k]; q < c->src_first[k + 1]; q++) {
            uint32_t g = c->src_of[q];
            top2_add(&c->gagg[g], v, d);
            wake |= --c->gpending[g] == 0;
        }
    if (c->sh == MG_SCAN || c->sh == MG_EXSCAN) {
        uint32_t at = c->pos[k];
        c->val[at] = v;
        c->dpos[at] = d;
        c->have[at] = 1;
        uint32_t p0 = c->p;
        while (c->p < c->n && c->have[c->p]) {
            c->pre[c->p] = c->p ? c->pre[c->p - 1] : TOP2_EMPTY;
            top2_add(&c->pre[c->p], c->val[c->p], c->dpos[c->p]);
            c->p++;
        }
        wake |= c->p != p0;
    }
    return wake;
}

/* Position in the prefix whose aggregate an exit of member k needs, or -1. */
static int64_t scan_need(const struct clc_coll *c, uint32_t k)
{
    int64_t at = c->pos[k];
    return c->sh == MG_SCAN ? at : at - 1;
}

int clc_coll_exit_ready(const struct clc_coll *c, uint32_t k)
{
    switch (c->sh) {
    case MG_ALL_TO_ALL:
        for (uint32_t q = c->dst_first[k]; q < c->dst_first[k + 1]; q++)
            if (c->gpending[c->dst_of[q]])
                return 0;
        return 1;
    case MG_SCAN:
    case MG_EXSCAN: return scan_need(c, k) < (int64_t)c->p;
    default: return 1;
    }
}

double clc_coll_exit_bound(const struct clc_coll *c, uint32_t k, uint32_t d, double lat)
{
    switch (c->sh) {
    case MG_ALL_TO_ALL: {
        double v = -INFINITY;
        for (uint32_t q = c->dst_first[k]; q < c->dst_first[k + 1]; q++)
            v = fmax(v, top2_query(&c->gagg[c->dst_of[q]], d, lat));
        return v;
    }
    case MG_SCAN:
    case MG_EXSCAN: {
        int64_t at = scan_need(c, k);
        if (at >= (int64_t)c->p)
            at = (int64_t)c->p - 1;   /* a cycle broken: what is there */
        return at >= 0 ? top2_query(&c->pre[at], d, lat) : -INFINITY;
    }
    default: return -INFINITY;
    }
}

/* Aggregates of -C(exit): max of -C(f) + lat = -(min of C(f) - lat), over
 * the exits an entry precedes. */
void clc_coll_limits(const struct clc_coll *c, const double *xc, const uint32_t *xd, const uint32_t *ed, double lat,
                     double *lim)
{
    if (c->sh == MG_ALL_TO_ALL) {
        for (uint32_t q = 0; q < c->flow.ngroups; q++) {
            const struct mg_flow_group *grp = &c->flow.groups[q];
            struct top2 a = TOP2_EMPTY;
            for (uint32_t k = 0; k < grp->ndst; k++)
                top2_add(&a, -xc[grp->dst[k]], xd[grp->dst[k]]);
            for (uint32_t k = 0; k < grp->nsrc; k++) {
                uint32_t s = grp->src[k];
                double l = -top2_query(&a, ed[s], lat);
                if (l < lim[s])
                    lim[s] = l;
            }
        }
    } else if (c->sh == MG_SCAN || c->sh == MG_EXSCAN) {   /* exits at positions >= k (> k) */
        struct top2 a = TOP2_EMPTY;
        for (int64_t at = (int64_t)c->n - 1; at >= 0; at--) {
            uint32_t k = c->flow.order[at];
            if (c->sh == MG_SCAN)
                top2_add(&a, -xc[k], xd[k]);
            double q = top2_query(&a, ed[k], lat);
            if (-q < lim[k])
                lim[k] = -q;
            if (c->sh == MG_EXSCAN)
                top2_add(&a, -xc[k], xd[k]);
        }
    }
}

void clc_default_params(struct clc_params *p)
{
    p->mu = 0.99;
    p->gamma_back = 0.01;
    p->backward = 1;
}
