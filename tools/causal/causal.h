/* causal.h — the causal index: self-organizing hierarchical cluster
 * timestamps (Figs. 2-6 of P. A. S. Ward, D. J. Taylor, "Self-Organizing
 * Hierarchical Cluster Timestamps"),
 * built in one pass over a matched trace in causal order (causal_build.c),
 * queried in causal_query.c, stored by causal_file.c.
 *
 * Events and edges. Event (r, i) is the i-th event of rank r. Causality:
 * process order, every matched message (send -> receive) and every
 * collective instance by its data flow (tools/match/flow.h, mg_flow_of: the
 * rule the constraints use too; docs/design.md, "The merge: stages"). An event with an incoming edge from another
 * rank is a "receive" (a collective exit may have many partners).
 *
 * Vectors. V(e)[q] = number of events of rank q that happened before or are
 * e (the Fidge/Mattern vector counted from 1), so d -> e iff
 * idx(d) < V(e)[rank(d)] and d != e.
 *
 * Clusters. Levels 0 .. nlevels-1 have clusters of bounded size (nested: a
 * level-k cluster lies inside one level-k+1 cluster); level nlevels is the
 * whole computation. Cluster c of a level starts as rank c alone; merging
 * appends the merged cluster's members to the map of the receiver's cluster,
 * so a cluster as it was when an event was stamped is (id, size): the first
 * `size` entries of its final map. An event is stamped at the lowest level
 * whose cluster (after the merges the policy allows) holds all its partners;
 * at every level below it is a cluster receive of that level. Its vector is
 * V projected on that cluster (the full V at level nlevels).
 *
 * Records. Events without incoming edges from other ranks have the vector of
 * the rank's previous event plus one in their own entry; a run of them, as
 * long as the rank's level-0 cluster does not change, shares one record
 * (first event, level, cluster snapshot, vector).
 *
 * Full vectors (format 3). The vectors of top-level records are nearly all
 * of a Ward & Taylor index (98 % at 1000 ranks), so they are stored in
 * chunks of 2^chunk_shift columns, each chunk with its own integer width
 * (0 = all zero, 1, 2 or 4 bytes) and either absolute (a "key" chunk) or a
 * difference to the same rank's latest key chunk of those columns: a rank's
 * vector grows slowly between its cluster receives, so most chunks are
 * 0- or 1-byte differences. Any entry is two lines of codes and two of
 * values away (ci_full_value).
 *
 * Build memory. The cluster structure does not depend on the vectors'
 * values, only on who receives from whom: a first pass in causal order
 * (no vectors at all) decides every record, then passes over windows of
 * columns replay the same order with vectors cut to the window, as many as
 * the vector budget (ci_config.vector_budget) needs: never a full vector
 * per rank when N x N entries do not fit. */
#ifndef SYNCTRACE_CAUSAL_H
#define SYNCTRACE_CAUSAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "match.h"

#define CI_MAX_LEVELS 8
#define CI_NONE UINT32_MAX
#define CI_BUCKET_SHIFT 5
#define CI_CHUNK_SHIFT 6                  /* default: 64 columns per chunk of a full vector */
#define CI_VECTOR_BUDGET ((size_t)64 << 20)   /* default bytes of vectors a build keeps at once */

/* One chunk of a full vector is one 32-bit code: its width code (2 bits:
 * 0 all zero, 1 u8, 2 u16, 3 u32), its key's width code (2 bits) and its
 * key's distance (28 bits). Key width 0: a key chunk, its values absolute;
 * else the values add to those of the key chunk of the same columns (an
 * earlier full vector's of the same rank), whose values start `distance`
 * units of 2^chunk_shift bytes before this chunk's: both are read at once.
 * Codes come CI_LINE_CODES to a 64-byte line behind the byte offset (into
 * ci_index.cbytes) of the line's first chunk: a chunk's offset is that plus
 * the sizes of the chunks before it in the line (a chunk of width w takes
 * 2^chunk_shift values of w bytes, the last chunk of a vector padded with
 * zeros), so a code and its offset are one cache line. */
#define CI_LINE_CODES 14
struct ci_line {
    uint64_t base;
    uint32_t code[CI_LINE_CODES];
};
#define CI_CODE(w, kw, dist) ((uint32_t)(dist) << 4 | (uint32_t)(kw) << 2 | (uint32_t)(w))
#define CI_CODE_W(c) ((uint32_t)(c) & 3)
#define CI_CODE_KW(c) ((uint32_t)(c) >> 2 & 3)
#define CI_CODE_DIST(c) ((uint32_t)(c) >> 4)
#define CI_DIST_MAX 0x0FFFFFFFu
/* bytes of one value of width code w: 0, 1, 2, 4 */
#define CI_W_BYTES(w) ((0x4210u >> (4 * (w))) & 15)

