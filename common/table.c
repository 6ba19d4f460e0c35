/* table.c — see table.h. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES (1u << 31)

int st_grow(void **v, uint32_t *cap, size_t elem)
{
    uint32_t ncap = *cap ? *cap * 2 : 16;
    if (*cap >= MAX_ENTRIES)
        return -1;
    void *nv = realloc(*v, (size_t)ncap * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

int st_room(void **v, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    if (ncap < *cap || ncap > SIZE_MAX / elem)
        return -1;
    void *nv = realloc(*v, ncap * elem);
    if (!nv)
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

int st_table_ensure(void **v, uint32_t *n, uint32_t *cap, uint64_t index, uint32_t limit, size_t elem)
{
    if (index < *n)
        return 0;
    if (index >= limit || index >= MAX_ENTRIES)
        return -1;
    if (index >= *cap) {
        uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 64;
        if (ncap <= index)
            ncap = index + 1;
        if (ncap > limit)
            ncap = limit;
        void *nv = realloc(*v, (size_t)ncap * elem);
        if (!nv)
            return -1;
        *v = nv;
        *cap = (uint32_t)ncap;
    }
    memset((char *)*v + (size_t)*n * elem, 0, (size_t)(index + 1 - *n) * elem);
    *n = (uint32_t)index + 1;
    return 0;
}
