/* location_order.h — how the merged trace numbers its locations: the one
 * definition of R in a query's R:I (the I-th event of location R), of the
 * causal index's and rawview.map's entries, and of an exporter's tracks.
 *
 * A location's id in the merged archive is its rank for a rank's main
 * thread (the one that called MPI_Init) and thread << 32 | rank for the
 * others. Locations are numbered in the order of their ids: the P ranks'
 * main locations first, so location r is rank r, then the other threads
 * (thread 1 of every rank that has one, then thread 2, ...). Thread numbers
 * may have gaps (a recovered rank's thread that never flushed): the order
 * is by id, never by arithmetic on thread numbers. */
#ifndef SYNCTRACE_LOCATION_ORDER_H
#define SYNCTRACE_LOCATION_ORDER_H

#include <stdint.h>

static inline uint64_t loc_id(uint32_t rank, uint32_t thread)
{
    return (uint64_t)thread << 32 | rank;
}

static inline uint32_t loc_id_rank(uint64_t id)
{
    return (uint32_t)id;
}

static inline uint32_t loc_id_thread(uint64_t id)
{
    return (uint32_t)(id >> 32);
}

/* The numbering's order, as a qsort-style comparison of two ids. */
static inline int loc_id_cmp(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* Do the ids, in numbering order, follow the layout synctrace merge
 * writes: main locations 0 .. P-1, then other threads of ranks < P? Sets
 * *nranks to P; returns -1 when they do, else the index of the first id
 * that does not. */
static inline int64_t loc_layout_mismatch(const uint64_t *ids, uint32_t n, uint32_t *nranks)
{
    uint32_t p = 0;
    for (uint32_t k = 0; k < n; k++)
        p += loc_id_thread(ids[k]) == 0;
    *nranks = p;
    for (uint32_t k = 0; k < n; k++)
        if ((k < p && ids[k] != k) || (k >= p && loc_id_rank(ids[k]) >= p))
            return k;
    return -1;
}

/* What R:I means, for the commands' --help. */
#define LOC_RI_HELP "R:I is the I-th event (from 0) of location R in the merged archive: locations 0 to P-1\n" \
                    "are the ranks (their main threads), then P, P+1, ... the other threads of threaded runs\n" \
                    "(thread 1 of each rank that has one, then thread 2, ...)."

#endif
