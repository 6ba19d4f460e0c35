/* solution.c — the constraints and solve stages for one clock model:
 * build its constraint graph (constraints.c) and solve it (solve.c).
 *
 * The minimum one-way latency is one number, --min-latency, 0 by default:
 * round trips bound the sum of the two one-way latencies, not either one.
 * On a loaded machine one direction can take almost all of it (seen here:
 * 375 ns one way where a quarter of the fastest round trip was 986 ns), so
 * no estimate from the sync rounds is a bound the truth cannot violate. */
#include <config.h>
#include "merge_state.h"
#include "collstream.h"
#include "msgstream.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int merge_solve_model(const struct rt_rank *locs, const struct cm_model *model, const struct mg_result *match,
                      double lmin, uint32_t tau, double alpha, struct merge_solution *s)
{
    s->graph = cs_build(locs, model, match, lmin, &s->cs);
    if (!s->graph) {
        if (s->cs.too_large)
            fprintf(stderr, "synctrace merge: the constraint graph would have more than 2^32-1 vertices\n");
        else if (mg_msgs_error(match))
            fprintf(stderr, "synctrace merge: %s\n", mg_msgs_error(match));
        else if (mg_colls_error(match))
            fprintf(stderr, "synctrace merge: %s\n", mg_colls_error(match));
        else
            fprintf(stderr, "synctrace merge: out of memory while building the constraint graph\n");
        return -1;
    }
    uint32_t nv = sv_vertices(s->graph);
    s->x = malloc(sizeof *s->x * nv);
    s->lo = malloc(sizeof *s->lo * nv);
    s->hi = malloc(sizeof *s->hi * nv);
    if (!s->x || !s->lo || !s->hi) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    if (sv_solve(s->graph, cm_domain_vertex(model, tau), alpha, s->x, &s->delta, s->lo, s->hi, NULL) != 0) {
        fprintf(stderr, "synctrace merge: the solver failed: %s\n", strerror(errno));
        return -1;
    }
    /* the clocks left unbounded (report.json's unbounded_domains): not the
     * collectives' hub vertices, which are no clocks */
    s->unbounded = 0;
    for (uint32_t v = 0; v < cm_nvertices(model); v++)
        s->unbounded += isnan(s->x[v]);
    return 0;
}

void merge_solution_free(struct merge_solution *s)
{
    if (s->graph)
        sv_graph_free(s->graph);
    free(s->x);
    free(s->lo);
    free(s->hi);
    memset(s, 0, sizeof *s);
}
