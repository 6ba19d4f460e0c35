/* causal_builder.h — the causal index's builder (causal_build.c drives
 * it) as the files that make it up share it: the roles, the collective
 * instances, the vectors, the clusters, the file's sections. Private to
 * tools/causal; each function is described where it is defined. */
#ifndef SYNCTRACE_CAUSAL_BUILDER_H
#define SYNCTRACE_CAUSAL_BUILDER_H

#include "causal.h"
#include "causal_aside.h"
#include "asidefile.h"
#include "blockqueue.h"
#include "collstream.h"
#include "extsort.h"
#include "flow.h"
#include "msgstream.h"
#include "u64map.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum role_kind { ROLE_RECV, ROLE_EXIT, ROLE_SEND, ROLE_ENTER };   /* dependencies sort first */

/* An event's part in a message or a collective: two per message and per
 * member, the most numerous thing the build reads, so 16 bytes (a rank's
 * events are fewer than 2^32: ci_build checks). They do not stay in
 * memory: cb_setup_roles sorts them by (rank, event, kind) in an external
 * sort and writes them rank after rank to one nameless file, and each
 * rank reads its own in order through a window (struct role_window). */
struct role {
    uint32_t idx, kind, id, member;
};

struct role_rec {             /* what the sort holds: a role and its rank */
    uint32_t rank;
    struct role ro;
};

#define ROLE_SORT_MEMORY ((size_t)16 << 20)
#define ROLE_WINDOW 64        /* roles a rank reads at a time, at first */

/* Roles [first, first + n) of one rank, read from the file. */
struct role_window {
    struct role *v;
    size_t first;
    uint32_t n, cap;
};

/* A rank's latest record (the first pass): whether its next event without
 * partners starts a new one. */
struct rec_last {
    uint32_t level, cluster, size;
};

struct u32vec {
    uint32_t *v;
    size_t n, cap;
};

/* One section of the index file written in order: into the file at `base`
 * through a CI_HASH_BLOCK buffer, hashed as written (causal_file.c checks
 * sections in such blocks), or into memory (fd < 0), grown. */
struct ostream {
    int fd;
    uint64_t base;
    uint8_t *buf;
    size_t n, cap;
    uint64_t flushed, total, sum;
    int *err;                     /* where the first failed write leaves its errno */
    struct bq_queue *bq;          /* a file's blocks are written by its thread (sum final after cb_os_done) */
};

struct instance {
    struct mg_collective col;     /* its members: the match's, or read from its file (own) */
    int own;
    uint8_t shape;                /* MG_SCAN / MG_EXSCAN (a prefix), else the flow's groups */
    uint32_t n, entered, exited, prefix;
    /* the data flow (flow.h): every entry of a group's sources before every exit of its sinks */
    struct mg_flow flow;
    uint32_t **gacc;              /* per group: join of its sources' entries so far */
    uint32_t *gpending;           /* per group: sources not entered yet */
    uint32_t *src_first, *src_of; /* member k is a source of groups src_of[src_first[k] .. src_first[k + 1]) */
    uint32_t *dst_first, *dst_of; /* ... and a sink of dst_of[dst_first[k] .. dst_first[k + 1]) */
    uint32_t *sorted_pos;         /* scan: member -> position in communicator-rank order */
    uint32_t *sorted_rank;        /* scan: position -> world rank */
    uint32_t **enter_copy;        /* scan: entries not yet folded into the prefix */
    uint32_t **pre;               /* scan: pre[s] = join of entries at positions 0..s */
    uint8_t *entered_flag;        /* per member */
};

#define NO_KEY UINT64_MAX

