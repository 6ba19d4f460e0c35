/* launcher.c — `synctrace merge` started by an MPI launcher as several
 * processes (mpirun -np K, mpiexec, srun): they merge together
 * (pmerge.h). The launchers say who a process is in their environment,
 * which is read before anything else, so that a merge started alone never
 * initialises MPI. */
#include <config.h>
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>

/* A whole number from the environment, or -1. */
static long env_number(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return *end || n < 0 ? -1 : n;
}

void merge_launch_place(uint32_t *rank, uint32_t *size)
{
    /* Open MPI's mpirun, MPICH's Hydra (PMI), Slurm's srun (a job step's tasks) */
    static const char *const pairs[][2] = {
        { "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
        { "PMI_RANK", "PMI_SIZE" },
        { "SLURM_PROCID", "SLURM_STEP_NUM_TASKS" },
    };
    *rank = 0;
    *size = 1;
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        long r = env_number(pairs[k][0]), n = env_number(pairs[k][1]);
        if (r >= 0 && n > r && n <= UINT32_MAX) {
            *rank = (uint32_t)r;
            *size = (uint32_t)n;
            return;
        }
    }
}
