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
#define _DEFAULT_SOURCE   /* posix_fadvise */
#include "causal.h"
#include "synctrace/causal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ci_prepare(struct ci_index *ix)
{
    /* record_of in O(1): the record of every 32nd event. Where records are
     * sparse (long runs of events without partners) a coarser table finds
     * them as fast, and its size stays that of the records, not of the
     * event counts (up to 2^32 a rank: 512 MB each at every 32nd). */
    ix->bucket_first = malloc(sizeof *ix->bucket_first * ((size_t)ix->nranks + 1));
    if (!ix->bucket_first)
        return -1;
    uint64_t nb = 0, room = 2 * (ix->nrecords + ix->nranks);
    for (ix->bucket_shift = CI_BUCKET_SHIFT; ix->bucket_shift < 32; ix->bucket_shift++) {
        nb = ix->nranks;
        for (uint32_t r = 0; r < ix->nranks; r++)
            nb += ix->nevents[r] >> ix->bucket_shift;
        if (nb <= room)
            break;
    }
    nb = 0;
    for (uint32_t r = 0; r < ix->nranks; r++) {
        ix->bucket_first[r] = nb;
        nb += (ix->nevents[r] >> ix->bucket_shift) + 1;
    }
    ix->bucket_first[ix->nranks] = nb;
    ix->bucket = malloc(sizeof *ix->bucket * (nb ? nb : 1));
    if (!ix->bucket)
        return -1;
    for (uint32_t r = 0; r < ix->nranks; r++) {
        uint64_t first = ix->rec_first[r], n = ix->rec_first[r + 1] - first, x = 0;
        for (uint64_t b = 0; b < ix->bucket_first[r + 1] - ix->bucket_first[r]; b++) {
            uint64_t ev = b << ix->bucket_shift, last = ev + ((uint64_t)1 << ix->bucket_shift) - 1;
            struct ci_bucket *bk = &ix->bucket[ix->bucket_first[r] + b];
            while (x + 1 < n && ix->rec_start[first + x + 1] <= ev)
                x++;
            bk->rec = (uint32_t)x;
            bk->before = n ? ix->rec_bound[2 * (first + x)] : CI_NONE;
            uint64_t y = x;   /* the record of the bucket's last event */
            while (y + 1 < n && ix->rec_start[first + y + 1] <= last)
                y++;
            bk->after = n ? ix->rec_bound[2 * (first + y) + 1] : CI_NONE;
            bk->spare = 0;
        }
    }
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

/* (causal.h) Here, beside ci_free, its caller: every user of the index
 * links this file. */
int ci_drop_cached(int fd)
{
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc) {
        errno = rc;
        return -1;
    }
    return 0;
}

void ci_free(struct ci_index *ix)
{
    free(ix->bucket_first);
    free(ix->bucket);
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
        free(ix->rec_bound);
        for (uint32_t k = 0; k < CI_MAX_LEVELS; k++) {
            free(ix->map_first[k]);
            free(ix->map[k]);
            free(ix->rec_gcr[k]);
        }
        free(ix->entries);
        free(ix->tline);
        free(ix->cbytes);
        if (ix->entries_fd > 0) {   /* never completed by ci_write_in_place */
            close(ix->entries_fd);
            unlink(ix->entries_path);
        }
        free(ix->entries_path);
        if (ix->written_fd > 0) {   /* complete and synced, no longer mapped: a hint, no error */
            ci_drop_cached(ix->written_fd);
            close(ix->written_fd);
        }
    }
    memset(ix, 0, sizeof *ix);
}

uint64_t ci_chunk_read(const uint8_t *p, uint32_t w, uint32_t j)
{
    switch (w) {
    case 1:
        return p[j];
    case 2: {
        uint16_t h;
        memcpy(&h, p + 2 * (size_t)j, 2);
        return h;
    }
    case 3: {
        uint32_t v;
        memcpy(&v, p + 4 * (size_t)j, 4);
        return v;
    }
    default:
        return 0;
    }
}

