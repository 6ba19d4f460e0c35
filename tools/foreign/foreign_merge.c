/* foreign_merge.c — `synctrace merge INPUT -o OUT` for any OTF2 archive:
 * a Score-P experiment directory, or any anchor file. Three steps, each
 * with what we already trust:
 *
 *   1. the archive as a raw trace (foreign_raw.h), in a work directory
 *      beside OUT: the records the merge models, raw times, the
 *      producer's ClockOffsets as each rank's sync measurements;
 *   2. our merge of it (tools/merge), into the work directory: matches,
 *      clock model, bounds, solve, repair, report, and each event's
 *      global time (merge_times_only: no archive of its own, which the
 *      copy would only have read back);
 *   3. a copy of the input, record for record (otf2copy.h), each
 *      timestamp mapped: a modelled event gets its merged time; any other
 *      event the time its raw time has between its location's modelled
 *      neighbours (the offset interpolated between theirs, kept between
 *      their merged times, so that order within the location holds), and
 *      no ClockOffsets, so that no reader corrects a second time.
 *
 * OUT then holds the copy as traces.otf2, the merge's report.json and
 * report.txt, and input.json: what was read and how far the producer's own
 * offsets were from ours. It is built in OUT.tmp-PID and renamed; the
 * input is only read. */
#define _XOPEN_SOURCE 700
#include <config.h>
#include "foreign_merge.h"
#include "causal_cmd.h"
#include "foreign_raw.h"
#include "foreign_timemap.h"
#include "fsutil.h"
#include "merge.h"
#include "otf2copy.h"
#include "launcher.h"
#include "merge_state.h"
#include "otf2_quiet.h"
#include "pmerge.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- what INPUT is */

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_file(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

int fm_foreign_anchor(const char *input, char *anchor, size_t len)
{
    char p[4200];
    if (is_dir(input)) {
        snprintf(p, sizeof p, "%s/run.meta", input);
        if (is_file(p))
            return 0;   /* our raw trace */
        snprintf(p, sizeof p, "%s/traces.otf2", input);
        if (!is_file(p))
            return 0;
        return snprintf(anchor, len, "%s", p) < (int)len;
    }
    size_t n = strlen(input);
    if (n > 5 && strcmp(input + n - 5, ".otf2") == 0 && is_file(input))
        return snprintf(anchor, len, "%s", input) < (int)len;
    return 0;
}

/* A JSON string: quotes and backslashes escaped, control bytes as \u. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    fputc('"', f);
}

static int write_input_json(const char *path, const char *input, const struct foreign_raw *fr,
                            const struct oc_stats *st, int by_node, const double *err_ns)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const struct foreign_defs *d = &fr->defs;
    fprintf(f, "{\n  \"input\": ");
    json_string(f, input);
    fprintf(f, ",\n  \"kind\": ");
    json_string(f, fr->kind);
    fprintf(f, ",\n  \"processes\": %u,\n  \"locations\": %" PRIu64 ",\n", d->nprocesses, st->locations);
    fprintf(f, "  \"events\": %" PRIu64 ",\n  \"events_modelled\": %" PRIu64 ",\n", st->events, fr->events_kept);
    /* PSCW: the RmaSyncs made of Score-P's RmaGroupSyncs, and the completes
     * left unordered (foreign_pscw.h) */
    fprintf(f, "  \"pscw_notifications\": %" PRIu64 ",\n  \"pscw_completes_unordered\": %" PRIu64 ",\n",
            fr->events_added, fr->pscw_unordered);
    fprintf(f, "  \"clock_domains\": \"%s\",\n  \"offsets_dropped\": %" PRIu64 ",\n", by_node ? "node" : "process",
            st->offsets_dropped);
    fprintf(f, "  \"locations_in_place\": %" PRIu64 ",\n", st->locations_in_place);
    fprintf(f, "  \"input_offset_error_ns\": [");
    double worst = -1;
    for (uint32_t r = 0; r < d->nprocesses; r++) {
        fprintf(f, "%s%.0f", r ? ", " : "", err_ns[r] < 0 ? -1.0 : err_ns[r]);
        if (err_ns[r] > worst)
            worst = err_ns[r];
    }
    fprintf(f, "],\n  \"input_offset_error_max_ns\": %.0f\n}\n", worst);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the command */

static int take_clock_domain(int *argc, char **argv, int *by_node)
{
    *by_node = 0;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--clock-domain") != 0)
            continue;
        const char *v = i + 1 < *argc ? argv[i + 1] : "";
        if (strcmp(v, "node") == 0)
            *by_node = 1;
        else if (strcmp(v, "process") != 0) {
            fprintf(stderr, "synctrace merge: --clock-domain takes 'process' or 'node', not '%s'\n", v);
            return -1;
        }
        memmove(&argv[i], &argv[i + 2], sizeof *argv * (size_t)(*argc - i - 1));
        *argc -= 2;
        i--;
    }
    return 0;
}

