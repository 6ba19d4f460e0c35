/* causal_report.c — see causal_report.h. */
#include "causal_report.h"
#include "causal.h"
#include "timing.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Write through a temporary file and rename, so readers never see half a file. */
static FILE *open_tmp(const char *path, char *tmp, size_t len)
{
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    return fopen(tmp, "w");
}

static int close_tmp(FILE *f, const char *tmp, const char *path, char *err, size_t errlen)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

static int write_csv(const char *dir, const struct causal_summary *s, char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/cluster_sizes.csv", dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "max_cluster_size,self_organizing,contiguous,fidge_mattern\n");
    for (uint32_t k = 1; k <= s->nsweep; k++)
        fprintf(f, "%u,%.4f,%.4f,%u\n", k, s->sweep_self[k], s->sweep_contiguous[k], s->ranks);
    return close_tmp(f, tmp, path, err, errlen);
}

/* The paper's Fig. 7: timestamp size as a percentage of Fidge/Mattern's
 * against the maximum cluster size, both kinds of cluster. */
static int write_svg(const char *dir, const struct causal_summary *s, char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/cluster_sizes.svg", dir);
    FILE *f = open_tmp(path, tmp, sizeof tmp);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    const double W = 640, H = 400, x0 = 70, y0 = 340, pw = 540, ph = 290;
    double ymax = 0;
    for (uint32_t k = 1; k <= s->nsweep; k++) {
        double a = 100 * s->sweep_self[k] / s->ranks, b = 100 * s->sweep_contiguous[k] / s->ranks;
        ymax = a > ymax ? a : ymax;
        ymax = b > ymax ? b : ymax;
    }
    double step = ymax <= 1 ? 0.2 : ymax <= 5 ? 1 : ymax <= 10 ? 2 : ymax <= 25 ? 5 : ymax <= 50 ? 10 : 20;
    double top = step;
    while (top < ymax)
        top += step;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(f, "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">Cluster timestamp size, %% of "
               "Fidge/Mattern (%u entries per event)</text>\n", W / 2, s->ranks);
    for (double y = 0; y <= top + 1e-9; y += step) {
        double py = y0 - ph * y / top;
        fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0, py, x0 + pw, py);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", x0 - 6, py + 4, y);
    }
    for (uint32_t k = 0; k <= CAUSAL_SWEEP_MAX; k += 5) {
        double px = x0 + pw * k / CAUSAL_SWEEP_MAX;
        fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%u</text>\n", px, y0 + 18, k);
    }
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", x0, y0, x0 + pw, y0);
    fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", x0, y0, x0, y0 - ph);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">maximum cluster size</text>\n", x0 + pw / 2,
            y0 + 40);
    fprintf(f, "<text x=\"18\" y=\"%.0f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.0f)\">%% of "
               "Fidge/Mattern</text>\n", y0 - ph / 2, y0 - ph / 2);
    static const char *const colour[] = { "#1f77b4", "#d62728" };
    static const char *const label[] = { "self-organizing", "contiguous" };
    for (int line = 0; line < 2; line++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colour[line]);
        for (uint32_t k = 1; k <= s->nsweep; k++) {
            double v = 100 * (line ? s->sweep_contiguous[k] : s->sweep_self[k]) / s->ranks;
            fprintf(f, "%.1f,%.1f ", x0 + pw * k / CAUSAL_SWEEP_MAX, y0 - ph * v / top);
        }
        fprintf(f, "\"/>\n");
        fprintf(f, "<line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
                   "<text x=\"%.0f\" y=\"%d\">%s</text>\n",
                x0 + pw - 150, 50 + 18 * line, x0 + pw - 125, 50 + 18 * line, colour[line], x0 + pw - 120,
                54 + 18 * line, label[line]);
    }
    fprintf(f, "</svg>\n");
    return close_tmp(f, tmp, path, err, errlen);
}

struct causal_job {
    pthread_t thread;
    int threaded;
    atomic_int cancel;            /* causal_abandon: stop building */
    uint64_t *nevents;
    uint32_t nranks;
    const struct mg_result *match;
    struct ci_config cfg;
    int built;
    struct ci_index ix;
    struct causal_summary s;
    char entries_file[4300];
};

