/* memcheck.c — before the merge reads anything: will the trace fit, in
 * memory and on disk?
 *
 * The merge holds every event in memory (docs/design.md, "Traces larger
 * than memory"). A trace that does not fit ends with the kernel killing
 * the merge, often after reading for a long time, and without a word. So
 * the size of the event files is compared first with the memory this
 * process may use (MemAvailable, or its cgroup's limit when lower, or
 * SYNCTRACE_MEMORY_MB), and when the estimate is larger the merge says
 * so at once, in one line, and goes on (an estimate is not a certainty).
 * Likewise the disk: the merged archive takes about what the raw event
 * files take, on OUT_DIR's file system, and the match's sorts spill what
 * exceeds their memory to --spill-dir, as do the events beyond
 * --event-memory (eventspill.h); a merge that runs out of space
 * fails (one line, no output), but only once it gets there. */
#include <config.h>
#include "merge_state.h"
#include "rawformat.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* Raw bytes per event (tracer and synctrace-gen: 10-11 without true
 * times, about 20 with them) and what the merge holds per event beyond
 * its budgets (--sort-memory, --event-memory): the collective members
 * (events and their times are set aside), and with the causal index its
 * build (bench/merge_scaling.sh, 1000-rank stencils of 1.9 to 7.0 M
 * events: peak RSS grows by 2.4 MB per million events without the index,
 * 0.4 from 3.6 M on, and by 6.4 with it; 4.8 from 7.0 to 29.4 M). */
#define RAW_BYTES_PER_EVENT 10.5
#define MERGE_BYTES_PER_EVENT 3.0
#define MERGE_INDEX_BYTES_PER_EVENT 8.0
/* An event set aside takes its 32-byte slot and its time (about 4 bytes)
 * on disk; the matched messages beyond --event-memory wait there too, 64
 * bytes each: one message in 7 to 9 events on generated and traced
 * stencils. */
#define ASIDE_BYTES_PER_EVENT 36.0
#define MESSAGE_BYTES_PER_EVENT 9.0
/* What the match's sorts write per event beyond their memory (endpoints,
 * collective calls, requests spread over locations; bench/merge_scaling.sh
 * on 1000-rank stencils: 13.5-16.4 bytes per event spilled). */
#define SPILL_BYTES_PER_EVENT 16.0
/* The in-memory controlled logical clock (clc.c, the streaming repair's
 * reference: SYNCTRACE_REPAIR=memory) holds arrays per event: every
 * location's global times, a copy of them and its own arrays (2-rank rings
 * of 12 M events: peak RSS 727 MB repaired, 142 MB without: 48.7 bytes per
 * event). */
#define CLC_BYTES_PER_EVENT 49.0

/* The bytes of the event files of the archive of `anchor`
 * (DIR/rank-NNNNNN.otf2: its events are in DIR/rank-NNNNNN/ *.evt). */
static uint64_t event_bytes(const char *anchor)
{
    size_t len = strlen(anchor), suffix = strlen(RF_ANCHOR_SUFFIX);
    if (len <= suffix || len - suffix >= 4096)
        return 0;
    char dir[4200];
    memcpy(dir, anchor, len - suffix);
    dir[len - suffix] = '\0';
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    uint64_t sum = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n <= strlen(RF_EVT_SUFFIX) || strcmp(e->d_name + n - strlen(RF_EVT_SUFFIX), RF_EVT_SUFFIX) != 0)
            continue;
        char path[8400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            sum += (uint64_t)st.st_size;
    }
    closedir(d);
    return sum;
}

/* A number from the first line of PATH ("max" and errors: 0). */
static uint64_t read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[64];
    uint64_t v = 0;
    if (fgets(line, sizeof line, f) && line[0] >= '0' && line[0] <= '9')
        v = strtoull(line, NULL, 10);
    fclose(f);
    return v;
}

/* Bytes from an environment variable holding MiB (a positive number), else 0. */
static uint64_t mib_from_env(const char *name)
{
    const char *mb = getenv(name);
    if (!mb || !*mb)
        return 0;
    char *end;
    double v = strtod(mb, &end);
    return *end == '\0' && v > 0 ? (uint64_t)(v * 1048576.0) : 0;
}

/* Bytes this process may still use: SYNCTRACE_MEMORY_MB when set, else
 * MemAvailable, lowered to what the cgroup (v2) leaves; 0 when unknown. */
static uint64_t memory_available(void)
{
    uint64_t avail = mib_from_env("SYNCTRACE_MEMORY_MB");
    if (avail)
        return avail;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                avail = (uint64_t)kb * 1024;
                break;
            }
        fclose(f);
    }
    uint64_t limit = read_number("/sys/fs/cgroup/memory.max");
    if (limit) {
        uint64_t used = read_number("/sys/fs/cgroup/memory.current");
        uint64_t left = limit > used ? limit - used : 0;
        if (!avail || left < avail)
            avail = left;
    }
    return avail;
}