static int sibling_path(char *buf, size_t len, const char *out, const char *suffix)
{
    int k = snprintf(buf, len, "%s.%s-%ld", out, suffix, (long)getpid());
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

static int move_file(const char *from_dir, const char *to_dir, const char *name)
{
    char a[9000], b[9000];
    if (snprintf(a, sizeof a, "%s/%s", from_dir, name) >= (int)sizeof a
        || snprintf(b, sizeof b, "%s/%s", to_dir, name) >= (int)sizeof b) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return rename(a, b);
}

/* OUT from the finished OUT.tmp-PID (an old OUT replaced only with --force). */
static int put_in_place(const char *tmp, const char *out, int force)
{
    struct stat sb;
    if (stat(out, &sb) == 0) {
        if (!force) {
            fprintf(stderr, "synctrace merge: %s appeared while the merge ran: left as it is (--force replaces it)\n",
                    out);
            return -1;
        }
        char old[4400];
        if (sibling_path(old, sizeof old, out, "old") != 0 || rename(out, old) != 0) {
            fprintf(stderr, "synctrace merge: cannot replace %s: %s\n", out, strerror(errno));
            return -1;
        }
        if (rename(tmp, out) != 0) {
            int e = errno;
            rename(old, out);
            fprintf(stderr, "synctrace merge: cannot replace %s: %s\n", out, strerror(e));
            return -1;
        }
        st_remove_tree(old);
        return 0;
    }
    if (rename(tmp, out) != 0) {
        fprintf(stderr, "synctrace merge: cannot create %s: %s\n", out, strerror(errno));
        return -1;
    }
    return 0;
}

/* A line of the merge's stderr as the user should read it: the raw
 * trace's paths are the work directory's, so the input is named instead;
 * the same warning for more than 3 ranks is said 3 times and counted. */
struct said {
    char shape[256];          /* the line with its digits taken out */
    char last[120];           /* the last one said, to name them */
    unsigned count;
};

static void shape_of(const char *line, char *out, size_t len)
{
    size_t k = 0;
    for (const char *p = line; *p && k + 1 < len; p++)
        if (*p < '0' || *p > '9')
            out[k++] = *p;
    out[k] = '\0';
}

static void relay_line(const char *line, const char *raw, const char *input, struct said *seen, size_t *nseen)
{
    char text[4600];
    const char *at = strstr(line, raw);
    if (at)
        snprintf(text, sizeof text, "%.*s%s (%s", (int)(at - line), line, input, at + strlen(raw) + 1);
    else
        snprintf(text, sizeof text, "%s", line);
    if (at) {   /* "INPUT (rank-000003.otf2: ..." -> "INPUT (rank 3): ..." */
        char *r = strstr(text, "(rank-");
        char *colon = r ? strstr(r, ".otf2") : NULL;
        if (r && colon) {
            char rest[4600];
            snprintf(rest, sizeof rest, "%s", colon + 5);
            snprintf(r, sizeof text - (size_t)(r - text), "(rank %d)%s", atoi(r + 6), rest);
        }
    }
    char shape[256];
    shape_of(text, shape, sizeof shape);
    size_t i = 0;
    while (i < *nseen && strcmp(seen[i].shape, shape) != 0)
        i++;
    if (i == *nseen && *nseen < 64) {
        snprintf(seen[i].shape, sizeof seen[i].shape, "%s", shape);
        seen[i].count = 0;
        (*nseen)++;
    }
    if (i < *nseen && ++seen[i].count > 3)
        return;
    if (i < *nseen)
        snprintf(seen[i].last, sizeof seen[i].last, "%.*s", (int)strcspn(text, "\n"), text);
    fputs(text, stderr);
}

/* Our merge of the raw trace, its stderr relayed (relay_line). */
static int inner_merge(int argc, char **argv, const char *work, const char *input)
{
    char raw[4500];
    snprintf(raw, sizeof raw, "%s/raw", work);
    fflush(stderr);
    int saved = dup(2), fd = st_nameless_file(work, "stderr");
    if (saved < 0 || fd < 0 || dup2(fd, 2) < 0) {
        if (saved >= 0)
            close(saved);
        if (fd >= 0)
            close(fd);
        return merge_times_only(argc, argv);   /* unfiltered, then */
    }
    int rc = merge_times_only(argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        close(fd);
        return rc;
    }
    struct said *seen = calloc(64, sizeof *seen);
    size_t nseen = 0;
    char line[4600];
    while (seen && fgets(line, sizeof line, f))
        relay_line(line, raw, input, seen, &nseen);
    for (size_t i = 0; seen && i < nseen; i++)
        if (seen[i].count > 3)
            fprintf(stderr, "synctrace merge: %u more lines like \"%.70s...\" not shown (report.json has them)\n",
                    seen[i].count - 3, seen[i].last + (strncmp(seen[i].last, "synctrace merge: ", 17) ? 0 : 17));
    free(seen);
    fclose(f);
    return rc;
}

/* ---- under mpirun: every step below is taken by all the processes */

/* Whether every process may go on; if not, the lowest that failed says
 * why (msg, when it has one): a failure is said once. Collective (alone:
 * ok itself, said). */
static int said_once(int ok, const char *msg)
{
    uint32_t k = pm_processes(), me = pm_place();
    uint64_t first = k - pm_max_u64(ok ? 0 : k - me);
    if (first == me && msg && *msg)
        fprintf(stderr, "synctrace merge: %s\n", msg);
    return first == k;
}

/* The location a process copies: the one that converted its process. */
struct copy_share {
    const struct foreign_raw *fr;
    uint32_t place;
};

static int copies_location(void *ctx, uint64_t location)
{
    const struct copy_share *cs = ctx;
    const struct foreign_defs *d = &cs->fr->defs;
    uint32_t k = 0;
    while (k < d->nlocs && d->locs[k].id != location)
        k++;
    return fr_place_of(cs->fr, k) == cs->place;
}

/* The copy, timed (the summary's "foreign time"); shared among the
 * processes under mpirun. A failure is said here, once. */
static int copy_timed(const char *anchor, const char *tmp, const struct oc_time_map *map, int jobs,
                      const struct foreign_raw *fr, struct oc_stats *stats, double *seconds)
{
    char err[4600];
    struct copy_share cs = { fr, pm_place() };
    const struct oc_share share = { pm_place() == 0, pm_place(), pm_processes(), copies_location, &cs,
                                    pm_archive_collective, pm_agree, pm_max_u64, pm_sum_u64 };
    double t = st_now_s();
    /* SYNCTRACE_COPY=records: every record through OTF2's reader and
     * writer, the reference the in-place rewrite is tested against */
    const char *how = getenv("SYNCTRACE_COPY");
    unsigned flags = how && strcmp(how, "records") == 0 ? 0 : OC_IN_PLACE;
    int rc = oc_copy_archive(anchor, tmp, "traces", map, jobs, flags, pm_active() ? &share : NULL, stats, err,
                             sizeof err);
    *seconds = st_now_s() - t;
    if (rc != 0 && err[0])
        fprintf(stderr, "synctrace merge: %s\n", err);
    return rc;
}

/* Process 0's part once the copy is in tmp: the report, input.json, the
 * causal index, OUT in place. 0, or -1 (said). */
static int finish_output(const char *input, const struct merge_options *o, const char *merged, const char *tmp,
                         const struct foreign_raw *fr, const struct oc_stats *stats, int by_node,
                         const double *err_ns)
{
    if (move_file(merged, tmp, "report.json") != 0 || move_file(merged, tmp, "report.txt") != 0) {
        fprintf(stderr, "synctrace merge: %s: cannot move the report: %s\n", tmp, strerror(errno));
        return -1;
    }
    char path[4500];
    snprintf(path, sizeof path, "%s/input.json", tmp);
    if (write_input_json(path, input, fr, stats, by_node, err_ns) != 0) {
        fprintf(stderr, "synctrace merge: %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* the causal index of the copy, as `synctrace causal` builds it:
     * its event indices count the modelled events of each location */
    char *causal[] = { "causal", (char *)tmp, NULL };
    if (o->no_causal != 1 && cmd_causal(2, causal) != 0)
        return -1;
    return put_in_place(tmp, o->out, o->force);
}

/* Steps 2 and 3, with the raw trace in work/raw; OUT built in tmp. */
static int merge_and_copy(const char *input, const char *anchor, const struct merge_options *o, int argc,
                          char **argv, const char *work, const char *tmp, struct foreign_raw *fr, int by_node,
                          double convert_s)
{
    char raw[4500], merged[4500], err[4600];
    snprintf(raw, sizeof raw, "%s/raw", work);
    snprintf(merged, sizeof merged, "%s/merged", work);
    /* our merge of the raw trace, with the user's options; no causal
     * index: its event numbers would be the raw trace's, not the copy's */
    char **inner = malloc(sizeof *inner * (size_t)(argc + 2));
    if (!said_once(inner != NULL, "out of memory")) {
        free(inner);
        return -1;
    }
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (argv[i] == o->raw)
            inner[n++] = raw;
        else if (argv[i] == o->out)
            inner[n++] = merged;
        else if (strcmp(argv[i], "--force") != 0 && strcmp(argv[i], "--causal") != 0)
            inner[n++] = argv[i];
    }
    inner[n++] = "--no-causal";
    inner[n] = NULL;
    double t_merge = st_now_s();
    int rc = inner_merge(n, inner, work, input);   /* under mpirun, the processes' merge (pmerge.h): said */
    free(inner);
    double t_times = st_now_s(), copy_s = 0;   /* the merge's times read for the copy, from here */
    if (!said_once(rc == 0, NULL))
        return -1;
    struct oc_stats stats;
    double *err_ns = malloc(sizeof *err_ns * (fr->defs.nprocesses ? fr->defs.nprocesses : 1));
    int made = 0;
    snprintf(err, sizeof err, "out of memory");
    if (err_ns && pm_place() == 0) {
        made = mkdir(tmp, 0777) == 0;
        if (!made)
            snprintf(err, sizeof err, "%s: cannot create the output: %s", o->out, strerror(errno));
    }
    if (!said_once(err_ns && (made || pm_place() != 0), err)) {
        if (made)
            st_remove_tree(tmp);
        free(err_ns);
        return -1;
    }
    rc = -1;
    struct oc_time_map map;
    const struct fm_share tshare = { pm_place(), pm_max_u64 };
    struct fm_timemap *tm = fm_timemap_open(fr, merged, o->reference >= 0 ? (uint32_t)o->reference : 0,
                                            pm_active() ? &tshare : NULL, &map, err, sizeof err);
    /* how far the producer's offsets were: process 0's, for input.json
     * (a process that failed only as another did has nothing to say) */
    int times_ok = said_once(tm != NULL || !err[0], err) && tm
                   && said_once(pm_place() != 0 || fm_offset_errors(tm, err_ns, err, sizeof err) == 0, err);
    double times_s = st_now_s() - t_times;
    if (times_ok && copy_timed(anchor, tmp, &map, o->jobs, fr, &stats, &copy_s) == 0) {
        int map_failed = fm_timemap_failed(tm, err, sizeof err);
        if (said_once(!map_failed, err))
            rc = 0;
    }
    fm_timemap_close(tm);
    int zero_ok = 1;
    if (rc == 0 && pm_place() == 0)
        zero_ok = finish_output(input, o, merged, tmp, fr, &stats, by_node, err_ns) == 0;
    if (rc == 0)
        rc = pm_agree(zero_ok) ? 0 : -1;
    if (rc != 0 && pm_place() == 0)
        st_remove_tree(tmp);
    if (rc == 0 && pm_place() == 0) {
        double worst = -1;
        uint32_t at = 0;
        for (uint32_t r = 0; r < fr->defs.nprocesses; r++)
            if (err_ns[r] > worst)
                worst = err_ns[r], at = r;
        printf("  input         %s: %u processes, %" PRIu64 " locations, %" PRIu64 " events (%" PRIu64
               " modelled), copied to %s/traces.otf2 (%" PRIu64 " locations' events rewritten in place)\n",
               fr->kind, fr->defs.nprocesses, stats.locations, stats.events, fr->events_kept, o->out,
               stats.locations_in_place);
        if (by_node)
            printf("  clock domains %u, one per node (--clock-domain node; one per process would be %u)\n",
                   fr->ndomains, fr->defs.nprocesses);
        if (worst >= 0)
            printf("  its offsets   off by up to %.3f us from the merge's (rank %u), %" PRIu64
                   " ClockOffsets dropped\n", worst / 1e3, at, stats.offsets_dropped);
        printf("  foreign time  convert %.3f s, merge %.3f, its times %.3f, copy %.3f (--jobs %d", convert_s,
               t_times - t_merge, times_s, copy_s, o->jobs);
        if (pm_processes() > 1)
            printf(", %u processes", pm_processes());
        printf(")\n");
    }
    free(err_ns);
    return rc;
}

/* The options, said once: a process other than the first parses them
 * quietly (the same argv everywhere gives the same answer). */
static int parse_quietly(int argc, char **argv, struct merge_options *o, uint32_t place)
{
    if (place == 0)
        return merge_parse_options(argc, argv, o);
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), errfd = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
        close(null);
    }
    int rc = merge_parse_options(argc, argv, o);
    fflush(stdout);
    fflush(stderr);
    if (out >= 0) {
        dup2(out, 1);
        close(out);
    }
    if (errfd >= 0) {
        dup2(errfd, 2);
        close(errfd);
    }
    return rc;
}

