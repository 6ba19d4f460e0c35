/* lifecycle.c — MPI_Init/MPI_Init_thread (hand-written wrappers: nothing
 * records before them), MPI_Finalize and MPI_Abort, and the run metadata.
 *
 * Configuration errors are reported on rank 0's stderr and the program then
 * runs untraced: a tracer must never stop a job. Every rank reaches the same
 * decision (an allreduce of the outcome), so the tracer's own collectives
 * can never leave one rank waiting for another. */
#include <config.h>
#include "rawformat.h"
#include "communicators.h"
#include "fsutil.h"
#include "options.h"
#include "polling.h"
#include "hooks.h"
#include "regions.h"
#include "requests.h"
#include "spawn.h"
#include "sync.h"
#include "writer.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static MPI_Comm sync_comm = MPI_COMM_NULL;
static int thread_level;
static MPI_Comm parent_comm = MPI_COMM_NULL;   /* a spawned job's MPI_Comm_get_parent */
static struct st_parent parent;


/* A directory that already holds a trace (run.meta or any rank archive). */
static int holds_trace(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" RF_META_FILE, dir);
    if (access(path, F_OK) == 0)
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL)
        found = strncmp(de->d_name, RF_RANK_PREFIX, strlen(RF_RANK_PREFIX)) == 0;
    closedir(d);
    return found;
}

/* A spawned job's trace: DIR/spawn-N beside its parents' (DIR their
 * directory, or SYNCTRACE_DIR when they did not say), a directory it
 * made itself. 0, or -1 when there is no such DIR (then as any job). */
static int spawned_directory(int *failed)
{
    const char *base = parent.known && parent.dir[0] ? parent.dir : st_cfg.dir;
    if (parent_comm == MPI_COMM_NULL || !base[0])
        return -1;
    if (st_spawn_make_dir(base, st_g.trace_dir, sizeof st_g.trace_dir) != 0) {
        st_warn("%s: cannot make a directory for this spawned job's trace: %s; this run is not traced", base,
                strerror(errno));
        *failed = 1;
    }
    return 0;
}

/* Rank 0 names the run and decides, once for all ranks, whether the
 * directory may be used: a trace already there is never touched, not even
 * by a larger job whose extra ranks would find no archive of their own. */
static int agree_on_directory(void)
{
    char shared[4096 + 64 + 1] = { 0 };
    if (st_g.rank == 0) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(st_g.run_id, sizeof st_g.run_id, "%s-%ld", stamp, (long)getpid());
        int failed = 0, spawned = spawned_directory(&failed) == 0;
        if (spawned)
            shared[sizeof shared - 1] = (char)failed;
        else if (st_cfg.dir[0])
            snprintf(st_g.trace_dir, sizeof st_g.trace_dir, "%s", st_cfg.dir);
        else
            snprintf(st_g.trace_dir, sizeof st_g.trace_dir, "synctrace-%s", st_g.run_id);
        memcpy(shared, st_g.run_id, sizeof st_g.run_id);
        memcpy(shared + 64, st_g.trace_dir, sizeof st_g.trace_dir);
        if (!spawned && holds_trace(st_g.trace_dir)) {
            st_warn("%s already holds a trace: refusing to overwrite it (choose another SYNCTRACE_DIR); "
                    "this run is not traced", st_g.trace_dir);
            shared[sizeof shared - 1] = 1;
        }
    }
    PMPI_Bcast(shared, (int)sizeof shared, MPI_CHAR, 0, sync_comm);
    memcpy(st_g.run_id, shared, sizeof st_g.run_id);
    memcpy(st_g.trace_dir, shared + 64, sizeof st_g.trace_dir);
    /* Files of the trace are opened long after this (event chunks as they
     * fill, the definitions at close), and a program may change its working
     * directory meanwhile: a relative directory (the default one is) is
     * made absolute now, from where the run started. */
    char cwd[4096], absolute[sizeof st_g.trace_dir];
    if (st_g.trace_dir[0] && st_g.trace_dir[0] != '/' && getcwd(cwd, sizeof cwd)
        && (size_t)snprintf(absolute, sizeof absolute, "%s/%s", cwd, st_g.trace_dir) < sizeof absolute)
        memcpy(st_g.trace_dir, absolute, sizeof st_g.trace_dir);
    return shared[sizeof shared - 1] ? -1 : 0;
}

