/* writer.c — the per-rank OTF2 archive: event records, definitions, bounded
 * buffer memory, and closing the archive even when the program dies. */
#include <config.h>
#include "rawformat.h"
#include "writer.h"
#include "records.h"
#include "reckinds.h"
#include "recfile.h"
#include "convert.h"
#include "defs_write.h"
#include "members.h"
#include "table.h"
#include "options.h"
#include "regions.h"
#include "sumfile.h"

#include <otf2/OTF2_Pthread_Locks.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---------- definitions kept until close ---------- */

static struct {
    OTF2_Archive *archive;
    struct st_loc main;
    int rank, size;
    uint64_t opened_at;
    struct rf_defs defs;      /* communicators (and their names) as they come */
    struct rf_clock_offset *offsets;
    uint32_t noffsets, offsets_cap;
    size_t evt_chunk;         /* the archive's event chunk size */
    uint64_t resolution;      /* ticks per second, once fixed */
    char dir[4096];
    int closing;
    pid_t pid;                /* the process that opened the archive: a forked child never closes it */
    int journal;              /* fd of DIR/rank-NNNNNN.journal, or -1 */
} W = { .journal = -1 };

/* How many 64-slot words of collective sources a world-sized group needs
 * (the attribute references keep room for them all). */
static uint32_t source_words(void)
{
    return RF_SOURCE_WORDS(W.size);
}

/* The attribute references of this archive (rf_attr_layout: dense, fixed
 * at open), and the coll_sources_<k> words the events carry: only those
 * are defined, each with the next reference in the order the recording
 * threads first used them, so the definitions do not grow with the world.
 * A record holds fewer than ST_REC_MAX_WORDS words, so no word beyond. */
#define SOURCE_WORDS_TRACKED ST_REC_MAX_WORDS
static struct rf_attr_layout A;
static struct {
    pthread_mutex_t lock;                       /* taken on a word's first use only */
    _Atomic uint32_t ref[SOURCE_WORDS_TRACKED]; /* word k's reference, 0 until used (refs of words are > 0) */
    uint32_t order[SOURCE_WORDS_TRACKED];       /* the words in reference order */
    _Atomic uint32_t n;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };


_Thread_local struct st_loc *st_loc_self;

/* Locations of the threads other than MPI_Init's (MPI_THREAD_SERIALIZED or
 * MULTIPLE), made on their first MPI call. Their ids keep the rank in the
 * low 32 bits: the n-th thread's is n << 32 | rank (the main one's, n = 0,
 * is the rank, as without threads). */
static struct {
    pthread_mutex_t lock;
    int enabled;
    struct st_loc **v;
    uint32_t n, cap;
} T = { .lock = PTHREAD_MUTEX_INITIALIZER };
static _Thread_local int attach_tried;

/* ---------- the recovery journal ----------
 *
 * Definitions reach the archive only when it is closed, and a rank killed
 * with SIGKILL never closes it: its flushed events sit in LOCATION.evt
 * with nothing to read them by. So DIR/rank-NNNNNN.journal keeps, from
 * st_writer_open on, everything the definitions are made of, and
 * `synctrace merge` rebuilds the archive from it (format/recover.c, which
 * also documents the format). Text, one record per '\n'-terminated line,
 * each line one write(2) on an O_APPEND descriptor: no stdio buffer to
 * lose, and a kill can cut only the last line, which the reader drops.
 * Records are written at open (the header, ending with `header_end`), for
 * each property, communicator, clock offset, location of another thread
 * and the final resolution: all rare, never on the event path. The journal
 * is removed once the archive is closed (its anchor written): it then
 * holds nothing the archive lacks. */

/* Append one string field: ' ' then the string with '%', space, control
 * and non-ASCII bytes as %XX; the empty string is "%00". */
static size_t journal_str(char *out, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    out[n++] = ' ';
    if (!*s) {
        memcpy(out + n, "%00", 3);
        return n + 3;
    }
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p <= ' ' || *p >= 0x7f || *p == '%') {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        } else {
            out[n++] = (char)*p;
        }
    }
    return n;
}

static size_t journal_str_max(const char *s)
{
    return 1 + (*s ? 3 * strlen(s) : 3);
}

