/* causal_query.c — precedence over cluster timestamps (Ward & Taylor,
 * Figs. 4 and 6), and the public synctrace/causal.h calls.
 *
 * V(f)[q] for q outside f's stored cluster S: the last edge of any path
 * from q into S ends at an event of S whose partner lies outside its
 * cluster of that level, then and so forever (clusters only grow), so it
 * is a cluster receive of that level. Hence V(f)[q] is the largest
 * V(r)[q] over r = the greatest cluster receive of the level on each member
 * j of S at or before f's latest predecessor on j — and r is stamped at a
 * higher level, so the recursion ends at the full vectors of the top. With
 * one level this is Fig. 4; with more, Fig. 6 (cost: the product of the
 * cluster sizes climbed). */
#include "causal.h"
#include "synctrace/causal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int ci_prepare(struct ci_index *ix)
{
    for (uint32_t k = 0; k < ix->nlevels; k++) {
        uint64_t *first = calloc((size_t)ix->nranks + 1, sizeof *first);
        uint32_t *memb = malloc(sizeof *memb * 2 * (ix->nmap[k] ? ix->nmap[k] : 1));
        if (!first || !memb) {
            free(first);
            free(memb);
            return -1;
        }
        for (uint64_t x = 0; x < ix->nmap[k]; x++)
            first[ix->map[k][x] + 1]++;
        for (uint32_t r = 0; r < ix->nranks; r++)
            first[r + 1] += first[r];
        uint64_t *fill = malloc(sizeof *fill * (ix->nranks ? ix->nranks : 1));
        if (!fill) {
            free(first);
            free(memb);
            return -1;
        }
        memcpy(fill, first, sizeof *fill * ix->nranks);
        for (uint32_t c = 0; c < ix->nranks; c++)
            for (uint64_t x = ix->map_first[k][c]; x < ix->map_first[k][c + 1]; x++) {
                uint32_t q = ix->map[k][x];
                memb[2 * fill[q]] = c;
                memb[2 * fill[q] + 1] = (uint32_t)(x - ix->map_first[k][c]);
                fill[q]++;
            }
        free(fill);
        ix->memb_first[k] = first;
        ix->memb[k] = memb;
    }
    return 0;
}

void ci_free(struct ci_index *ix)
{
    for (uint32_t k = 0; k < CI_MAX_LEVELS; k++) {
        free(ix->memb_first[k]);
        free(ix->memb[k]);
    }
    if (ix->mapping) {
        munmap(ix->mapping, ix->mapping_size);
    } else {
        free(ix->nevents);
        free(ix->rec_first);
        free(ix->rec_start);
        free(ix->rec_cluster);
        free(ix->rec_size);
        free(ix->rec_vec);
        free(ix->rec_level);
        free(ix->rec_next_top);
        for (uint32_t k = 0; k < CI_MAX_LEVELS; k++) {
            free(ix->map_first[k]);
            free(ix->map[k]);
            free(ix->rec_gcr[k]);
        }
        if (ix->entries_mapped)
            munmap(ix->entries, ix->entries_mapped);
        else
            free(ix->entries);
    }
    memset(ix, 0, sizeof *ix);
}

int ci_valid(const struct ci_index *ix, uint32_t r, uint64_t i)
{
    return r < ix->nranks && i < ix->nevents[r];
}