uint64_t ci_full_value(const struct ci_index *ix, uint64_t t, uint32_t q)
{
    uint32_t c = q >> ix->chunk_shift, j = q & ((1u << ix->chunk_shift) - 1);
    uint64_t at = ci_chunk_at(ix, t, c), off = ci_chunk_offset(ix, at);
    uint32_t code = ci_code(ix, at);
    uint64_t v = ci_chunk_read(ix->cbytes + off, CI_CODE_W(code), j);
    if (CI_CODE_KW(code))
        v += ci_chunk_read(ix->cbytes + off - ((uint64_t)CI_CODE_DIST(code) << ix->chunk_shift), CI_CODE_KW(code), j);
    return v;
}

uint64_t ci_top_value(const struct ci_index *ix, uint64_t rec, uint32_t q)
{
    return ci_full_value(ix, ix->rec_vec[rec], q);
}

int ci_valid(const struct ci_index *ix, uint32_t r, uint64_t i)
{
    return r < ix->nranks && i < ix->nevents[r];
}

/* The record holding event i of rank r: the last one starting at or before it. */
static uint64_t record_of(const struct ci_index *ix, uint32_t r, uint64_t i)
{
    /* from the record of the bucket's first event: a few steps, rarely more;
     * what ci_precedes reads of the record next is asked for at once (it is
     * nearly always this record or one of the next few) */
    uint64_t lo = ix->rec_first[r] + ix->bucket[ix->bucket_first[r] + (i >> ix->bucket_shift)].rec;
    __builtin_prefetch(&ix->rec_bound[2 * lo]);
    uint64_t hi = ix->rec_first[r + 1], end = lo + 8 < hi ? lo + 8 : hi;
    while (lo + 1 < end && ix->rec_start[lo + 1] <= i)
        lo++;
    if (lo + 1 < end || end == hi)
        return lo;
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
    if (k >= ix->nlevels)
        return ci_top_value(ix, rec, q);
    const uint32_t *vec = ix->entries + ix->rec_vec[rec];
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

/* Latest event per rank whose greatest cluster receive of one level is
 * still to be looked at: an open-addressing table, rank -> largest event.
 * Only the largest matters: V grows along a rank's events. */
struct frontier {
    uint32_t *rank, *last, *used;   /* used: occupied slots, in insertion order */
    uint32_t cap, n;
    uint32_t inline_rank[64], inline_last[64], inline_used[64];
};

static void frontier_init(struct frontier *t)
{
    t->rank = t->inline_rank;
    t->last = t->inline_last;
    t->used = t->inline_used;
    t->cap = 64;
    t->n = 0;
    memset(t->rank, 0xff, sizeof t->inline_rank);
}

static void frontier_free(struct frontier *t)
{
    if (t->rank != t->inline_rank) {
        free(t->rank);
        free(t->last);
        free(t->used);
    }
}

static int frontier_add(struct frontier *t, uint32_t rank, uint32_t last);

static int frontier_grow(struct frontier *t)
{
    /* old's arrays stay where they are (maybe t's inline ones) until rehashed */
    struct { uint32_t *rank, *last, *used, cap, n; } old = { t->rank, t->last, t->used, t->cap, t->n };
    int was_inline = t->rank == t->inline_rank;
    uint32_t cap = t->cap * 4;
    t->rank = malloc(sizeof *t->rank * cap);
    t->last = malloc(sizeof *t->last * cap);
    t->used = malloc(sizeof *t->used * cap);
    if (!t->rank || !t->last || !t->used) {
        free(t->rank);
        free(t->last);
        free(t->used);
        t->rank = old.rank;
        t->last = old.last;
        t->used = old.used;
        return -1;
    }
    memset(t->rank, 0xff, sizeof *t->rank * cap);
    t->cap = cap;
    t->n = 0;
    for (uint32_t k = 0; k < old.n; k++)
        frontier_add(t, old.rank[old.used[k]], old.last[old.used[k]]);
    if (!was_inline) {
        free(old.rank);
        free(old.last);
        free(old.used);
    }
    return 0;
}

static int frontier_add(struct frontier *t, uint32_t rank, uint32_t last)
{
    if (2 * (t->n + 1) > t->cap && frontier_grow(t) != 0)
        return -1;
    uint32_t h = (rank * 2654435761u) & (t->cap - 1);
    while (t->rank[h] != UINT32_MAX && t->rank[h] != rank)
        h = (h + 1) & (t->cap - 1);
    if (t->rank[h] == UINT32_MAX) {
        t->rank[h] = rank;
        t->last[h] = last;
        t->used[t->n++] = h;
    } else if (last > t->last[h]) {
        t->last[h] = last;
    }
    return 0;
}

/* V(r, i)[q] >= need? Fig. 6: the greatest predecessors of f on its
 * cluster's members, then the greatest cluster receives of the level before
 * them, merged per rank level by level (the greatest predecessor set), so a
 * rank is looked up once per level however many paths lead to it. Every
 * rank in the table of level k lies in f's level-k cluster. */
static int reaches(const struct ci_index *ix, uint32_t r, uint64_t i, uint64_t rec, uint32_t q, uint64_t need)
{
    uint32_t k0 = ix->rec_level[rec];
    if (k0 >= ix->nlevels)
        return ci_top_value(ix, rec, q) >= need;
    const uint32_t *vec = ix->entries + ix->rec_vec[rec];
    int64_t p = position(ix, k0, q, ix->rec_cluster[rec], ix->rec_size[rec]);
    if (p >= 0)
        return vec[p] >= need;
    struct frontier t[CI_MAX_LEVELS];
    for (uint32_t k = k0; k < ix->nlevels; k++)
        frontier_init(&t[k]);
    int found = 0, failed = 0;
    /* f itself: its cluster's members, as far as f has seen them */
    const uint32_t *map = ix->map[k0] + ix->map_first[k0][ix->rec_cluster[rec]];
    for (uint32_t j = 0; j < ix->rec_size[rec] && !failed; j++)
        if (map[j] == r || vec[j])
            failed = frontier_add(&t[k0], map[j], map[j] == r ? (uint32_t)i : vec[j] - 1);
    for (uint32_t k = k0; k < ix->nlevels && !found && !failed; k++)
        for (uint32_t x = 0; x < t[k].n && !found && !failed; x++) {
            uint32_t m = t[k].rank[t[k].used[x]];
            uint64_t g = cluster_receive(ix, k, m, t[k].last[t[k].used[x]]);
            if (g == CI_NONE)
                continue;
            uint32_t kg = ix->rec_level[g];   /* > k: it was a cluster receive of level k */
            if (kg >= ix->nlevels) {
                found = ci_top_value(ix, g, q) >= need;
                continue;
            }
            const uint32_t *gv = ix->entries + ix->rec_vec[g];
            int64_t pg = position(ix, kg, q, ix->rec_cluster[g], ix->rec_size[g]);
            if (pg >= 0) {
                found = gv[pg] >= need;
                continue;
            }
            const uint32_t *gm = ix->map[kg] + ix->map_first[kg][ix->rec_cluster[g]];
            for (uint32_t j = 0; j < ix->rec_size[g] && !failed; j++)
                if (gm[j] == m || gv[j])
                    failed = frontier_add(&t[kg], gm[j], gm[j] == m ? ix->rec_start[g] : gv[j] - 1);
        }
    for (uint32_t k = k0; k < ix->nlevels; k++)
        frontier_free(&t[k]);
    if (failed)   /* out of memory: the walk without the tables */
        return value_in(ix, r, i, rec, q) >= need;
    return found;
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

/* Column q of full vector t in three steps, so that two vectors' misses
 * overlap: where its code is (its line asked for), what the code says
 * (its values and its key's asked for), the value. */
struct full_read {
    uint64_t at;
    const uint8_t *p, *kp;
    uint32_t code, j;
};

static void full_locate(const struct ci_index *ix, uint64_t t, uint32_t q, struct full_read *f)
{
    f->j = q & ((1u << ix->chunk_shift) - 1);
    f->at = ci_chunk_at(ix, t, q >> ix->chunk_shift);
    __builtin_prefetch(&ix->tline[f->at / CI_LINE_CODES]);
}

static void full_codes(const struct ci_index *ix, struct full_read *f)
{
    f->code = ci_code(ix, f->at);
    f->p = ix->cbytes + ci_chunk_offset(ix, f->at);
    f->kp = f->p - ((uint64_t)CI_CODE_DIST(f->code) << ix->chunk_shift);
    if (CI_CODE_W(f->code))
        __builtin_prefetch(f->p + f->j * CI_W_BYTES(CI_CODE_W(f->code)));
    if (CI_CODE_KW(f->code))
        __builtin_prefetch(f->kp + f->j * CI_W_BYTES(CI_CODE_KW(f->code)));
}

static uint64_t full_value(const struct full_read *f)
{
    return ci_chunk_read(f->p, CI_CODE_W(f->code), f->j) + ci_chunk_read(f->kp, CI_CODE_KW(f->code), f->j);
}

int ci_precedes(const struct ci_index *ix, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)
{
    if (ra == rb)
        return ia < ib;
    /* Full vectors of rb before and after (rb, ib) bound V(rb, ib)[ra]:
     * they decide most pairs far apart in time, inside rb's cluster or not
     * (measured: first is faster than looking in the cluster first). Those
     * around the bucket of ib come first: they are where the search for
     * ib's record starts, one read fewer than that record's own. Both are
     * read side by side, so that their misses overlap. */
    const struct ci_bucket *bk = &ix->bucket[ix->bucket_first[rb] + (ib >> ix->bucket_shift)];
    uint32_t before = bk->before, after = bk->after;
    struct full_read fb, fa;
    if (before != CI_NONE)
        full_locate(ix, before, ra, &fb);
    if (after != CI_NONE && after != before)
        full_locate(ix, after, ra, &fa);
    /* ib's record, for when these do not decide */
    __builtin_prefetch(&ix->rec_start[ix->rec_first[rb] + bk->rec]);
    if (before != CI_NONE)
        full_codes(ix, &fb);
    if (after != CI_NONE && after != before)
        full_codes(ix, &fa);
    if (before != CI_NONE && full_value(&fb) > ia)
        return 1;
    if (before != CI_NONE && before == after)
        return 0;   /* all of the bucket has this full vector: exact */
    if (after != CI_NONE && full_value(&fa) <= ia)
        return 0;
    /* the record's own bounds, where closer */
    uint64_t rec = record_of(ix, rb, ib);
    __builtin_prefetch(&ix->memb_first[0][ra]);
    __builtin_prefetch(&ix->rec_level[rec]);
    uint32_t b2 = ix->rec_bound[2 * rec], a2 = ix->rec_bound[2 * rec + 1];
    int new_b = b2 != before && b2 != CI_NONE, new_a = a2 != after && a2 != CI_NONE && a2 != b2;
    if (new_b)
        full_locate(ix, b2, ra, &fb);
    if (new_a)
        full_locate(ix, a2, ra, &fa);
    if (new_b)
        full_codes(ix, &fb);
    if (new_a)
        full_codes(ix, &fa);
    if (new_b && full_value(&fb) > ia)
        return 1;
    if (b2 != CI_NONE && b2 == a2)
        return 0;   /* (rb, ib) has this full vector, not above ia (just read) */
    if (new_a && full_value(&fa) <= ia)
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