/* The sections of an index file, in file order (causal_file.c): then
 * per level k, CI_SEC_LEVELS + 3k: map_first, map, rec_gcr. */
enum ci_section {
    CI_SEC_TLINE, CI_SEC_CBYTES, CI_SEC_ENTRIES, CI_SEC_NEVENTS, CI_SEC_REC_FIRST, CI_SEC_REC_START,
    CI_SEC_REC_CLUSTER, CI_SEC_REC_SIZE, CI_SEC_REC_VEC, CI_SEC_REC_BOUND, CI_SEC_REC_LEVEL, CI_SEC_LEVELS
};
#define CI_MAX_SECTIONS (CI_SEC_LEVELS + 3 * CI_MAX_LEVELS)

/* Derived when opened: per 2^bucket_shift events of a rank, the record of
 * its first event (counted from rec_first[rank]), and the full vectors
 * (numbers, or CI_NONE) before its first event's record and after its last
 * one's: weaker bounds than the records' own, but in the same line as
 * where the search for the record starts (ci_precedes tries them first). */
struct ci_bucket {
    uint32_t rec, before, after, spare;
};

struct ci_index {
    uint32_t nranks;
    uint32_t nlevels;                     /* cluster levels below the full-vector level */
    uint32_t maxsize[CI_MAX_LEVELS];
    uint64_t nrecords, nentries;
    uint64_t nmap[CI_MAX_LEVELS];
    uint64_t *nevents;                    /* [rank] */
    uint64_t *rec_first;                  /* [rank + 1]: rank r owns records rec_first[r] .. rec_first[r+1]-1 */
    uint32_t *rec_start;                  /* first event of the record */
    uint32_t *rec_cluster;                /* cluster id at the record's level (unused at the top level) */
    uint32_t *rec_size;                   /* entries of its vector = the cluster's size then */
    uint64_t *rec_vec;                    /* where its vector starts in entries, or at the top level
                                           * its number among the full vectors (tchunk) */
    uint8_t *rec_level;
    uint64_t *map_first[CI_MAX_LEVELS];   /* [cluster + 1] */
    uint32_t *map[CI_MAX_LEVELS];         /* members in merge order */
    /* per record, per level: the rank's last record at or before it that
     * starts with a cluster receive of the level (Fig. 2's clusterReceive),
     * counted from rec_first[rank]; CI_NONE when there is none */
    uint32_t *rec_gcr[CI_MAX_LEVELS];
    /* per record x: [2x] the number among the full vectors (tline) of the
     * rank's last full-vector (top-level) record at or before x, [2x + 1]
     * of its first one at or after x; CI_NONE when there is none. They
     * bound V from both sides, one read away; equal when x is one. */
    uint32_t *rec_bound;
    uint32_t *entries;                    /* cluster (below the top) vectors */
    uint32_t chunk_shift;                 /* full vectors: 2^chunk_shift columns a chunk */
    uint32_t nchunks;                     /* a full vector's: ceil(N / 2^chunk_shift) */
    uint32_t strip_chunks;                /* chunks a strip (below): all of them, or a power of two */
    uint32_t strip_low;                   /* derived: strip_chunks - 1, or all ones for one strip */
    uint64_t ntop, ntchunks, nbytes;      /* full vectors (< 2^32 - 1); their chunks (ntop x nchunks); bytes */
    uint64_t nlines;                      /* ceil(ntchunks / CI_LINE_CODES) */
    /* The chunk codes in strips, as the build's passes write them: strip s
     * holds chunks [s * strip_chunks, +strip_chunks) (fewer in the last)
     * of every full vector in turn (ci_chunk_at), in lines (above). */
    struct ci_line *tline;
    uint8_t *cbytes;                      /* the chunks' data */
    /* Built into a file (ci_config.entries_file): every section is in the
     * file at its place (ci_layout) and the arrays above are NULL; sums
     * are the sections' checksums, computed as they were written. */
    int body_in_file;
    uint64_t sums[CI_MAX_SECTIONS];
    /* derived when opened: where each rank stands in each cluster's map */
    uint64_t *memb_first[CI_MAX_LEVELS];  /* [rank + 1] */
    uint32_t *memb[CI_MAX_LEVELS];        /* (cluster, position) pairs */
    uint64_t *bucket_first;               /* [rank + 1] into bucket */
    uint32_t bucket_shift;                /* CI_BUCKET_SHIFT, or more when records are sparse (ci_prepare) */
    struct ci_bucket *bucket;             /* per 2^bucket_shift events of a rank */
    /* storage */
    int entries_fd;                       /* > 0: the file the build wrote the index into (body_in_file) */
    char *entries_path;
    int written_fd;                       /* > 0: that file, complete (ci_write_in_place): ci_free drops it
                                           * from the page cache once unmapped (ci_drop_cached) */
    void *mapping;                        /* the index file, when opened from one */
    size_t mapping_size;
};

