/* precision.c — how well the solve knows each pair of clocks, for the
 * report: the uncertainty of a pair (a, b) is wbar(a,b) + wbar(b,a), the
 * width of the interval the constraints leave for x_a - x_b.
 *
 * Up to 2000 clocks and 4000 vertices every pair is measured (all-pairs
 * shortest paths, an nv x nv matrix). Beyond, or when
 * `--precision-sources N` asks for it, a deterministic sample: N source
 * clocks (default 32) — the reference first, then the others in the order of
 * a Fisher-Yates shuffle driven by splitmix64 from a fixed seed — each paired
 * with every other clock. Two single-source shortest-path runs per source
 * (from it and to it) give all its pairs, so the cost is O(N x edges) and the
 * memory O(vertices); with N >= the number of clocks every pair is measured. */
#include <config.h>
#include "merge_state.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PRECISION_MAX_DOMAINS 2000
#define PRECISION_MAX_VERTICES 4000
#define PRECISION_SAMPLE_SOURCES 32
#define PRECISION_SAMPLE_SEED 0x5eed12u

/* splitmix64 (Steele, Lea & Flood 2014): a fixed, portable sequence. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void all_pairs(struct merge_state *st)
{
    const struct cm_model *model = &st->model;
    uint32_t nd = model->ndomains, nv = sv_vertices(st->sol.graph);
    /* Only the clocks' rows when the graph has other vertices (segments,
     * collectives' hubs): nd shortest-path runs and an nd x nv matrix, not
     * nv of each (2000 hubs on 256 clocks took 40 MB and 6.8 s). */
    int some = nv > nd;
    uint32_t *rows = some ? malloc(sizeof *rows * nd) : NULL;
    double *ap = malloc(sizeof *ap * (size_t)(some ? nd : nv) * nv);
    double *block = malloc(sizeof *block * (size_t)nd * nd);
    for (uint32_t a = 0; rows && a < nd; a++)
        rows[a] = cm_domain_vertex(model, a);
    int rc = !ap || !block || (some && !rows) ? -1
             : some ? sv_rows_pairs(st->sol.graph, st->sol.delta, rows, nd, ap)
                    : sv_all_pairs(st->sol.graph, st->sol.delta, PRECISION_MAX_VERTICES, ap);
    if (rc == 0) {
        /* between clocks: each domain's first segment */
        for (uint32_t a = 0; a < nd; a++)
            for (uint32_t b = 0; b < nd; b++)
                block[(size_t)a * nd + b] = ap[(size_t)(some ? a : cm_domain_vertex(model, a)) * nv
                                               + cm_domain_vertex(model, b)];
        sv_pair_uncertainty(block, nd, &st->rep.pair_max_ns, &st->rep.pair_mean_ns);
        st->rep.have_pairs = 1;
        st->rep.pairs_measured = (uint64_t)nd * (nd - 1) / 2;
    }
    free(rows);
    free(ap);
    free(block);
}

/* The sources: the reference's domain tau, then a seeded shuffle of the
 * others, the first n of them. */
static uint32_t *choose_sources(uint32_t nd, uint32_t tau, uint32_t n)
{
    uint32_t *order = malloc(sizeof *order * nd);
    if (!order)
        return NULL;
    for (uint32_t d = 0; d < nd; d++)
        order[d] = d;
    order[0] = tau;
    order[tau] = 0;
    uint64_t state = PRECISION_SAMPLE_SEED;
    for (uint32_t i = 1; i < n && i + 1 < nd; i++) {
        uint32_t j = i + (uint32_t)(splitmix64(&state) % (nd - i));
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return order;
}

static void sampled_pairs(struct merge_state *st, uint32_t nsources)
{
    const struct cm_model *model = &st->model;
    uint32_t nd = model->ndomains, nv = sv_vertices(st->sol.graph);
    if (nsources > nd)
        nsources = nd;
    uint32_t *order = choose_sources(nd, st->tau, nsources);
    unsigned char *is_source = calloc(nd, 1);
    double *from = malloc(sizeof *from * nv), *to = malloc(sizeof *to * nv);
    int ok = order && is_source && from && to;
    double mx = 0, sum = 0;
    uint64_t finite = 0, pairs = 0;
    uint32_t worst_a = 0, worst_b = 0;
    for (uint32_t i = 0; ok && i < nsources; i++) {
        uint32_t a = order[i], va = cm_domain_vertex(model, a);
        ok = sv_dist_from(st->sol.graph, va, st->sol.delta, from) == 0
             && sv_dist_to(st->sol.graph, va, st->sol.delta, to) == 0;
        is_source[a] = 1;
        for (uint32_t b = 0; ok && b < nd; b++) {
            if (is_source[b])   /* itself, or a pair an earlier source measured */
                continue;
            uint32_t vb = cm_domain_vertex(model, b);
            double u = from[vb] + to[vb];
            pairs++;
            if (!(u < INFINITY)) {
                if (mx < INFINITY)
                    worst_a = a, worst_b = b;
                mx = INFINITY;
                continue;
            }
            if (u > mx)
                mx = u, worst_a = a, worst_b = b;
            sum += u;
            finite++;
        }
    }
    if (ok) {
        st->rep.have_pairs = 1;
        st->rep.pairs_sampled = 1;
        st->rep.pair_max_ns = mx;
        st->rep.pair_mean_ns = finite ? sum / (double)finite : NAN;
        st->rep.pairs_measured = pairs;
        st->rep.pair_sources = nsources;
        st->rep.pair_seed = PRECISION_SAMPLE_SEED;
        st->rep.pair_worst[0] = model->domains[worst_a].id;
        st->rep.pair_worst[1] = model->domains[worst_b].id;
    }
    free(order);
    free(is_source);
    free(from);
    free(to);
}

void merge_precision(struct merge_state *st)
{
    uint32_t nd = st->model.ndomains, nv = sv_vertices(st->sol.graph);
    if (nd <= 1)
        return;
    double t0 = st_now_s();
    st->rep.pair_domains = nd;
    if (st->opt.precision_sources)
        sampled_pairs(st, st->opt.precision_sources);
    else if (nd <= PRECISION_MAX_DOMAINS && nv <= PRECISION_MAX_VERTICES)
        all_pairs(st);
    else
        sampled_pairs(st, PRECISION_SAMPLE_SOURCES);
    st->rep.seconds_precision = st_now_s() - t0;
}
