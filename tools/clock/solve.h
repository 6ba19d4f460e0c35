/* solve.h — the clock-offset constraint solver (Biberstein et al., "Clock
 * synchronization for Cell traces", Definitions 4-5, Lemma 4, Section 4).
 *
 * Vertices are clock variables g_v (one per clock domain and time segment,
 * plus auxiliary hubs).  A constraint  g_s - g_t <= w  is the directed edge
 * s -> t of weight w (the paper's convention: w(s,t) bounds g_s - g_t).
 * wbar(s,t) is the shortest-path distance from s to t (wbar(s,s) = 0,
 * +INFINITY if t is unreachable from s); it is the tightest implied bound on
 * g_s - g_t (Lemma 3).  Weights are doubles in nanoseconds.
 *
 * Tolerance.  Floating-point path sums are not exact, so a cycle whose
 * weight is "zero up to rounding" must not be reported as negative.  Every
 * shortest-path routine uses
 *
 *     tol = SV_TOL_ABS + SV_TOL_REL * (W + |delta|),
 *     W   = max |w| over all edges,
 *
 * (by default 1e-9 ns + 2^-40 (~9.1e-13) times the largest weight, i.e.
 * ~4096 ulps of it: 1e-6 ns for weights of 1e6 ns, 0.9 ns for 1e12 ns) and
 * relabels a vertex only if its distance improves by more than tol.  Hence:
 *   - a cycle is reported negative only if its weight is below -tol (a cycle
 *     of k edges below -k*tol is always reported);
 *   - computed distances are true shortest-path weights of real paths, at
 *     most k*tol above the exact minimum (k = edges on the path);
 *   - offsets computed by sv_solve satisfy every constraint up to tol:
 *     g_s - g_t <= w + delta + tol.
 * sv_set_tolerance() changes the two constants for one graph.
 *
 * Usage: sv_graph_new, sv_add_edge..., sv_finish, then any of the queries
 * (which only read the graph, so they may run concurrently), sv_graph_free.
 * Functions returning int set errno (EINVAL bad argument, ENOMEM) when they
 * return -1.
 */
#ifndef SYNCTRACE_SOLVE_H
#define SYNCTRACE_SOLVE_H

#include <stddef.h>
#include <stdint.h>

#define SV_TOL_ABS 1e-9
#define SV_TOL_REL 9.094947017729282e-13 /* 2^-40 */

struct sv_graph; /* opaque: CSR adjacency (forward and reverse) built from an edge list */

/* A graph of nvertices vertices (0 .. nvertices-1, may be 0) with room
 * reserved for nedges_hint edges.  NULL on allocation failure. */
struct sv_graph *sv_graph_new(uint32_t nvertices, size_t nedges_hint);

/* Adds the constraint g_s - g_t <= w.  w = +INFINITY (no constraint) is
 * accepted and ignored.  Parallel edges are allowed; sv_finish keeps only
 * the smallest weight of each (s,t) pair (the others are implied).
 * Self-loops are kept (a negative one is a negative cycle).  Returns 0, or -1
 * with errno EINVAL (s or t out of range, w NaN or -INFINITY, graph already
 * finished) or ENOMEM. */
int sv_add_edge(struct sv_graph *g, uint32_t s, uint32_t t, double w);

/* Builds the CSR (forward and reverse); no sv_add_edge afterwards.
 * Returns 0, or -1 (ENOMEM; EINVAL if already finished). */
int sv_finish(struct sv_graph *g);

void sv_graph_free(struct sv_graph *g);

/* A new, unfinished graph with g's vertices and `more` others after them,
 * g's edges (g finished), its tolerance and counted weights: edges may be
 * added, then sv_finish. NULL (ENOMEM, EINVAL). */
struct sv_graph *sv_graph_grow(const struct sv_graph *g, uint32_t more, size_t nedges_hint);
/* The tolerance counts |w| as if an edge of weight w were in the graph (for
 * constraints kept beside it: hubstore.h). Before sv_finish. */
void sv_count_weight(struct sv_graph *g, double w);

uint32_t sv_vertices(const struct sv_graph *g);
/* Distinct (s,t) edges after sv_finish (parallel edges merged). */
size_t sv_edges(const struct sv_graph *g);

/* The tolerance described above for a relaxation by delta (after sv_finish). */
double sv_tolerance(const struct sv_graph *g, double delta);
/* Replaces SV_TOL_ABS / SV_TOL_REL for this graph (both >= 0). */
void sv_set_tolerance(struct sv_graph *g, double abs_ns, double rel);

/* dist[v] = wbar(src, v) (sv_dist_from) or wbar(v, dst) (sv_dist_to) for all
 * v, with delta added to every edge weight on the fly.  dist has
 * sv_vertices(g) entries; unreachable vertices get +INFINITY.  Returns 0; 1
 * if a negative cycle (weight < -tol after the relaxation) is reachable
 * from src (reaches dst), dist then undefined; -1 on allocation failure or
 * bad argument (graph not finished, src out of range, delta not finite).
 * Algorithm: FIFO Bellman-Ford (SPFA) with Tarjan's subtree disassembly,
 * which detects a negative cycle as soon as the shortest-path tree would
 * close one, and skips vertices whose label is known to be stale. */
