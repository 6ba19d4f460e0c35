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

/* The report's figures from the nd x nd bounds between clocks. */
static void report_all_pairs(struct merge_state *st, const double *block, uint32_t nd)
{
    sv_pair_uncertainty(block, nd, &st->rep.pair_max_ns, &st->rep.pair_mean_ns);
    st->rep.have_pairs = 1;
    st->rep.pairs_measured = (uint64_t)nd * (nd - 1) / 2;
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
        report_all_pairs(st, block, nd);
    }
    free(rows);
    free(ap);
    free(block);
}

/* The same with hubs kept beside the graph (hubstore.h): the clocks' rows
 * in blocks, each block's lowered through the hubs and the graph until
 * they hold for the whole graph. */
#define ROWS_BLOCK 32
static void all_pairs_beside(struct merge_state *st)
{
    const struct cm_model *model = &st->model;
    uint32_t nd = model->ndomains, nv = sv_vertices(st->sol.graph);   /* settling adds no vertex */
    double *block = malloc(sizeof *block * (size_t)nd * nd);
    double *ap = malloc(sizeof *ap * (size_t)ROWS_BLOCK * nv), *vec[ROWS_BLOCK];
    uint32_t rows[ROWS_BLOCK];
    int backward[ROWS_BLOCK] = { 0 };
    int ok = block && ap;
    for (uint32_t a0 = 0; ok && a0 < nd; a0 += ROWS_BLOCK) {
        uint32_t nb = nd - a0 < ROWS_BLOCK ? nd - a0 : ROWS_BLOCK;
        for (uint32_t k = 0; k < nb; k++)
            rows[k] = cm_domain_vertex(model, a0 + k);
        if (sv_rows_pairs(st->sol.graph, st->sol.delta, rows, nb, ap) != 0) {
            ok = 0;
            break;
        }
        for (uint32_t k = 0; k < nb; k++)
            vec[k] = ap + (size_t)k * nv;
        if (merge_hubs_settle(&st->sol, vec, backward, nb) != 0)
            ok = 0;
        for (uint32_t k = 0; ok && k < nb; k++)
            for (uint32_t b = 0; b < nd; b++)
                block[(size_t)(a0 + k) * nd + b] = vec[k][cm_domain_vertex(model, b)];
    }
    if (ok) {
        report_all_pairs(st, block, nd);
    }
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

/* Sources in blocks: with hubs kept beside the graph (hubstore.h), a
 * block's distances from and to its sources are lowered through them and
 * the graph until they hold for the whole graph; else one at a time. */
#define SOURCES_BLOCK 16
static void sampled_pairs(struct merge_state *st, uint32_t nsources)
{
    const struct cm_model *model = &st->model;
    uint32_t nd = model->ndomains;
    int beside = st->sol.hubs && st->sol.hubs->lazy;
    uint32_t per = beside ? SOURCES_BLOCK : 1;
    if (nsources > nd)
        nsources = nd;
    uint32_t *order = choose_sources(nd, st->tau, nsources);
    unsigned char *is_source = calloc(nd, 1);
    double *vec[2 * SOURCES_BLOCK] = { NULL };
    int backward[2 * SOURCES_BLOCK];
    for (uint32_t k = 0; k < 2 * SOURCES_BLOCK; k++)
        backward[k] = k % 2;
    int ok = order && is_source;
    double mx = 0, sum = 0;
    uint64_t finite = 0, pairs = 0;
    uint32_t worst_a = 0, worst_b = 0;
    for (uint32_t i0 = 0; ok && i0 < nsources; i0 += per) {
        uint32_t nb = nsources - i0 < per ? nsources - i0 : per;
        uint32_t nv = sv_vertices(st->sol.graph);
        for (uint32_t k = 0; ok && k < 2 * nb; k++)
            ok = vec[k] || (vec[k] = malloc(sizeof *vec[k] * nv)) != NULL;
        for (uint32_t k = 0; ok && k < nb; k++) {
            uint32_t va = cm_domain_vertex(model, order[i0 + k]);
            ok = sv_dist_from(st->sol.graph, va, st->sol.delta, vec[2 * k]) == 0
                 && sv_dist_to(st->sol.graph, va, st->sol.delta, vec[2 * k + 1]) == 0;
        }
        if (ok && beside && merge_hubs_settle(&st->sol, vec, backward, 2 * nb) != 0)
            ok = 0;
        for (uint32_t k = 0; ok && k < nb; k++) {
            uint32_t a = order[i0 + k];
            const double *from = vec[2 * k], *to = vec[2 * k + 1];
            is_source[a] = 1;
            for (uint32_t b = 0; b < nd; b++) {
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
    for (uint32_t k = 0; k < 2 * SOURCES_BLOCK; k++)
        free(vec[k]);
}

static void merge_precision(struct merge_state *st)
{
    /* the whole graph's vertices, hubs kept beside it included */
    uint32_t nd = st->model.ndomains, nv = hs_full_vertices(st->sol.hubs, sv_vertices(st->sol.graph));
    if (nd <= 1)
        return;
    double t0 = st_now_s();
    st->rep.pair_domains = nd;
    if (st->opt.precision_sources)
        sampled_pairs(st, st->opt.precision_sources);
    else if (nd <= PRECISION_MAX_DOMAINS && nv <= PRECISION_MAX_VERTICES)
        (st->sol.hubs->lazy ? all_pairs_beside : all_pairs)(st);
    else
        sampled_pairs(st, PRECISION_SAMPLE_SOURCES);
    st->rep.seconds_precision = st_now_s() - t0;
    merge_note_hubs(st);   /* the checks above count too */
}

/* The bytes merge_precision's matrices take (its choices above). */
static double precision_bytes(const struct merge_state *st)
{
    double nd = st->model.ndomains, nv = sv_vertices(st->sol.graph);
    double full = hs_full_vertices(st->sol.hubs, sv_vertices(st->sol.graph));
    if (st->opt.precision_sources || nd > PRECISION_MAX_DOMAINS || full > PRECISION_MAX_VERTICES)
        return 8.0 * 2 * SOURCES_BLOCK * nv;
    if (st->sol.hubs->lazy)
        return 8.0 * (ROWS_BLOCK * nv + nd * nd);
    return 8.0 * ((nv > nd ? nd : nv) * nv + nd * nd);
}

/* Beside the apply, the precision's matrices add to what the apply, the
 * repair and the report hold; beyond this they wait for them instead, so
 * that the peak stays theirs (1000 clocks take 16 MB). */
#define PRECISION_BESIDE_BYTES ((double)(32 << 20))

static void *precision_thread(void *arg)
{
    merge_precision(arg);
    return NULL;
}

void merge_precision_start(struct merge_state *st, struct precision_job *job)
{
    job->st = st;
    job->running = merge_analysis_threads(&st->opt) >= 2 && st->model.ndomains > 1
                   && precision_bytes(st) <= PRECISION_BESIDE_BYTES
                   && pthread_create(&job->thread, NULL, precision_thread, st) == 0;
}

void merge_precision_finish(struct precision_job *job, int wanted)
{
    if (job->running)
        pthread_join(job->thread, NULL);
    else if (wanted)
        merge_precision(job->st);
    job->running = 0;
}
