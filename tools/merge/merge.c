/* merge.c — `synctrace merge RAW_DIR -o OUT`: read every rank's archive,
 * match messages and collectives, solve clock offsets as difference
 * constraints, and write one tachyon-free OTF2 archive plus report.json.
 *
 * The output is built in OUT.tmp-PID and renamed when complete; an existing
 * OUT is replaced only with --force; the raw trace is only read. */
#define _XOPEN_SOURCE 700
#include <config.h>
#include "causal_report.h"
#include "clc.h"
#include "clockmodel.h"
#include "commands.h"
#include "constraints.h"
#include "fsutil.h"
#include "causal.h"
#include "match.h"
#include "otf2out.h"
#include "progress.h"
#include "rawview.h"
#include "rawdir.h"
#include "rawtrace.h"
#include "report.h"
#include "solve.h"
#include "timing.h"

#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Above this many locations the causal index is built only on request. */
#define CAUSAL_AUTO_MAX 1024
#define CAUSAL_AUTO_MAX_S "1024"

/* Time windows per clock when measuring residual drift from the events. */
#define REFINE_WINDOWS 4

#define DEFAULT_CLUSTER_LEVELS CAUSAL_DEFAULT_LEVELS   /* causal_report.h: why 8 */

struct options {
    const char *raw, *out;
    int reference;
    double alpha;
    int median;
    double min_latency;       /* ns, between different clocks (--min-latency) */
    double max_drift;         /* largest drift a clock may have (fraction) */
    int jobs;                 /* threads reading rank archives */
    int force, no_drift;
    int drift_model;          /* --drift-model: 0 auto, else CM_LINE or CM_SEGMENTS + 1 */
    const char *cluster_levels;   /* causal index: maximum cluster sizes per level */
    int no_causal;            /* 1: --no-causal; -1: --causal (whatever the size) */
};