/* The record holding event i of rank r: the last one starting at or before it. */
static uint64_t record_of(const struct ci_index *ix, uint32_t r, uint64_t i)
{
    uint64_t lo = ix->rec_first[r], hi = ix->rec_first[r + 1];   /* rec_start[lo] == 0 <= i */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ix->rec_start[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Position of rank q in cluster c of level k as it was at `size` members, or -1. */
static int64_t position(const struct ci_index *ix, uint32_t k, uint32_t q, uint32_t c, uint32_t size)
{
    const uint32_t *m = ix->memb[k];
    for (uint64_t x = ix->memb_first[k][q]; x < ix->memb_first[k][q + 1]; x++)
        if (m[2 * x] == c)
            return m[2 * x + 1] < size ? (int64_t)m[2 * x + 1] : -1;
    return -1;
}

/* The record of the greatest cluster receive of level k on rank j at or
 * before event `last`, or CI_NONE: Fig. 4's event(j, g).clusterReceive. */
static uint64_t cluster_receive(const struct ci_index *ix, uint32_t k, uint32_t j, uint64_t last)
{
    uint64_t rec = record_of(ix, j, last);
    uint32_t g = ix->rec_gcr[k][rec];
    return g == CI_NONE ? CI_NONE : ix->rec_first[j] + g;
}

/* V(r, i)[q] for q != r, i in record rec (Figs. 4 and 6). */
static uint64_t value_in(const struct ci_index *ix, uint32_t r, uint64_t i, uint64_t rec, uint32_t q)
{
    uint32_t k = ix->rec_level[rec];
    const uint32_t *vec = ix->entries + ix->rec_vec[rec];
    if (k >= ix->nlevels)
        return vec[q];
    uint32_t c = ix->rec_cluster[rec], size = ix->rec_size[rec];
    int64_t p = position(ix, k, q, c, size);
    if (p >= 0)
        return vec[p];
    const uint32_t *map = ix->map[k] + ix->map_first[k][c];
    uint64_t best = 0;
    for (uint32_t j = 0; j < size; j++) {
        uint32_t pj = map[j];
        if (pj != r && vec[j] == 0)
            continue;   /* nothing of pj precedes */
        uint64_t g = cluster_receive(ix, k, pj, pj == r ? i : vec[j] - 1);
        if (g == CI_NONE)
            continue;
        uint64_t v = value_in(ix, pj, ix->rec_start[g], g, q);
        if (v > best)
            best = v;
    }
    return best;
}

/* V(r, i)[q] >= need? As value_in, but done at the first witness. */
static int reaches(const struct ci_index *ix, uint32_t r, uint64_t i, uint64_t rec, uint32_t q, uint64_t need)
{
    uint32_t k = ix->rec_level[rec];
    const uint32_t *vec = ix->entries + ix->rec_vec[rec];
    if (k >= ix->nlevels)
        return vec[q] >= need;
    uint32_t c = ix->rec_cluster[rec], size = ix->rec_size[rec];
    int64_t p = position(ix, k, q, c, size);
    if (p >= 0)
        return vec[p] >= need;
    const uint32_t *map = ix->map[k] + ix->map_first[k][c];
    for (uint32_t j = 0; j < size; j++) {
        uint32_t pj = map[j];
        if (pj != r && vec[j] == 0)
            continue;
        uint64_t g = cluster_receive(ix, k, pj, pj == r ? i : vec[j] - 1);
        if (g != CI_NONE && reaches(ix, pj, ix->rec_start[g], g, q, need))
            return 1;
    }
    return 0;
}

uint64_t ci_value(const struct ci_index *ix, uint32_t r, uint64_t i, uint32_t q)
{
    if (q == r)
        return i + 1;
    return value_in(ix, r, i, record_of(ix, r, i), q);
}

int ci_precedes_clusters(const struct ci_index *ix, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)
{
    if (ra == rb)
        return ia < ib;
    return reaches(ix, rb, ib, record_of(ix, rb, ib), ra, ia + 1);
}

int ci_precedes(const struct ci_index *ix, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)
{
    if (ra == rb)
        return ia < ib;
    uint64_t rec = record_of(ix, rb, ib), first = ix->rec_first[rb];
    /* Full vectors of rb before and after (rb, ib) bound V(rb, ib)[ra]:
     * they decide most pairs far apart in time at the cost of two reads. */
    uint32_t before = ix->rec_gcr[ix->nlevels - 1][rec], after = ix->rec_next_top[rec];
    if (before != CI_NONE && ix->entries[ix->rec_vec[first + before] + ra] > ia)
        return 1;
    if (after != CI_NONE && ix->entries[ix->rec_vec[first + after] + ra] <= ia)
        return 0;
    return reaches(ix, rb, ib, rec, ra, ia + 1);
}

/* ---------------------------------------------------------------- public API */

void stc_causal_close(stc_causal *c)
{
    if (c) {
        ci_free(c);
        free(c);
    }
}

uint32_t stc_causal_ranks(const stc_causal *c)
{
    return c->nranks;
}

uint64_t stc_causal_events(const stc_causal *c, uint32_t rank)
{
    return rank < c->nranks ? c->nevents[rank] : 0;
}

int stc_causal_precedes(const stc_causal *c, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)
{
    if (!ci_valid(c, ra, ia) || !ci_valid(c, rb, ib))
        return -1;
    return ci_precedes(c, ra, ia, rb, ib);
}

int stc_causal_relation(const stc_causal *c, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)
{
    if (!ci_valid(c, ra, ia) || !ci_valid(c, rb, ib))
        return STC_INVALID;
    if (ra == rb && ia == ib)
        return STC_SAME;
    if (ci_precedes(c, ra, ia, rb, ib))
        return STC_BEFORE;
    if (ci_precedes(c, rb, ib, ra, ia))
        return STC_AFTER;
    return STC_CONCURRENT;
}

const char *stc_relation_name(int relation)
{
    switch (relation) {
    case STC_SAME: return "same";
    case STC_BEFORE: return "before";
    case STC_AFTER: return "after";
    case STC_CONCURRENT: return "concurrent";
    default: return "invalid";
    }
}
