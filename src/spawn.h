/* spawn.h — dynamic processes: what a spawning job tells its children, and
 * where a spawned job's trace goes (spawn.c). */
#ifndef SYNCTRACE_SPAWN_H
#define SYNCTRACE_SPAWN_H

#include <stddef.h>
#include <stdint.h>

/* What a spawned job learnt of its parent (rawformat.h, RF_ENV_PARENT). */
struct st_parent {
    int known;                /* the parents said it */
    uint64_t key;             /* the spawn intercommunicator's key */
    char run_id[64];
    char dir[4096];           /* the parents' trace directory (absolute; "" when it did not fit) */
};

/* Read RF_ENV_PARENT; p->known = 0 when unset or malformed. */
void st_spawn_read_parent(struct st_parent *p);
/* Make BASE/spawn-N, N the lowest number free (mkdir is the arbiter, so
 * two jobs spawned at once never share one), BASE made when missing; its
 * path in out. Returns 0, or -1 with errno set. */
int st_spawn_make_dir(const char *base, char *out, size_t outlen);

/* lifecycle.c: this run's id and trace directory ("" before MPI_Init). */

#endif
