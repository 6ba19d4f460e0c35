/* jobs.h — the jobs of a raw trace: the run traced into DIR, and the jobs
 * it spawned (MPI_Comm_spawn), each traced into a DIR/spawn-N of its
 * parents' (or of SYNCTRACE_DIR), theirs recursively. A spawned job is
 * merged with its parents when its run.meta names them (parent.run_id,
 * parent.key: rawformat.h); one that does not is left out (its own
 * directory is a trace to merge on its own). */
#ifndef SYNCTRACE_JOBS_H
#define SYNCTRACE_JOBS_H

#include <stdint.h>

struct merge_job {
    char *dir;
    char *run_id;             /* run.meta's run_id ("" when unreadable) */
    int parent;               /* the job that spawned it (an index), -1 for the first */
    uint64_t parent_key;      /* the spawn intercommunicator's key */
    uint32_t offset, n;       /* its ranks in the merge: offset .. offset + n - 1 */
};

/* Job 0 is DIR; then every spawned job linked to it, parents before
 * children, each level in spawn-N order. *nskipped counts spawn-N
 * directories left out (no parent named, or a parent not in the trace).
 * Returns the number of jobs (>= 1) or -1 (out of memory: said on stderr). */
int jobs_find(const char *dir, struct merge_job **jobs, int *nskipped);
void jobs_free(struct merge_job *jobs, int n);

#endif