static void journal_write(const char *buf, size_t len)
{
    while (len > 0 && W.journal >= 0) {
        ssize_t n = write(W.journal, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* Disk full or the like: stop journaling rather than leave a
             * hole in the middle; what is there is still consistent. */
            close(W.journal);
            W.journal = -1;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* A record of a keyword and string fields (NULL-terminated), then `tail`
 * (already formatted, starting with a space, or ""). */
static void journal_record(const char *key, const char *const *strs, const char *tail)
{
    if (W.journal < 0)
        return;
    size_t max = strlen(key) + strlen(tail) + 2;
    for (const char *const *s = strs; s && *s; s++)
        max += journal_str_max(*s);
    char small[1024];
    char *buf = max <= sizeof small ? small : malloc(max);
    if (!buf)
        return;
    size_t n = strlen(key);
    memcpy(buf, key, n);
    for (const char *const *s = strs; s && *s; s++)
        n += journal_str(buf + n, *s);
    memcpy(buf + n, tail, strlen(tail));
    n += strlen(tail);
    buf[n++] = '\n';
    journal_write(buf, n);
    if (buf != small)
        free(buf);
}

/* The header: one write, so that it is either all there or cut short, and
 * then the reader sees no header_end. */
static void journal_open(const char *path, uint64_t chunk)
{
    W.journal = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    if (W.journal < 0) {
        st_verbose("rank %d: %s: %s: no crash recovery for this rank", W.rank, path, strerror(errno));
        return;
    }
    const char *own[ST_REGION_ALL_COUNT - ST_REGION_MPI_COUNT] = { RF_REGION_SYNC_NAME };
    size_t max = 512 + journal_str_max(st_clock_hostname()) + journal_str_max(st_clock_name());
    for (int r = 0; r < ST_REGION_ALL_COUNT; r++)
        max += 64 + journal_str_max(r < ST_REGION_MPI_COUNT ? st_regions[r].name : own[r - ST_REGION_MPI_COUNT]);
    char *buf = malloc(max);
    if (!buf) {
        close(W.journal);
        W.journal = -1;
        return;
    }
    size_t n = (size_t)sprintf(buf,
                               RF_JOURNAL_MAGIC " %d\n" RF_JR_RANK " %d\n" RF_JR_WORLD_SIZE " %d\n"
                               RF_JR_LOCATION " %llu\n" RF_JR_CHUNK_SIZE " %llu\n" RF_JR_OPENED_AT " %llu\n"
                               RF_JR_TICKS_PER_SECOND " %.6f\n" RF_JR_TRUE_TIME " %d\n" RF_JR_HOST,
                               RF_JOURNAL_FORMAT, W.rank, W.size, (unsigned long long)W.main.id,
                               (unsigned long long)chunk, (unsigned long long)W.opened_at,
                               st_clock_ticks_per_second(), st_clock_skew_enabled() ? 1 : 0);
    n += journal_str(buf + n, st_clock_hostname());
    n += (size_t)sprintf(buf + n, "\n" RF_JR_CLOCK);
    n += journal_str(buf + n, st_clock_name());
    buf[n++] = '\n';
    for (int r = 0; r < ST_REGION_ALL_COUNT; r++) {
        int mpi = r < ST_REGION_MPI_COUNT;
        n += (size_t)sprintf(buf + n, RF_JR_REGION " %d %d %d", r,
                             (int)(mpi ? st_regions[r].role : OTF2_REGION_ROLE_ARTIFICIAL),
                             (int)(mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_MEASUREMENT_SYSTEM));
        n += journal_str(buf + n, mpi ? st_regions[r].name : own[r - ST_REGION_MPI_COUNT]);
        buf[n++] = '\n';
    }
    n += (size_t)sprintf(buf + n, RF_JR_HEADER_END " %d\n", (int)ST_REGION_ALL_COUNT);
    journal_write(buf, n);
    free(buf);
}

static void journal_remove(void)
{
    char path[4200];
    if (W.journal >= 0)
        close(W.journal);
    W.journal = -1;
    snprintf(path, sizeof path, "%s/" RF_RANK_NAME_FMT RF_JOURNAL_SUFFIX, W.dir, W.rank);
    unlink(path);
}

/* World ranks, comma-separated, -1 for a process of another world, "-"
 * for none; returns the length written (at most 12 * n + 2). */
static size_t journal_ranks(char *out, uint32_t n, const uint64_t *ranks)
{
    size_t k = 0;
    if (n == 0)
        out[k++] = '-';
    for (uint32_t i = 0; i < n; i++)
        k += (size_t)sprintf(out + k, "%s%lld", i ? "," : "",
                             ranks[i] == OTF2_UNDEFINED_UINT64 ? -1LL : (long long)ranks[i]);
    out[k] = '\0';
    return k;
}

/* The interned group of a member list (defs_write); a new one is journaled
 * as "group INDEX N MEMBERS". UINT32_MAX when out of memory. */
static uint32_t group_of(int self, int n, const int *ranks)
{
    uint64_t *members = malloc(sizeof *members * (size_t)(n > 0 ? n : 1));
    if (!members)
        return UINT32_MAX;
    for (int i = 0; i < n; i++)
        members[i] = ranks[i] >= 0 ? (uint64_t)ranks[i]
                     : ranks[i] == -1 ? OTF2_UNDEFINED_UINT64
                                      : RF_OUTSIDE_MEMBER((-2 - ranks[i]) >> 24, (-2 - ranks[i]) & 0xFFFFFF);
    int added = 0;
    uint32_t g = rf_defs_group(&W.defs, self, self ? 0 : (uint32_t)(n > 0 ? n : 0), members, &added);
    if (g != UINT32_MAX && added && W.journal >= 0) {
        const struct rf_group_def *gd = &W.defs.groups[g];
        char *tail = malloc(32 + 12 * (size_t)gd->n);
        if (tail) {
            size_t len = (size_t)sprintf(tail, " %u %u ", g, gd->n);
            journal_ranks(tail + len, gd->n, gd->members);
            journal_record(RF_JR_GROUP, NULL, tail);
            free(tail);
        }
    }
    free(members);
    return g;
}

uint32_t st_writer_define_comm(const struct st_comm_desc *desc)
{
    int self = desc->self != 0;
    struct rf_comm_desc d = {
        .name = desc->name ? desc->name : "", .has_key = 1, .key = desc->key, .inter = desc->inter != 0,
        .local = group_of(self, self ? 0 : desc->nmembers, desc->members),
    };
    d.remote = d.inter ? group_of(0, desc->nremote, desc->remote) : 0;
    if (d.local == UINT32_MAX || d.remote == UINT32_MAX)
        return OTF2_UNDEFINED_COMM;
    uint32_t ref = rf_defs_add_comm(&W.defs, &d);
    if (ref == OTF2_UNDEFINED_COMM)
        return ref;
    /* comm REF NAME N @GROUP key HEX [self] [remote N @GROUP]: members as
     * a "group" record's */
    char tail[160];
    int n = snprintf(tail, sizeof tail, " %u @%u " RF_JR_COMM_KEY " %016llx%s", W.defs.groups[d.local].n, d.local,
                     (unsigned long long)d.key, self ? " " RF_JR_COMM_SELF : "");
    if (d.inter)
        snprintf(tail + n, sizeof tail - (size_t)n, " " RF_JR_COMM_REMOTE " %u @%u", W.defs.groups[d.remote].n,
                 d.remote);
    char key[32];
    snprintf(key, sizeof key, RF_JR_COMM " %u", ref);
    const char *strs[] = { d.name, NULL };
    journal_record(key, strs, tail);
    return ref;
}

void st_writer_comm_name(uint32_t comm, const char *name)
{
    if (!name || rf_defs_comm_name(&W.defs, comm, name) != 0)
        return;
    char key[32];
    snprintf(key, sizeof key, RF_JR_COMM_NAME " %u", comm);
    const char *strs[] = { name, NULL };
    journal_record(key, strs, "");
}

void st_writer_comm_neighbours(uint32_t comm, int n, const int *world_ranks)
{
    if (comm >= W.defs.ncomms || n < 0)
        return;
    uint64_t *in = malloc(sizeof *in * (size_t)(n ? n : 1));
    if (!in)
        return;
    for (int i = 0; i < n; i++)
        in[i] = (uint64_t)world_ranks[i];
    if (rf_defs_comm_neighbours(&W.defs, comm, (uint32_t)n, in) != 0)
        return;
    /* neighbours REF N LIST: world ranks, comma-separated, "-" for none */
    char *tail = malloc(32 + 12 * (size_t)n);
    if (tail) {
        size_t k = (size_t)sprintf(tail, " %u %d %s", comm, n, n ? "" : "-");
        for (int i = 0; i < n; i++)
            k += (size_t)sprintf(tail + k, "%s%d", i ? "," : "", world_ranks[i]);
        journal_record(RF_JR_NEIGHBOURS, NULL, tail);
        free(tail);
    }
}

void st_writer_comm_parent(uint32_t comm, uint32_t parent)
{
    if (rf_defs_comm_parent(&W.defs, comm, parent) != 0)
        return;
    char tail[32];
    snprintf(tail, sizeof tail, " %u %u", comm, parent);
    journal_record(RF_JR_COMM_PARENT, NULL, tail);
}

void st_writer_comm_events(uint32_t comm)
{
    if (rf_defs_comm_events(&W.defs, comm) != 0)
        return;
    char tail[32];
    snprintf(tail, sizeof tail, " %u", comm);
    journal_record(RF_JR_COMM_EVENTS, NULL, tail);
}

void st_writer_comm_cart(uint32_t comm, int ndims, const int *sizes, const int *periods, const int *coords, int rank)
{
    if (ndims <= 0 || ndims > RF_CART_MAX_DIMS || rank < 0)
        return;
    uint32_t sz[RF_CART_MAX_DIMS], co[RF_CART_MAX_DIMS];
    uint8_t per[RF_CART_MAX_DIMS];
    for (int d = 0; d < ndims; d++) {
        sz[d] = sizes[d] < 0 ? 0 : (uint32_t)sizes[d];
        per[d] = periods[d] != 0;
        co[d] = coords[d] < 0 ? 0 : (uint32_t)coords[d];
    }
    if (rf_defs_comm_cart(&W.defs, comm, (uint32_t)ndims, sz, per, co, (uint32_t)rank) != 0)
        return;
    /* cart REF RANK NDIMS SIZES PERIODIC COORDS: lists comma-separated */
    char *tail = malloc(48 + 36 * (size_t)ndims);
    if (tail) {
        size_t k = (size_t)sprintf(tail, " %u %d %d ", comm, rank, ndims);
        for (int d = 0; d < ndims; d++)
            k += (size_t)sprintf(tail + k, "%s%u", d ? "," : "", sz[d]);
        for (int d = 0; d < ndims; d++)
            k += (size_t)sprintf(tail + k, "%s%u", d ? "," : " ", per[d]);
        for (int d = 0; d < ndims; d++)
            k += (size_t)sprintf(tail + k, "%s%u", d ? "," : " ", co[d]);
        journal_record(RF_JR_CART, NULL, tail);
        free(tail);
    }
}

uint32_t st_writer_define_window(uint32_t comm)
{
    uint32_t win = rf_defs_add_window(&W.defs, comm);
    if (win != OTF2_UNDEFINED_RMA_WIN) {
        char tail[32];
        snprintf(tail, sizeof tail, " %u %u", win, comm);
        journal_record(RF_JR_WINDOW, NULL, tail);
    }
    return win;
}

void st_writer_window_name(uint32_t win, const char *name)
{
    if (rf_defs_window_name(&W.defs, win, name) != 0)
        return;
    char key[48];
    snprintf(key, sizeof key, RF_JR_WINDOW_NAME " %u", win);
    const char *strs[] = { name, NULL };
    journal_record(key, strs, "");
}

void st_writer_clock_offset(uint64_t local_time, int64_t offset, double stddev)
{
    if (W.noffsets == W.offsets_cap) {
        if (st_grow((void **)&W.offsets, &W.offsets_cap, sizeof *W.offsets) != 0)
            return;
    }
    W.offsets[W.noffsets++] = (struct rf_clock_offset){ local_time, offset, stddev };
    char tail[96];
    snprintf(tail, sizeof tail, " %llu %lld %.17g", (unsigned long long)local_time, (long long)offset, stddev);
    journal_record(RF_JR_CLOCK_OFFSET, NULL, tail);
}

uint64_t st_writer_set_resolution(double ticks_per_second)
{
    W.resolution = (uint64_t)(ticks_per_second + 0.5);
    char tail[32];
    snprintf(tail, sizeof tail, " %llu", (unsigned long long)W.resolution);
    journal_record(RF_JR_RESOLUTION, NULL, tail);
    return W.resolution;
}

void st_writer_property(const char *name, const char *value)
{
    if (W.archive) {
        OTF2_Archive_SetProperty(W.archive, name, value, true);
        const char *strs[] = { name, value, NULL };
        journal_record(RF_JR_PROPERTY, strs, "");
    }
}

/* ---------- bounded memory ---------- */

/* SYNCTRACE_BUFFER_MB holds the chunks of compact records (records.c),
 * which keep the events until a flush, and each location's OTF2 event
 * chunk (evtchunk.h), which only passes encoded events on to its file.
 * The event chunk is the largest power of two from 1 MiB down to OTF2's
 * smallest, 256 KiB, that takes at most an eighth of the buffer; the main
 * location's comes out of the buffer, and each other thread that records
 * adds one. OTF2 itself keeps only definitions, written at close. */
#define EVT_CHUNK_MAX ((size_t)1 << 20)
#define EVT_CHUNK_MIN ((size_t)256 * 1024)

static size_t event_chunk_size(void)
{
    size_t chunk = EVT_CHUNK_MAX;
    while (chunk > EVT_CHUNK_MIN && chunk * 8 > st_cfg.buffer_bytes)
        chunk /= 2;
    return chunk;
}

static size_t record_budget(void)
{
    size_t chunk = event_chunk_size();
    return st_cfg.buffer_bytes > 2 * chunk ? st_cfg.buffer_bytes - chunk : chunk;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)user; (void)type; (void)loc; (void)caller; (void)final;
    return OTF2_FLUSH;
}

/* OTF2's own flushes happen while records are converted (records.c), on
 * the I/O thread or inside a flush of records, which is recorded itself
 * (st_write_flush) with what it cost the program: no post-flush callback,
 * so OTF2 writes no BufferFlush record of its own. */
static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, NULL };

/* ---------- closing on abnormal termination ---------- */

/* Crash signals end the process whoever handles them, so the archive is
 * closed first and the signal then goes on to the handler that was there
 * before: Open MPI installs its own (a backtrace printer) for SIGSEGV,
 * SIGBUS, SIGFPE and SIGABRT in MPI_Init. A program may handle the
 * termination signals to carry on: a handler it installed owns them.
 * An ignored signal stays ignored. */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGQUIT };
