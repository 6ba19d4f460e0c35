/* precision.c — how well the solve knows each pair of clocks (the all-pairs
 * shortest paths of the constraint graph), for the report, where all-pairs
 * is affordable: up to 2000 clocks and 4000 vertices (an nv x nv matrix). */
#include <config.h>
#include "merge_state.h"

#include <stdlib.h>

#define PRECISION_MAX_DOMAINS 2000
#define PRECISION_MAX_VERTICES 4000

void merge_precision(struct merge_state *st)
{
    const struct cm_model *model = &st->model;
    uint32_t nd = model->ndomains, nv = sv_vertices(st->sol.graph);
    if (nd > PRECISION_MAX_DOMAINS || nd <= 1 || nv > PRECISION_MAX_VERTICES)
        return;
    double *ap = malloc(sizeof *ap * (size_t)nv * nv);
    double *block = malloc(sizeof *block * (size_t)nd * nd);
    if (ap && block && sv_all_pairs(st->sol.graph, st->sol.delta, PRECISION_MAX_VERTICES, ap) == 0) {
        /* between clocks: each domain's first segment */
        for (uint32_t a = 0; a < nd; a++)
            for (uint32_t b = 0; b < nd; b++)
                block[(size_t)a * nd + b] = ap[(size_t)cm_domain_vertex(model, a) * nv + cm_domain_vertex(model, b)];
        sv_pair_uncertainty(block, nd, &st->rep.pair_max_ns, &st->rep.pair_mean_ns);
        st->rep.have_pairs = 1;
    }
    free(ap);
    free(block);
}