struct builder {
    uint32_t N, L;
    const struct mg_result *match;
    const struct ci_config *cfg;
    ci_merge_policy policy;
    const uint64_t *nevents;
    uint32_t *cur;                /* N x N: each rank's current vector */
    struct st_aside roles_file;   /* every rank's roles, by event, rank after rank */
    struct st_aside *roles;       /* the file read: roles_file, or the first builder's in a pass thread */
    int roles_open;
    uint64_t *role_first;         /* per rank: where its roles start in the file (in roles) */
    struct role_window *rwin;     /* per rank: the roles read */
    int roles_failed;             /* a read of the file failed (roles_file.err says why) */
    size_t *nroles, *rpos;
    uint64_t *pos;                /* next event per rank */
    struct u64map sent;           /* messages sent and not yet received: the send's vector */
    struct u64map under_way;      /* collective instances under way: their struct instance */
    uint64_t *coll_off;           /* instances set aside (collstream.h): where each starts, or NULL */
    int coll_failed;              /* reading one failed (mg_colls_error says why) */
    /* clusters */
    uint32_t *cluster_of[CI_MAX_LEVELS];   /* [rank] */
    struct u32vec *cmap[CI_MAX_LEVELS];    /* [cluster]: members; size = n */
    uint32_t *mark;               /* [cluster or rank] stamps for de-duplication */
    uint32_t stamp;
    /* output: the records and cluster entries wait on disk (causal_aside.h) */
    char aside_dir[4300];
    struct ci_recs *recs;
    struct rec_last *last;        /* [rank]: its latest record, the first pass */
    uint32_t *gcr[CI_MAX_LEVELS]; /* [rank]: the latest record's, see ci_index.rec_gcr */
    struct ci_entries *ent;       /* cluster entries, nentries of them (made after the first pass) */
    struct ci_entries **more_ent; /* the other pass threads' (causal_passes.c): each holds its columns */
    uint32_t nmore_ent;
    uint64_t nentries, ntop;      /* counted by the first pass */
    /* The chunk codes (strip by strip: causal.h) and the chunks' bytes,
     * each written in order as the passes produce them. */
    struct ostream codes, bytes;
    struct bq_queue *bq;          /* writes the file's blocks (when there is a file) */
    int raw_codes;                /* a pass thread but the first: a code is one word, its line made later */
    /* Full vectors encoded on a thread of their own (when cores are
     * spare: causal_passes.c) while the pass replays on: batches of
     * (rank, window's values) in blocks handed to `enc`, whose job owns
     * the key chunks, the streams and the line until the pass drains it. */
    struct bq_queue *enc;
    uint8_t *enc_block;
    size_t enc_n, enc_size;
    int enc_errno;
    struct ci_line line;          /* the codes' line being filled: `inline_n` codes so far */
    uint32_t inline_n;
    uint64_t next_top;            /* a pass's next top-level record: they come in order */
    size_t skip;
    int fd;                       /* the index file being written, or -1 */
    int write_errno;              /* its first failed write's errno, or 0 */
    /* passes */
    int structure;                /* the first pass: records, no vectors */
    uint32_t lo, W, Wmax;         /* the window's columns [lo, lo + W); vectors hold W entries */
    uint32_t cshift, nchunks, cpw;   /* chunk columns 2^cshift; chunks per vector; per window */
    size_t *rcur;                 /* replay: each rank's next record */
    uint32_t *key;                /* N x Wmax: each rank's key chunks' values */
    uint64_t *keytop;             /* N x cpw: ... and where their values are (offset << 2 | width code), or NO_KEY */
    /* scratch */
    uint32_t *part, npart;        /* partner ranks of the current event */
    uint32_t *clist;              /* distinct clusters */
    /* vector pool */
    uint32_t **free_vecs;
    size_t nfree, cfree, live, peak;
    struct ci_stats *st;
    struct ci_sweeps *sweeps;     /* fed the causal order: the pending item's rank and plain events */
    uint32_t sweep_rank;
    uint64_t sweep_plain;
    int sweep_pending;
    int oom;
    uint64_t steps;               /* taken by every pass: the cancel flag is looked at now and then */
    atomic_int *halt;             /* set when a pass thread failed: stop too (or NULL) */
};

/* What a pass holds by number while it is in progress (u64map.h, the
 * value a pointer): the messages in flight (stamped at their send, taken
 * at their receive, each once: their send's vector) and the collective
 * instances under way (set up at their first entry or exit, gone at their
 * last: struct instance), so they are few at any time (not one slot per
 * message or instance of the trace). */
static inline void *flight_get(const struct u64map *f, uint64_t m)
{
    uint64_t v;
    return u64map_get(f, m, &v) ? (void *)(uintptr_t)v : NULL;
}