static void set_properties(void)
{
    char v[128];
    st_writer_property(RF_PROP_VERSION, PACKAGE_VERSION);
    st_writer_property(RF_PROP_RUN_ID, st_g.run_id);
    snprintf(v, sizeof v, "%d", st_g.rank);
    st_writer_property(RF_PROP_RANK, v);
    snprintf(v, sizeof v, "%d", st_g.size);
    st_writer_property(RF_PROP_WORLD_SIZE, v);
    st_writer_property(RF_PROP_HOST, st_clock_hostname());
    st_writer_property(RF_PROP_CLOCK, st_clock_name());
    snprintf(v, sizeof v, "%d", st_sync_domain(st_g.rank));
    st_writer_property(RF_PROP_CLOCK_DOMAIN, v);
    if (st_clock_skew_enabled()) {
        snprintf(v, sizeof v, "%.6f", st_clock_skew_offset_us());
        st_writer_property(RF_PROP_SKEW_OFFSET_US, v);
        snprintf(v, sizeof v, "%.6f", st_clock_skew_drift_ppm());
        st_writer_property(RF_PROP_SKEW_DRIFT_PPM, v);
    }
}

/* Rank 0 writes DIR/run.meta (format/meta_write.h): the head at
 * MPI_Init, again with the sync rounds at MPI_Finalize. NULL when it
 * cannot be written (the trace is still readable without). */
static struct rf_meta *meta_begin(struct rf_meta *m)
{
    struct rf_meta_head h = {
        .version = PACKAGE_VERSION, .run_id = st_g.run_id, .world_size = st_g.size, .thread_level = thread_level,
        .clock = st_clock_name(), .sync_init = (st_cfg.sync & ST_SYNC_INIT) != 0,
        .sync_finalize = (st_cfg.sync & ST_SYNC_FINALIZE) != 0, .sync_periodic = (st_cfg.sync & ST_SYNC_PERIODIC) != 0,
        .interval_config = st_cfg.sync_interval_auto ? "auto" : "fixed", .buffer_bytes = st_cfg.buffer_bytes,
        .skew = st_cfg.skew[0] ? st_cfg.skew : "none",
    };
    if (rf_meta_begin(m, st_g.trace_dir, &h) != 0)
        return NULL;
    if (parent_comm != MPI_COMM_NULL) {
        rf_meta_line(m, RF_META_KEY_SPAWNED, "yes");
        if (parent.known) {
            rf_meta_line(m, RF_META_KEY_PARENT_RUN_ID, "%s", parent.run_id);
            rf_meta_line(m, RF_META_KEY_PARENT_KEY, "%016llx", (unsigned long long)parent.key);
            if (parent.dir[0])
                rf_meta_line(m, RF_META_KEY_PARENT_DIR, "%s", parent.dir);
        }
    }
    return m;
}

static void meta_end(struct rf_meta *m, const char *status)
{
    if (m)
        rf_meta_end(m, status);
}

/* After PMPI_Init*: set everything up, or leave the program untraced. */
static void start(int provided)
{
    char err[4600] = "";
    int ok = 1;
    st_in_tracer = 1;
    thread_level = provided;
    PMPI_Comm_rank(MPI_COMM_WORLD, &st_g.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &st_g.size);
    /* a spawned job (MPI_Comm_get_parent): its trace goes beside its parents' */
    if (PMPI_Comm_get_parent(&parent_comm) != MPI_SUCCESS)
        parent_comm = MPI_COMM_NULL;
    if (parent_comm != MPI_COMM_NULL)
        st_spawn_read_parent(&parent);
    /* injected skew is drawn per rank: a spawned job's ranks draw their own
     * (the spawn's key tells them apart), not their parents' of equal rank */
    uint32_t skew_rank = (uint32_t)st_g.rank + (parent.known ? (uint32_t)(parent.key >> 44) << 12 : 0);
    if (st_config_load(err, sizeof err) != 0 || st_clock_init(st_cfg.clock, err, sizeof err) != 0
        || st_clock_set_skew(st_cfg.skew, (int)skew_rank, err, sizeof err) != 0)
        ok = 0;
    st_poll_on = st_cfg.poll_collapse;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &sync_comm) != MPI_SUCCESS) {
        st_in_tracer = 0;
        return;
    }
    /* The configuration is the same everywhere, so rank 0 speaks for all. */
    int all_ok = ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, sync_comm);
    if (!all_ok) {
        if (st_g.rank == 0)
            st_warn("%s; this run is not traced", err[0] ? err : "configuration error on another rank");
        st_in_tracer = 0;
        return;
    }
    if (agree_on_directory() != 0) {
        st_in_tracer = 0;
        return;
    }
    if (st_mkdir_p(st_g.trace_dir) != 0) {
        snprintf(err, sizeof err, "%s: cannot create the trace directory: %s", st_g.trace_dir, strerror(errno));
        ok = 0;
    } else if (st_writer_open(st_g.trace_dir, st_g.rank, st_g.size, err, sizeof err) != 0) {
        ok = 0;
    }
    st_writer_before_close(st_poll_flush_all);
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, sync_comm);
    if (!all_ok) {
        if (!ok)
            st_warn("rank %d: %s; this run is not traced", st_g.rank, err);
        if (ok)
            st_writer_discard();   /* another rank failed: leave nothing half-made */
        st_in_tracer = 0;
        return;
    }
    /* Above MPI_THREAD_FUNNELED other threads call MPI too: each records in
     * a location of its own, made on its first MPI call. */
    if (provided >= MPI_THREAD_SERIALIZED && st_writer_allow_threads(provided == MPI_THREAD_MULTIPLE) != 0)
        st_warn("rank %d: cannot set up OTF2 for threads; only the thread that called MPI_Init_thread is traced",
                st_g.rank);
    st_g.phase = ST_RECORDING;
    st_type_sizes_init();
    st_comms_init(sync_comm, parent.known ? &parent.key : NULL);
    st_comm_parent(parent_comm, parent.known ? &parent.key : NULL);
    /* Periodic rounds run at agreed counts of MPI_COMM_WORLD collectives,
     * counted by the recording thread. Above MPI_THREAD_FUNNELED another
     * thread may call them, the counts could differ between ranks and the
     * agreement deadlock: only background rounds then (sync_background.h). */
    int collective_rounds = provided <= MPI_THREAD_FUNNELED;
    if ((st_cfg.sync & ST_SYNC_PERIODIC) && !collective_rounds && st_g.rank == 0)
        st_verbose(st_cfg.sync_background ? "periodic sync rounds above MPI_THREAD_FUNNELED: in the background only"
                                          : "SYNCTRACE_SYNC=periodic above MPI_THREAD_FUNNELED needs "
                                            "SYNCTRACE_SYNC_BACKGROUND=1; only init and finalize rounds");
    st_sync_setup(sync_comm, collective_rounds);
    set_properties();
    st_verbose("rank %d: tracing to %s (clock %s)", st_g.rank, st_g.trace_dir, st_clock_name());
    if (st_g.rank == 0) {
        struct rf_meta m;
        meta_end(meta_begin(&m), "running");
    }
}