int sv_dist_from(const struct sv_graph *g, uint32_t src, double delta, double *dist);
int sv_dist_to(const struct sv_graph *g, uint32_t dst, double delta, double *dist);

/* Feasible potentials of the graph relaxed by delta: p[v] <= p[u] + w +
 * delta + tol for every edge u->v (the multi-source SPFA, all labels 0 at
 * first). Returns 0, 1 if a negative cycle remains, -1 (ENOMEM, EINVAL). */
int sv_potential(const struct sv_graph *g, double delta, double *p);

/* Labels d (each a real path weight from a source, or to a target when
 * backward, or INFINITY) lowered along the graph's edges relaxed by delta
 * until every edge holds within tol: Bellman-Ford from where a caller got
 * (hubstore.h: edges kept beside the graph lower some labels between
 * runs). Returns 0, 1 (a negative cycle), -1 (ENOMEM, EINVAL). */
int sv_relax(const struct sv_graph *g, double delta, int backward, double *d);

/* Minimum mean cycle weight lambda* (cycle weight / number of edges) over
 * all cycles, self-loops included; INFINITY if the graph is acyclic, NAN on
 * allocation failure (errno ENOMEM) or if the graph is not finished.
 * Algorithm: Tarjan's strongly connected components, then Howard's policy
 * iteration on all non-trivial components at once (typically 10-100
 * iterations of O(edges); capped at 2000 per pass), then a second Howard
 * pass, warm-started, on the reduced costs w - eta + x(t) - x(s) of the first
 * (computed with error-free additions, so their cycle sums are exact to the
 * last bit of these small values).  The second pass removes the first pass's
 * rounding error, which grows with the magnitude of the weights (~1e-4 ns at
 * 1e12 ns).  The value returned is the mean of a real cycle, summed from the
 * original weights with compensated (Neumaier) summation: never below
 * lambda* beyond the rounding of that one sum, and above it by at most the
 * second pass's threshold (2^-36 times the magnitude of its values). */
double sv_min_mean_cycle(const struct sv_graph *g);

/* The whole pipeline.  delta = max(0, -lambda*): 0 if no cycle is negative
 * (weight < -tol; checked first with one multi-source SPFA, so consistent
 * inputs never run the cycle-mean computation).  Should the relaxed graph
 * still show a negative cycle through rounding, delta is raised by tol,
 * 2 tol, 4 tol, ... until it does not (*delta_out reports the value used).
 * Then, on the graph relaxed by delta,
 *     g[v] = alpha * wbar(v,tau) - (1-alpha) * wbar(tau,v),
 *     lo[v] = -wbar(tau,v),  hi[v] = wbar(v,tau)   (lo[v] <= g_v - g_tau <= hi[v]).
 * g[tau] = 0.  Vertices not reachable from tau or not reaching tau (i.e. not
 * in tau's strongly connected component) get g[v] = NAN and are counted in
 * *unbounded; their lo/hi are still filled (-INFINITY / +INFINITY on the
 * unbounded side).  g_out has sv_vertices(g) entries; delta_out, lo, hi and
 * unbounded may be NULL.  Returns 0, or -1 (ENOMEM; EINVAL: not finished,
 * tau out of range, alpha not in [0,1]). */
int sv_solve(const struct sv_graph *g, uint32_t tau, double alpha, double *g_out, double *delta_out,
             double *lo, double *hi, uint32_t *unbounded);
/* sv_solve's last step: offsets and bounds from df = wbar(tau, v) and
 * dt = wbar(v, tau); returns the number of unbounded vertices. */
uint32_t sv_offsets(uint32_t n, const double *df, const double *dt, double alpha, double *g_out, double *lo,
                    double *hi);

/* All-pairs bounds: matrix[s*n + t] = wbar(s,t) after relaxation by delta
 * (n = sv_vertices(g), diagonal 0, +INFINITY where unreachable).  Floyd-
 * Warshall when n^3 is cheaper than n Dijkstra runs, otherwise Johnson:
 * potentials from a multi-source SPFA, then one Dijkstra (binary heap) per
 * source on the reduced weights.  Returns 0; -1 if n > max_n (the caller
 * skips the report; errno ERANGE), on allocation failure or bad argument; 1
 * if the relaxed graph has a negative cycle (matrix then undefined). */
int sv_all_pairs(const struct sv_graph *g, double delta, uint32_t max_n, double *matrix);
/* Some rows of it: matrix[k*n + t] = wbar(rows[k], t), by Johnson's method
 * (nrows Dijkstra runs, an nrows x n matrix): for the pairs of a few
 * vertices of a graph with many more (the clocks among collectives' hub
 * vertices). Returns as sv_all_pairs (no size limit). */
int sv_rows_pairs(const struct sv_graph *g, double delta, const uint32_t *rows, uint32_t nrows, double *matrix);

/* Precision summary from an all-pairs matrix: max and mean of
 * wbar(s,t) + wbar(t,s) over unordered pairs s < t (the paper's Table 1).
 * A pair with an infinite bound makes *max_out INFINITY and is left out of
 * the mean; the mean is NAN if no pair is finite.  n < 2: both 0. */
void sv_pair_uncertainty(const double *matrix, uint32_t n, double *max_out, double *mean_out);

#endif
