/* launcher.h — whether an MPI launcher (mpirun, srun, mpiexec) started this
 * command as several processes, read from the launcher's environment. */
#ifndef SYNCTRACE_LAUNCHER_H
#define SYNCTRACE_LAUNCHER_H

#include <stdint.h>

/* This process's place among those the launcher started with this
 * command (0 of 1 when none did). */
void merge_launch_place(uint32_t *rank, uint32_t *size);

#endif
