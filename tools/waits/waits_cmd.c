/* waits_cmd.c — `synctrace waits OUT [--json] [--raw] [--top N]
 * [--memory MB] [--jobs N] [--spill-dir DIR]`: the wait states of a merged
 * archive, each total with its bounds. OUT is only read; --json writes
 * OUT/waits.json (through a temporary name). Started by mpirun (srun,
 * mpiexec) as K processes, they read the archive together
 * (waits_share.h); process 0 writes and prints. */
#include "waits.h"
#include "waits_instances.h"
#include "waits_share.h"
#include "launcher.h"
#include "fsutil.h"
#include "timing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(FILE *to)
{
    fprintf(to, "usage: synctrace waits OUT_DIR [--json] [--raw] [--top N] [--memory MB] [--jobs N]\n"
                "                       [--spill-dir DIR]\n"
                "Scalasca's MPI wait states (late sender, wrong order, late receiver, wait at barrier,\n"
                "wait at NxN, late broadcast/scatter, early reduce/gather/scan, wait at fence) on the\n"
                "merged timeline\n"
                "OUT_DIR/traces.otf2, each total as value [lo, hi] from the clock bounds in\n"
                "OUT_DIR/report.json; \"possibly none\" when the bounds allow no wait at all.\n"
                "  --json   also write OUT_DIR/waits.json, and every instance counted in it to\n"
                "           OUT_DIR/waits-instances.bin (what synctrace export shades)\n"
                "  --raw    also compute every figure on the raw view (OUT_DIR/rawview.map:\n"
                "           today's interpolated ClockOffsets), as raw_seconds\n"
                "  --top N  rows of the table of biggest waits (default 10)\n"
                "  --memory MB      memory for sorting the messages and collectives (default 256):\n"
                "                   beyond it they spill to nameless files, removed at the end\n"
                "  --jobs N         threads reading the archive's locations (default: the number\n"
                "                   of cores); the output is the same whatever N\n"
                "  --spill-dir DIR  where the spill files go (default: OUT_DIR when it is\n"
                "                   writable, else $TMPDIR, else /tmp)\n"
                "Under mpirun -np K, K processes read shares of the locations (--jobs threads\n"
                "each, the node's cores shared by default); the output is the same.\n");
    return to == stdout ? 0 : 2;
}

/* The command in one process (share NULL), or in one of K. */
static int waits_run(int argc, char **argv, struct wt_share *share)
{
    const char *dir = NULL;
    int jobs_given = 0;
    int json = 0, raw = 0;
    size_t top = 10;
    const char *spill = NULL;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    struct wt_read_opts ro = { .jobs = cores > 0 ? (uint32_t)cores : 1, .budget = (size_t)256 << 20 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout);
        if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--raw"))
            raw = 1;
        else if (!strcmp(a, "--top")) {
            char *end;
            const char *v = i + 1 < argc ? argv[++i] : "";
            unsigned long n = strtoul(v, &end, 10);
            if (!*v || *end || v[0] == '-' || n > 1000000) {
                fprintf(stderr, "synctrace waits: --top is a number up to 1000000, not '%s'\n", v);
                return 2;
            }
            top = n;
        } else if (!strcmp(a, "--memory") || !strcmp(a, "--jobs")) {
            char *end;
            const char *v = i + 1 < argc ? argv[++i] : "";
            unsigned long n = strtoul(v, &end, 10);
            int mem = a[2] == 'm';
            if (!*v || *end || v[0] == '-' || n < 1 || n > (mem ? 1048576ul : 1024ul)) {
                fprintf(stderr, "synctrace waits: %s is a whole number from 1 to %s, not '%s'\n", a,
                        mem ? "1048576 (MB)" : "1024", v);
                return 2;
            }
            if (mem)
                ro.budget = (size_t)n << 20;
            else {
                ro.jobs = (uint32_t)n;
                jobs_given = 1;
            }
        } else if (!strcmp(a, "--spill-dir")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "synctrace waits: --spill-dir needs a directory\n");
                return 2;
            }
            spill = argv[++i];
        } else if (a[0] == '-' || dir) {
            fprintf(stderr, "synctrace waits: unexpected argument '%s' (see --help)\n", a);
            return 2;
        } else
            dir = a;
    }
    if (!dir) {
        fprintf(stderr, "synctrace waits: need OUT_DIR, the output of synctrace merge (see --help)\n");
        return 2;
    }
    struct stat sb;
    errno = 0;
    if (spill && (stat(spill, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        fprintf(stderr, "synctrace waits: --spill-dir %s: %s\n", spill, errno ? strerror(errno) : "not a directory");
        return 2;
    }
    /* spill beside the archive, whose disk holds its size again; a
     * read-only OUT_DIR: the temporary directory */
    ro.spill_dir = spill ? spill : access(dir, W_OK) == 0 ? dir : st_temp_dir();
    ro.raw = raw;
    ro.share = share;
    /* the processes on one node share its cores */
    if (share && !jobs_given && wt_share_local(share) > 1)
        ro.jobs = ro.jobs / wt_share_local(share) ? ro.jobs / wt_share_local(share) : 1;
    double t0 = st_now_s();
    char err[4600] = "";
    struct wt_records rec;
    struct wt_trace *keep = NULL;
    struct wt_bounds bd = { 0 };
    struct wt_table tb = { 0 };
    struct wt_instances_out inst = { 0 };
    int rc = 1;
    if (wt_read(dir, &ro, &rec, &keep, err, sizeof err) != 0)
        goto done;
    if (share && wt_share_place(share) > 0) {
        rc = 0;               /* a worker's records are process 0's now */
        goto done;
    }
    if (wt_bounds_read(dir, rec.nranks, &bd, err, sizeof err) != 0)
        goto done;
    if (json && wt_instances_begin(&inst, dir, &tb, &bd, err, sizeof err) != 0)
        goto done;
    if (wt_p2p(&rec, &bd, &tb, err, sizeof err) != 0 || wt_coll(&rec, &bd, &tb, err, sizeof err) != 0
        || wt_rma(&rec, &bd, &tb, err, sizeof err) != 0
        || (wt_pscw(&rec, &bd, &tb) != 0 && snprintf(err, sizeof err, "%s: out of memory for the waits", dir))) {
        if (inst.failed)
            snprintf(err, sizeof err, "%s: write failed: %s", inst.tmp, strerror(inst.failed));
        goto done;
    }
    /* the instances' file under its name only after waits.json, which it details */
    if (json && (wt_instances_finish(&inst, dir, &rec, err, sizeof err) != 0
                 || wt_write_json(dir, &rec, &bd, &tb, st_now_s() - t0, err, sizeof err) != 0
                 || wt_instances_commit(&inst, err, sizeof err) != 0))
        goto done;
    wt_print_table(stdout, &rec, &bd, &tb, top);
    rc = 0;
done:
    wt_instances_abort(&inst);
    if (rc && !(share && wt_share_quiet(share)))
        fprintf(stderr, "synctrace waits: %s\n", *err ? err : "failed");
    wt_table_free(&tb);
    wt_bounds_free(&bd);
    wt_records_free(&rec, keep);
    return rc;
}

int cmd_waits(int argc, char **argv)
{
    uint32_t place, processes;
    merge_launch_place(&place, &processes);
    if (processes > 1)
        return wt_share_main(argc, argv, processes, waits_run);
    return waits_run(argc, argv, NULL);
}
