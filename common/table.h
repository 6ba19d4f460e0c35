/* table.h — growing arrays without overflow: the tracer's and the tools'
 * tables of definitions. */
#ifndef SYNCTRACE_TABLE_H
#define SYNCTRACE_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Room for at least one more entry of `elem` bytes: *cap doubles (from
 * 16). Returns 0, or -1 (nothing changed) when out of memory or when the
 * capacity would pass 2^31 entries. */
int st_grow(void **v, uint32_t *cap, size_t elem);

/* The same for size_t counts: room for entry n (*cap doubles from 16
 * while n >= *cap). Returns 0, or -1 (nothing changed) when out of memory
 * or when the bytes would overflow. */
int st_room(void **v, size_t n, size_t *cap, size_t elem);
#define ST_ROOM(arr, n, cap) st_room((void **)&(arr), (n), &(cap), sizeof *(arr))

/* A table indexed by reference: make *v hold entry `index` (the new
 * entries zeroed), *n becoming at least index + 1, *cap growing
 * geometrically. Returns 0, or -1 (nothing changed) when index >= limit
 * (a reference the input cannot mean: no table that large is made) or out
 * of memory. With limit <= 2^31, index + 1 cannot wrap and no size is 0. */
int st_table_ensure(void **v, uint32_t *n, uint32_t *cap, uint64_t index, uint32_t limit, size_t elem);

#endif