#define N_CRASH_SIGNALS 5   /* the first five above */
static struct sigaction previous[sizeof fatal_signals / sizeof fatal_signals[0]];
static char signal_dir[4096];   /* the trace directory, for linger() */

/* Open MPI kills a job's processes with SIGTERM (after SIGCONT), and SIGKILLs
 * those of a node that are left as soon as one of them has died: a rank that
 * dies right after closing its archive would cut short the others still
 * closing theirs. So after a termination signal, wait until every rank's
 * archive is complete (has its checksum file), at most until 0.8 s after
 * the signal came (Open MPI's default odls_base_sigkill_timeout is 1 s). */
static void linger(const struct timespec *since)
{
    static int complete;   /* ranks 0 .. complete-1 have closed their archives */
    char anchor[4200];
    for (;;) {
        while (complete < W.size) {
            /* A rank's checksum file comes last, whole (renamed into place). */
            snprintf(anchor, sizeof anchor, "%s/" RF_RANK_NAME_FMT RF_SUM_SUFFIX, signal_dir, complete);
            struct stat st;
            if (stat(anchor, &st) != 0)
                break;
            complete++;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (complete >= W.size
            || (now.tv_sec - since->tv_sec) * 1000000000LL + (now.tv_nsec - since->tv_nsec) > 800000000LL)
            return;
        struct timespec pause = { 0, 10000000 };
        nanosleep(&pause, NULL);
    }
}

/* A close under way (MPI_Finalize, MPI_Abort, Open MPI's fatal-error path)
 * when a termination signal comes: the rank that aborted first has the
 * others killed while they may still be closing theirs (every rank calling
 * MPI_Abort). The close then finishes first, and the signal is sent on at
 * its end. */
static volatile sig_atomic_t close_under_way, deferred_signal;
static struct timespec deferred_since;
/* This thread is writing an event: a termination signal must not close the
 * archive under it (a half-written record in a closed archive reads as
 * corrupt event data), so the close waits for the write's end (WRITE).
 * Linux gives a signal sent to the process to its main thread, the one
 * that records, unless that thread blocks it. */
static _Thread_local volatile sig_atomic_t writing;

/* Best effort: closing the archive is not async-signal-safe, so an alarm
 * guarantees that a handler stuck on a lock cannot hang the job. */
static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    struct timespec arrival;
    clock_gettime(CLOCK_MONOTONIC, &arrival);
    int crash = 0;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        if (fatal_signals[i] == sig) {
            sigaction(sig, &previous[i], NULL);
            crash = i < N_CRASH_SIGNALS;
        }
    if (!crash && (close_under_way || writing)) {
        if (!deferred_signal) {
            deferred_since = arrival;
            deferred_signal = sig;
        }
        return;
    }
    static volatile sig_atomic_t once;
    if (!once && getpid() == W.pid) {   /* not in a child the program forked */
        once = 1;
        alarm(5);
        st_g.phase = ST_DONE;
        st_writer_close();
        if (!crash)
            linger(&arrival);
    }
    /* Send the signal on as it came, so that the previous handler sees the
     * same siginfo (Open MPI's report names the faulting address); it is
     * delivered as this handler returns. */
#ifdef SYS_rt_tgsigqueueinfo
    if (info && syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), sig, info) == 0)
        return;
