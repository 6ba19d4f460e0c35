/* options.c — parse and validate the SYNCTRACE_* environment variables. */
#include "options.h"
#include "regions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct st_config st_cfg;

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int parse_sync(const char *s, unsigned *bits, char *err, size_t errlen)
{
    *bits = 0;
    if (*s == '\0' || strcmp(s, "none") == 0)
        return 0;
    char buf[256];
    if (strlen(s) >= sizeof buf) {
        snprintf(err, errlen, "SYNCTRACE_SYNC: value too long");
        return -1;
    }
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "init") == 0) *bits |= ST_SYNC_INIT;
        else if (strcmp(tok, "finalize") == 0) *bits |= ST_SYNC_FINALIZE;
        else if (strcmp(tok, "periodic") == 0) *bits |= ST_SYNC_PERIODIC;
        else {
            snprintf(err, errlen, "SYNCTRACE_SYNC: unknown item '%s' (expected a comma list of init, finalize, periodic, or none)", tok);
            return -1;
        }
    }
    return 0;
}

/* SYNCTRACE_MPI_GROUPS: a comma list of group names (regions.h), ALL,
 * DEFAULT (all but QUERY) or NONE, each optionally prefixed with '~' to
 * take it away again, read left to right; unset means DEFAULT. */
static int parse_groups(const char *s, unsigned *bits, char *err, size_t errlen)
{
    const unsigned all = (1u << ST_MPI_GROUP_COUNT) - 1;
    *bits = all & ~(1u << ST_MPI_GROUP_QUERY);
    if (!*s)
        return 0;
    char buf[512];
    if (strlen(s) >= sizeof buf) {
        snprintf(err, errlen, "SYNCTRACE_MPI_GROUPS: value too long");
        return -1;
    }
    strcpy(buf, s);
    *bits = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int neg = *tok == '~';
        const char *name = tok + neg;
        unsigned g = 0;
        if (!strcasecmp(name, "ALL"))
            g = all;
        else if (!strcasecmp(name, "DEFAULT"))
            g = all & ~(1u << ST_MPI_GROUP_QUERY);
        else if (!strcasecmp(name, "NONE"))
            g = 0;
        else {
            int i = 0;
            while (i < ST_MPI_GROUP_COUNT && strcasecmp(name, st_mpi_group_names[i]) != 0)
                i++;
            if (i == ST_MPI_GROUP_COUNT) {
                size_t n = (size_t)snprintf(err, errlen, "SYNCTRACE_MPI_GROUPS: unknown group '%s' (expected ALL, "
                                            "DEFAULT, NONE or", name);
                for (int k = 0; k < ST_MPI_GROUP_COUNT && n < errlen; k++)
                    n += (size_t)snprintf(err + n, errlen - n, " %s", st_mpi_group_names[k]);
                if (n < errlen)
                    snprintf(err + n, errlen - n, ", each optionally after '~')");
                return -1;
            }
            g = 1u << i;
        }
        *bits = neg ? *bits & ~g : *bits | g;
    }
    return 0;
}

/* 1 when SYNCTRACE_MPI_GROUPS leaves the region out: its group is off and it
 * records nothing the merge needs (tracer.h, st_call_begin). */
unsigned char st_region_off[ST_REGION_MPI_COUNT];

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "";
}

/* SYNCTRACE_IO_THREAD=auto: an I/O thread only where it can have a CPU of
 * its own, when the node has more online CPUs than ranks of this job (as
 * Open MPI tells them); otherwise it would take turns with the ranks. */
static int io_thread_auto(void)
{
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!local || !*local)
        return 0;
    char *end;
    long ranks = strtol(local, &end, 10);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return *end == '\0' && ranks > 0 && cpus > ranks;
}