/* Bytes this process may write to the file system holding `dir`
 * (SYNCTRACE_DISK_MB when set), and that file system's id; 0 when unknown. */
static uint64_t disk_available(const char *dir, dev_t *dev)
{
    struct stat sb;
    *dev = stat(dir, &sb) == 0 ? sb.st_dev : 0;
    uint64_t given = mib_from_env("SYNCTRACE_DISK_MB");
    if (given)
        return given;
    struct statvfs vs;
    return statvfs(dir, &vs) == 0 ? (uint64_t)vs.f_bavail * vs.f_frsize : 0;
}

static void disk_check(const struct merge_state *st, uint64_t bytes, double events)
{
    const char *out_dir = st->opt.out_parent, *spill_dir = st->opt.spill_dir;
    /* runs hold half the sorts' memory, and one sort may fill first: all
     * of it is counted once any of it may spill */
    double archive = (double)bytes, spilled = events * SPILL_BYTES_PER_EVENT;
    if (spilled <= (double)st->opt.sort_memory / 2)
        spilled = 0;
    /* and the events and messages beyond --event-memory wait on disk */
    double aside = events * (ASIDE_BYTES_PER_EVENT + MESSAGE_BYTES_PER_EVENT) - (double)st->opt.event_memory;
    if (aside > 0)
        spilled += aside;
    dev_t out_dev, spill_dev;
    uint64_t out_free = disk_available(out_dir, &out_dev), spill_free = disk_available(spill_dir, &spill_dev);
    if (out_dev && out_dev == spill_dev) {   /* one file system holds both */
        archive += spilled;
        spilled = 0;
    }
    if (out_free && archive > (double)out_free)
        fprintf(stderr, "synctrace merge: %s: about %.3g GB for the merged archive%s, more than the %.3g GB free "
                        "there: the merge may fail for lack of space (--spill-dir, README \"Large traces\")\n",
                out_dir, archive / 1e9, archive > (double)bytes ? " and the spill files" : "",
                (double)out_free / 1e9);
    if (spill_free && spilled > (double)spill_free)
        fprintf(stderr, "synctrace merge: %s: about %.3g GB for the spill files, more than the %.3g GB free "
                        "there: the merge may fail for lack of space (--spill-dir, --sort-memory, --event-memory)\n",
                spill_dir, spilled / 1e9, (double)spill_free / 1e9);
}

/* The streaming repair's files (clc_stream.h): the times and forward
 * values (16 bytes an event), the roles of the events in messages and
 * collectives (32 bytes each, sorted) and the limits (bench/merge_repair.sh,
 * 2-rank rings: 41.3 bytes an event; 50 leaves room). Known only once the solve says delta
 * > 0, so checked then: one line when they seem not to fit. */
#define REPAIR_DISK_BYTES_PER_EVENT 50.0

void merge_repair_disk_check(const struct merge_state *st, const char *spill_dir)
{
    dev_t dev;
    uint64_t free_bytes = disk_available(spill_dir, &dev);
    double need = (double)st->rep.events * REPAIR_DISK_BYTES_PER_EVENT;
    if (free_bytes && need > (double)free_bytes)
        fprintf(stderr, "synctrace merge: %s: the events contradict every clock model (delta %.3g ns): repairing "
                        "them writes about %.3g GB there, more than the %.3g GB free: the merge may fail for lack "
                        "of space (--spill-dir, README \"Large traces\")\n",
                spill_dir, st->sol.delta, need / 1e9, (double)free_bytes / 1e9);
}

int merge_clc_fits(const struct merge_state *st, double *need, double *avail)
{
    *need = (double)st->rep.events * CLC_BYTES_PER_EVENT;
    *avail = (double)memory_available();
    return !*avail || *need <= *avail;
}

void merge_memory_check(const struct merge_state *st)
{
    if (st->place > 0)
        return;   /* a worker of the parallel merge: process 0 says it, for the whole trace */
    uint64_t bytes = 0;
    for (int i = 0; i < st->nanchors; i++)
        bytes += event_bytes(st->anchors[i]);
    uint64_t avail = memory_available();
    double events = (double)bytes / RAW_BYTES_PER_EVENT;
    double need = events * (st->opt.no_causal > 0 ? MERGE_BYTES_PER_EVENT : MERGE_INDEX_BYTES_PER_EVENT)
                  + fmin(events * ((double)sizeof(struct rt_slot) + MESSAGE_BYTES_PER_EVENT),
                         (double)st->opt.event_memory)
                  + fmin(events * SPILL_BYTES_PER_EVENT, (double)st->opt.sort_memory);
    disk_check(st, bytes, events);
    if (!avail || need <= (double)avail)
        return;
    fprintf(stderr,
            "synctrace merge: %s: about %.3g events (%.3g GB of event files) take about %.3g GB to merge in "
            "memory, more than the %.3g GB available here: the merge may be killed for lack of memory "
            "(README, \"Large traces\")\n",
            st->opt.raw, events, (double)bytes / 1e9, need / 1e9, (double)avail / 1e9);
}