#else
    (void)info;
#endif
    raise(sig);
}

static void install_signal_handlers(const char *dir)
{
    snprintf(signal_dir, sizeof signal_dir, "%s", dir);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_SIGINFO;
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN
            || (i >= N_CRASH_SIGNALS && old.sa_handler != SIG_DFL))
            continue;
        sigaction(fatal_signals[i], &sa, &previous[i]);
    }
}

static void close_at_exit(void)
{
    /* A program that calls exit() without MPI_Finalize keeps its trace. */
    if (W.archive) {
        st_g.phase = ST_DONE;
        st_writer_close();
    }
}

/* ---------- open / close ---------- */

/* A location's event file, DIR/rank-NNNNNN/ID.evt: where OTF2's reader
 * looks for it (the archive's directory is made here if OTF2 has not yet). */
static int open_event_file(struct st_loc *loc)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/" RF_RANK_NAME_FMT, W.dir, W.rank);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
    snprintf(path, sizeof path, "%s/" RF_RANK_NAME_FMT "/%llu" RF_EVT_SUFFIX, W.dir, W.rank,
             (unsigned long long)loc->id);
    return st_evt_open(&loc->evt, path, W.evt_chunk);
}

/* End a location's event file; say so when some of it could not be written. */
static void close_event_file(struct st_loc *loc)
{
    int failed = st_evt_close(&loc->evt) != 0;
    loc->nevents = loc->evt.nwritten;   /* what the file holds, whole chunks, even when a write failed */
    if (failed)
        st_warn("rank %d: cannot write all of location %llu's events (%s); the trace keeps what was written",
                W.rank, (unsigned long long)loc->id, strerror(loc->evt.error));
}
/* The records' calls into the writer (st_rec_sink), defined below. */
static void slow_begin(void);
static void slow_end(void);
static void convert_records(struct st_loc *loc, const uint64_t *w, const uint64_t *end);



