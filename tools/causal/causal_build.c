/* causal_build.c — stamp every event of a matched trace with its
 * self-organizing hierarchical cluster timestamp (Ward & Taylor, Figs. 2, 3
 * and 5; causal.h says what is stored).
 *
 * One pass in causal order: each rank advances through its events until one
 * needs an event of another rank that has not been stamped yet (a receive
 * whose send, a collective exit whose entries are missing); it then waits
 * on that rank, which wakes it when it has advanced. Every edge is one of
 * the trace's own, so the order exists unless the matches contradict the
 * ranks' event order (reported as an error).
 *
 * Passes (causal.h): the first decides every record without any vector;
 * then each window of columns [lo, lo + W) is replayed in the same order
 * with vectors of W entries, filling the cluster entries of its columns and
 * encoding its chunks of the full vectors.
 *
 * Memory per window pass: each rank's current vector and its latest key
 * chunks (N x W each), one copy per message in flight (send stamped,
 * receive not yet) and per collective instance in progress — the vectors
 * the paper keeps ("clean up Fidge/Mattern timestamps" once no later event
 * can need them). W is the largest the vector budget allows. */
#include "causal.h"
#include "causal_aside.h"
#include "asidefile.h"
#include "blockqueue.h"
#include "fsutil.h"
#include "collstream.h"
#include "extsort.h"
#include "flow.h"
#include "msgstream.h"
#include "u64map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Free pages inside the heap back to the system (glibc's malloc_trim;
 * elsewhere nothing): the build frees many small arrays while it makes
 * large ones. */
static void give_back_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

enum role_kind { ROLE_RECV, ROLE_EXIT, ROLE_SEND, ROLE_ENTER };   /* dependencies sort first */

/* An event's part in a message or a collective: two per message and per
 * member, the most numerous thing the build reads, so 16 bytes (a rank's
 * events are fewer than 2^32: ci_build checks). They do not stay in
 * memory: setup_roles sorts them by (rank, event, kind) in an external
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
    struct bq_queue *bq;          /* a file's blocks are written by its thread (sum final after os_done) */
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

/* What a pass holds by number while it is in progress (u64map.h, the
 * value a pointer): the messages in flight (stamped at their send, taken
 * at their receive, each once: their send's vector) and the collective
 * instances under way (set up at their first entry or exit, gone at their
 * last: struct instance), so they are few at any time (not one slot per
 * message or instance of the trace). */
static void *flight_get(const struct u64map *f, uint64_t m)
{
    uint64_t v;
    return u64map_get(f, m, &v) ? (void *)(uintptr_t)v : NULL;
}

struct builder {
    uint32_t N, L;
    const struct mg_result *match;
    const struct ci_config *cfg;
    ci_merge_policy policy;
    const uint64_t *nevents;
    uint32_t *cur;                /* N x N: each rank's current vector */
    struct st_aside roles_file;   /* every rank's roles, by event, rank after rank */
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
    uint64_t nentries, ntop;      /* counted by the first pass */
    /* The chunk codes (strip by strip: causal.h) and the chunks' bytes,
     * each written in order as the passes produce them. */
    struct ostream codes, bytes;
    struct bq_queue *bq;          /* writes the file's blocks (when there is a file) */
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
};

/* The merge failed elsewhere and abandons the build (ci_config.cancel). */
static int cancelled(const struct builder *b)
{
    return b->cfg->cancel && atomic_load_explicit(b->cfg->cancel, memory_order_relaxed);
}

int ci_merge_first_communication(const struct ci_merge_request *req, void *arg)
{
    (void)arg;
    return req->union_size <= req->max_size;
}

int ci_parse_levels(const char *s, struct ci_config *cfg, char *err, size_t errlen)
{
    uint32_t n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v < 1 || v > 1000000 || (*end && *end != ',') || n == CI_MAX_LEVELS
            || (n && v <= cfg->maxsize[n - 1])) {
            snprintf(err, errlen, "cluster levels are up to %d increasing sizes like 8 or 8,64, not '%s'",
                     CI_MAX_LEVELS, s);
            return -1;
        }
        cfg->maxsize[n++] = (uint32_t)v;
        p = *end ? end + 1 : end;
        if (*end && !*p) {
            snprintf(err, errlen, "cluster levels: trailing comma in '%s'", s);
            return -1;
        }
    }
    if (!n) {
        snprintf(err, errlen, "cluster levels: empty");
        return -1;
    }
    cfg->nlevels = n;
    return 0;
}

