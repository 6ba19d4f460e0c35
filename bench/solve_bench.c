/*
 * solve_bench.c — benchmark of the constraint solver (tools/clock/solve.c) on
 * constraint graphs shaped like a traced 2-D stencil.
 *
 *   solve_bench [N ...]          (default: 1000 10000 100000)
 *
 * For each N: N vertices on a ceil(sqrt N)-wide grid, each with a hidden
 * true offset uniform in +-1 ms.  Every pair of grid neighbours gets an edge
 * each way, w(s,t) = (true_s - true_t) + slack, slack = 300 ns + Exp(100 ns)
 * (the message latency); vertex 0 gets a star of edges to and from every
 * other vertex (sync rounds) with slack 2 us + Exp(1 us).  Stencils: "5pt"
 * (4 neighbours) and, for the largest N, also "9pt" (8 neighbours, ~10 N
 * edges).  Variants: "consistent" as above, and "inconsistent" with 5 grid
 * edges tightened by 1-2 us beyond their slack (negative 2-cycles).
 *
 * Per graph, one JSON object per line on stdout:
 *   {"bench":"solve","variant":..,"stencil":..,"n":..,"edges":..,
 *    "build_seconds":..  sv_add_edge x edges + sv_finish,
 *    "seconds":..        sv_solve(tau = 0, alpha = 0.5),
 *    "mmc_seconds":..    sv_min_mean_cycle alone,
 *    "spfa_seconds":..   baseline: one sv_dist_from(0, delta = 0),
 *    "spfa_rc":..        its return (1 = stopped at a negative cycle),
 *    "ratio":..          seconds / spfa_seconds,
 *    "spfa_delta_seconds", "ratio_delta": the same for sv_dist_from(0, delta)
 *                        (a full pass also on the inconsistent graphs),
 *    "delta_ns":.., "lambda_ns":.., "unbounded":..,
 *    "max_error_ns":..   max |g_v - g_0 - (true_v - true_0)|,
 *    "max_violation_ns"  max over edges of g_s - g_t - (w + delta): <= the
 *                        solver's tolerance (negative: all constraints slack)}
 * Times are the minimum over repetitions (until 0.5 s or 50 runs each).
 * Exit code 0, or 1 if the solver fails.
 */