int st_writer_open(const char *dir, int rank, int size, char *err, size_t errlen)
{
    char name[32];
    snprintf(name, sizeof name, RF_RANK_NAME_FMT, rank);
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/%s" RF_ANCHOR_SUFFIX, dir, name);
    if (access(anchor, F_OK) == 0) {
        snprintf(err, errlen, "%s already exists: refusing to overwrite a trace (choose another SYNCTRACE_DIR)", anchor);
        return -1;
    }
    W.rank = rank;
    W.size = size;
    W.pid = getpid();
    rf_attr_layout(&A, st_clock_skew_enabled());   /* before any event: the references events carry */
    snprintf(W.dir, sizeof W.dir, "%s", dir);
    uint64_t chunk = event_chunk_size();
    W.archive = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, chunk, RF_DEF_CHUNK_SIZE,
                                  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!W.archive) {
        snprintf(err, errlen, "%s: cannot create the OTF2 archive", anchor);
        return -1;
    }
    if (OTF2_Archive_SetFlushCallbacks(W.archive, &flush_callbacks, NULL) != OTF2_SUCCESS
        || OTF2_Archive_SetSerialCollectiveCallbacks(W.archive) != OTF2_SUCCESS
        || OTF2_Archive_SetCreator(W.archive, "synctrace " PACKAGE_VERSION) != OTF2_SUCCESS
        || OTF2_Archive_OpenEvtFiles(W.archive) != OTF2_SUCCESS) {
        snprintf(err, errlen, "%s: cannot set up the OTF2 archive", anchor);
        OTF2_Archive_Close(W.archive);
        W.archive = NULL;
        return -1;
    }
    W.main.id = (uint64_t)rank;
    W.evt_chunk = chunk;
    if (open_event_file(&W.main) != 0) {
        snprintf(err, errlen, "%s: cannot set up the event file of location %d", anchor, rank);
        OTF2_Archive_Close(W.archive);
        W.archive = NULL;
        return -1;
    }
    char records[4200];
    snprintf(records, sizeof records, "%s/%s" RF_RECORDS_SUFFIX, dir, name);
    static const struct st_rec_sink sink = { slow_begin, slow_end, convert_records, st_write_flush };
    if (st_rec_start(record_budget(), st_cfg.io_thread, st_cfg.kill_safe ? records : NULL, &sink) != 0)
        st_verbose("rank %d: no I/O thread could be started: records are converted in flushes", rank);
    else
        st_verbose("rank %d: event records are converted to OTF2 %s", rank,
                   st_rec_threaded() ? "on an I/O thread" : "in flushes, on the recording thread");
    /* The I/O thread converts while the program's threads define and set
     * properties: OTF2 must lock. */
    if ((st_rec_threaded() && OTF2_Pthread_Archive_SetLockingCallbacks(W.archive, NULL) != OTF2_SUCCESS)
        || st_rec_attach(&W.main) != 0) {
        snprintf(err, errlen, "%s: cannot set up the event records", anchor);
        st_rec_drain(NULL, 0);
        st_rec_release(NULL, 0);
        OTF2_Archive_Close(W.archive);
        W.archive = NULL;
        return -1;
    }
    W.opened_at = st_now().t;
    char journal[4200];
    snprintf(journal, sizeof journal, "%s/%s" RF_JOURNAL_SUFFIX, dir, name);
    journal_open(journal, chunk);
    st_loc_self = &W.main;
    install_signal_handlers(dir);
    atexit(close_at_exit);
    return 0;
}

void st_writer_discard(void)
{
    if (!W.archive)
        return;
    st_writer_close();
    char path[4200];
    /* Local files are named by the location id, which is the rank. */
    const char *names[] = { "%s/" RF_RANK_NAME_FMT RF_ANCHOR_SUFFIX, "%s/" RF_RANK_NAME_FMT RF_DEF_SUFFIX,
                            "%s/" RF_RANK_NAME_FMT "/%d" RF_EVT_SUFFIX, "%s/" RF_RANK_NAME_FMT "/%d" RF_DEF_SUFFIX,
                            "%s/" RF_RANK_NAME_FMT RF_JOURNAL_SUFFIX, "%s/" RF_RANK_NAME_FMT RF_SUM_SUFFIX,
                            "%s/" RF_RANK_NAME_FMT RF_MEMBERS_SUFFIX, "%s/" RF_RANK_NAME_FMT RF_RECORDS_SUFFIX };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, names[i], W.dir, W.rank, W.rank);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/" RF_RANK_NAME_FMT, W.dir, W.rank);
    rmdir(path);
}


