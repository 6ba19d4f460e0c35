/* hubstore.h — the hub vertices of collective instances, kept outside the
 * constraint graph when there are many (issue 12: a hub per instance and
 * an edge per member grew the graph by some 80 bytes per member).
 *
 * constraints.c writes one record per hub, in instance order: a group
 * (sources with weight -latest entry, sinks with weight earliest exit: the
 * edges s -> h and h -> t) or a prefix chain (MPI_Scan/Exscan: a hub per
 * member). Few hub edges (HS_EXPLICIT_EDGES, or SYNCTRACE_HUB_EDGES): every
 * record goes into the graph as before, numbered as before. More: the
 * chains go into the graph, the groups stay in the store (in memory up to
 * HS_MEMORY, then in a nameless file), and the solver's answers are checked
 * against them in passes over the store: Bellman-Ford with the groups
 * as one more kind of edge. A label a group would lower (through s -> h ->
 * t, by more than the two hops' tolerance) is lowered and the graph's
 * edges relax it further (sv_relax), until a pass lowers none: then every
 * label is a shortest path of the whole graph, hubs included. Only where
 * that does not settle — a negative cycle through groups, which the
 * relaxation delta must see — are the best source and sink joined in the
 * graph by a vertex of their own (s -> m -> t, weights a_s + b_t and 0: two
 * edges like the hub's path, so delta counts them alike), the tightest per
 * pair, and the graph solved again. The solve is then the
 * one the hubs would give, without them (docs/design.md). */
#ifndef SYNCTRACE_HUBSTORE_H
#define SYNCTRACE_HUBSTORE_H

#include <stddef.h>
#include <stdint.h>
#include "asidefile.h"
#include "pairmin.h"
#include "solve.h"

#define HS_EXPLICIT_EDGES ((uint64_t)1 << 18)   /* beyond: the groups stay out of the graph */
#ifndef HS_MEMORY   /* tests/unit/unit_hubstore.c makes it small */
#define HS_MEMORY ((size_t)16 << 20)             /* the records held; beyond, a file */
#endif

struct hub_store {
    /* the records: in memory, or (spilled) in a file */
    uint8_t *mem;
    size_t len, cap;
    struct st_aside file;
    int spilled, failed;
    const char *dir;
    /* counts of what the records make */
    uint64_t groups, group_edges;   /* group hubs, their edges */
    uint64_t chain_hubs;            /* prefix chains' hubs */
    double wmax;                    /* largest |w| of the groups' edges (the solver's tolerance) */
    int lazy;                       /* the groups stay out of the graph */
    /* pair vertices made so far (lazy): entry i is s -> m -> t with
     * m = base_vertices + i, the tightest hub path between s and t found */
    struct pair_min pairs;
    uint32_t base_vertices;         /* clocks + chain hubs: pair vertices follow */
    size_t base_edges;              /* the graph's edges before any pair vertex */
    uint64_t passes;                /* passes over the groups */
    char err[600];
};

void hs_init(struct hub_store *h, const char *dir);
void hs_free(struct hub_store *h);

/* Records, in instance order. src/dst vertices with their edge weights
 * (s -> h: sw, h -> t: dw). 0, or -1 (h->err says why). */
int hs_add_group(struct hub_store *h, uint32_t nsrc, const uint32_t *src, const double *sw, uint32_t ndst,
                 const uint32_t *dst, const double *dw);
/* A prefix chain of n hubs, member k: its entry's vertex and weight
 * (-entry), and the exit it bounds (scan: its own; exscan: the next
 * member's, none for the last: exit_v UINT32_MAX), weight exit - margin. */
int hs_add_chain(struct hub_store *h, uint32_t n, const uint32_t *enter_v, const double *enter_w,
                 const uint32_t *exit_v, const double *exit_w);

/* The graph's hub vertices and edges from the records: every record (as
 * the graph had them before the store, numbered from *nvert on), or,
 * beyond explicit_edges group edges, the chains only (h->lazy). Adds to
 * *nvert the vertices it numbers. For a graph made with *nvert vertices
 * after the call: first hs_plan (counts), then hs_add_edges. */
int hs_plan(struct hub_store *h, uint32_t nclock_and_before, uint64_t explicit_edges, uint32_t *nvert);
int hs_add_edges(struct hub_store *h, struct sv_graph *g, uint32_t first_vertex);

/* SYNCTRACE_HUB_EDGES, else HS_EXPLICIT_EDGES. */
uint64_t hs_explicit_edges(void);

/* One pass over the groups (lazy): vectors vec[k] of the graph's labels
 * (nv entries; backward[k]: distances to a vertex, else from), relaxed by
 * delta, checked with tolerance tol per hop. A label a group improves is
 * lowered to the path through it, and (pairs_made not NULL) the best
 * source and sink are joined by a pair vertex for the next graph
 * (hs_regraph; *pairs_made: how many were made or tightened). Returns how
 * many labels were lowered (0: the labels hold for every group), or -1
 * (h->err). */
int hs_check(struct hub_store *h, double *const *vec, const int *backward, uint32_t nvec, uint32_t nv,
             double delta, double tol, size_t *pairs_made);
/* The graph again, with the pair vertices: g's edges, the new vertices and
 * their edges, finished (g is freed). NULL on allocation failure. */
struct sv_graph *hs_regraph(struct hub_store *h, struct sv_graph *g);

/* What the graph would have with every hub in it (the report's counts). */
uint32_t hs_full_vertices(const struct hub_store *h, uint32_t nv_graph);
size_t hs_full_edges(const struct hub_store *h, size_t ne_graph);

#endif
