/* handlemap.h — open-addressing hash map from an MPI handle (a pointer in
 * Open MPI, an int elsewhere) to a pointer. Not thread-safe: callers lock. */
#ifndef SYNCTRACE_HANDLEMAP_H
#define SYNCTRACE_HANDLEMAP_H

#include <stdint.h>
#include <stddef.h>

struct st_handlemap {
    uintptr_t *keys;      /* 0 = empty, 1 = deleted */
    void **values;
    size_t cap, used, live;
};

void *st_handlemap_get(const struct st_handlemap *m, uintptr_t key);
int st_handlemap_put(struct st_handlemap *m, uintptr_t key, void *value);   /* 0 or -1 (no memory) */
void *st_handlemap_remove(struct st_handlemap *m, uintptr_t key);
void st_handlemap_clear(struct st_handlemap *m);

#endif
