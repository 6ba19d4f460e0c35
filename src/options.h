/* options.h — the SYNCTRACE_* environment, parsed once at MPI_Init. */
#ifndef SYNCTRACE_OPTIONS_H
#define SYNCTRACE_OPTIONS_H

#include <stddef.h>

enum { ST_SYNC_INIT = 1, ST_SYNC_FINALIZE = 2, ST_SYNC_PERIODIC = 4 };

struct st_config {
    char dir[4096];          /* SYNCTRACE_DIR, "" = default name chosen by rank 0 */
    const char *clock;       /* SYNCTRACE_CLOCK as given (validated by clock.c) */
    const char *skew;        /* SYNCTRACE_SKEW as given (validated by clock.c) */
    unsigned sync;           /* ST_SYNC_* bits */
    double sync_interval;    /* seconds; <= 0 with sync_interval_auto */
    int sync_interval_auto;
    int sync_rounds;         /* ping-pongs per peer and round (SYNCTRACE_SYNC_ROUNDS) */
    int sync_background;     /* SYNCTRACE_SYNC_BACKGROUND (default 1): periodic rounds also outside collectives */
    size_t buffer_bytes;     /* SYNCTRACE_BUFFER_MB */
    int verbose;             /* SYNCTRACE_VERBOSE */
    int io_thread;           /* SYNCTRACE_IO_THREAD (default 0): convert records on a thread of the tracer's own */
    unsigned mpi_groups;     /* SYNCTRACE_MPI_GROUPS: bit g = group g of regions.h is recorded */
    int kill_safe;           /* SYNCTRACE_KILL_SAFE (default 1): records in the records file, which a SIGKILL leaves */
    int poll_collapse;       /* SYNCTRACE_POLL_COLLAPSE: runs of unsuccessful polling calls as one region */
};

extern struct st_config st_cfg;

/* Parse the environment into st_cfg. Returns 0, or -1 with a one-line
 * message naming the variable and the problem. */
int st_config_load(char *err, size_t errlen);

#endif
