/* constraints.h — the constraint graph of a matched trace (docs/design.md
 * "Clock model and solver"). Vertices below cm_nvertices() are the clocks'
 * offsets, one per (domain, segment, window: see cm_vertex); further vertices are hubs that encode a collective instance in O(P)
 * edges. An edge u->v of weight w means x_u - x_v <= w. */
#ifndef SYNCTRACE_CONSTRAINTS_H
#define SYNCTRACE_CONSTRAINTS_H

#include "clockmodel.h"
#include "hubstore.h"
#include "match.h"
#include "solve.h"

struct cs_stats {
    size_t message_edges, collective_edges, hubs;
    size_t skipped_same_clock, skipped_neighbor;   /* skipped_neighbor: members whose topology is unknown */
    size_t continuity_edges;   /* between a rank's consecutive events in different segments */
    size_t neighbour_edges;    /* from neighbourhood collectives */
    int too_large;             /* cs_build failed: more vertices than a uint32_t numbers */
};

/* lmin: minimum latency (ns) of a message between two clocks (inside one
 * clock none is assumed: its ticks order the two ends). The collectives'
 * hubs are written to `hubs` (hs_init'ed by the caller), which puts them
 * into the graph or, when there are many, keeps the groups beside it
 * (hubstore.h: the solve then checks its answers against them). Returns
 * the finished graph, or NULL when out of memory, when the hubs could not
 * be set aside (hubs->err), or too large (stats->too_large). */
struct sv_graph *cs_build(const struct rt_location *ranks, const struct cm_model *m, const struct mg_result *match,
                          double lmin, struct hub_store *hubs, struct cs_stats *stats);

#endif