/* Build, with the sweep fed along: all that needs only the matches. */
static void run(struct causal_job *j)
{
    struct causal_summary *s = &j->s;
    struct ci_stats st;
    double t = st_now_s();
    /* the sweep runs along the build, every size at once */
    struct ci_sweeps *sweeps = ci_sweeps_new(j->nranks, CAUSAL_SWEEP_MAX);
    if (!sweeps) {
        snprintf(s->error, sizeof s->error, "causal index: out of memory for %u ranks", j->nranks);
        return;
    }
    ci_sweeps_start(sweeps);   /* on a thread of its own, beside the build */
    if (ci_build(j->nevents, j->nranks, j->match, &j->cfg, &j->ix, &st, sweeps, s->error, sizeof s->error) != 0) {
        ci_sweeps_free(sweeps);
        return;
    }
    ci_sweeps_wait(sweeps);
    j->built = 1;
    s->seconds_build = st_now_s() - t;
    s->events = st.events;
    s->receives = st.receives;
    s->cluster_receives = st.creceives[0];
    s->full_vectors = st.top_events;
    s->records = st.records;
    s->entries = st.entries;
    s->peak_live_vectors = st.peak_live_vectors;
    s->passes = st.passes;
    s->window = st.window;
    s->threads = st.threads;
    s->vector_bytes = st.vector_bytes;
    s->entries_per_event = st.events ? st.paper_entries / st.events : 0;
    t = st_now_s();
    s->nsweep = CAUSAL_SWEEP_MAX;
    for (uint32_t k = 1; k <= s->nsweep; k++) {
        if (k > j->nranks) {   /* one cluster of every rank either way: as at nranks */
            s->sweep_self[k] = s->sweep_self[j->nranks];
            s->sweep_contiguous[k] = s->sweep_contiguous[j->nranks];
            continue;
        }
        ci_sweeps_result(sweeps, k, &s->sweep_self[k], &s->sweep_contiguous[k]);
    }
    ci_sweeps_free(sweeps);
    s->seconds_sweep = st_now_s() - t;
}

static void *run_thread(void *arg)
{
    run(arg);
    return NULL;
}

struct causal_job *causal_start(const char *dir, const uint64_t *nevents, uint32_t nranks,
                                const struct mg_result *match, const char *levels, uint32_t threads)
{
    struct causal_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->nevents = malloc(sizeof *j->nevents * (nranks ? nranks : 1));
    if (!j->nevents) {
        free(j);
        return NULL;
    }
    memcpy(j->nevents, nevents, sizeof *nevents * nranks);
    j->nranks = nranks;
    j->match = match;
    snprintf(j->s.levels, sizeof j->s.levels, "%s", levels);
    j->s.ranks = nranks;
    if (ci_parse_levels(levels, &j->cfg, j->s.error, sizeof j->s.error) != 0)
        return j;
    /* the vectors' memory: a budget in MB (whole numbers, 1 or more) */
    const char *mb = getenv("SYNCTRACE_CAUSAL_MEMORY_MB");
    if (mb) {
        char *end;
        unsigned long v = strtoul(mb, &end, 10);
        if (end == mb || *end || v < 1 || v > (1ul << 20)) {
            snprintf(j->s.error, sizeof j->s.error,
                     "SYNCTRACE_CAUSAL_MEMORY_MB=%.40s: not a number of megabytes from 1 to 1048576", mb);
            return j;
        }
        j->cfg.vector_budget = (size_t)v << 20;
    }
    /* the entries go straight into the index file, completed by causal_finish */
    snprintf(j->entries_file, sizeof j->entries_file, "%s/causal.idx.tmp-%ld", dir, (long)getpid());
    j->cfg.entries_file = j->entries_file;
    j->cfg.name = "causal.idx";   /* what the user will find (under its temporary name while it is built) */
    atomic_init(&j->cancel, 0);
    j->cfg.cancel = &j->cancel;
    j->cfg.threads = threads;
    j->threaded = pthread_create(&j->thread, NULL, run_thread, j) == 0;
    if (!j->threaded)
        run(j);   /* no thread: build now */
    return j;
}

static void join(struct causal_job *j)
{
    if (j->threaded) {
        pthread_join(j->thread, NULL);
        j->threaded = 0;
    }
}

void causal_abandon(struct causal_job *j)
{
    if (!j)
        return;
    atomic_store(&j->cancel, 1);
    join(j);
    if (j->built)
        ci_free(&j->ix);
    free(j->nevents);
    free(j);
}

int causal_finish(struct causal_job *j, const char *dir, struct causal_summary *s, char *err, size_t errlen)
{
    double t = st_now_s();
    join(j);
    *s = j->s;
    s->seconds_wait = st_now_s() - t;
    int rc = 0;
    if (j->built) {
        t = st_now_s();
        uint64_t fp[2];
        char path[4200];
        snprintf(path, sizeof path, "%s/causal.idx", dir);
        rc = ci_fingerprint(dir, fp, err, errlen) == 0 && ci_write_in_place(&j->ix, path, fp, err, errlen) == 0
                 ? 0 : -1;
        struct stat sb;
        if (rc == 0 && stat(path, &sb) == 0) {
            s->index_bytes = (uint64_t)sb.st_size;
            s->file_ratio = s->events ? (double)sb.st_size / ((double)s->events * s->ranks * 4) : 0;
        }
        if (rc == 0)
            rc = write_csv(dir, s, err, errlen) || write_svg(dir, s, err, errlen) ? -1 : 0;
        s->seconds_write = st_now_s() - t;
        s->built = rc == 0;
    }
    causal_abandon(j);
    return rc;
}