#include "solve.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng_state = 12345;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double unif(void) /* (0,1) */
{
    return ((double)(rnd() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double expo(double mean)
{
    return -mean * log(unif());
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct edges {
    size_t n, cap;
    uint32_t *s, *t;
    double *w;
};

static void push(struct edges *e, uint32_t s, uint32_t t, double w)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 4096;
        e->s = realloc(e->s, e->cap * sizeof *e->s);
        e->t = realloc(e->t, e->cap * sizeof *e->t);
        e->w = realloc(e->w, e->cap * sizeof *e->w);
        if (!e->s || !e->t || !e->w) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    e->s[e->n] = s;
    e->t[e->n] = t;
    e->w[e->n] = w;
    e->n++;
}

static void die(const char *what)
{
    fprintf(stderr, "solve_bench: %s failed\n", what);
    exit(1);
}

static void run(uint32_t n, int nine, int inconsistent)
{
    uint32_t cols = (uint32_t)ceil(sqrt((double)n));
    double *truth = malloc(n * sizeof *truth), *gv = malloc(n * sizeof *gv), *d = malloc(n * sizeof *d);
    if (!truth || !gv || !d)
        die("malloc");
    for (uint32_t v = 0; v < n; v++)
        truth[v] = (2 * unif() - 1) * 1e6;
    struct edges e = {0, 0, NULL, NULL, NULL};
    static const int nb5[][2] = {{0, 1}, {1, 0}}, nb9[][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    const int(*nb)[2] = nine ? nb9 : nb5;
    int nnb = nine ? 4 : 2;
    for (uint32_t v = 0; v < n; v++) {
        long r = v / cols, c = v % cols;
        for (int k = 0; k < nnb; k++) {
            long r2 = r + nb[k][0], c2 = c + nb[k][1];
            if (c2 < 0 || c2 >= (long)cols)
                continue;
            long u = r2 * (long)cols + c2;
            if (u >= (long)n)
                continue;
            push(&e, v, (uint32_t)u, truth[v] - truth[u] + 300 + expo(100));
            push(&e, (uint32_t)u, v, truth[u] - truth[v] + 300 + expo(100));
        }
    }
    for (uint32_t v = 1; v < n; v++) {
        push(&e, 0, v, truth[0] - truth[v] + 2000 + expo(1000));
        push(&e, v, 0, truth[v] - truth[0] + 2000 + expo(1000));
    }
    if (inconsistent)
        for (int k = 0; k < 5; k++) {
            size_t i = (size_t)(rnd() % e.n);
            e.w[i] = truth[e.s[i]] - truth[e.t[i]] - 1000 - 1000 * unif();
        }

    double t0 = now();
    struct sv_graph *g = sv_graph_new(n, e.n);
    if (!g)
        die("sv_graph_new");
    for (size_t i = 0; i < e.n; i++)
        if (sv_add_edge(g, e.s[i], e.t[i], e.w[i]) != 0)
            die("sv_add_edge");
    if (sv_finish(g) != 0)
        die("sv_finish");
    double t_build = now() - t0;

    double t_solve = INFINITY, t_mmc = INFINITY, t_spfa = INFINITY, t_spfad = INFINITY, delta = 0, lambda = 0;
    uint32_t unb = 0;
    int spfa_rc = 0;
    /* each measurement: repeated until 0.5 s or 50 runs have passed, minimum kept */
    double spent = 0;
    for (int rep = 0; rep < 50 && spent < 0.5; rep++) {
        t0 = now();
        if (sv_solve(g, 0, 0.5, gv, &delta, NULL, NULL, &unb) != 0)
            die("sv_solve");
        double t = now() - t0;
        t_solve = fmin(t_solve, t);
        spent += t;
    }
    spent = 0;
    for (int rep = 0; rep < 50 && spent < 0.5; rep++) {
        t0 = now();
        lambda = sv_min_mean_cycle(g);
        if (isnan(lambda))
            die("sv_min_mean_cycle");
        double t = now() - t0;
        t_mmc = fmin(t_mmc, t);
        spent += t;
    }
    spent = 0;
    for (int rep = 0; rep < 50 && spent < 0.5; rep++) {
        t0 = now();
        spfa_rc = sv_dist_from(g, 0, 0, d);
        if (spfa_rc < 0)
            die("sv_dist_from");
        double t = now() - t0;
        t_spfa = fmin(t_spfa, t);
        spent += t;
    }
    spent = 0;
    for (int rep = 0; rep < 50 && spent < 0.5; rep++) {
        t0 = now();
        if (sv_dist_from(g, 0, delta, d) != 0)
            die("sv_dist_from(delta)");
        double t = now() - t0;
        t_spfad = fmin(t_spfad, t);
        spent += t;
    }
    double maxviol = -INFINITY;
    for (size_t i = 0; i < e.n; i++)
        if (!isnan(gv[e.s[i]]) && !isnan(gv[e.t[i]]))
            maxviol = fmax(maxviol, gv[e.s[i]] - gv[e.t[i]] - (e.w[i] + delta));
    double maxerr = 0;
    for (uint32_t v = 0; v < n; v++)
        if (!isnan(gv[v]))
            maxerr = fmax(maxerr, fabs(gv[v] - gv[0] - (truth[v] - truth[0])));
    printf("{\"bench\":\"solve\",\"variant\":\"%s\",\"stencil\":\"%s\",\"n\":%u,\"edges\":%zu,"
           "\"build_seconds\":%.6f,\"seconds\":%.6f,\"mmc_seconds\":%.6f,\"spfa_seconds\":%.6f,\"spfa_rc\":%d,"
           "\"ratio\":%.2f,\"spfa_delta_seconds\":%.6f,\"ratio_delta\":%.2f,\"delta_ns\":%.6f,\"lambda_ns\":%.6f,"
           "\"unbounded\":%u,\"max_error_ns\":%.3f,\"max_violation_ns\":%.3g}\n",
           inconsistent ? "inconsistent" : "consistent", nine ? "9pt" : "5pt", n, sv_edges(g), t_build, t_solve,
           t_mmc, t_spfa, spfa_rc, t_solve / t_spfa, t_spfad, t_solve / t_spfad, delta, lambda, unb, maxerr, maxviol);
    fflush(stdout);
    sv_graph_free(g);
    free(e.s);
    free(e.t);
    free(e.w);
    free(truth);
    free(gv);
    free(d);
}

int main(int argc, char **argv)
{
    uint32_t sizes[16] = {1000, 10000, 100000};
    int ns = 3;
    if (argc > 1) {
        ns = 0;
        for (int i = 1; i < argc && ns < 16; i++) {
            long v = strtol(argv[i], NULL, 10);
            if (v < 2 || v > 100000000) {
                fprintf(stderr, "usage: solve_bench [N ...]  (2 <= N <= 1e8)\n");
                return 2;
            }
            sizes[ns++] = (uint32_t)v;
        }
    }
    uint32_t largest = 0;
    for (int i = 0; i < ns; i++)
        if (sizes[i] > largest)
            largest = sizes[i];
    for (int i = 0; i < ns; i++)
        for (int inc = 0; inc < 2; inc++) {
            run(sizes[i], 0, inc);
            if (sizes[i] == largest)
                run(sizes[i], 1, inc);
        }
    return 0;
}