static int usage(FILE *to)
{
    fprintf(to, "usage: synctrace merge RAW_DIR -o OUT_DIR [--reference RANK] [--alpha A]\n"
                "                      [--timebase reference|median] [--min-latency NS] [--max-drift-ppm P]\n"
                "                      [--drift-model auto|line|segments] [--no-drift] [--jobs N] [--force]\n"
                "                      [--cluster-levels S[,S...]] [--no-causal]\n"
                "Merge a raw trace into one OTF2 archive with synchronised, tachyon-free timestamps\n"
                "(OUT_DIR/traces.otf2) and write OUT_DIR/report.json.\n"
                "  --reference RANK   clock that defines global time (default 0)\n"
                "  --alpha A          where in the feasible interval offsets lie, 0..1 (default 0.5)\n"
                "  --timebase median  global time follows the median of the clocks, not one of them\n"
                "  --min-latency NS   minimum one-way message latency (default 0: receives never before sends)\n"
                "  --drift-model M    line: one drift per clock, from its first to its last sync round;\n"
                "                     segments: a drift and an offset per span between sync rounds;\n"
                "                     auto (default): line, unless the events contradict it and segments less\n"
                "  --no-drift         do not correct drift between sync rounds\n"
                "  --max-drift-ppm P  drift estimates beyond P ppm are noise (default 200)\n"
                "  --jobs N           threads reading the rank archives (default: the number of cores)\n"
                "  --force            replace OUT_DIR if it exists\n"
                "  --cluster-levels S[,S...]  causal index (OUT_DIR/causal.idx, synctrace query): maximum\n"
                "                     cluster size per level, increasing; one size = two-level timestamps\n"
                "                     (default " DEFAULT_CLUSTER_LEVELS ")\n"
                "  --no-causal        do not build the causal index\n"
                "  --causal           build it above " CAUSAL_AUTO_MAX_S " locations too (its size grows with\n"
                "                     locations x events: at 1000 ranks of a stencil, 350 bytes per event)\n");
    return to == stdout ? 0 : 2;
}

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.5;
    o->min_latency = 0;
    o->max_drift = 200e-6;
    o->cluster_levels = DEFAULT_CLUSTER_LEVELS;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)cores : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout) - 1;
        if ((!strcmp(a, "-o") || !strcmp(a, "--reference") || !strcmp(a, "--alpha") || !strcmp(a, "--timebase")
             || !strcmp(a, "--min-latency") || !strcmp(a, "--max-drift-ppm") || !strcmp(a, "--jobs")
             || !strcmp(a, "--drift-model") || !strcmp(a, "--cluster-levels")) && i + 1 >= argc) {
            fprintf(stderr, "synctrace merge: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-o")) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--reference")) {
            if (parse_number(argv[++i], &v) || v < 0 || v != (int)v) {
                fprintf(stderr, "synctrace merge: --reference takes a rank, not '%s'\n", argv[i]);
                return 2;
            }
            o->reference = (int)v;
        } else if (!strcmp(a, "--alpha")) {
            if (parse_number(argv[++i], &o->alpha) || !(o->alpha >= 0 && o->alpha <= 1)) {
                fprintf(stderr, "synctrace merge: --alpha takes a number from 0 to 1, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--timebase")) {
            const char *t = argv[++i];
            if (strcmp(t, "reference") && strcmp(t, "median")) {
                fprintf(stderr, "synctrace merge: --timebase is reference or median, not '%s'\n", t);
                return 2;
            }
            o->median = !strcmp(t, "median");
        } else if (!strcmp(a, "--drift-model")) {
            const char *t = argv[++i];
            if (strcmp(t, "segments") && strcmp(t, "line") && strcmp(t, "auto")) {
                fprintf(stderr, "synctrace merge: --drift-model is auto, line or segments, not '%s'\n", t);
                return 2;
            }
            o->drift_model = !strcmp(t, "auto") ? 0 : !strcmp(t, "line") ? CM_LINE + 1 : CM_SEGMENTS + 1;
        } else if (!strcmp(a, "--min-latency")) {
            if (parse_number(argv[++i], &o->min_latency) || o->min_latency < 0) {
                fprintf(stderr, "synctrace merge: --min-latency takes nanoseconds >= 0, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--max-drift-ppm")) {
            if (parse_number(argv[++i], &v) || !(v > 0)) {
                fprintf(stderr, "synctrace merge: --max-drift-ppm takes a positive number, not '%s'\n", argv[i]);
                return 2;
            }
            o->max_drift = v * 1e-6;
        } else if (!strcmp(a, "--jobs")) {
            if (parse_number(argv[++i], &v) || v < 1 || v > 1024 || v != (int)v) {
                fprintf(stderr, "synctrace merge: --jobs takes a whole number from 1 to 1024, not '%s'\n", argv[i]);
                return 2;
            }
            o->jobs = (int)v;
        } else if (!strcmp(a, "--cluster-levels")) {
            struct ci_config cfg;
            char err[256];
            o->cluster_levels = argv[++i];
            if (ci_parse_levels(o->cluster_levels, &cfg, err, sizeof err) != 0) {
                fprintf(stderr, "synctrace merge: --cluster-levels: %s\n", err);
                return 2;
            }
        } else if (!strcmp(a, "--no-causal")) {
            o->no_causal = 1;
        } else if (!strcmp(a, "--causal")) {
            o->no_causal = -1;
        } else if (!strcmp(a, "--force")) {
            o->force = 1;
        } else if (!strcmp(a, "--no-drift")) {
            o->no_drift = 1;
        } else if (a[0] == '-' || o->raw) {
            fprintf(stderr, "synctrace merge: unexpected argument '%s' (see --help)\n", a);
            return 2;
        } else {
            o->raw = a;
        }
    }
    if (!o->raw || !o->out) {
        fprintf(stderr, "synctrace merge: need RAW_DIR and -o OUT_DIR (see --help)\n");
        return 2;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (reorders v). */
static double median(double *v, uint32_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

/* Read the rank archives, `jobs` at a time: each has its own OTF2 reader,
 * and reading is most of a merge's time. The first error (in rank order)
 * is reported. */
struct read_work {
    char **anchors;
    struct rt_rank *ranks;
    int n;
    int next;                 /* next rank to read */
    pthread_mutex_t lock;
    char **errors;            /* per rank, NULL when read */
};

/* A rank's error when even its message cannot be copied. */
static char read_out_of_memory[] = "out of memory";

static void *read_worker(void *arg)
{
    struct read_work *w = arg;
    char err[4400];
    for (;;) {
        pthread_mutex_lock(&w->lock);
        int i = w->next < w->n ? w->next++ : -1;
        progress_update("reading rank archives", (uint64_t)(i < 0 ? w->n : i), (uint64_t)w->n);
        pthread_mutex_unlock(&w->lock);
        if (i < 0)
            return NULL;
        if (rt_read_rank(w->anchors[i], &w->ranks[i], err, sizeof err) != 0
            && !(w->errors[i] = strdup(err)))
            w->errors[i] = read_out_of_memory;
    }
}

static int read_ranks(char **anchors, int n, struct rt_rank *ranks, int jobs, char *err, size_t errlen)
{
    struct read_work w = { anchors, ranks, n, 0, PTHREAD_MUTEX_INITIALIZER, calloc((size_t)n, sizeof(char *)) };
    if (!w.errors) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (jobs > n)
        jobs = n;
    pthread_t *threads = malloc(sizeof *threads * (size_t)(jobs > 1 ? jobs - 1 : 1));
    int started = 0;
    for (int k = 1; threads && k < jobs; k++)
        if (pthread_create(&threads[started], NULL, read_worker, &w) == 0)
            started++;
    read_worker(&w);   /* this thread works too */
    for (int k = 0; k < started; k++)
        pthread_join(threads[k], NULL);
    free(threads);
    int rc = 0;
    for (int i = 0; i < n; i++)
        if (w.errors[i]) {
            if (rc == 0)
                snprintf(err, errlen, "%s", w.errors[i]);
            rc = -1;
            if (w.errors[i] != read_out_of_memory)
                free(w.errors[i]);
        }
    free(w.errors);
    return rc;
}

/* The minimum one-way latency is one number, --min-latency, 0 by default:
 * round trips bound the sum of the two one-way latencies, not either one.
 * On a loaded machine one direction can take almost all of it (seen here:
 * 375 ns one way where a quarter of the fastest round trip was 986 ns), so
 * no estimate from the sync rounds is a bound the truth cannot violate. */

/* Build the constraint graph for a clock model and solve it. */
static int solve_model(const struct rt_rank *ranks, const struct cm_model *model, const struct mg_result *match,
                       double lmin, uint32_t tau, double alpha, struct sv_graph **graph, double **x,
                       double **lo, double **hi, double *delta, uint32_t *unbounded, struct cs_stats *cs)
{
    *graph = cs_build(ranks, model, match, lmin, cs);
    if (!*graph) {
        if (cs->too_large)
            fprintf(stderr, "synctrace merge: the constraint graph would have more than 2^32-1 vertices\n");
        else
            fprintf(stderr, "synctrace merge: out of memory while building the constraint graph\n");
        return -1;
    }
    uint32_t nv = sv_vertices(*graph);
    *x = malloc(sizeof **x * nv);
    *lo = malloc(sizeof **lo * nv);
    *hi = malloc(sizeof **hi * nv);
    if (!*x || !*lo || !*hi) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    if (sv_solve(*graph, cm_domain_vertex(model, tau), alpha, *x, delta, *lo, *hi, unbounded) != 0) {
        fprintf(stderr, "synctrace merge: the solver failed: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* One solve of the constraint graph, and everything it produced. */
struct solution {
    struct sv_graph *graph;
    double *x, *lo, *hi, delta;
    uint32_t unbounded;
    struct cs_stats cs;
};

static void solution_free(struct solution *s)
{
    if (s->graph)
        sv_graph_free(s->graph);
    free(s->x);
    free(s->lo);
    free(s->hi);
    memset(s, 0, sizeof *s);
}

/* Solve with `beta` as the clocks' drifts; when that contradicts the events
 * less than `best` (smaller delta), it becomes `best` and the model takes
 * the drifts. Returns 1 if adopted, 0 if not, -1 on failure. */
static int try_drifts(const struct rt_rank *ranks, const struct mg_result *match, double lmin, uint32_t tau,
                      double alpha, struct cm_model *model, const double *beta, int replace, struct solution *best)
{
    struct cm_model trial;
    if (cm_copy(model, &trial) != 0)
        return -1;
    for (uint32_t d = 0; d < model->ndomains; d++)
        cm_set_drift(&trial, d, beta[d], replace);
    struct solution s = { 0 };
    if (solve_model(ranks, &trial, match, lmin, tau, alpha, &s.graph, &s.x, &s.lo, &s.hi, &s.delta, &s.unbounded,
                    &s.cs) != 0) {
        solution_free(&s);
        cm_free(&trial);
        return -1;
    }
    if (s.delta < best->delta) {
        solution_free(best);
        *best = s;
        cm_free(model);
        *model = trial;
        return 1;
    }
    solution_free(&s);
    cm_free(&trial);
    return 0;
}

/* Residual drift from the events themselves: cut every segment into
 * `windows` spans with an offset each, solve, and fit a line through each
 * clock's window offsets relative to the reference's at the same time. Two
 * sync rounds close together on a loaded machine can misjudge a drift by
 * hundreds of ppm; thousands of messages over the whole run do not. Returns
 * 0 and the drift corrections (to add to every segment's) in beta, or -1. */
static int residual_drift(const struct rt_rank *ranks, const struct cm_model *model, const struct mg_result *match,
                          double lmin, uint32_t tau, double alpha, uint32_t windows, double *beta)
{
    struct cm_model w = *model;
    w.windows = windows;
    struct sv_graph *g = NULL;
    double *x = NULL, *lo = NULL, *hi = NULL, delta = 0;
    double *st = calloc(model->ndomains, sizeof *st), *so = calloc(model->ndomains, sizeof *so);
    double *stt = calloc(model->ndomains, sizeof *stt), *sto = calloc(model->ndomains, sizeof *sto);
    uint32_t *cnt = calloc(model->ndomains, sizeof *cnt);
    uint32_t unb = 0;
    struct cs_stats cs;
    int rc = -1;
    if (!st || !so || !stt || !sto || !cnt
        || solve_model(ranks, &w, match, lmin, tau, alpha, &g, &x, &lo, &hi, &delta, &unb, &cs) != 0)
        goto done;
    /* the reference is one segment: its window offsets, by window middle */
    uint32_t t0 = cm_domain_vertex(&w, tau);
    double rlen = model->domains[tau].span_ns / windows;
    for (uint32_t v = 0; v < cm_nvertices(&w); v++) {
        uint32_t d;
        double l0, len;
        cm_vertex_span(&w, v, &d, &l0, &len);
        if (d == tau || !isfinite(x[v]))
            continue;   /* a window no constraint reaches */
        double t = l0 + len / 2, f = rlen > 0 ? t / rlen - 0.5 : 0;
        int64_t k = (int64_t)floor(f);
        if (k < 0) k = 0;
        if (k > (int64_t)windows - 2) k = windows >= 2 ? windows - 2 : 0;
        double a = x[t0 + k], b = windows >= 2 ? x[t0 + k + 1] : a, frac = f - (double)k;
        if (!isfinite(a) || !isfinite(b))
            continue;
        double o = x[v] - (a + (b - a) * frac);
        st[d] += t; so[d] += o; stt[d] += t * t; sto[d] += t * o;
        cnt[d]++;
    }
    for (uint32_t d = 0; d < model->ndomains; d++) {
        double n = cnt[d], den = n * stt[d] - st[d] * st[d];
        beta[d] = cnt[d] >= 2 && den > 0 ? (n * sto[d] - st[d] * so[d]) / den : 0;
    }
    rc = 0;
done:
    if (g)
        sv_graph_free(g);
    free(x);
    free(lo);
    free(hi);
    free(st);
    free(so);
    free(stt);
    free(sto);
    free(cnt);
    return rc;
}

static int by_location_id(const void *a, const void *b)
{
    uint64_t x = ow_location_id(a), y = ow_location_id(b);
    return (x > y) - (x < y);
}

/* The clock model of the given kind, with --timebase median applied:
 * Fleury et al., eq. 3, time follows the median clock; folding its rate
 * into every clock's drift keeps every constraint exact. */
static int build_model(const struct rt_rank *ranks, uint32_t n, const struct options *o, enum cm_drift_model kind,
                       struct cm_model *model, double *median_rate)
{
    if (cm_build(ranks, n, (uint32_t)o->reference, kind, o->max_drift, model) != 0)
        return -1;
    if (o->median) {
        double *b = malloc(sizeof *b * model->ndomains);
        if (!b) {
            cm_free(model);
            return -1;
        }
        for (uint32_t d = 0; d < model->ndomains; d++)
            b[d] = cm_mean_drift(&model->domains[d]);
        *median_rate = median(b, model->ndomains);
        free(b);
        cm_rebase(model, *median_rate);
    }
    return 0;
}

int cmd_merge(int argc, char **argv)
{
    struct options o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    char err[4400];
    struct stat st;
    if (stat(o.out, &st) == 0 && !o.force) {
        fprintf(stderr, "synctrace merge: %s exists (use --force to replace it)\n", o.out);
        return 1;
    }
    struct report rep;
    report_init(&rep);
    progress_begin("synctrace merge");
    double t_start = st_now_s(), t = t_start;

    char **anchors = NULL;
    int n = rawdir_list(o.raw, &anchors, err, sizeof err);
    int nanchors = n;
    if (n < 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return 1;
    }
    struct rt_rank *ranks = calloc((size_t)n, sizeof *ranks);
    struct mg_result match = { 0 };
    struct cm_model model = { 0 };
    struct solution sol = { 0 };   /* owns the graph and offsets used below */
    struct causal_summary causal;
    struct causal_job *causal_job = NULL;   /* the causal index, built while the archive is written */
    double lmin = o.min_latency;
    uint64_t **gtime = NULL, **truth = NULL;
    char tmp[4200] = "";
    rc = 1;
    if (!ranks) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto done;
    }
    if (read_ranks(anchors, n, ranks, o.jobs, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        goto done;
    }
    /* One run, every rank once, in rank order. */
    for (int i = 0; i < n; i++) {
        if (ranks[i].world_size != n || ranks[i].rank != i) {
            if (ranks[i].world_size != n)
                fprintf(stderr, "synctrace merge: %s: rank %d of a %d-rank run, but %s holds %d rank archives\n",
                        anchors[i], ranks[i].rank, ranks[i].world_size, o.raw, n);
            else
                fprintf(stderr, "synctrace merge: %s: holds rank %d where rank %d was expected\n", anchors[i],
                        ranks[i].rank, i);
            goto done;
        }
        if (strcmp(ranks[i].run_id ? ranks[i].run_id : "", ranks[0].run_id ? ranks[0].run_id : "") != 0) {
            fprintf(stderr, "synctrace merge: %s: from run %s, but %s is from run %s: archives of different runs\n",
                    anchors[i], ranks[i].run_id ? ranks[i].run_id : "?", anchors[0],
                    ranks[0].run_id ? ranks[0].run_id : "?");
            goto done;
        }
        /* A recovered rank's main thread may have flushed nothing while
         * its other threads did. */
        uint64_t all_events = ranks[i].nevents;
        for (uint32_t k = 0; k < ranks[i].nthreads; k++)
            all_events += ranks[i].threads[k].nevents;
        if (all_events == 0 || (ranks[i].nevents == 0 && !ranks[i].recovered)) {
            fprintf(stderr, "synctrace merge: %s: no events\n", anchors[i]);
            goto done;
        }
        rep.events += ranks[i].nevents;
        /* A rank that died keeps what it recorded (its archive was closed on
         * the way out); say so, since its last messages will not match. */
        int finalized = 0;
        for (uint64_t k = ranks[i].nevents; k-- > 0 && !finalized;) {
            const struct rt_event *e = &ranks[i].events[k];
            finalized = e->kind == RT_ENTER && e->ref < ranks[i].nregions && ranks[i].regions[e->ref]
                        && strcmp(ranks[i].regions[e->ref], "MPI_Finalize") == 0;
        }
        if (ranks[i].recovered) {
            /* Killed (SIGKILL) before it could close its archive: rebuilt
             * from its journal, with what the buffer flushes of its
             * locations (its threads') had written. */
            fprintf(stderr, "synctrace merge: warning: rank-%06d: recovered %llu events from a rank that was killed; "
                            "events after its last buffer flush are lost\n",
                    i, (unsigned long long)all_events);
            rep.incomplete_ranks++;
        } else if (!finalized) {
            fprintf(stderr, "synctrace merge: warning: %s: rank %d ended without MPI_Finalize; "
                            "its %llu recorded events are merged\n",
                    anchors[i], i, (unsigned long long)ranks[i].nevents);
            rep.incomplete_ranks++;
        }
    }
    if (o.reference >= n) {
        fprintf(stderr, "synctrace merge: --reference %d: the trace has ranks 0 to %d\n", o.reference, n - 1);
        goto done;
    }
    rep.ranks = (uint32_t)n;
    /* From here on, one entry per location: a rank whose other threads
     * called MPI (MPI_THREAD_SERIALIZED or MULTIPLE) has several. They share
     * the rank's clock and definitions. In the merged archive's location
     * order (ow_location_id): the ranks' main locations first, so entry r
     * is rank r's, then the other threads. */
    uint32_t reference = (uint32_t)o.reference;
    {
        struct rt_rank **th = calloc((size_t)n, sizeof *th);
        uint32_t *nth = calloc((size_t)n, sizeof *nth);
        size_t total = (size_t)n;
        if (!th || !nth) {
            free(th);
            free(nth);
            fprintf(stderr, "synctrace merge: out of memory\n");
            goto done;
        }
        for (int i = 0; i < n; i++) {
            nth[i] = rt_take_threads(&ranks[i], &th[i]);
            total += nth[i];
            for (uint32_t j = 0; j < nth[i]; j++)
                rep.events += th[i][j].nevents;
        }
        struct rt_rank *all = realloc(ranks, sizeof *all * total);
        if (all) {
            ranks = all;
            size_t k = (size_t)n;
            for (int i = 0; i < n; i++)
                for (uint32_t j = 0; j < nth[i]; j++)
                    ranks[k++] = th[i][j];
            /* by location id (thread << 32 | rank): thread numbers may have
             * gaps (a recovered rank's thread that never flushed) */
            qsort(ranks + n, total - (size_t)n, sizeof *ranks, by_location_id);
        } else {
            for (int i = 0; i < n; i++)
                for (uint32_t j = 0; j < nth[i]; j++)
                    rt_free_rank(&th[i][j]);
        }
        for (int i = 0; i < n; i++)
            free(th[i]);
        free(th);
        free(nth);
        if (!all) {
            fprintf(stderr, "synctrace merge: out of memory\n");
            goto done;
        }
        n = (int)total;
        rep.threads = (uint32_t)(total - rep.ranks);
    }
    rep.seconds_read = st_now_s() - t;
    t = st_now_s();

    progress_update("matching messages and collectives", 0, 0);
    if (mg_match(ranks, (uint32_t)n, &match, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        goto done;
    }
    rep.seconds_match = st_now_s() - t;
    t = st_now_s();

    progress_update("solving the clock constraints", 0, 0);
    /* One drift per clock first: over the whole run its estimate is the
     * most precise, and one offset per clock uses every constraint at once.
     * Only when the events still contradict it after the refinements below
     * (drift that changes during the run) are the clocks cut into segments
     * at their sync rounds, each with its own drift and offset, kept if they
     * contradict the events less:
     * on a loaded machine, rounds a fraction of a second apart misjudge a
     * drift by several ppm, which segments would otherwise trust. */
    enum cm_drift_model kind = o.no_drift ? CM_NO_DRIFT : o.drift_model ? (enum cm_drift_model)(o.drift_model - 1) : CM_LINE;
    o.reference = (int)reference;   /* the reference rank's main location */
    if (build_model(ranks, (uint32_t)n, &o, kind, &model, &rep.median_rate) != 0
        ) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        goto done;
    }
    uint32_t tau = model.domain_of[o.reference];
    if (solve_model(ranks, &model, &match, lmin, tau, o.alpha, &sol.graph, &sol.x, &sol.lo, &sol.hi, &sol.delta,
                    &sol.unbounded, &sol.cs) != 0)
        goto done;
    /* Contradictions under the drift model may be the drift's fault (sync
     * rounds close together on a loaded machine): solve once more without
     * it and keep the more consistent result. */
    int any_drift = 0;
    for (uint32_t d = 0; d < model.ndomains; d++)
        for (uint32_t k = 0; k < model.domains[d].nseg; k++)
            any_drift |= model.domains[d].seg[k].beta != 0;
    if (sol.delta > 0 && any_drift) {
        double *zero = calloc(model.ndomains, sizeof *zero);
        if (!zero)
            goto done;
        rep.drift_dropped = try_drifts(ranks, &match, lmin, tau, o.alpha, &model, zero, 1, &sol) == 1;
        free(zero);
    }
    /* When the events contradict the drift model (delta > 0), refine the
     * drifts from the events themselves (twice: the second pass sees the
     * first one's correction), keeping each pass that contradicts them
     * less. Without contradiction nothing says the model is wrong, and the
     * sync rounds' estimate stands. */
    for (int pass = 0; pass < 2 && sol.delta > 0 && model.ndomains > 1 && !o.no_drift; pass++) {
        double *beta = malloc(sizeof *beta * model.ndomains);
        int adopted = beta && residual_drift(ranks, &model, &match, lmin, tau, o.alpha, REFINE_WINDOWS, beta) == 0
                      && try_drifts(ranks, &match, lmin, tau, o.alpha, &model, beta, 0, &sol) == 1;
        free(beta);
        if (!adopted)
            break;
        rep.drift_refined = pass + 1;
    }
    /* Still contradicted: cut the clocks at their sync rounds. */
    if (sol.delta > 0 && kind == CM_LINE && !o.drift_model) {
        struct cm_model seg;
        struct solution s2 = { 0 };
        if (build_model(ranks, (uint32_t)n, &o, CM_SEGMENTS, &seg, &rep.median_rate) != 0)
            goto done;
        if (seg.nsegments > seg.ndomains) {
            if (solve_model(ranks, &seg, &match, lmin, tau, o.alpha, &s2.graph, &s2.x, &s2.lo, &s2.hi, &s2.delta,
                            &s2.unbounded, &s2.cs) != 0) {
                cm_free(&seg);
                solution_free(&s2);
                goto done;
            }
            if (s2.delta < sol.delta) {
                struct cm_model t1 = model;
                struct solution t2 = sol;
                model = seg;
                sol = s2;
                seg = t1;
                s2 = t2;
                rep.drift_dropped = rep.drift_refined = 0;   /* they were the line's */
            }
        }
        cm_free(&seg);
        solution_free(&s2);
    }
    rep.segments_used = model.nsegments > model.ndomains;
    struct sv_graph *graph = sol.graph;
    double *x = sol.x, *lo = sol.lo, *hi = sol.hi, delta = sol.delta;
    uint32_t unbounded = sol.unbounded;
    struct cs_stats cs = sol.cs;
    uint32_t nv = sv_vertices(graph);
    /* A domain no constraint ties to the reference keeps the sync-round
     * estimate: the best there is, reported as unbounded. */
    for (uint32_t d = 0; d < model.ndomains; d++)
        for (uint32_t k = 0; k < model.domains[d].nseg; k++)
            if (isnan(x[model.domains[d].first_seg + k]))
                x[model.domains[d].first_seg + k] = model.domains[d].seg[k].x_est;
    uint32_t nclk = cm_nvertices(&model);
    if (o.median) {
        double *v = malloc(sizeof *v * model.ndomains);
        if (!v)
            goto done;
        for (uint32_t d = 0; d < model.ndomains; d++)
            v[d] = x[cm_domain_vertex(&model, d)];
        double shift = median(v, model.ndomains);
        free(v);
        for (uint32_t k = 0; k < nclk; k++)
            x[k] -= shift;
    }
    rep.seconds_solve = st_now_s() - t;
    rep.delta_ns = delta;
    rep.unbounded = unbounded;
    rep.vertices = nv;
    rep.edges = sv_edges(graph);
    rep.hubs = cs.hubs;
    rep.neighbour_edges = cs.neighbour_edges;
    t = st_now_s();

    /* Global times; the earliest event becomes 0. */
    gtime = calloc((size_t)n, sizeof *gtime);
    truth = calloc((size_t)n, sizeof *truth);
    if (!gtime || !truth)
        goto done;
    double gmin = INFINITY;
    for (int r = 0; r < n; r++)
        if (ranks[r].nevents)
            gmin = fmin(gmin, cm_corrected(&model, r, ranks[r].events[0].time)
                                  + x[cm_vertex(&model, r, ranks[r].events[0].time)]);
    for (int r = 0; r < n; r++) {
        const struct rt_rank *rk = &ranks[r];
        gtime[r] = malloc(sizeof **gtime * (rk->nevents ? rk->nevents : 1));
        if (!gtime[r])
            goto done;
        uint64_t prev = 0;
        for (uint64_t i = 0; i < rk->nevents; i++) {
            uint64_t ti = rk->events[i].time;
            double g = cm_corrected(&model, r, ti) + x[cm_vertex(&model, r, ti)] - gmin;
            uint64_t v = g <= 0 ? 0 : (uint64_t)llround(g);
            if (v < prev)
                v = prev;   /* rounding only: c() is monotonic */
            gtime[r][i] = prev = v;
        }
        if (rk->nevents && rk->events[0].has_truth) {
            truth[r] = malloc(sizeof **truth * rk->nevents);
            if (!truth[r])
                goto done;
            /* true_time is one clock for the whole run (the undistorted node
             * clock): one rate for every rank, or calibration differences of a
             * few ppb times ticks since boot would show as microseconds. */
            double res = ranks[0].resolution ? (double)ranks[0].resolution : 1e9;
            for (uint64_t i = 0; i < rk->nevents; i++)
                truth[r][i] = (uint64_t)llround((double)rk->events[i].truth / res * 1e9);
        }
    }
    progress_update("measuring the result", 0, 0);
    report_fill(&rep, ranks, (uint32_t)n, &match, &model, x, lo, hi, tau, lmin, gtime, truth);
    if (truth[0]) {
        /* With true times, compare against the controlled logical clock
         * (Scalasca's repair of interpolated timestamps) on the same input.
         * The report only: the archive keeps our times. */
        double tc = st_now_s();
        uint64_t **ctime = calloc((size_t)n, sizeof *ctime);
        struct clc_stats cst;
        /* clc takes a latency per pair of clocks; ours is one number (NULL: 0) */
        double *clc_lmin = NULL;
        if (lmin > 0 && (clc_lmin = malloc(sizeof *clc_lmin * model.ndomains * model.ndomains)) != NULL)
            for (size_t k = 0; k < (size_t)model.ndomains * model.ndomains; k++)
                clc_lmin[k] = lmin;
        if (!ctime || (lmin > 0 && !clc_lmin))
            fprintf(stderr, "synctrace merge: warning: out of memory: no comparison with the controlled logical clock\n");
        else if (clc_correct(ranks, (uint32_t)n, &match, clc_lmin, &model, NULL, ctime, &cst, err, sizeof err) != 0)
            fprintf(stderr, "synctrace merge: warning: no comparison with the controlled logical clock: %s\n", err);
        else
            report_fill_clc(&rep, ranks, (uint32_t)n, &match, ctime, truth, &cst, st_now_s() - tc);
        if (ctime)
            clc_free_times(ctime, (uint32_t)n);
        free(ctime);
        free(clc_lmin);
    }
    /* Precision over pairs of domains, where all-pairs is affordable. */
    if (model.ndomains <= 2000 && model.ndomains > 1) {
        double *ap = nv <= 4000 ? malloc(sizeof *ap * (size_t)nv * nv) : NULL;
        if (ap && sv_all_pairs(graph, delta, 4000, ap) == 0) {
            /* between clocks: each domain's first segment */
            uint32_t nd = model.ndomains;
            double *block = malloc(sizeof *block * (size_t)nd * nd);
            if (block) {
                for (uint32_t a = 0; a < nd; a++)
                    for (uint32_t b = 0; b < nd; b++)
                        block[(size_t)a * nd + b] = ap[(size_t)cm_domain_vertex(&model, a) * nv + cm_domain_vertex(&model, b)];
                sv_pair_uncertainty(block, nd, &rep.pair_max_ns, &rep.pair_mean_ns);
                rep.have_pairs = 1;
                free(block);
            }
        }
        free(ap);
    }
    rep.seconds_apply = st_now_s() - t;
    t = st_now_s();

    /* Write into a temporary directory next to OUT, then rename. */
    /* A name cut short could name another directory: never remove that. */
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", o.out, (long)getpid()) >= (int)sizeof tmp) {
        fprintf(stderr, "synctrace merge: %s: the output path is too long\n", o.out);
        tmp[0] = '\0';
        goto done;
    }
    st_remove_tree(tmp);
    if (mkdir(tmp, 0777) != 0) {
        fprintf(stderr, "synctrace merge: %s: %s\n", tmp, strerror(errno));
        tmp[0] = '\0';
        goto done;
    }
    progress_update("writing the merged archive", 0, 0);
    if (!o.no_causal && n > CAUSAL_AUTO_MAX) {
        /* Cluster receives keep full vectors (one entry per location): at
         * thousands of locations the index outgrows the trace many times. */
        fprintf(stderr, "synctrace merge: note: %d locations: no causal index by default above %d "
                        "(--causal builds it, or synctrace causal OUT later)\n", n, CAUSAL_AUTO_MAX);
        rep.causal_skipped = 1;
    } else if (o.no_causal <= 0) {
        /* R:I of a query is the I-th event of rank R's location: ow_write
         * writes every event of ranks[R] in order, one record each. The
         * index only needs the matches: built while the archive is written. */
        uint64_t *nev = malloc(sizeof *nev * (size_t)n);
        if (!nev)
            goto done;
        for (int r = 0; r < n; r++)
            nev[r] = ranks[r].nevents;
        causal_job = causal_start(tmp, nev, (uint32_t)n, &match, o.cluster_levels);
        free(nev);
        if (!causal_job) {
            fprintf(stderr, "synctrace merge: out of memory\n");
            goto done;
        }
    }
    if (ow_write(tmp, "traces", ranks, (uint32_t)n, &match, gtime, truth, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        goto done;
    }
    /* The events' raw (interpolated ClockOffsets) times, for the HTML view. */
    if (rv_write(tmp, ranks, (uint32_t)n, gtime, NULL, err, sizeof err) != 0)
        fprintf(stderr, "synctrace merge: warning: %s; the HTML export will have no raw view\n", err);
    rep.seconds_write = st_now_s() - t;
    if (causal_job) {
        int crc = causal_finish(causal_job, tmp, &causal, err, sizeof err);
        causal_job = NULL;
        if (crc != 0) {
            fprintf(stderr, "synctrace merge: %s\n", err);
            goto done;
        }
        if (!causal.built)
            fprintf(stderr, "synctrace merge: warning: no causal index: %s\n", causal.error);
        rep.causal = &causal;
    }
    rep.seconds_total = st_now_s() - t_start;
    if (report_write(&rep, tmp, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        goto done;
    }
    if (stat(o.out, &st) == 0) {
        char old[4300];
        if (snprintf(old, sizeof old, "%s.old-%ld", o.out, (long)getpid()) >= (int)sizeof old) {
            fprintf(stderr, "synctrace merge: %s: the output path is too long\n", o.out);
            goto done;
        }
        if (rename(o.out, old) != 0 || rename(tmp, o.out) != 0) {
            fprintf(stderr, "synctrace merge: cannot replace %s: %s\n", o.out, strerror(errno));
            goto done;
        }
        st_remove_tree(old);
    } else if (rename(tmp, o.out) != 0) {
        fprintf(stderr, "synctrace merge: cannot create %s: %s\n", o.out, strerror(errno));
        goto done;
    }
    tmp[0] = '\0';
    progress_end();
    report_print_summary(&rep, stdout);
    rc = 0;
done:
    causal_abandon(causal_job);   /* before the matches it reads are freed */
    progress_end();
    if (tmp[0])
        st_remove_tree(tmp);
    if (gtime)
        for (int r = 0; r < n; r++)
            free(gtime[r]);
    if (truth)
        for (int r = 0; r < n; r++)
            free(truth[r]);
    free(gtime);
    free(truth);
    solution_free(&sol);
    cm_free(&model);
    mg_free(&match);
    if (ranks)
        for (int i = 0; i < n; i++)
            rt_free_rank(&ranks[i]);
    free(ranks);
    rawdir_free(anchors, nanchors);
    report_free(&rep);
    return rc;
}