/* Step 1 and what follows, every process taking part. */
static int convert_and_merge(const char *anchor, struct merge_options *o, int argc, char **argv, int by_node)
{
    char work[4400], tmp[4400], raw[4500], err[4600];
    /* one work directory and one OUT.tmp for all: process 0's names */
    int ok = 1;
    if (pm_place() == 0 && (sibling_path(work, sizeof work, o->out, "work") != 0
                            || sibling_path(tmp, sizeof tmp, o->out, "tmp") != 0))
        ok = 0;
    if (!said_once(ok, "path too long"))
        return 1;
    pm_bcast(work, sizeof work);
    pm_bcast(tmp, sizeof tmp);
    snprintf(raw, sizeof raw, "%s/raw", work);
    ok = 1;
    if (pm_place() == 0) {
        st_remove_tree(work);
        if (mkdir(work, 0777) != 0 || mkdir(raw, 0777) != 0) {
            snprintf(err, sizeof err, "%s: %s", work, strerror(errno));
            st_remove_tree(work);
            ok = 0;
        }
    }
    if (!said_once(ok, err))
        return 1;
    struct foreign_raw fr;
    double t = st_now_s();
    const struct fr_share share = { pm_place(), pm_processes(), work, pm_share };
    int rc = fr_convert(anchor, raw, by_node, o->jobs, pm_active() ? &share : NULL, &fr, err, sizeof err);
    if (!said_once(rc == 0, err))
        rc = -1;
    else if (pm_active() && !said_once(fr_gather(&fr, raw, by_node, &share, err, sizeof err) == 0, err))
        rc = -1;
    else
        rc = merge_and_copy(o->raw, anchor, o, argc, argv, work, tmp, &fr, by_node, st_now_s() - t);
    fr_free(&fr);
    /* SYNCTRACE_KEEP_WORK=1 keeps the raw trace and its merge (debugging) */
    const char *keep = getenv("SYNCTRACE_KEEP_WORK");
    if (pm_place() != 0)
        ;   /* process 0's to remove: every process is past its last use of it */
    else if (!keep || strcmp(keep, "1") != 0)
        st_remove_tree(work);
    else
        fprintf(stderr, "synctrace merge: kept %s\n", work);
    return rc == 0 ? 0 : 1;
}