void st_writer_started_at(uint64_t t)
{
    if (t >= W.opened_at)
        return;
    W.opened_at = t;   /* the trace begins with MPI_Init's Enter, stamped before the archive opened */
    char tail[32];
    snprintf(tail, sizeof tail, " %llu", (unsigned long long)t);
    journal_record(RF_JR_STARTED_AT, NULL, tail);
}

/* The tracer's regions: the generated MPI ones, then its own. */
static struct rf_region regions[ST_REGION_ALL_COUNT];

/* The archive's locations, the main thread's last (format/defs_write.h);
 * NULL when out of memory. */
static struct rf_location *locations(uint64_t nevents)
{
    struct rf_location *locs = malloc(sizeof *locs * ((size_t)T.n + 1));
    if (!locs)
        return NULL;
    for (uint32_t i = 0; i < T.n; i++)
        locs[i] = (struct rf_location){ T.v[i]->id, i + 1, T.v[i]->nevents };
    locs[T.n] = (struct rf_location){ W.main.id, 0, nevents };
    return locs;
}

static void write_definitions(OTF2_GlobalDefWriter *gd, const struct rf_location *locs, uint32_t nlocs, uint64_t end)
{
    if (!W.resolution)
        st_writer_set_resolution(st_clock_calibrate_final());
    for (int r = 0; r < ST_REGION_ALL_COUNT; r++)
        regions[r] = r < ST_REGION_MPI_COUNT
                     ? (struct rf_region){ st_regions[r].name, st_regions[r].role, OTF2_PARADIGM_MPI }
                     : (struct rf_region){ RF_REGION_SYNC_NAME, OTF2_REGION_ROLE_ARTIFICIAL,
                                           OTF2_PARADIGM_MEASUREMENT_SYSTEM };
    struct rf_rank_defs r = {
        .resolution = W.resolution, .global_offset = W.opened_at,
        .trace_length = end > W.opened_at ? end - W.opened_at : 0,
        .rank = W.rank, .world_size = W.size, .host = st_clock_hostname(),
        .locs = locs, .nlocs = nlocs, .regions = regions, .nregions = ST_REGION_ALL_COUNT,
        .true_time = st_clock_skew_enabled(), .source_words = S.order,
        .nsource_words = atomic_load_explicit(&S.n, memory_order_acquire),
    };
    rf_defs_write(gd, &W.defs, &r);
}

static void (*before_close)(void);

void st_writer_before_close(void (*fn)(void))
{
    before_close = fn;
}

void st_writer_close(void)
{
    /* A child the program forked runs our atexit and signal handlers on a
     * copy of the parent's state: the archive is the parent's to close. */
    if (!W.archive || W.closing || getpid() != W.pid)
        return;
    W.closing = 1;
    close_under_way = 1;
    if (before_close)
        before_close();   /* every location's open polling run ends (polling.c) */
    st_loc_self = NULL;
    uint64_t end = st_now().t;
    /* What is still recorded becomes OTF2 events: the main location's and,
     * MPI_Finalize coming after the other threads' last MPI call, theirs. */
    struct st_loc *main_loc = &W.main;
    struct st_loc **all = malloc(sizeof *all * ((size_t)T.n + 1));
    if (all) {
        all[0] = &W.main;
        for (uint32_t i = 0; i < T.n; i++)
            all[i + 1] = T.v[i];
    }
    st_rec_drain(all ? all : &main_loc, all ? T.n + 1 : 1);
    close_event_file(&W.main);
    uint64_t nevents = W.main.nevents;
    /* MPI_Finalize comes after the other threads' last MPI call (MPI says
     * so), so their locations are idle now. */
    for (uint32_t i = 0; i < T.n; i++)
        close_event_file(T.v[i]);
    OTF2_Archive_CloseEvtFiles(W.archive);

    /* Clock offsets are local definitions of each location; all threads
     * read the rank's clock. Nothing to do about a failure here: the merge
     * reports what is missing. */
    struct rf_location *locs = locations(nevents);
    struct rf_location main_only = { W.main.id, 0, nevents };   /* out of memory: at least the main one */
    uint32_t nlocs = locs ? T.n + 1 : 1;
    rf_defs_write_clock_offsets(W.archive, locs ? locs : &main_only, nlocs, W.offsets, W.noffsets);
    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(W.archive);
    if (gd) {
        write_definitions(gd, locs ? locs : &main_only, nlocs, end);
        OTF2_Archive_CloseGlobalDefWriter(W.archive, gd);
    }
    free(locs);
    /* The communicators' members beside the archive, written before its
     * anchor: an archive that has an anchor has them (or says why not). */
    char name[32], err[4600];
    snprintf(name, sizeof name, RF_RANK_NAME_FMT, W.rank);
    /* Declared even when it cannot be written: a reader must then say it
     * is missing, never read the archive's own-rank groups as the members. */
    if (rf_members_declare(W.archive) != 0)
        st_warn("rank %d: cannot set the archive property " RF_PROP_MEMBERS "; the merge cannot read this rank", W.rank);
    if (rf_members_write(W.dir, name, &W.defs, W.rank, W.size, err, sizeof err) != 0)
        st_warn("rank %d: %s; the merge cannot read this rank", W.rank, err);
    OTF2_Archive_Close(W.archive);
    W.archive = NULL;
    /* The last act: the checksum file, whose presence says the archive is
     * closed and lets a reader verify every byte of it. */
    if (sum_write_archive(W.dir, name, err, sizeof err) != 0)
        st_warn("rank %d: %s; the archive cannot be verified", W.rank, err);
    /* The archive is complete: the journal has done its job. */
    journal_remove();
    st_rec_release(all ? all : &main_loc, all ? T.n + 1 : 1);
    free(all);
    /* Threads check the phase before they touch their location again. */
    for (uint32_t i = 0; i < T.n; i++)
        free(T.v[i]);
    free(T.v);
    T.v = NULL;
    T.n = T.cap = 0;
    close_under_way = 0;
    if (deferred_signal) {
        linger(&deferred_since);
        raise(deferred_signal);   /* its previous disposition is back: it ends the process */
    }
}