/* Configuration of a build. */
struct ci_merge_request {
    uint32_t level, max_size;             /* the level's maximum cluster size */
    uint32_t receiver_size;               /* the receiving rank's cluster */
    uint32_t union_size;                  /* it and every partner's cluster at this level */
    uint32_t nclusters;                   /* clusters that would become one */
    uint32_t rank;                        /* the receiving event */
    uint64_t event;
};
/* Return non-zero to merge. Swappable: the timestamps stay correct under any
 * policy; only their size changes. */
typedef int (*ci_merge_policy)(const struct ci_merge_request *req, void *arg);
/* Merge on first communication while the union fits the level's maximum. */
int ci_merge_first_communication(const struct ci_merge_request *req, void *arg);

struct ci_config {
    uint32_t nlevels;                     /* 1: the two-level algorithm (Fig. 2); more: Fig. 5 */
    uint32_t maxsize[CI_MAX_LEVELS];      /* increasing */
    ci_merge_policy policy;               /* NULL: ci_merge_first_communication */
    void *policy_arg;
    /* non-NULL: write the whole index straight into this new file, where
     * ci_write_in_place completes it with its header (nothing of it that
     * grows with the events stays in memory: causal_aside.h); the index
     * built has its counts only (body_in_file) */
    const char *entries_file;
    const char *name;                     /* the file in messages (e.g. "causal.idx"); NULL: entries_file */
    size_t vector_budget;                 /* bytes of vectors at once; 0: CI_VECTOR_BUDGET */
    uint32_t chunk_shift;                 /* 0: CI_CHUNK_SHIFT; else 1 .. 16 */
    /* non-NULL: once set, the build stops with an error at its next step
     * (a merge that failed elsewhere does not wait for its index) */
    const atomic_int *cancel;
    /* window passes run at once, each on a thread with a window's vectors
     * of its own (0 or 1: one at a time); the index is the same */
    uint32_t threads;
};

/* The cluster-size sweep (causal_sweep.c, the paper's Fig. 7), for every
 * maximum size from 1 to max_size (at most nranks) at once, fed with the
 * causal order as the build processes it: per item, a rank's `plain`
 * events without partners, then (receive) one receive with partners
 * part[0 .. npart). NULL when out of memory. */
struct ci_sweeps;
struct ci_sweeps *ci_sweeps_new(uint32_t nranks, uint32_t max_size);
void ci_sweeps_item(struct ci_sweeps *s, uint32_t r, uint64_t plain, int receive, const uint32_t *part,
                    uint32_t npart);
/* From now on the items are replayed by a thread of the sweep's own, in
 * order, while the build goes on (a tenth of its time at 1000 ranks);
 * without a thread, at once as before. ci_sweeps_wait: every item
 * replayed, the thread ended (before ci_sweeps_result). */
void ci_sweeps_start(struct ci_sweeps *s);
void ci_sweeps_wait(struct ci_sweeps *s);
/* Average timestamp entries per event with the two-level algorithm and
 * first-communication merging up to max_size (self_organizing), and with
 * fixed contiguous clusters of that size (contiguous); Fidge/Mattern has
 * nranks. */
void ci_sweeps_result(const struct ci_sweeps *s, uint32_t max_size, double *self_organizing, double *contiguous);
void ci_sweeps_free(struct ci_sweeps *s);   /* waits first */

struct ci_stats {
    uint64_t events, receives, records, entries;
    uint64_t creceives[CI_MAX_LEVELS];    /* cluster receives per level */
    uint64_t top_events;                  /* events stamped with the full vector */
    double paper_entries;                 /* sum over events of their timestamp's entries (the paper's size) */
    size_t peak_live_vectors;             /* vectors alive at once (ranks' own included) */
    uint32_t passes, window;              /* column windows replayed, columns each */
    uint32_t threads;                     /* window passes run at once (ci_config.threads, at most passes) */
    size_t vector_bytes;                  /* the vectors one window's pass keeps (its budget's use) */
    uint64_t top_records, chunks[4], key_chunks;   /* full-vector chunks by width code; absolute ones */
    double seconds;
};

/* Parse "8" or "8,64": one maximum size per level. Returns 0 or -1 (err). */
int ci_parse_levels(const char *s, struct ci_config *cfg, char *err, size_t errlen);

/* Build the index of a trace: nevents[r] events on rank r, edges from
 * match. Returns 0, or -1 with a one-line message (a cycle in the matched
 * edges, a rank of more than 2^32-1 events, out of memory). sweeps (may
 * be NULL) is fed the causal order as it is processed. */