/* MPI_Init's Enter is the clock read before PMPI_Init (as Score-P stamps
 * it), so the time spent in MPI_Init shows as MPI, not as user code. */
static int init_common(int ret, int provided, uint32_t region, const struct st_clock_early *before)
{
    if (ret != MPI_SUCCESS)
        return ret;
    start(provided);
    if (st_g.phase == ST_RECORDING) {
        uint64_t raw = st_clock_early_raw(before);
        struct st_time entered = { st_clock_distort(raw), raw };
        st_writer_started_at(entered.t);
        struct st_call call = { .loc = st_loc_self, .region = region, .enter = entered, .opened = 1 };
        st_write_enter(call.loc, call.enter, region);
        st_sync_at_init(&call);
        /* MPI_COMM_WORLD and MPI_COMM_SELF come into being inside MPI_Init */
        struct st_time begun = st_now();
        st_call_stamp(&call);
        st_comms_started(&call, begun, parent_comm);
        st_call_end_stamped(&call);
    }
    st_in_tracer = 0;
    return ret;
}

int MPI_Init(int *argc, char ***argv)
{
    struct st_clock_early before;
    st_clock_early_read(&before);
    int ret = PMPI_Init(argc, argv);
    return init_common(ret, MPI_THREAD_SINGLE, ST_REGION_MPI_Init, &before);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    struct st_clock_early before;
    st_clock_early_read(&before);
    int ret = PMPI_Init_thread(argc, argv, required, provided);
    return init_common(ret, ret == MPI_SUCCESS ? *provided : MPI_THREAD_SINGLE, ST_REGION_MPI_Init_thread,
                       &before);
}

void st_lifecycle_finalize(struct st_call *call)
{
    st_in_tracer = 1;
    struct rf_meta m;
    struct rf_meta *meta = st_g.rank == 0 ? meta_begin(&m) : NULL;
    st_sync_at_finalize(call, meta);
    meta_end(meta, "complete");
    /* ... and end inside MPI_Finalize, as Score-P records them */
    struct st_time begun = st_now();
    st_call_stamp(call);
    st_comms_ending(call, begun);
    st_call_end_stamped(call);
    call->loc = NULL;   /* the wrapper must not write a second Leave */
    st_g.phase = ST_DONE;
    st_writer_close();
    st_requests_finalize();
    st_comms_finalize();
    PMPI_Comm_free(&sync_comm);
    st_in_tracer = 0;
}

void st_lifecycle_abort(struct st_call *call, MPI_Comm comm, int errorcode)
{
    (void)comm; (void)errorcode;
    /* The job is about to be killed: keep what this rank recorded. */
    st_call_end(call);
    call->loc = NULL;   /* PMPI_Abort may return (MPI_ERRORS_RETURN): no second Leave */
    st_g.phase = ST_DONE;
    st_writer_close();
}