int st_writer_allow_threads(int concurrent)
{
    if (!W.archive)
        return -1;
    if (concurrent) {
        /* With an I/O thread OTF2 locks already. */
        if (!st_rec_threaded() && OTF2_Pthread_Archive_SetLockingCallbacks(W.archive, NULL) != OTF2_SUCCESS)
            return -1;
        st_threads_concurrent = 1;
    }
    T.enabled = 1;
    return 0;
}

struct st_loc *st_loc_attach(void)
{
    /* One try per thread: a thread that cannot record passes through. */
    if (!T.enabled || attach_tried || st_in_tracer || st_g.phase != ST_RECORDING)
        return NULL;
    attach_tried = 1;
    pthread_mutex_lock(&T.lock);
    struct st_loc *loc = NULL;
    if (W.archive && !W.closing && T.n < UINT32_MAX - 1) {
        if (T.n == T.cap) {
            st_grow((void **)&T.v, &T.cap, sizeof *T.v);
        }
        if (T.n < T.cap && (loc = calloc(1, sizeof *loc)) != NULL) {
            loc->id = RF_THREAD_LOCATION(T.n + 1, W.rank);
            int file = open_event_file(loc) == 0;
            if (file && st_rec_attach(loc) == 0) {
                T.v[T.n++] = loc;
                /* Before its first event: a SIGKILL leaves its flushed
                 * chunks (rank-N/ID.evt) to be recovered by this. */
                char tail[32];
                snprintf(tail, sizeof tail, " %llu", (unsigned long long)loc->id);
                journal_record(RF_JR_LOCATION, NULL, tail);
            } else {
                if (file)
                    st_evt_close(&loc->evt);
                free(loc);
                loc = NULL;
            }
        }
    }
    pthread_mutex_unlock(&T.lock);
    st_loc_self = loc;
    return loc;
}

/* ---------- events ---------- */

/* A termination signal came while this thread was writing: close now, and
 * let the signal end the process. */
static void close_deferred(void)
{
    if (writing || close_under_way)
        return;
    st_g.phase = ST_DONE;
    st_writer_close();        /* sends the signal on at its end */
    raise(deferred_signal);   /* there was nothing to close */
}

/* Handing a chunk over takes locks and may convert: a termination signal
 * must not close the archive under it (records.c calls these). */
static void slow_begin(void)
{
    writing = 1;
    atomic_signal_fence(memory_order_seq_cst);
}

static void slow_end(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    writing = 0;
    if (__builtin_expect(deferred_signal != 0, 0))
        close_deferred();
}

/* The upper half of a word carries a tag packed with its communicator. */
#define PAIR(lo, hi) ((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32)

static void convert_records(struct st_loc *loc, const uint64_t *w, const uint64_t *end)
{
    static const struct st_convert_refs refs = { &A, S.ref };
    st_convert(&loc->evt, &refs, w, end);
}

_Static_assert((int)REC_ENTER == (int)ST_REC_ENTER_KIND && (int)REC_LEAVE == (int)ST_REC_LEAVE_KIND, "recput.h writes these inline");
_Static_assert(REC_KINDS <= 256, "a record kind is 8 bits (recput.h ST_REC_KIND)");

void st_write_enter_calls(struct st_loc *loc, struct st_time t, uint32_t region, uint64_t calls)
{
    ST_RECA(loc, REC_ENTER_CALLS, t, region, calls);
}

void st_write_flush(struct st_loc *loc, struct st_time t, uint64_t stop)
{
    ST_REC(loc, REC_FLUSH, t, stop);
}

void st_write_send(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    ST_RECA(loc, REC_SEND, t, peer, PAIR(comm, tag), bytes);
}

void st_write_isend(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
    ST_RECA(loc, REC_ISEND, t, peer, PAIR(comm, tag), bytes, req);
}

void st_write_isend_complete(struct st_loc *loc, struct st_time t, uint64_t req)
{
    ST_REC(loc, REC_ISEND_COMPLETE, t, req);
}

void st_write_irecv_request(struct st_loc *loc, struct st_time t, uint64_t req)
{
    ST_REC(loc, REC_IRECV_REQUEST, t, req);
}

void st_write_recv(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes)
{
    ST_RECA(loc, REC_RECV, t, peer, PAIR(comm, tag), bytes);
}

void st_write_irecv(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
    ST_RECA(loc, REC_IRECV, t, peer, PAIR(comm, tag), bytes, req);
}

void st_write_request_cancelled(struct st_loc *loc, struct st_time t, uint64_t req)
{
    ST_REC(loc, REC_REQUEST_CANCELLED, t, req);
}

void st_write_irecv_freed(struct st_loc *loc, struct st_time t, uint32_t comm, int source, int tag, uint64_t req)
{
    ST_REC(loc, REC_IRECV_FREED, t, comm, (uint32_t)source, (uint32_t)tag, req);
}

void st_write_coll_begin(struct st_loc *loc, struct st_time t)
{
    ST_REC0(loc, REC_COLL_BEGIN, t);
}

/* The non-zero words of a sparse member's sources are written as
 * coll_sources_<k>: give each its reference the first time, and journal it
 * then (before the event is recorded, so a killed rank's rebuild defines
 * every word its flushed events carry, with the same reference). The
 * release store makes the reference visible to whichever thread converts
 * the record. */