/* Four 32-bit lanes at a time (GCC's and Clang's vector extensions:
 * the target's SIMD, SSE2 or NEON, without intrinsics): the build's inner
 * loops, joining vectors and measuring chunks, run over every column of
 * every receive and full vector, and the compiler keeps them scalar. */
typedef uint32_t u32x4 __attribute__((vector_size(16)));

static inline u32x4 load4(const uint32_t *p)
{
    u32x4 x;
    memcpy(&x, p, sizeof x);
    return x;
}

/* causal_build.c */
int cb_cancelled(const struct builder *b);
const char *cb_build_error(const struct builder *b);
int cb_run_pass(struct builder *b, uint32_t *waiters, uint32_t *next_waiter, uint32_t *stack, uint8_t *queued,
                char *err, size_t errlen);

/* causal_passes.c */
int cb_run_windows(struct builder *b, uint32_t threads, char *err, size_t errlen);
void cb_windows_free(struct builder *b);
void cb_give_back_memory(void);
void cb_pass_free(struct builder *b);
int cb_pass_arrays_new(struct builder *b);
int cb_window_arrays_new(struct builder *b);
void cb_pass_state_free(struct builder *b);

/* causal_vectors.c */
void cb_join(uint32_t *restrict v, const uint32_t *restrict w, uint32_t n);
int cb_u32_push(struct u32vec *a, uint32_t x);
uint32_t *cb_vec_copy(struct builder *b, const uint32_t *src);
void cb_vec_put(struct builder *b, uint32_t *v);

/* causal_instances.c */
void cb_add_partner(struct builder *b, uint32_t q, uint32_t self);
void cb_enter_send(struct builder *b, struct instance *in, uint32_t k, const uint32_t *v);
int cb_exit_ready(const struct instance *in, uint32_t k, uint32_t *wait);
void cb_exit_receive(struct builder *b, struct instance *in, uint32_t k, uint32_t self, uint32_t *v);
void cb_instance_free(struct builder *b, struct instance *in);
struct instance *cb_instance_get(struct builder *b, size_t c);
void cb_instance_retire(struct builder *b, size_t c, struct instance *in);
int cb_says_something(const struct mg_result *m, const struct mg_collective *col);

/* causal_roles.c */
const char *cb_roles_dir(const struct builder *b, char *buf, size_t len);
void cb_roles_free(struct builder *b);
const struct role *cb_roles_of(struct builder *b, uint32_t r, size_t rp, uint64_t i, size_t *re);
int cb_setup_roles(struct builder *b, char *err, size_t errlen);

/* causal_encode.c */
int cb_encode_chunk(struct builder *b, uint32_t r, uint32_t c, const uint32_t *v);
int cb_flush_line(struct builder *b);
int cb_place_code(struct builder *b, uint32_t code, uint64_t *at);
int cb_encode_full(struct builder *b, uint32_t r, const uint32_t *v);
int cb_encoder_start(struct builder *b);
int cb_encoder_drain(struct builder *b);
void cb_encoder_free(struct builder *b);
int cb_os_done(struct ostream *o);
void cb_os_open(struct ostream *o, int fd, uint64_t base, int *err, struct bq_queue *bq);
int cb_os_put(struct ostream *o, const void *p, size_t n);
void cb_os_release(struct ostream *o);
void cb_streams_free(struct builder *b);

/* causal_clusters.c */
uint32_t cb_outside_clusters(struct builder *b, uint32_t k, uint32_t r, uint32_t *union_size);
int cb_stamp(struct builder *b, uint32_t r, uint64_t i, uint32_t k, int receive);
int cb_stamp_window(struct builder *b, uint32_t r, const struct ci_rec *x, const uint32_t *v);
void cb_sweep_event(struct builder *b, uint32_t r, int receive);
void cb_sweep_flush(struct builder *b);
int cb_try_merge(struct builder *b, uint32_t k, uint32_t r, uint64_t i);

/* causal_finish.c */
int cb_finish(struct builder *b, struct ci_index *ix);
void cb_release_replay(struct builder *b);

#endif
