/* merge_options.c — the command line of `synctrace merge`: every option
 * checked here, so a bad one gives one line and exit status 2 before any
 * file is read. */
#include <config.h>
#include "causal.h"
#include "merge_state.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_CLUSTER_LEVELS CAUSAL_DEFAULT_LEVELS   /* causal_report.h: why 8 */

static int usage(FILE *to)
{
    fprintf(to, "usage: synctrace merge RAW_DIR -o OUT_DIR [--reference RANK] [--estimates | --alpha A]\n"
                "                      [--timebase reference|median] [--min-latency NS] [--max-drift-ppm P]\n"
                "                      [--drift-model auto|line|rounds|segments] [--no-drift] [--jobs N] [--force]\n"
                "                      [--cluster-levels S[,S...]] [--no-causal | --causal] [--precision-sources N]\n"
                "                      [--sort-memory MB] [--event-memory MB] [--spill-dir DIR]\n"
                "Merge a raw trace into one OTF2 archive with synchronised, tachyon-free timestamps\n"
                "(OUT_DIR/traces.otf2) and write OUT_DIR/report.json. RAW_DIR may also be a Score-P\n"
                "experiment directory or any OTF2 anchor file: OUT_DIR/traces.otf2 is then its copy with\n"
                "synchronised times (--clock-domain process|node: one clock per process, or per node).\n"
                "  --reference RANK   clock that defines global time (default 0)\n"
                "  --estimates        offsets and drifts at the sync rounds' estimates, moved the least\n"
                "                     the messages need (default)\n"
                "  --alpha A          offsets at fraction A of the interval the messages allow, 0..1\n"
                "                     (0.5: its middle), whatever the sync rounds measured\n"
                "  --timebase median  global time follows the median of the clocks, not one of them\n"
                "  --min-latency NS   minimum one-way message latency (default 0: receives never before sends)\n"
                "  --drift-model M    line: one drift per clock, from its sync rounds, moved the least the\n"
                "                     messages need; rounds: the rounds' lines as measured, offsets only moved;\n"
                "                     segments: a drift and an offset per span between sync rounds;\n"
                "                     auto (default): line, unless the events contradict it and segments less\n"
                "  --no-drift         do not correct drift between sync rounds\n"
                "  --max-drift-ppm P  drift estimates beyond P ppm are noise (default 200)\n"
                "  --jobs N           threads reading the rank archives (of a foreign archive: converting\n"
                "                     its processes, copying its locations), building the causal index's\n"
                "                     column windows and writing (default: the number of cores)\n"
                "  --force            replace OUT_DIR if it exists\n"
                "  --cluster-levels S[,S...]  causal index (OUT_DIR/causal.idx, synctrace query): maximum\n"
                "                     cluster size per level, increasing; one size = two-level timestamps\n"
                "                     (default " DEFAULT_CLUSTER_LEVELS ")\n"
                "  --no-causal        do not build the causal index\n"
                "  --causal           build it (the default, at any number of locations)\n"
                "  --precision-sources N  report.json's pair precision from N clocks, each paired with every\n"
                "                     other (the reference first, then a seeded sample); default: every pair\n"
                "                     up to 2000 clocks and 4000 clock segments, beyond that N = 32\n"
                "  --sort-memory MB   memory for the match's sorts; beyond it they spill to disk (default 64)\n"
                "  --event-memory MB  memory for the events between the match and the write beyond their\n"
                "                     times, and for the matched messages; the rest waits on disk\n"
                "                     (default 64; 0: all of them)\n"
                "  --spill-dir DIR    where both spill (default: the directory that will hold OUT_DIR);\n"
                "                     the files have no name and vanish when the merge ends\n");
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

const char *merge_unwritable_dir(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return strerror(errno);
    if (!S_ISDIR(sb.st_mode))
        return "not a directory";
    return access(dir, W_OK | X_OK) != 0 ? strerror(errno) : NULL;
}

int merge_parse_options(int argc, char **argv, struct merge_options *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.5;
    o->estimates = 1;
    int placement = 0;   /* --estimates or --alpha seen: not both */
    o->min_latency = 0;
    o->max_drift = 200e-6;
    o->cluster_levels = DEFAULT_CLUSTER_LEVELS;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cores > 0 ? (int)cores : 1;
    o->sort_memory = MG_SORT_MEMORY_DEFAULT;
    o->event_memory = MERGE_EVENT_MEMORY_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout) - 1;
        if ((!strcmp(a, "-o") || !strcmp(a, "--reference") || !strcmp(a, "--alpha") || !strcmp(a, "--timebase")
             || !strcmp(a, "--min-latency") || !strcmp(a, "--max-drift-ppm") || !strcmp(a, "--jobs")
             || !strcmp(a, "--drift-model") || !strcmp(a, "--cluster-levels") || !strcmp(a, "--precision-sources")
             || !strcmp(a, "--spill-dir") || !strcmp(a, "--sort-memory")
             || !strcmp(a, "--event-memory")) && i + 1 >= argc) {
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
        } else if (!strcmp(a, "--estimates") || !strcmp(a, "--alpha")) {
            if (placement++) {
                fprintf(stderr, "synctrace merge: --estimates and --alpha place the offsets two ways: give one\n");
                return 2;
            }
            o->estimates = !strcmp(a, "--estimates");
            if (!o->estimates && (parse_number(argv[++i], &o->alpha) || !(o->alpha >= 0 && o->alpha <= 1))) {
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
            if (strcmp(t, "segments") && strcmp(t, "line") && strcmp(t, "rounds") && strcmp(t, "auto")) {
                fprintf(stderr, "synctrace merge: --drift-model is auto, line, rounds or segments, not '%s'\n", t);
                return 2;
            }
            o->drift_model = !strcmp(t, "auto") ? 0 : !strcmp(t, "segments") ? CM_SEGMENTS + 1 : CM_LINE + 1;
            o->rounds_only = !strcmp(t, "rounds");
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
            o->jobs_given = 1;
        } else if (!strcmp(a, "--cluster-levels")) {
            struct ci_config cfg;
            char err[256];
            o->cluster_levels = argv[++i];
            if (ci_parse_levels(o->cluster_levels, &cfg, err, sizeof err) != 0) {
                fprintf(stderr, "synctrace merge: --cluster-levels: %s\n", err);
                return 2;
            }
        } else if (!strcmp(a, "--precision-sources")) {
            if (parse_number(argv[++i], &v) || v < 1 || v > 1e9 || v != (double)(uint32_t)v) {
                fprintf(stderr, "synctrace merge: --precision-sources takes a whole number from 1 to 1e9, not '%s'\n",
                        argv[i]);
                return 2;
            }
            o->precision_sources = (uint32_t)v;
        } else if (!strcmp(a, "--spill-dir")) {
            o->spill_dir = argv[++i];
            const char *why = merge_unwritable_dir(o->spill_dir);
            if (why) {
                fprintf(stderr, "synctrace merge: --spill-dir %s: %s\n", o->spill_dir, why);
                return 2;
            }
        } else if (!strcmp(a, "--sort-memory")) {
            if (parse_number(argv[++i], &v) || !(v > 0 && v <= 1048576)) {
                fprintf(stderr, "synctrace merge: --sort-memory takes megabytes, more than 0 and at most 1048576, "
                                "not '%s'\n", argv[i]);
                return 2;
            }
            o->sort_memory = (size_t)(v * 1048576);
        } else if (!strcmp(a, "--event-memory")) {
            if (parse_number(argv[++i], &v) || !(v >= 0 && v <= 1048576)) {
                fprintf(stderr, "synctrace merge: --event-memory takes megabytes, from 0 to 1048576, not '%s'\n",
                        argv[i]);
                return 2;
            }
            o->event_memory = (size_t)(v * 1048576);
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
    char path[sizeof o->out_parent];
    snprintf(path, sizeof path, "%s", o->out);
    snprintf(o->out_parent, sizeof o->out_parent, "%s", dirname(path));
    if (!o->spill_dir)   /* beside OUT: the disk the user chose for the output */
        o->spill_dir = o->out_parent;
    return 0;
}