static void note_source_words(const uint64_t *sources, uint32_t words)
{
    for (uint32_t k = 0; k < words && k < SOURCE_WORDS_TRACKED; k++) {
        if (!sources[k] || atomic_load_explicit(&S.ref[k], memory_order_acquire))
            continue;
        pthread_mutex_lock(&S.lock);
        if (!atomic_load_explicit(&S.ref[k], memory_order_relaxed)) {
            uint32_t j = atomic_load_explicit(&S.n, memory_order_relaxed);
            S.order[j] = k;
            char tail[32];
            snprintf(tail, sizeof tail, " %u %u", k, A.sources + j);
            journal_record(RF_JR_SOURCE_WORD, NULL, tail);
            atomic_store_explicit(&S.ref[k], A.sources + j, memory_order_release);
            atomic_store_explicit(&S.n, j + 1, memory_order_release);
        }
        pthread_mutex_unlock(&S.lock);
    }
}

/* A collective's end: the `nfixed` arguments, then the sources extension
 * (slot count and bit words) of a sparse member. */
static void put_collective(struct st_loc *loc, uint32_t kind, struct st_time t, const uint64_t *fixed,
                           uint32_t nfixed, uint32_t nslots, const uint64_t *sources)
{
    uint32_t words = !nslots || nslots == ST_COLL_SOURCES_UNKNOWN ? 0 : (nslots + 63) / 64;
    if (nslots && (words > source_words() || words > SOURCE_WORDS_TRACKED || (words && !sources)
                   || nfixed + 1 + words + 3 > ST_REC_MAX_WORDS)) {
        words = 0;
        nslots = ST_COLL_SOURCES_UNKNOWN;
    }
    uint64_t small[64];
    uint32_t n = nfixed + 1 + words;
    uint64_t *v = n <= 64 ? small : malloc(sizeof *v * n);
    if (!v) {
        v = small;
        words = 0;
        nslots = ST_COLL_SOURCES_UNKNOWN;
        n = nfixed + 1;
    }
    memcpy(v, fixed, sizeof *v * nfixed);
    v[nfixed] = nslots;
    if (words) {
        memcpy(v + nfixed + 1, sources, sizeof *v * words);
        note_source_words(sources, words);
    }
    st_rec_put(loc, kind, t, 0, v, n);
    if (v != small)
        free(v);
}

void st_write_coll_end(struct st_loc *loc, struct st_time t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                       uint64_t sent, uint64_t received, uint32_t nslots, const uint64_t *sources)
{
    const uint64_t fixed[] = { op, comm, root, sent, received };
    put_collective(loc, REC_COLL_END, t, fixed, 5, nslots, sources);
}

void st_write_nbc_request(struct st_loc *loc, struct st_time t, uint64_t req)
{
    ST_REC(loc, REC_NBC_REQUEST, t, req);
}

void st_write_nbc_complete(struct st_loc *loc, struct st_time t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                           uint64_t sent, uint64_t received, uint32_t nslots, const uint64_t *sources, uint64_t req)
{
    const uint64_t fixed[] = { op, comm, root, sent, received, req };
    put_collective(loc, REC_NBC_COMPLETE, t, fixed, 6, nslots, sources);
}

void st_write_comm_create(struct st_loc *loc, struct st_time t, uint32_t comm)
{
    ST_RECA0(loc, REC_COMM_CREATE, t, comm);
}

void st_write_comm_destroy(struct st_loc *loc, struct st_time t, uint32_t comm)
{
    ST_RECA0(loc, REC_COMM_DESTROY, t, comm);
}

void st_write_rma_win_create(struct st_loc *loc, struct st_time t, uint32_t win)
{
    ST_REC(loc, REC_RMA_WIN_CREATE, t, win);
}

void st_write_rma_win_destroy(struct st_loc *loc, struct st_time t, uint32_t win)
{
    ST_REC(loc, REC_RMA_WIN_DESTROY, t, win);
}

void st_write_rma_collective_begin(struct st_loc *loc, struct st_time t)
{
    ST_REC0(loc, REC_RMA_COLLECTIVE_BEGIN, t);
}

void st_write_rma_collective_end(struct st_loc *loc, struct st_time t, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level,
                                 uint32_t win)
{
    ST_REC(loc, REC_RMA_COLLECTIVE_END, t, op, level, win);
}

void st_write_rma_put(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    ST_REC(loc, REC_RMA_PUT, t, win, remote, bytes, id);
}

void st_write_rma_get(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    ST_REC(loc, REC_RMA_GET, t, win, remote, bytes, id);
}

void st_write_rma_atomic(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, OTF2_RmaAtomicType type,
                         uint64_t sent, uint64_t received, uint64_t id)
{
    ST_REC(loc, REC_RMA_ATOMIC, t, win, remote, type, sent, received, id);
}

void st_write_rma_op_complete_remote(struct st_loc *loc, struct st_time t, uint32_t win, uint64_t id)
{
    ST_REC(loc, REC_RMA_OP_COMPLETE_REMOTE, t, win, id);
}

void st_write_rma_op_complete_non_blocking(struct st_loc *loc, struct st_time t, uint32_t win, uint64_t id)
{
    ST_REC(loc, REC_RMA_OP_COMPLETE_NON_BLOCKING, t, win, id);
}

void st_write_rma_request_lock(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, OTF2_LockType type)
{
    ST_REC(loc, REC_RMA_REQUEST_LOCK, t, win, remote, type);
}

void st_write_rma_release_lock(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote)
{
    ST_REC(loc, REC_RMA_RELEASE_LOCK, t, win, remote);
}

void st_write_rma_sync(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, OTF2_RmaSyncType type)
{
    ST_REC(loc, REC_RMA_SYNC, t, win, remote, type);
}