int causal_for_merge(const char *dir, const uint64_t *nevents, uint32_t nranks, const struct mg_result *match,
                     const char *levels, uint32_t threads, struct causal_summary *s, char *err, size_t errlen)
{
    struct causal_job *j = causal_start(dir, nevents, nranks, match, levels, threads);
    if (!j) {
        snprintf(err, errlen, "causal index: out of memory");
        return -1;
    }
    return causal_finish(j, dir, s, err, errlen);
}

void causal_report_json(FILE *f, const struct causal_summary *s)
{
    if (!s)
        return;
    if (!s->built) {
        char e[sizeof s->error];
        size_t k = 0;
        for (; s->error[k] && k + 1 < sizeof e; k++)   /* a JSON string: no quotes, backslashes or controls */
            e[k] = s->error[k] == '"' || s->error[k] == '\\' || (unsigned char)s->error[k] < 32 ? '\'' : s->error[k];
        e[k] = '\0';
        fprintf(f, "  \"causal_index\": { \"built\": false, \"error\": \"%s\" },\n", e);
        return;
    }
    uint32_t best = 1;
    for (uint32_t k = 1; k <= s->nsweep; k++)
        if (s->sweep_self[k] < s->sweep_self[best])
            best = k;
    fprintf(f, "  \"causal_index\": { \"built\": true, \"file\": \"causal.idx\", \"max_cluster_sizes\": [%s], "
               "\"events\": %llu, \"receives\": %llu, \"cluster_receives\": %llu, \"full_vectors\": %llu, "
               "\"records\": %llu, \"stored_entries\": %llu, \"bytes\": %llu,\n"
               "    \"entries_per_event\": %.4f, \"fidge_mattern_entries_per_event\": %u, "
               "\"size_ratio\": %.6f, \"file_ratio\": %.6f, \"peak_live_vectors\": %zu,\n"
               "    \"build_passes\": %u, \"window_columns\": %u, \"vector_bytes\": %zu, \"build_threads\": %u,\n"
               "    \"seconds\": { \"build\": %.6f, \"write\": %.6f, \"sweep\": %.6f, \"merge_waited\": %.6f },\n"
               "    \"sweep\": { \"csv\": \"cluster_sizes.csv\", \"svg\": \"cluster_sizes.svg\", "
               "\"best_max_cluster_size\": %u, \"rows\": [",
            s->levels, (unsigned long long)s->events, (unsigned long long)s->receives,
            (unsigned long long)s->cluster_receives, (unsigned long long)s->full_vectors,
            (unsigned long long)s->records, (unsigned long long)s->entries, (unsigned long long)s->index_bytes,
            s->entries_per_event, s->ranks, s->entries_per_event / s->ranks, s->file_ratio, s->peak_live_vectors,
            s->passes, s->window, s->vector_bytes, s->threads, s->seconds_build, s->seconds_write, s->seconds_sweep, s->seconds_wait, best);
    for (uint32_t k = 1; k <= s->nsweep; k++)
        fprintf(f, "%s\n      { \"max_cluster_size\": %u, \"self_organizing\": %.4f, \"contiguous\": %.4f }",
                k > 1 ? "," : "", k, s->sweep_self[k], s->sweep_contiguous[k]);
    fprintf(f, " ] } },\n");
}

void causal_report_text(FILE *f, const struct causal_summary *s)
{
    if (!s)
        return;
    if (!s->built) {
        fprintf(f, "  causal index  not built: %s\n", s->error);
        return;
    }
    uint32_t best = 1;
    for (uint32_t k = 1; k <= s->nsweep; k++)
        if (s->sweep_self[k] < s->sweep_self[best])
            best = k;
    uint32_t at = 8 <= s->nsweep ? 8 : s->nsweep;
    /* two lines in the summary's columns, none over 100 characters */
    fprintf(f, "  causal index  clusters <= %s: %.2f entries/event (%.1f%% of Fidge/Mattern), %.1f%% of its size\n",
            s->levels, s->entries_per_event, 100 * s->entries_per_event / s->ranks, 100 * s->file_ratio);
    fprintf(f, "                size %u: self-organizing %.1f%%, contiguous %.1f%%; best %.1f%% at size %u\n", at,
            100 * s->sweep_self[at] / s->ranks, 100 * s->sweep_contiguous[at] / s->ranks,
            100 * s->sweep_self[best] / s->ranks, best);
}