int st_config_load(char *err, size_t errlen)
{
    memset(&st_cfg, 0, sizeof st_cfg);
    const char *dir = env("SYNCTRACE_DIR");
    if (strlen(dir) >= sizeof st_cfg.dir - 64) {
        snprintf(err, errlen, "SYNCTRACE_DIR: path too long");
        return -1;
    }
    strcpy(st_cfg.dir, dir);
    st_cfg.clock = env("SYNCTRACE_CLOCK");
    st_cfg.skew = env("SYNCTRACE_SKEW");

    const char *sync = getenv("SYNCTRACE_SYNC");
    if (sync == NULL)
        st_cfg.sync = ST_SYNC_INIT | ST_SYNC_FINALIZE;
    else if (parse_sync(sync, &st_cfg.sync, err, errlen) != 0)
        return -1;

    const char *interval = env("SYNCTRACE_SYNC_INTERVAL");
    st_cfg.sync_interval = 10.0;
    if (strcmp(interval, "auto") == 0) {
        st_cfg.sync_interval_auto = 1;
    } else if (*interval) {
        if (parse_double(interval, &st_cfg.sync_interval) != 0 || !(st_cfg.sync_interval > 0)) {
            snprintf(err, errlen, "SYNCTRACE_SYNC_INTERVAL: '%s' is not a positive number of seconds or 'auto'", interval);
            return -1;
        }
    }

    const char *rounds = env("SYNCTRACE_SYNC_ROUNDS");
    st_cfg.sync_rounds = 20;
    if (*rounds) {
        double r;
        if (parse_double(rounds, &r) != 0 || r < 10 || r > 10000 || r != (int)r) {
            snprintf(err, errlen, "SYNCTRACE_SYNC_ROUNDS: '%s' is not a whole number from 10 to 10000", rounds);
            return -1;
        }
        st_cfg.sync_rounds = (int)r;
    }

    const char *mb = env("SYNCTRACE_BUFFER_MB");
    st_cfg.buffer_bytes = (size_t)16 << 20;
    if (*mb) {
        double v;
        if (parse_double(mb, &v) != 0 || v < 1 || v > 65536) {
            snprintf(err, errlen, "SYNCTRACE_BUFFER_MB: '%s' is not a size in MiB from 1 to 65536", mb);
            return -1;
        }
        st_cfg.buffer_bytes = (size_t)(v * 1048576.0);
    }

    const char *verbose = env("SYNCTRACE_VERBOSE");
    if (*verbose && strcmp(verbose, "0") != 0 && strcmp(verbose, "1") != 0) {
        snprintf(err, errlen, "SYNCTRACE_VERBOSE: '%s' is not 0 or 1", verbose);
        return -1;
    }
    st_cfg.verbose = strcmp(verbose, "1") == 0;

    const char *io = env("SYNCTRACE_IO_THREAD");
    if (*io && strcmp(io, "0") != 0 && strcmp(io, "1") != 0 && strcmp(io, "auto") != 0) {
        snprintf(err, errlen, "SYNCTRACE_IO_THREAD: '%s' is not 0, 1 or auto", io);
        return -1;
    }
    /* Off unless asked for: a thread of the tracer's own in every traced
     * process is the user's choice (HPC nodes usually have no core to
     * spare); where one is free it takes the conversion off the call path
     * (README, Overhead: 50-55 -> 40-41 ns per call on the loop). */
    st_cfg.io_thread = strcmp(io, "1") == 0 ? 1 : strcmp(io, "auto") == 0 ? io_thread_auto() : 0;

    const char *kill_safe = env("SYNCTRACE_KILL_SAFE");
    if (*kill_safe && strcmp(kill_safe, "0") != 0 && strcmp(kill_safe, "1") != 0) {
        snprintf(err, errlen, "SYNCTRACE_KILL_SAFE: '%s' is not 0 or 1", kill_safe);
        return -1;
    }
    /* On by default: records kept in the records file's pages cost the
     * call path one store per record, and a SIGKILL then loses nothing. */
    st_cfg.kill_safe = strcmp(kill_safe, "0") != 0;

    const char *collapse = env("SYNCTRACE_POLL_COLLAPSE");
    if (*collapse && strcmp(collapse, "0") != 0 && strcmp(collapse, "1") != 0) {
        snprintf(err, errlen, "SYNCTRACE_POLL_COLLAPSE: '%s' is not 0 or 1", collapse);
        return -1;
    }
    st_cfg.poll_collapse = strcmp(collapse, "0") != 0;

    const char *background = env("SYNCTRACE_SYNC_BACKGROUND");
    if (*background && strcmp(background, "0") != 0 && strcmp(background, "1") != 0) {
        snprintf(err, errlen, "SYNCTRACE_SYNC_BACKGROUND: '%s' is not 0 or 1", background);
        return -1;
    }
    st_cfg.sync_background = strcmp(background, "0") != 0;

    if (parse_groups(env("SYNCTRACE_MPI_GROUPS"), &st_cfg.mpi_groups, err, errlen) != 0)
        return -1;
    for (int r = 0; r < ST_REGION_MPI_COUNT; r++)
        st_region_off[r] = !st_region_essential[r] && !(st_cfg.mpi_groups & (1u << st_region_group[r]));
    return 0;
}