int fm_merge(int argc, char **argv, const char *anchor, int by_node)
{
    uint32_t place, processes;
    merge_launch_place(&place, &processes);
    struct merge_options o;
    int rc = parse_quietly(argc, argv, &o, place);
    if (rc)
        return rc < 0 ? 0 : rc;
    /* started by mpirun as several processes: they convert, merge and copy
     * together (pmerge.h), into the one OUT */
    if (pm_start_command(processes, "merge") != 0)
        return 1;
    if (pm_active() && !o.jobs_given) {   /* the processes on one node share its cores */
        uint32_t local = pm_local_processes();
        o.jobs = o.jobs / (int)local > 0 ? o.jobs / (int)local : 1;
    }
    int zero_ok = 1;
    if (!pm_agree_zero(pm_place() != 0 || !outdir_refuse_existing(&o), &zero_ok))
        rc = 1;
    else
        rc = convert_and_merge(anchor, &o, argc, argv, by_node);
    pm_finish();
    return rc;
}

int cmd_merge_any(int argc, char **argv)
{
    char **args = malloc(sizeof *args * (size_t)(argc + 1));
    if (!args) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return 1;
    }
    memcpy(args, argv, sizeof *args * (size_t)argc);
    args[argc] = NULL;
    int by_node, n = argc, rc;
    char anchor[4200];
    if (take_clock_domain(&n, args, &by_node) != 0) {
        rc = 2;
    } else {
        /* INPUT: the first argument that is no option (merge_options.c checks the rest) */
        const char *input = NULL;
        for (int i = 1; i < n && !input; i++)
            if (args[i][0] != '-' && !(i > 1 && args[i - 1][0] == '-' && strcmp(args[i - 1], "--force") != 0
                                        && strcmp(args[i - 1], "--no-drift") != 0 && strcmp(args[i - 1], "--no-causal") != 0
                                        && strcmp(args[i - 1], "--causal") != 0 && strcmp(args[i - 1], "--median") != 0))
                input = args[i];
        if (input && fm_foreign_anchor(input, anchor, sizeof anchor))
            rc = fm_merge(n, args, anchor, by_node);
        else if (n != argc) {
            fprintf(stderr, "synctrace merge: --clock-domain is for foreign archives (a raw trace has its domains)\n");
            rc = 2;
        } else
            rc = cmd_merge(n, args);
    }
    free(args);
    return rc;
}