int ci_build(const uint64_t *nevents, uint32_t nranks, const struct mg_result *match, const struct ci_config *cfg,
             struct ci_index *out, struct ci_stats *stats, struct ci_sweeps *sweeps, char *err, size_t errlen);

/* Derive the membership lists (after building or loading). 0 or -1. */
int ci_prepare(struct ci_index *ix);
void ci_free(struct ci_index *ix);

/* Where chunk c of full vector t has its code among the lines (strips:
 * ci_index.tline). */
static inline uint32_t ci_strip_width(const struct ci_index *ix, uint32_t c)
{
    uint32_t s0 = c & ~ix->strip_low;
    return ix->nchunks - s0 < ix->strip_chunks ? ix->nchunks - s0 : ix->strip_chunks;
}
static inline uint64_t ci_chunk_at(const struct ci_index *ix, uint64_t t, uint32_t c)
{
    uint32_t s0 = c & ~ix->strip_low;
    return ix->ntop * s0 + t * ci_strip_width(ix, c) + (c - s0);
}

static inline uint32_t ci_code(const struct ci_index *ix, uint64_t at)
{
    return ix->tline[at / CI_LINE_CODES].code[at % CI_LINE_CODES];
}
/* Where the values of the chunk whose code is at `at` start in cbytes. */
static inline uint64_t ci_chunk_offset(const struct ci_index *ix, uint64_t at)
{
    const struct ci_line *l = &ix->tline[at / CI_LINE_CODES];
    uint32_t units = 0;
    for (uint32_t k = 0; k < at % CI_LINE_CODES; k++)
        units += CI_W_BYTES(CI_CODE_W(l->code[k]));
    return l->base + ((uint64_t)units << ix->chunk_shift);
}

/* Entry q of full vector t (a number among them), of top-level record rec's. */
uint64_t ci_full_value(const struct ci_index *ix, uint64_t t, uint32_t q);
uint64_t ci_top_value(const struct ci_index *ix, uint64_t rec, uint32_t q);
/* Value j of a chunk of width code w whose values start at p. */
uint64_t ci_chunk_read(const uint8_t *p, uint32_t w, uint32_t j);

/* Queries (causal_query.c). Events must exist (ci_valid). */
int ci_valid(const struct ci_index *ix, uint32_t r, uint64_t i);
/* V(r, i)[q]: how many events of rank q are in the causal past of (r, i), itself included. */
uint64_t ci_value(const struct ci_index *ix, uint32_t r, uint64_t i, uint32_t q);
int ci_precedes(const struct ci_index *ix, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib);
/* The same answer by Figs. 4 and 6 alone, without the full-vector bounds
 * ci_precedes tries first (tests and benchmarks). */
int ci_precedes_clusters(const struct ci_index *ix, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib);

/* The body checksum (causal_file.c): hash_bytes over each section in
 * blocks of CI_HASH_BLOCK bytes, chained from CI_SUM_SEED. */
#define CI_HASH_BLOCK ((size_t)1 << 20)
#define CI_SUM_SEED 0x9E3779B97F4A7C15ull
uint64_t ci_hash_bytes(uint64_t h, const void *data, size_t n);

/* Bytes before the full vectors' chunks in an index file (its header). */
size_t ci_header_size(void);
/* Where each section of ix's file starts and its size in bytes (without
 * the padding to 8 bytes that follows it), from ix's counts alone;
 * returns the number of sections (CI_SEC_LEVELS + 3 x nlevels). */
int ci_layout(const struct ci_index *ix, uint64_t off[CI_MAX_SECTIONS], uint64_t size[CI_MAX_SECTIONS]);

/* Index files (causal_file.c). The fingerprint identifies the merged archive
 * in dir (see causal_file.c for what it covers). */
int ci_fingerprint(const char *dir, uint64_t fp[2], char *err, size_t errlen);
int ci_write(const struct ci_index *ix, const char *path, const uint64_t fp[2], char *err, size_t errlen);
/* Complete the file an index built with ci_config.entries_file was
 * written into, and rename it to path. */
int ci_write_in_place(struct ci_index *ix, const char *path, const uint64_t fp[2], char *err, size_t errlen);
/* A complete index file, synced (fd: 0, or -1 with errno): drop its pages
 * from the page cache, so that its first reader maps it afresh in 2 MB
 * pages (ci_read asks for them; written pages stay 4 KiB ones), where
 * random queries miss the TLB far less. */
int ci_drop_cached(int fd);
/* Open path and check it against the archive in dir. */
int ci_read(const char *path, const char *dir, struct ci_index *out, char *err, size_t errlen);

#endif
