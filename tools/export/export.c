/* export.c — see export.h: the command line. The output is written to
 * FILE.tmp-PID and renamed when complete; the archive is only read. */
#include <config.h>
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(FILE *to)
{
    fprintf(to, "usage: synctrace export OUT_DIR --format chrome|html [-o FILE] [--memory MB] [--spill-dir DIR]\n"
                "Write a view of a merged trace (OUT_DIR/traces.otf2):\n"
                "  chrome  Chrome trace-event JSON for Perfetto (ui.perfetto.dev) and chrome://tracing:\n"
                "          a track per rank, MPI calls as slices, messages as flow arrows\n"
                "          (default FILE: OUT_DIR/trace.json)\n"
                "  html    one self-contained page: zoomable timeline, raw vs synchronised view with\n"
                "          tachyons in red, precision and clock figures (default FILE: OUT_DIR/timeline.html)\n"
                "  -o -    write to standard output\n"
                "  --memory MB      memory for reading the archive in time order (default 64): OTF2\n"
                "                   reads 256 KiB per location; a trace of more locations is first\n"
                "                   read location by location into a file, in --spill-dir\n"
                "  --spill-dir DIR  where that file goes (default: FILE's directory; with -o -,\n"
                "                   $TMPDIR, else /tmp); it has no name and vanishes at the end\n");
    return to == stdout ? 0 : 2;
}

int cmd_export(int argc, char **argv)
{
    const char *dir = NULL, *format = NULL, *out = NULL;
    struct export_reading reading = { 0, NULL };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout);
        if ((!strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--memory") || !strcmp(a, "--spill-dir"))
            && i + 1 >= argc) {
            fprintf(stderr, "synctrace export: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--format"))
            format = argv[++i];
        else if (!strcmp(a, "-o"))
            out = argv[++i];
        else if (!strcmp(a, "--spill-dir"))
            reading.spill_dir = argv[++i];
        else if (!strcmp(a, "--memory")) {
            char *end;
            const char *v = argv[++i];
            unsigned long long mb = strtoull(v, &end, 10);
            if (!*v || *end || v[0] == '-' || mb > 1u << 20) {
                fprintf(stderr, "synctrace export: --memory is a number of MB up to 1048576, not '%s'\n", v);
                return 2;
            }
            /* 256 KiB per location read at once, at least one */
            reading.max_open = mb ? (uint32_t)(mb * 4) : 1;
        }
        else if (a[0] == '-' || dir) {
            fprintf(stderr, "synctrace export: unexpected argument '%s' (see --help)\n", a);
            return 2;
        } else
            dir = a;
    }
    if (!dir || !format) {
        fprintf(stderr, "synctrace export: need OUT_DIR and --format chrome|html (see --help)\n");
        return 2;
    }
    int (*run)(const char *, FILE *, const struct export_reading *, char *, size_t);
    if (!strcmp(format, "chrome"))
        run = export_chrome;
    else if (!strcmp(format, "html"))
        run = export_html;
    else {
        fprintf(stderr, "synctrace export: --format is chrome or html, not '%s'\n", format);
        return 2;
    }
    char def[4300], tmp[4400], err[4400] = "";
    struct stat sb;
    snprintf(def, sizeof def, "%s/traces.otf2", dir);
    if (stat(def, &sb) != 0) {
        fprintf(stderr, "synctrace export: %s: no merged archive here (is %s the output of synctrace merge?)\n", def,
                dir);
        return 1;
    }
    if (!out) {
        snprintf(def, sizeof def, "%s/%s", dir, run == export_chrome ? "trace.json" : "timeline.html");
        out = def;
    }
    if (reading.spill_dir && (stat(reading.spill_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        fprintf(stderr, "synctrace export: --spill-dir %s: not a directory\n", reading.spill_dir);
        return 2;
    }
    /* Standard output, a device or a pipe (/dev/null, a FIFO) is written
     * directly: renaming a temporary file onto a device would replace it. */
    int to_stdout = !strcmp(out, "-");
    int direct = to_stdout || (stat(out, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode));
    const char *target = to_stdout ? "standard output" : direct ? out : tmp;
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", out, (long)getpid());
    FILE *f = to_stdout ? stdout : fopen(target, "w");
    if (!f) {
        fprintf(stderr, "synctrace export: %s: cannot write: %s\n", target, strerror(errno));
        return 1;
    }
    /* the events put in order go beside the output, not into the input */
    char outdir[4400];
    if (!reading.spill_dir && !direct) {
        snprintf(outdir, sizeof outdir, "%s", out);
        char *slash = strrchr(outdir, '/');
        if (!slash)
            snprintf(outdir, sizeof outdir, ".");
        else
            slash[slash == outdir] = '\0';
        reading.spill_dir = outdir;
    }
    memset(&export_last, 0, sizeof export_last);
    int rc = run(dir, f, &reading, err, sizeof err);
    int bad = ferror(f);
    if (to_stdout ? fflush(f) != 0 : fclose(f) != 0)
        bad = 1;
    if (rc == 0 && bad)
        snprintf(err, sizeof err, "%.4300s: write failed", target), rc = -1;
    if (rc == 0 && !direct && rename(tmp, out) != 0) {
        snprintf(err, sizeof err, "cannot create %s: %s", out, strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        if (!direct)
            remove(tmp);
        fprintf(stderr, "synctrace export: %s\n", err);
        return 1;
    }
    if (!to_stdout)
        fprintf(stderr, "synctrace export: %s: %llu events, %llu slices, %llu messages, %llu waits\n", out,
                export_last.events, export_last.slices, export_last.flows, export_last.waits);
    return 0;
}