static int u32_push(struct u32vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        uint32_t *v = realloc(a->v, sizeof *v * cap);
        if (!v)
            return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

static uint32_t *vec_get(struct builder *b)
{
    uint32_t *v = b->nfree ? b->free_vecs[--b->nfree] : malloc(sizeof *v * (b->Wmax ? b->Wmax : 1));
    if (!v) {
        b->oom = 1;
        return NULL;
    }
    if (++b->live > b->peak)
        b->peak = b->live;
    return v;
}

static void vec_put(struct builder *b, uint32_t *v)
{
    if (!v)
        return;
    b->live--;
    if (b->nfree == b->cfree) {
        size_t cap = b->cfree ? b->cfree * 2 : 64;
        uint32_t **nv = realloc(b->free_vecs, sizeof *nv * cap);
        if (!nv) {
            free(v);
            return;
        }
        b->free_vecs = nv;
        b->cfree = cap;
    }
    b->free_vecs[b->nfree++] = v;
}

static uint32_t *vec_copy(struct builder *b, const uint32_t *src)
{
    uint32_t *v = vec_get(b);
    if (v)
        memcpy(v, src, sizeof *v * b->W);
    return v;
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

static void join(uint32_t *restrict v, const uint32_t *restrict w, uint32_t n)
{
    uint32_t q = 0;
    for (; q + 4 <= n; q += 4) {
        u32x4 a = load4(v + q), b = load4(w + q), gt = (u32x4)(a > b);
        a = (a & gt) | (b & ~gt);
        memcpy(v + q, &a, sizeof a);
    }
    for (; q < n; q++)
        v[q] = v[q] > w[q] ? v[q] : w[q];
}

/* The OR of x[0 .. n), whose highest bit is the maximum's (so the same
 * width code); with a key, the OR of x - key and whether any x lies below
 * its key. */
static uint32_t or_of(const uint32_t *x, uint32_t n)
{
    u32x4 o = { 0 };
    uint32_t j = 0, r = 0;
    for (; j + 4 <= n; j += 4)
        o |= load4(x + j);
    for (int k = 0; k < 4; k++)
        r |= o[k];
    for (; j < n; j++)
        r |= x[j];
    return r;
}

static uint32_t or_of_differences(const uint32_t *x, const uint32_t *key, uint32_t n, int *below)
{
    u32x4 o = { 0 }, lt = { 0 };
    uint32_t j = 0, r = 0, l = 0;
    for (; j + 4 <= n; j += 4) {
        u32x4 a = load4(x + j), k = load4(key + j);
        o |= a - k;
        lt |= (u32x4)(a < k);
    }
    for (int q = 0; q < 4; q++) {
        r |= o[q];
        l |= lt[q];
    }
    for (; j < n; j++) {
        r |= x[j] - key[j];
        l |= x[j] < key[j];
    }
    *below = l != 0;
    return r;
}

/* Member -> groups, both ways (counting sort). */
static int index_groups(struct instance *in)
{
    const struct mg_flow *f = &in->flow;
    uint32_t n = in->n;
    in->src_first = calloc(n + 1, sizeof *in->src_first);
    in->dst_first = calloc(n + 1, sizeof *in->dst_first);
    size_t ns = 0, nd = 0;
    for (uint32_t g = 0; g < f->ngroups; g++) {
        ns += f->groups[g].nsrc;
        nd += f->groups[g].ndst;
    }
    in->src_of = malloc(sizeof *in->src_of * (ns ? ns : 1));
    in->dst_of = malloc(sizeof *in->dst_of * (nd ? nd : 1));
    in->gacc = calloc(f->ngroups ? f->ngroups : 1, sizeof *in->gacc);
    in->gpending = malloc(sizeof *in->gpending * (f->ngroups ? f->ngroups : 1));
    if (!in->src_first || !in->dst_first || !in->src_of || !in->dst_of || !in->gacc || !in->gpending)
        return -1;
    for (uint32_t g = 0; g < f->ngroups; g++) {
        in->gpending[g] = f->groups[g].nsrc;
        for (uint32_t a = 0; a < f->groups[g].nsrc; a++)
            in->src_first[f->groups[g].src[a] + 1]++;
        for (uint32_t a = 0; a < f->groups[g].ndst; a++)
            in->dst_first[f->groups[g].dst[a] + 1]++;
    }
    for (uint32_t k = 0; k < n; k++) {
        in->src_first[k + 1] += in->src_first[k];
        in->dst_first[k + 1] += in->dst_first[k];
    }
    uint32_t *sp = malloc(sizeof *sp * (n ? n : 1)), *dp = malloc(sizeof *dp * (n ? n : 1));
    if (!sp || !dp) {
        free(sp);
        free(dp);
        return -1;
    }
    memcpy(sp, in->src_first, sizeof *sp * n);
    memcpy(dp, in->dst_first, sizeof *dp * n);
    for (uint32_t g = 0; g < f->ngroups; g++) {
        for (uint32_t a = 0; a < f->groups[g].nsrc; a++)
            in->src_of[sp[f->groups[g].src[a]]++] = g;
        for (uint32_t a = 0; a < f->groups[g].ndst; a++)
            in->dst_of[dp[f->groups[g].dst[a]]++] = g;
    }
    free(sp);
    free(dp);
    return 0;
}

/* Does instance col force anything? Neighbourhood instances apart: the
 * merged archive does not carry the topologies, and the index rebuilt
 * from it (synctrace causal) must be the merge's own. Instances where no
 * data flowed say nothing either. 1, 0, or -1 (memory). */
static int says_something(const struct mg_result *m, const struct mg_collective *col)
{
    if (col->neighbor)
        return 0;
    struct mg_flow f;
    memset(&f, 0, sizeof f);
    if (mg_flow_of(m, col, &f) != 0)
        return -1;
    int yes = f.order || f.ngroups;
    mg_flow_free(&f);
    return yes ? 1 : 0;
}

/* Instance c's state for what it forces (its data flow, flow.h, as the
 * constraint graph reads it), made at its first role in a pass. */
static int instance_setup(struct builder *b, struct instance *in, size_t c)
{
    const struct mg_result *m = b->match;
    if (b->coll_off) {
        if (mg_colls_read_at(m, b->coll_off[c], &in->col) != 0) {
            b->coll_failed = 1;
            return -1;
        }
        in->own = 1;
    } else {
        in->col = m->collectives[c];
    }
    const struct mg_collective *col = &in->col;
    in->n = col->nmembers;
    if (mg_flow_of(m, col, &in->flow) != 0)
        return -1;
    if (!(in->entered_flag = calloc(in->n ? in->n : 1, 1)))
        return -1;
    if (in->flow.order) {
        enum mg_shape sh = in->flow.prefix;
        in->shape = (uint8_t)sh;
        in->sorted_pos = malloc(sizeof *in->sorted_pos * (in->n ? in->n : 1));
        in->sorted_rank = malloc(sizeof *in->sorted_rank * (in->n ? in->n : 1));
        in->enter_copy = calloc(in->n ? in->n : 1, sizeof *in->enter_copy);
        in->pre = calloc(in->n ? in->n : 1, sizeof *in->pre);
        if (!in->sorted_pos || !in->sorted_rank || !in->enter_copy || !in->pre)
            return -1;
        /* position in communicator rank order, as the flow gives it */
        for (uint32_t s = 0; s < in->n; s++) {
            in->sorted_pos[in->flow.order[s]] = s;
            in->sorted_rank[s] = col->members[in->flow.order[s]].enter.rank;
        }
    } else {
        in->shape = MG_ALL_TO_ALL;   /* groups */
        if (index_groups(in) != 0)
            return -1;
    }
    return 0;
}

static void instance_free(struct builder *b, struct instance *in)
{
    for (uint32_t g = 0; in->gacc && g < in->flow.ngroups; g++)
        vec_put(b, in->gacc[g]);
    free(in->gacc);
    free(in->gpending);
    free(in->src_first);
    free(in->src_of);
    free(in->dst_first);
    free(in->dst_of);
    mg_flow_free(&in->flow);
    if (in->enter_copy)
        for (uint32_t s = 0; s < in->n; s++)
            vec_put(b, in->enter_copy[s]);
    if (in->pre)
        for (uint32_t s = 0; s < in->n; s++)
            vec_put(b, in->pre[s]);
    free(in->sorted_pos);
    free(in->sorted_rank);
    free(in->enter_copy);
    free(in->pre);
    free(in->entered_flag);
    if (in->own)
        free(in->col.members);
    memset(in, 0, sizeof *in);
}

/* Instance c, set up at its first role of the pass; NULL on failure. */
static struct instance *instance_get(struct builder *b, size_t c)
{
    struct instance *in = flight_get(&b->under_way, c);
    if (in)
        return in;
    in = calloc(1, sizeof *in);
    if (!in || u64map_put(&b->under_way, c, (uintptr_t)in) != 0) {
        free(in);
        b->oom = 1;
        return NULL;
    }
    if (instance_setup(b, in, c) != 0) {
        b->oom = !b->coll_failed;
        return NULL;   /* pass_free frees it */
    }
    return in;
}

/* Every member entered and exited: nothing of the pass needs it again. */
static void instance_retire(struct builder *b, size_t c, struct instance *in)
{
    if (in->entered < in->n || in->exited < in->n)
        return;
    instance_free(b, in);
    free(in);
    u64map_remove(&b->under_way, c, NULL);
}

/* (rank, event, kind): one event has one role of a kind (a send, a
 * receive, a collective's entry or exit), so this is a total order. */
static int by_rank_idx(const void *a, const void *b)
{
    const struct role_rec *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->ro.idx != y->ro.idx)
        return x->ro.idx < y->ro.idx ? -1 : 1;
    if (x->ro.kind != y->ro.kind)
        return x->ro.kind < y->ro.kind ? -1 : 1;
    if (x->ro.id != y->ro.id)
        return x->ro.id < y->ro.id ? -1 : 1;
    return (x->ro.member > y->ro.member) - (x->ro.member < y->ro.member);
}

static int add_role(struct builder *b, struct st_extsort *fill, struct mg_event_ref ev, uint32_t kind, uint32_t id,
                    uint32_t member, char *err, size_t errlen)
{
    if (ev.rank >= b->N || ev.index >= b->nevents[ev.rank]) {
        snprintf(err, errlen, "a matched event (%u:%llu) is not in the trace", ev.rank,
                 (unsigned long long)ev.index);
        return -1;
    }
    if ((++b->steps & 0xFFFF) == 1 && cancelled(b)) {
        snprintf(err, errlen, "cancelled");
        return -1;
    }
    uint32_t r = ev.rank;
    b->nroles[r]++;
    struct role_rec x = { r, { (uint32_t)ev.index, kind, id, member } };
    if (st_extsort_put(fill, &x) != 0) {
        snprintf(err, errlen, "%s", st_extsort_error(fill));
        return -1;
    }
    return 0;
}

static int walk_roles(struct builder *b, struct st_extsort *fill, char *err, size_t errlen)
{
    const struct mg_result *m = b->match;
    int rc = 0;
    /* a receive's role keeps its sender's rank (in `member`): the
     * messages are read in order (msgstream.h) */
    struct mg_msg_reader it;
    mg_msgs_begin(m, &it);
    for (const struct mg_message *msg; !rc && (msg = mg_msgs_next(&it));)
        rc = add_role(b, fill, msg->send, ROLE_SEND, (uint32_t)it.index, 0, err, errlen)
             || add_role(b, fill, msg->recv, ROLE_RECV, (uint32_t)it.index, msg->send.rank, err, errlen);
    if (!rc && mg_msgs_error(m)) {
        snprintf(err, errlen, "%s", mg_msgs_error(m));
        rc = -1;
    }
    /* the instances in order, wherever they are (collstream.h): where
     * each one that forces anything starts, when set aside, to read it
     * back by number during the passes */
    struct mg_coll_reader cr;
    mg_colls_begin(m, &cr);
    for (const struct mg_collective *col; !rc && (col = mg_colls_next(&cr));) {
        size_t c = cr.index;
        int yes = says_something(m, col);
        if (yes < 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
        if (yes <= 0)
            continue;
        if (b->coll_off)
            b->coll_off[c] = cr.offset;
        for (uint32_t k = 0; k < col->nmembers && !rc; k++)
            rc = add_role(b, fill, col->members[k].enter, ROLE_ENTER, (uint32_t)c, k, err, errlen)
                 || add_role(b, fill, col->members[k].exit, ROLE_EXIT, (uint32_t)c, k, err, errlen);
    }
    mg_colls_end(&cr);
    if (!rc && mg_colls_error(m)) {
        snprintf(err, errlen, "%s", mg_colls_error(m));
        rc = -1;
    }
    return rc ? -1 : 0;
}

/* The directory for the roles' file and sort: the index file's, else
 * $TMPDIR or /tmp. */
static const char *roles_dir(const struct builder *b, char *buf, size_t len)
{
    const char *f = b->cfg->entries_file, *slash = f ? strrchr(f, '/') : NULL;
    if (!f)
        return mg_default_spill_dir();
    if (!slash)
        return ".";
    snprintf(buf, len, "%.*s", (int)(slash - f), f);
    return *buf ? buf : "/";
}

static int setup_roles(struct builder *b, char *err, size_t errlen)
{
    char dirbuf[4300];
    const char *dir = roles_dir(b, dirbuf, sizeof dirbuf);
    struct st_extsort *sort = st_extsort_new(sizeof(struct role_rec), by_rank_idx, ROLE_SORT_MEMORY, dir, err, errlen);
    if (!sort)
        return -1;
    int rc = walk_roles(b, sort, err, errlen);
    if (!rc && st_extsort_finish(sort) != 0) {
        snprintf(err, errlen, "%s", st_extsort_error(sort));
        rc = -1;
    }
    if (!rc && st_aside_open(&b->roles_file, dir, "synctrace-roles", "the causal index's roles", err, errlen) != 0)
        rc = -1;
    b->roles_open = !rc;
    /* rank after rank, as sorted */
    struct role buf[1024];
    size_t n = 0;
    for (const struct role_rec *x; !rc && (x = st_extsort_next(sort));) {
        buf[n++] = x->ro;
        if (n == sizeof buf / sizeof *buf) {
            rc = st_aside_write(&b->roles_file, buf, sizeof *buf * n);
            n = 0;
        }
    }
    if (!rc && st_extsort_failed(sort)) {
        snprintf(err, errlen, "%s", st_extsort_error(sort));
        rc = -1;
    } else if (!rc && st_aside_write(&b->roles_file, buf, sizeof *buf * n) != 0) {
        rc = -1;
    }
    if (rc && b->roles_open && b->roles_file.failed)
        snprintf(err, errlen, "%s", b->roles_file.err);
    st_extsort_free(sort);
    for (uint64_t r = 0, at = 0; !rc && r < b->N; r++) {
        b->role_first[r] = at;
        at += b->nroles[r];
    }
    return rc ? -1 : 0;
}

/* Roles [rp, re) of rank r are those of its event i: a pointer to them
 * (read from the file as needed; the window grows when one event's roles
 * do not fit), valid until the next call for r; NULL when a read failed. */
static const struct role *roles_of(struct builder *b, uint32_t r, size_t rp, uint64_t i, size_t *re)
{
    static const struct role none;   /* a rank's roles all taken: no role, not a failure */
    struct role_window *w = &b->rwin[r];
    if (rp >= b->nroles[r]) {
        *re = rp;
        return &none;
    }
    for (;;) {
        if (w->v && rp >= w->first && rp <= w->first + w->n) {
            size_t off = rp - w->first, k = off;
            while (k < w->n && w->v[k].idx == i)
                k++;
            if (k < w->n || w->first + w->n == b->nroles[r]) {
                *re = w->first + k;
                return w->v + off;
            }
            if (off == 0 && w->n == w->cap) {   /* one event's roles fill the window: more room */
                struct role *v = realloc(w->v, sizeof *v * 2 * w->cap);
                if (!v)
                    return NULL;
                w->v = v;
                w->cap *= 2;
            }
        }
        if (!w->v) {
            if (!(w->v = malloc(sizeof *w->v * ROLE_WINDOW)))
                return NULL;
            w->cap = ROLE_WINDOW;
        }
        size_t left = b->nroles[r] - rp;
        w->first = rp;
        w->n = left < w->cap ? (uint32_t)left : w->cap;
        if (st_aside_read(&b->roles_file, w->v, sizeof *w->v * w->n, (b->role_first[r] + rp) * sizeof *w->v) != 0) {
            w->n = 0;
            b->roles_failed = 1;
            return NULL;
        }
    }
}

static void roles_free(struct builder *b)
{
    for (uint32_t r = 0; b->rwin && r < b->N; r++) {
        free(b->rwin[r].v);
        b->rwin[r] = (struct role_window){ 0 };
    }
    if (b->roles_open)
        st_aside_close(&b->roles_file);
    b->roles_open = 0;
}

/* Can the exit of member k go now? If not, *wait is a rank to wait for. */
static int exit_ready(const struct instance *in, uint32_t k, uint32_t *wait)
{
    const struct mg_collective *col = &in->col;
    if (in->shape == MG_SCAN || in->shape == MG_EXSCAN) {
        uint32_t need = in->sorted_pos[k] + (in->shape == MG_SCAN);
        if (in->prefix >= need)
            return 1;
        *wait = in->sorted_rank[in->prefix];
        return 0;
    }
    for (uint32_t x = in->dst_first[k]; x < in->dst_first[k + 1]; x++) {
        uint32_t g = in->dst_of[x];
        if (!in->gpending[g])
            continue;
        const struct mg_flow_group *grp = &in->flow.groups[g];
        for (uint32_t a = 0; a < grp->nsrc; a++)
            if (!in->entered_flag[grp->src[a]]) {
                *wait = col->members[grp->src[a]].enter.rank;
                return 0;
            }
    }
    return 1;
}

static void add_partner(struct builder *b, uint32_t q, uint32_t self)
{
    if (q == self || b->mark[q] == b->stamp)
        return;
    b->mark[q] = b->stamp;
    b->part[b->npart++] = q;
}

/* Fold what an exit receives into v and note its partners. */
static void exit_receive(struct builder *b, struct instance *in, uint32_t k, uint32_t self, uint32_t *v)
{
    const struct mg_collective *col = &in->col;
    if (in->shape == MG_SCAN || in->shape == MG_EXSCAN) {
        uint32_t need = in->sorted_pos[k] + (in->shape == MG_SCAN);
        if (need) {
            join(v, in->pre[need - 1], b->W);
            for (uint32_t s = 0; s < need; s++)
                add_partner(b, in->sorted_rank[s], self);
        }
        return;
    }
    for (uint32_t x = in->dst_first[k]; x < in->dst_first[k + 1]; x++) {
        uint32_t g = in->dst_of[x];
        const struct mg_flow_group *grp = &in->flow.groups[g];
        if (in->gacc[g])
            join(v, in->gacc[g], b->W);
        for (uint32_t a = 0; a < grp->nsrc; a++)
            add_partner(b, col->members[grp->src[a]].enter.rank, self);
    }
}

static void enter_send(struct builder *b, struct instance *in, uint32_t k, const uint32_t *v)
{
    in->entered_flag[k] = 1;
    in->entered++;
    if (in->shape == MG_SCAN || in->shape == MG_EXSCAN) {
        uint32_t s = in->sorted_pos[k];
        in->enter_copy[s] = vec_copy(b, v);
        while (in->prefix < in->n && in->enter_copy[in->prefix]) {
            uint32_t p = in->prefix;
            in->pre[p] = in->enter_copy[p];
            in->enter_copy[p] = NULL;
            if (p && in->pre[p])
                join(in->pre[p], in->pre[p - 1], b->W);
            in->prefix++;
        }
        return;
    }
    for (uint32_t x = in->src_first[k]; x < in->src_first[k + 1]; x++) {
        uint32_t g = in->src_of[x];
        if (!in->gacc[g])
            in->gacc[g] = vec_copy(b, v);
        else
            join(in->gacc[g], v, b->W);
        in->gpending[g]--;
    }
}

/* A block of the stream, on the queue's thread: written at its offset,
 * then hashed into the stream's sum. */
static int write_job(void *arg, uint64_t off, const void *buf, size_t n)
{
    struct ostream *o = arg;
    if (st_pwrite_all(o->fd, buf, n, off) != 0)
        return errno;
    o->sum = ci_hash_bytes(o->sum, buf, n);
    return 0;
}

/* The block so far goes to the queue (o->buf with it; os_put takes
 * another). */
static int os_flush(struct ostream *o)
{
    if (o->fd < 0 || !o->n)
        return 0;
    int rc = bq_submit(o->bq, o->buf, o->n, write_job, o, o->base + o->flushed, o->err);
    o->buf = NULL;
    o->flushed += o->n;
    o->n = 0;
    return rc;
}

/* Everything put is written and o->sum final. */
static int os_done(struct ostream *o)
{
    if (os_flush(o) != 0)
        return -1;
    return o->fd >= 0 ? bq_drain(o->bq, o->err) : 0;
}

static int os_put(struct ostream *o, const void *p, size_t n)
{
    const char *src = p;
    if (n == 0)
        return 0;   /* nothing to copy, and o->buf may not exist yet */
    o->total += n;
    if (o->fd < 0) {
        if (o->n + n > o->cap) {
            size_t cap = o->cap ? o->cap * 2 : (size_t)1 << 16;
            while (cap < o->n + n)
                cap *= 2;
            uint8_t *nv = realloc(o->buf, cap);
            if (!nv)
                return -1;
            o->buf = nv;
            o->cap = cap;
        }
        memcpy(o->buf + o->n, src, n);
        o->n += n;
        return 0;
    }
    while (n) {
        if (!o->buf && !(o->buf = bq_buffer(o->bq)))
            return -1;
        size_t room = CI_HASH_BLOCK - o->n, k = n < room ? n : room;
        memcpy(o->buf + o->n, src, k);
        o->n += k;
        src += k;
        n -= k;
        if (o->n == CI_HASH_BLOCK && os_flush(o))
            return -1;
    }
    return 0;
}

/* A stream into fd at base, its blocks written through bq, or into
 * memory (fd < 0). */
static void os_open(struct ostream *o, int fd, uint64_t base, int *err, struct bq_queue *bq)
{
    memset(o, 0, sizeof *o);
    o->err = err;
    o->fd = fd;
    o->base = base;
    o->sum = CI_SUM_SEED;
    o->bq = bq;
}

/* The stream's block, if it holds one, back where it came from. */
static void os_release(struct ostream *o)
{
    if (o->fd >= 0)
        bq_give_back(o->bq, o->buf);
    else
        free(o->buf);
    o->buf = NULL;
}

static uint32_t width_code(uint32_t max)
{
    return max == 0 ? 0 : max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : 3;
}

#define NO_KEY UINT64_MAX

/* Write n values (x - base, base NULL: 0) at width code w, padded with
 * zeros to the chunk's 2^cshift columns (offsets follow from widths). */
static int emit(struct builder *b, const uint32_t *x, const uint32_t *base, uint32_t n, uint32_t w)
{
    if (w == 0)
        return 0;
    union {   /* chunks have at most 2^12 columns; values in native byte order */
        uint8_t u8[1 << 12];
        uint16_t u16[1 << 12];
        uint32_t u32[1 << 12];
    } buf;
    uint32_t cols = 1u << b->cshift, j;
    /* one loop per width and kind, each simple enough to vectorise */
    if (w == 1) {
        if (base)
            for (j = 0; j < n; j++)
                buf.u8[j] = (uint8_t)(x[j] - base[j]);
        else
            for (j = 0; j < n; j++)
                buf.u8[j] = (uint8_t)x[j];
        memset(buf.u8 + n, 0, cols - n);
    } else if (w == 2) {
        if (base)
            for (j = 0; j < n; j++)
                buf.u16[j] = (uint16_t)(x[j] - base[j]);
        else
            for (j = 0; j < n; j++)
                buf.u16[j] = (uint16_t)x[j];
        memset(buf.u16 + n, 0, 2 * (size_t)(cols - n));
    } else {
        if (base)
            for (j = 0; j < n; j++)
                buf.u32[j] = x[j] - base[j];
        else
            memcpy(buf.u32, x, 4 * (size_t)n);
        memset(buf.u32 + n, 0, 4 * (size_t)(cols - n));
    }
    return os_put(&b->bytes, &buf, (size_t)cols * CI_W_BYTES(w));
}

/* Append a chunk's code to the current line; a full line goes out. */
static int put_code(struct builder *b, uint32_t code)
{
    b->line.code[b->inline_n++] = code;
    if (b->inline_n < CI_LINE_CODES)
        return 0;
    b->inline_n = 0;
    return os_put(&b->codes, &b->line, sizeof b->line);
}

/* The last line, its unused codes zero. */
static int flush_line(struct builder *b)
{
    if (!b->inline_n)
        return 0;
    while (b->inline_n < CI_LINE_CODES)
        b->line.code[b->inline_n++] = 0;
    b->inline_n = 0;
    return os_put(&b->codes, &b->line, sizeof b->line);
}

/* Chunk c of rank r's full vector v (window-relative), the next one:
 * a difference to the rank's key chunk of those columns when that takes
 * fewer bytes a column, else a new key chunk. */
static int encode_chunk(struct builder *b, uint32_t r, uint32_t c, const uint32_t *v)
{
    uint32_t c0 = c << b->cshift, n = b->N - c0 < (1u << b->cshift) ? b->N - c0 : 1u << b->cshift;
    const uint32_t *x = v + (c0 - b->lo);
    uint32_t *key = b->key + (size_t)r * b->Wmax + (c0 - b->lo);
    uint64_t *kt = &b->keytop[(size_t)r * b->cpw + ((c0 - b->lo) >> b->cshift)];
    uint64_t dist = *kt == NO_KEY ? 0 : (b->bytes.total - (*kt >> 2)) >> b->cshift;
    int down = *kt == NO_KEY || dist > CI_DIST_MAX || (*kt & 3) == 0;   /* (a zero key: absolute values are as small) */
    uint32_t ordiff = 0;
    if (!down) {
        int below;
        ordiff = or_of_differences(x, key, n, &below);
        down = below;   /* cannot happen (V grows along a rank): a key then */
    }
    uint32_t wa = width_code(or_of(x, n)), wd = width_code(ordiff), code;
    if (b->inline_n == 0)
        b->line.base = b->bytes.total;   /* the line's first chunk starts here */
    if (!down && CI_W_BYTES(wd) < CI_W_BYTES(wa)) {
        b->st->chunks[wd]++;
        code = CI_CODE(wd, (uint32_t)(*kt & 3), dist);
        if (emit(b, x, key, n, wd))
            return -1;
    } else {
        b->st->chunks[wa]++;
        b->st->key_chunks++;
        memcpy(key, x, sizeof *key * n);
        *kt = b->bytes.total << 2 | wa;
        code = CI_CODE(wa, 0, 0);
        if (emit(b, x, NULL, n, wa))
            return -1;
    }
    return put_code(b, code);
}

/* The first pass: record (r, i) stamped at level k (a receive stamped at
 * level k is a cluster receive of every level below); its vector's place. */
static int stamp(struct builder *b, uint32_t r, uint64_t i, uint32_t k, int receive)
{
    struct ci_rec x = { 0 };
    x.rank = r;
    x.start = (uint32_t)i;
    x.size = b->N;
    x.level = k;
    uint32_t self = (uint32_t)ci_recs_count(b->recs, r);
    for (uint32_t lv = 0; lv < b->L; lv++) {
        if (receive && lv < k)
            b->gcr[lv][r] = self;
        x.gcr[lv] = b->gcr[lv][r];
    }
    if (k < b->L) {
        x.cluster = b->cluster_of[k][r];
        x.size = (uint32_t)b->cmap[k][x.cluster].n;
        x.vec = b->nentries;
        b->nentries += x.size;
    } else {
        x.vec = b->ntop++;
    }
    b->last[r] = (struct rec_last){ k, x.cluster, x.size };
    return ci_recs_put(b->recs, &x);
}

/* A window pass: the columns of v (window-relative) in record x. */
static int stamp_window(struct builder *b, uint32_t r, const struct ci_rec *x, const uint32_t *v)
{
    if (x->level < b->L) {
        const uint32_t *map = b->cmap[x->level][x->cluster].v;
        uint32_t *out = ci_entries_span(b->ent, x->vec, x->size);
        if (!out)
            return -1;
        for (uint32_t j = 0; j < x->size; j++)
            if (map[j] - b->lo < b->W)
                out[j] = v[map[j] - b->lo];
        return 0;
    }
    if (x->vec != b->next_top++)
        return -1;   /* cannot happen: every pass stamps in the first one's order */
    uint32_t c1 = (b->lo + b->W + (1u << b->cshift) - 1) >> b->cshift;
    for (uint32_t c = b->lo >> b->cshift; c < c1; c++)
        if (encode_chunk(b, r, c, v))
            return -1;
    return 0;
}

/* Distinct level-k clusters of the partners other than r's own, into
 * b->clist; returns their number and the size of their union with r's. */
static uint32_t outside_clusters(struct builder *b, uint32_t k, uint32_t r, uint32_t *union_size)
{
    uint32_t own = b->cluster_of[k][r], n = 0, size = (uint32_t)b->cmap[k][own].n;
    b->stamp++;
    for (uint32_t j = 0; j < b->npart; j++) {
        uint32_t c = b->cluster_of[k][b->part[j]];
        if (c == own || b->mark[c] == b->stamp)
            continue;
        b->mark[c] = b->stamp;
        b->clist[n++] = c;
        size += (uint32_t)b->cmap[k][c].n;
    }
    *union_size = size;
    return n;
}

/* Fig. 3, for every level from k up: the partners' clusters join r's. A
 * merge at one level is a merge at every level above it (clusters nest), so
 * every level must accept. Returns 1 when merged, 0 when refused, -1. */
static int try_merge(struct builder *b, uint32_t k, uint32_t r, uint64_t i)
{
    for (uint32_t j = k; j < b->L; j++) {
        uint32_t usize, n = outside_clusters(b, j, r, &usize);
        if (!n)
            continue;
        struct ci_merge_request req = { j, b->cfg->maxsize[j], (uint32_t)b->cmap[j][b->cluster_of[j][r]].n, usize,
                                        n + 1, r, i };
        if (!b->policy(&req, b->cfg->policy_arg))
            return 0;
    }
    for (uint32_t j = k; j < b->L; j++) {
        uint32_t usize, n = outside_clusters(b, j, r, &usize);
        uint32_t into = b->cluster_of[j][r];
        for (uint32_t x = 0; x < n; x++) {
            struct u32vec *from = &b->cmap[j][b->clist[x]];
            for (size_t m = 0; m < from->n; m++) {
                if (u32_push(&b->cmap[j][into], from->v[m]))
                    return -1;
                b->cluster_of[j][from->v[m]] = into;
            }
        }
    }
    return 1;
}

/* The causal order for the sweep (causal_sweep.c), in items: a rank's
 * consecutive events without partners, closed by a receive (with its
 * partners) or by another rank's event. */
static void sweep_flush(struct builder *b)
{
    if (b->sweep_pending)
        ci_sweeps_item(b->sweeps, b->sweep_rank, b->sweep_plain, 0, NULL, 0);
    b->sweep_pending = 0;
}

static void sweep_event(struct builder *b, uint32_t r, int receive)
{
    if (b->sweep_pending && b->sweep_rank != r)
        sweep_flush(b);
    if (!b->sweep_pending) {
        b->sweep_pending = 1;
        b->sweep_rank = r;
        b->sweep_plain = 0;
    }
    if (!receive) {
        b->sweep_plain++;
        return;
    }
    ci_sweeps_item(b->sweeps, r, b->sweep_plain, 1, b->part, b->npart);
    b->sweep_pending = 0;
}

/* Stamp event pos[r] of rank r if it can go. Returns 1 when stamped, 0 when
 * it waits (*wait = the rank), -1 on failure. */
static int step(struct builder *b, uint32_t r, uint32_t *wait)
{
    uint64_t i = b->pos[r];
    size_t rp = b->rpos[r], re = rp;
    const struct role *ro = roles_of(b, r, rp, i, &re);   /* event i's roles: ro[0 .. re - rp) */
    if (!ro) {
        b->oom = !b->roles_failed;
        return -1;
    }
    size_t nr = re - rp;
    for (size_t x = 0; x < nr; x++) {
        if (ro[x].kind == ROLE_RECV && !u64map_get(&b->sent, ro[x].id, NULL)) {
            *wait = ro[x].member;   /* the sender */
            return 0;
        }
        if (ro[x].kind == ROLE_EXIT) {
            const struct instance *in = instance_get(b, ro[x].id);
            if (!in)
                return -1;
            if (!exit_ready(in, ro[x].member, wait))
                return 0;
        }
    }
    uint32_t *v = b->cur + (size_t)r * b->Wmax;
    if (i >= UINT32_MAX)
        return -1;
    if (r - b->lo < b->W)
        v[r - b->lo] = (uint32_t)(i + 1);
    b->npart = 0;
    b->stamp++;
    for (size_t x = 0; x < nr; x++) {
        if (ro[x].kind == ROLE_RECV) {
            uint32_t m = ro[x].id;
            uint64_t sv;
            u64map_remove(&b->sent, m, &sv);   /* there: the wait above */
            join(v, (uint32_t *)(uintptr_t)sv, b->W);
            vec_put(b, (uint32_t *)(uintptr_t)sv);
            add_partner(b, ro[x].member, r);
        } else if (ro[x].kind == ROLE_EXIT) {
            exit_receive(b, instance_get(b, ro[x].id), ro[x].member, r, v);   /* set up: the wait above */
        }
    }
    struct ci_stats *st = b->st;
    if (!b->structure) {
        /* replay: the first pass decided the records */
        if (b->rcur[r] < ci_recs_count(b->recs, r)) {
            const struct ci_rec *x = ci_recs_at(b->recs, r, b->rcur[r]);
            if (!x)
                return -1;
            if (x->start == i) {
                b->rcur[r]++;
                if (stamp_window(b, r, x, v))
                    return -1;
            }
        }
    } else if (b->npart) {
        /* Fig. 5: climb while the partners lie outside and the clusters cannot merge */
        uint32_t k = 0;
        for (; k < b->L; k++) {
            uint32_t usize;
            if (!outside_clusters(b, k, r, &usize))
                break;
            int mr = try_merge(b, k, r, i);
            if (mr < 0)
                return -1;
            if (mr)
                break;
            st->creceives[k]++;
        }
        if (stamp(b, r, i, k, 1))
            return -1;
        st->receives++;
        st->paper_entries += k < b->L ? (double)b->cmap[k][b->cluster_of[k][r]].n : (double)b->N;
        st->top_events += k == b->L;
    } else {
        uint32_t c = b->cluster_of[0][r];
        const struct rec_last *last = &b->last[r];
        if (!ci_recs_count(b->recs, r) || last->level != 0 || last->cluster != c || last->size != b->cmap[0][c].n)
            if (stamp(b, r, i, 0, 0))
                return -1;
        st->paper_entries += (double)b->cmap[0][c].n;
    }
    if (b->structure && b->sweeps)
        sweep_event(b, r, b->npart != 0);
    for (size_t x = 0; x < nr; x++) {
        if (ro[x].kind == ROLE_SEND) {
            uint32_t *sv = vec_copy(b, v);
            if (!sv || u64map_put(&b->sent, ro[x].id, (uintptr_t)sv) != 0) {
                free(sv);
                b->oom = 1;
                return -1;
            }
        } else if (ro[x].kind == ROLE_ENTER) {
            struct instance *in = instance_get(b, ro[x].id);
            if (!in)
                return -1;
            enter_send(b, in, ro[x].member, v);
            instance_retire(b, ro[x].id, in);
        } else if (ro[x].kind == ROLE_EXIT) {
            struct instance *in = instance_get(b, ro[x].id);
            if (!in)
                return -1;
            in->exited++;
            instance_retire(b, ro[x].id, in);
        }
    }
    if (b->oom)
        return -1;
    b->rpos[r] = re;
    b->pos[r] = i + 1;
    st->events += b->structure;
    return 1;
}

/* What one pass holds: instances, vectors in flight, the vector pool. */
static void pass_free(struct builder *b)
{
    for (size_t s = 0; s < b->under_way.cap; s++)
        if (b->under_way.used[s]) {
            struct instance *in = (struct instance *)(uintptr_t)b->under_way.values[s];
            instance_free(b, in);
            free(in);
        }
    u64map_free(&b->under_way);
    for (size_t s = 0; s < b->sent.cap; s++)
        if (b->sent.used[s])
            free((void *)(uintptr_t)b->sent.values[s]);
    u64map_free(&b->sent);
    for (size_t k = 0; k < b->nfree; k++)
        free(b->free_vecs[k]);
    b->nfree = 0;
}

static void builder_free(struct builder *b)
{
    pass_free(b);
    free(b->free_vecs);
    free(b->coll_off);
    free(b->cur);
    roles_free(b);
    free(b->rwin);
    free(b->role_first);
    ci_recs_free(b->recs);
    ci_entries_free(b->ent);
    free(b->last);
    free(b->nroles);
    free(b->rpos);
    free(b->pos);
    free(b->rcur);
    free(b->key);
    free(b->keytop);
    for (uint32_t k = 0; k < b->L; k++) {
        free(b->cluster_of[k]);
        for (uint32_t c = 0; b->cmap[k] && c < b->N; c++)
            free(b->cmap[k][c].v);
        free(b->cmap[k]);
        free(b->gcr[k]);
    }
    if (b->bq) {   /* every block written before the file closes */
        os_release(&b->codes);
        os_release(&b->bytes);
        bq_free(b->bq);
    } else {
        free(b->codes.buf);
        free(b->bytes.buf);
    }
    if (b->fd >= 0) {
        close(b->fd);
        unlink(b->cfg->entries_file);
    }
    free(b->mark);
    free(b->part);
    free(b->clist);
}

/* The replay is over: its roles and vectors go before the index is
 * written, and their pages back to the system (many small arrays freed in
 * the middle of the heap otherwise stay resident). */
static void release_replay(struct builder *b)
{
    pass_free(b);
    roles_free(b);
    ci_recs_drop_windows(b->recs);
    give_back_memory();
}

/* Section k of the index, written in order: at its place in the index
 * file, or into memory (no file). */
static void sec_open(struct builder *b, struct ostream *o, const uint64_t *off, int k)
{
    os_open(o, b->fd, b->fd >= 0 ? off[k] : 0, &b->write_errno, b->bq);
}

/* The section is complete: its checksum (in the file), or its bytes
 * (memory: *mem owns them); it must have the layout's size. */
static int sec_close(struct ostream *o, uint64_t size, uint64_t *sum, void *mem)
{
    int bad = os_done(o) != 0 || o->total != size;
    *sum = o->sum;
    if (o->fd >= 0) {
        os_release(o);   /* (nothing left after os_done: its block went to the queue) */
    } else {
        /* a section of no bytes still points somewhere (queries take its address) */
        *(void **)mem = o->buf ? o->buf : malloc(8);
        if (!*(void **)mem)
            bad = 1;
    }
    o->buf = NULL;
    return bad ? -1 : 0;
}

/* Every record in order (rank after rank): the record sections, written at
 * once. rec_bound: between two full-vector records of a rank, every record
 * has the same pair (the one before, the one after), so a run waits as a
 * count until the next full vector (or the rank's end) says its second. */
struct bounds {
    struct ostream *o;
    uint64_t pending;
    uint32_t before;
};

static int bounds_emit(struct bounds *bd, uint32_t after)
{
    uint32_t pair[2] = { bd->before, after };
    for (; bd->pending; bd->pending--)
        if (os_put(bd->o, pair, sizeof pair))
            return -1;
    return 0;
}

static int write_records(struct builder *b, const uint64_t *off, struct ci_index *ix, uint64_t *sums,
                         const uint64_t *size)
{
    enum { COLS = 6 };
    static const int col[COLS] = { CI_SEC_REC_START, CI_SEC_REC_CLUSTER, CI_SEC_REC_SIZE, CI_SEC_REC_VEC,
                                   CI_SEC_REC_BOUND, CI_SEC_REC_LEVEL };
    void *dest[COLS] = { &ix->rec_start, &ix->rec_cluster, &ix->rec_size, &ix->rec_vec, &ix->rec_bound, &ix->rec_level };
    struct ostream o[COLS + CI_MAX_LEVELS];
    memset(o, 0, sizeof o);
    int bad = 0, n = COLS + (int)b->L;
    for (int k = 0; k < n; k++)
        sec_open(b, &o[k], off, k < COLS ? col[k] : CI_SEC_LEVELS + 3 * (k - COLS) + 2);
    enum { BATCH = 4096 };
    struct ci_rec *batch = malloc(sizeof *batch * BATCH);
    bad = bad || !batch;
    uint64_t at = 0;
    for (uint32_t r = 0; r < b->N && !bad; r++) {
        struct bounds bd = { &o[4], 0, CI_NONE };
        for (uint64_t k = 0; k < ci_recs_count(b->recs, r) && !bad;) {
            size_t m = ci_recs_count(b->recs, r) - k < BATCH ? (size_t)(ci_recs_count(b->recs, r) - k) : BATCH;
            if (ci_recs_read(b->recs, at, batch, m) != 0) {
                bad = 1;
                break;
            }
            for (size_t q = 0; q < m && !bad; q++) {
                const struct ci_rec *x = &batch[q];
                uint8_t level = (uint8_t)x->level;
                bad = x->rank != r || os_put(&o[0], &x->start, 4) || os_put(&o[1], &x->cluster, 4)
                      || os_put(&o[2], &x->size, 4) || os_put(&o[3], &x->vec, 8) || os_put(&o[5], &level, 1);
                for (uint32_t lv = 0; lv < b->L && !bad; lv++)
                    bad = os_put(&o[COLS + lv], &x->gcr[lv], 4);
                if (bad)
                    break;
                bd.pending++;
                if (x->level == b->L) {   /* a full vector: < 2^32 - 1 (ci_build) */
                    uint32_t t = (uint32_t)x->vec;
                    bd.pending--;
                    bad = bounds_emit(&bd, t);
                    bd.before = t;
                    bd.pending = 1;
                    bad = bad || bounds_emit(&bd, t);
                }
            }
            k += m;
            at += m;
        }
        bad = bad || bounds_emit(&bd, CI_NONE);
    }
    free(batch);
    for (int k = 0; k < n; k++) {
        int sec = k < COLS ? col[k] : CI_SEC_LEVELS + 3 * (k - COLS) + 2;
        void *mem = k < COLS ? dest[k] : (void *)&ix->rec_gcr[k - COLS];
        if (sec_close(&o[k], size[sec], &sums[sec], mem) != 0)
            bad = 1;
    }
    return bad ? -1 : 0;
}

/* The index: its counts, then every section after the full vectors' (which
 * the passes wrote) in turn, each at its place in the file (or in memory),
 * from the records and entries set aside and the clusters. */
static int finish(struct builder *b, struct ci_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->nranks = b->N;
    ix->nlevels = b->L;
    ix->chunk_shift = b->cshift;
    memcpy(ix->maxsize, b->cfg->maxsize, sizeof ix->maxsize);
    for (uint32_t r = 0; r < b->N; r++)
        ix->nrecords += ci_recs_count(b->recs, r);
    for (uint32_t k = 0; k < b->L; k++)
        for (uint32_t c = 0; c < b->N; c++)
            ix->nmap[k] += b->cmap[k][c].n;
    ix->nentries = b->nentries;
    ix->ntop = b->ntop;
    ix->strip_chunks = b->cpw;
    ix->nchunks = b->nchunks;
    ix->strip_low = b->cpw >= b->nchunks ? UINT32_MAX : b->cpw - 1;
    ix->ntchunks = b->ntop * b->nchunks;
    ix->nlines = (ix->ntchunks + CI_LINE_CODES - 1) / CI_LINE_CODES;
    ix->nbytes = b->bytes.total;
    uint64_t off[CI_MAX_SECTIONS], size[CI_MAX_SECTIONS], *sums = ix->sums;
    ci_layout(ix, off, size);
    if (flush_line(b) || b->codes.total != size[CI_SEC_TLINE] || os_done(&b->codes) || os_done(&b->bytes))
        return -1;
    sums[CI_SEC_TLINE] = b->codes.sum;
    sums[CI_SEC_CBYTES] = b->bytes.sum;
    if (b->fd < 0) {
        ix->tline = b->codes.buf ? (struct ci_line *)(void *)b->codes.buf : malloc(sizeof *ix->tline);
        ix->cbytes = b->bytes.buf ? b->bytes.buf : malloc(1);
        b->codes.buf = b->bytes.buf = NULL;
        if (!ix->tline || !ix->cbytes)
            return -1;
    }
    struct ostream o;
    /* the cluster entries, copied from their file */
    if (ci_entries_flush(b->ent) != 0)
        return -1;
    sec_open(b, &o, off, CI_SEC_ENTRIES);
    uint64_t at = 0;
    unsigned char buf[1 << 16];
    while (at < size[CI_SEC_ENTRIES]) {
        size_t k = size[CI_SEC_ENTRIES] - at < sizeof buf ? (size_t)(size[CI_SEC_ENTRIES] - at) : sizeof buf;
        if (ci_entries_read(b->ent, buf, k, at) != 0 || os_put(&o, buf, k)) {
            os_release(&o);
            return -1;
        }
        at += k;
    }
    if (sec_close(&o, size[CI_SEC_ENTRIES], &sums[CI_SEC_ENTRIES], &ix->entries) != 0)
        return -1;
    ci_entries_free(b->ent);
    b->ent = NULL;
    /* events and where each rank's records start */
    int bad = 0;
    sec_open(b, &o, off, CI_SEC_NEVENTS);
    for (uint32_t r = 0; r < b->N && !bad; r++)
        bad = os_put(&o, &b->nevents[r], 8);
    if (sec_close(&o, size[CI_SEC_NEVENTS], &sums[CI_SEC_NEVENTS], &ix->nevents) != 0 || bad)
        return -1;
    sec_open(b, &o, off, CI_SEC_REC_FIRST);
    at = 0;
    for (uint32_t r = 0; r <= b->N && !bad; r++) {
        bad = os_put(&o, &at, 8);
        at += r < b->N ? ci_recs_count(b->recs, r) : 0;
    }
    if (sec_close(&o, size[CI_SEC_REC_FIRST], &sums[CI_SEC_REC_FIRST], &ix->rec_first) != 0 || bad)
        return -1;
    if (write_records(b, off, ix, sums, size) != 0)
        return -1;
    /* per level: the clusters' maps */
    for (uint32_t k = 0; k < b->L; k++) {
        int sec = CI_SEC_LEVELS + 3 * (int)k;
        sec_open(b, &o, off, sec);
        at = 0;
        for (uint32_t c = 0; c <= b->N && !bad; c++) {
            bad = os_put(&o, &at, 8);
            at += c < b->N ? b->cmap[k][c].n : 0;
        }
        if (sec_close(&o, size[sec], &sums[sec], &ix->map_first[k]) != 0 || bad)
            return -1;
        sec_open(b, &o, off, sec + 1);
        for (uint32_t c = 0; c < b->N && !bad; c++)
            bad = os_put(&o, b->cmap[k][c].v, sizeof *b->cmap[k][c].v * b->cmap[k][c].n);
        if (sec_close(&o, size[sec + 1], &sums[sec + 1], &ix->map[k]) != 0 || bad)
            return -1;
    }
    if (b->fd < 0)
        return ci_prepare(ix);
    /* everything is in the file: ci_write_in_place adds the header */
    ix->body_in_file = 1;
    ix->entries_fd = b->fd;
    if (!(ix->entries_path = strdup(b->cfg->entries_file)))
        return -1;
    b->fd = -1;
    return 0;
}

/* A write into the index file failed: its name and why. */
static const char *write_problem(const struct builder *b)
{
    static __thread char why[4600];
    const char *name = b->cfg->name ? b->cfg->name : b->cfg->entries_file ? b->cfg->entries_file : "the index";
    snprintf(why, sizeof why, "%s: write: %s", name, strerror(b->write_errno));
    return why;
}

/* Why a step failed, one line. */
static const char *build_error(const struct builder *b)
{
    if (cancelled(b))
        return "cancelled";
    if (b->roles_failed)
        return b->roles_file.err;
    if (b->coll_failed && mg_colls_error(b->match))
        return mg_colls_error(b->match);
    if (b->recs && *ci_recs_error(b->recs))
        return ci_recs_error(b->recs);
    if (b->ent && *ci_entries_error(b->ent))
        return ci_entries_error(b->ent);
    if (b->write_errno)
        return write_problem(b);
    return "out of memory";
}

/* Run every rank until each is done or waits on another: one pass in
 * causal order. Returns 0, or -1 with a message. */
static int run_pass(struct builder *b, uint32_t *waiters, uint32_t *next_waiter, uint32_t *stack, uint8_t *queued,
                    char *err, size_t errlen)
{
    const uint32_t NONE = UINT32_MAX, N = b->N;
    memset(b->pos, 0, sizeof *b->pos * N);
    memset(b->rpos, 0, sizeof *b->rpos * N);
    memset(b->rcur, 0, sizeof *b->rcur * N);
    memset(b->cur, 0, sizeof *b->cur * N * (size_t)(b->Wmax ? b->Wmax : 1));
    if (b->keytop)
        for (size_t x = 0; x < (size_t)N * b->cpw; x++)
            b->keytop[x] = NO_KEY;
    b->live = N;   /* the ranks' own vectors */
    if (b->peak < N)
        b->peak = N;
    size_t top = 0;
    for (uint32_t r = 0; r < N; r++) {
        waiters[r] = NONE;
        stack[top++] = N - 1 - r;
        queued[N - 1 - r] = 1;
    }
    while (top) {
        uint32_t r = stack[--top];
        queued[r] = 0;
        uint64_t before = b->pos[r];
        while (b->pos[r] < b->nevents[r]) {
            uint32_t wait = NONE;
            int s = (++b->steps & 0xFFFF) == 1 && cancelled(b) ? -1 : step(b, r, &wait);
            if (s < 0) {
                snprintf(err, errlen, "causal index: %s", build_error(b));
                return -1;
            }
            if (s == 0) {
                next_waiter[r] = waiters[wait];
                waiters[wait] = r;
                break;
            }
        }
        if (b->pos[r] != before)
            for (uint32_t w = waiters[r]; w != NONE; w = next_waiter[w])
                if (!queued[w]) {
                    queued[w] = 1;
                    stack[top++] = w;
                }
        if (b->pos[r] != before)
            waiters[r] = NONE;
    }
    for (uint32_t r = 0; r < N; r++)
        if (b->pos[r] < b->nevents[r]) {
            snprintf(err, errlen,
                     "causal index: the matched messages and collectives form a cycle with the ranks' event order "
                     "(rank %u stops at event %llu)", r, (unsigned long long)b->pos[r]);
            return -1;
        }
    pass_free(b);
    return 0;
}

/* The window: as many columns as the budget holds with every vector the
 * first pass saw alive at once, plus the ranks' key chunks; all N when they
 * fit, else a power of two of whole chunks (strips: causal.h). */
static uint32_t choose_window(const struct builder *b, size_t budget)
{
    uint64_t per_column = 4 * ((uint64_t)b->peak + b->N) + (8ull * b->N >> b->cshift);
    uint64_t w = budget / (per_column ? per_column : 1);
    if (w >= b->N)
        return b->N;
    uint64_t chunks = 1;
    while (chunks * 2 <= w >> b->cshift)
        chunks *= 2;
    return chunks << b->cshift >= b->N ? b->N : (uint32_t)(chunks << b->cshift);
}

int ci_build(const uint64_t *nevents, uint32_t nranks, const struct mg_result *match, const struct ci_config *cfg,
             struct ci_index *out, struct ci_stats *stats, struct ci_sweeps *sweeps, char *err, size_t errlen)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(stats, 0, sizeof *stats);
    memset(out, 0, sizeof *out);
    if (!nranks || cfg->nlevels < 1 || cfg->nlevels > CI_MAX_LEVELS || cfg->chunk_shift > 12) {
        snprintf(err, errlen, "causal index: %s",
                 !nranks ? "no ranks" : cfg->chunk_shift > 12 ? "chunks of 2 to 4096 columns" : "1 to 8 cluster levels");
        return -1;
    }
    for (uint32_t r = 0; r < nranks; r++)
        if (nevents[r] >= UINT32_MAX) {
            snprintf(err, errlen, "causal index: rank %u has %llu events, more than the index holds (2^32-1)", r,
                     (unsigned long long)nevents[r]);
            return -1;
        }
    struct builder b = { 0 };
    b.N = nranks;
    b.L = cfg->nlevels;
    b.match = match;
    b.cfg = cfg;
    b.policy = cfg->policy ? cfg->policy : ci_merge_first_communication;
    b.nevents = nevents;
    b.st = stats;
    b.sweeps = sweeps;
    b.fd = -1;
    b.cshift = cfg->chunk_shift ? cfg->chunk_shift : CI_CHUNK_SHIFT;
    b.nchunks = (uint32_t)(((uint64_t)nranks + (1u << b.cshift) - 1) >> b.cshift);
    if (cfg->entries_file) {
        b.skip = ci_header_size();
        b.fd = open(cfg->entries_file, O_RDWR | O_CREAT | O_TRUNC, 0666);
        if (b.fd <= 0) {   /* 0 would be taken for "no file" */
            snprintf(err, errlen, "%s: cannot create", cfg->entries_file);
            if (b.fd == 0)
                close(0);
            return -1;
        }
    }
    int rc = -1;
    size_t N = nranks;
    b.cur = calloc(N, sizeof *b.cur);   /* the first pass: no vectors */
    b.rwin = calloc(N, sizeof *b.rwin);
    b.role_first = calloc(N, sizeof *b.role_first);
    b.nroles = calloc(N, sizeof *b.nroles);
    b.rpos = calloc(N, sizeof *b.rpos);
    b.rcur = calloc(N, sizeof *b.rcur);
    b.pos = calloc(N, sizeof *b.pos);
    b.last = calloc(N, sizeof *b.last);
    b.mark = calloc(N, sizeof *b.mark);
    b.part = malloc(sizeof *b.part * N);
    b.clist = malloc(sizeof *b.clist * N);
    uint32_t *waiters = malloc(sizeof *waiters * N), *next_waiter = malloc(sizeof *next_waiter * N);
    uint32_t *stack = malloc(sizeof *stack * N);
    uint8_t *queued = calloc(N, 1);
    int ok = b.cur && b.rwin && b.role_first && b.nroles && b.rpos && b.rcur && b.pos && b.last
             && b.mark && b.part && b.clist && waiters && next_waiter && stack && queued;
    for (uint32_t k = 0; ok && k < b.L; k++) {
        b.cluster_of[k] = malloc(sizeof *b.cluster_of[k] * N);
        b.cmap[k] = calloc(N, sizeof *b.cmap[k]);
        b.gcr[k] = malloc(sizeof *b.gcr[k] * N);
        ok = b.cluster_of[k] && b.cmap[k] && b.gcr[k];
        for (uint32_t r = 0; ok && r < N; r++) {
            b.cluster_of[k][r] = r;
            b.gcr[k][r] = CI_NONE;
            ok = u32_push(&b.cmap[k][r], r) == 0;
        }
    }
    /* instances set aside are read back by number as the passes reach them */
    if (ok && match->coll_file && !(b.coll_off = malloc(sizeof *b.coll_off * (match->ncollectives ? match->ncollectives : 1))))
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "causal index: out of memory for %u ranks", nranks);
        goto done;
    }
    if (setup_roles(&b, err, errlen) != 0)
        goto done;
    pass_free(&b);
    const char *adir = roles_dir(&b, b.aside_dir, sizeof b.aside_dir);
    if (adir != b.aside_dir)
        snprintf(b.aside_dir, sizeof b.aside_dir, "%s", adir);
    if (!(b.recs = ci_recs_new(b.N, b.L, b.aside_dir, ROLE_SORT_MEMORY, err, errlen)))
        goto done;

    /* the records, without vectors */
    b.structure = 1;
    if (run_pass(&b, waiters, next_waiter, stack, queued, err, errlen) != 0)
        goto done;
    b.structure = 0;
    if (ci_recs_seal(b.recs) != 0) {
        snprintf(err, errlen, "causal index: %s", ci_recs_error(b.recs));
        goto done;
    }
    if (sweeps)
        sweep_flush(&b);   /* the last item */
    stats->peak_live_vectors = b.peak;
    stats->top_records = b.ntop;
    if (b.ntop >= CI_NONE) {   /* records name full vectors in 32 bits (rec_bound) */
        snprintf(err, errlen, "causal index: %llu full vectors, more than the index holds (2^32-2)",
                 (unsigned long long)b.ntop);
        goto done;
    }

    /* the vectors, window by window */
    b.Wmax = choose_window(&b, cfg->vector_budget ? cfg->vector_budget : CI_VECTOR_BUDGET);
    b.cpw = (b.Wmax + (1u << b.cshift) - 1) >> b.cshift;
    free(b.cur);
    b.cur = calloc(N * b.Wmax, sizeof *b.cur);
    b.key = malloc(sizeof *b.key * N * b.Wmax);
    b.keytop = malloc(sizeof *b.keytop * N * b.cpw);
    if (!(b.ent = ci_entries_new(b.nentries, b.aside_dir, err, errlen)))
        goto done;
    /* the file: header, chunk codes' lines (their size is known now), chunk bytes */
    uint64_t codes_size = sizeof(struct ci_line) * ((b.ntop * b.nchunks + CI_LINE_CODES - 1) / CI_LINE_CODES);
    /* the chunks' bytes are most of the file: written by a thread of their
     * own (blockqueue.h) while the pass goes on */
    if (!b.cur || !b.key || !b.keytop || (b.fd >= 0 && !(b.bq = bq_new(CI_HASH_BLOCK, 4)))) {
        snprintf(err, errlen, "causal index: out of memory for %u ranks (%u columns at once)", nranks, b.Wmax);
        goto done;
    }
    os_open(&b.codes, b.fd, b.skip, &b.write_errno, b.bq);
    os_open(&b.bytes, b.fd, b.skip + ((codes_size + 7) & ~(uint64_t)7), &b.write_errno, b.bq);
    stats->window = b.Wmax;
    stats->vector_bytes = (size_t)(4 * ((uint64_t)b.peak + 2 * N) * b.Wmax + 8 * N * b.cpw);
    for (b.lo = 0; b.lo < N; b.lo += b.Wmax) {
        b.W = N - b.lo < b.Wmax ? (uint32_t)(N - b.lo) : b.Wmax;
        b.next_top = 0;
        if ((b.lo > 0 && ci_entries_rewind(b.ent) != 0)
            || run_pass(&b, waiters, next_waiter, stack, queued, err, errlen) != 0) {
            if (*ci_entries_error(b.ent))
                snprintf(err, errlen, "causal index: %s", ci_entries_error(b.ent));
            goto done;
        }
        stats->passes++;
    }
    release_replay(&b);
    if (finish(&b, out) != 0) {
        ci_free(out);
        snprintf(err, errlen, "causal index: %s", build_error(&b));
        goto done;
    }
    stats->records = out->nrecords;
    stats->entries = out->nentries + b.ntop * N;
    rc = 0;
done:
    builder_free(&b);
    free(waiters);
    free(next_waiter);
    free(stack);
    free(queued);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    stats->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    return rc;
}
