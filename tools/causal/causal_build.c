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
 * can need them). W is the largest the vector budget allows.
 *
 * Memory per window pass (above) is per pass running: up to
 * ci_config.threads window passes run at once (causal_passes.c).
 *
 * This file drives the passes (ci_build, cb_run_pass, step); the
 * builder's parts are files of their own, sharing causal_builder.h: the
 * roles (causal_roles.c), collective instances (causal_instances.c),
 * vectors (causal_vectors.c), clusters and records (causal_clusters.c),
 * the file's sections and chunk encoding (causal_encode.c), the window
 * passes at once (causal_passes.c) and the last sections and header
 * (causal_finish.c). */
#include "causal_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <time.h>
#include <unistd.h>

/* Free pages inside the heap back to the system (glibc's malloc_trim;
 * elsewhere nothing): the build frees many small arrays while it makes
 * large ones. */
void cb_give_back_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* The merge failed elsewhere and abandons the build (ci_config.cancel),
 * or another pass thread failed (causal_passes.c). */
int cb_cancelled(const struct builder *b)
{
    return (b->cfg->cancel && atomic_load_explicit(b->cfg->cancel, memory_order_relaxed))
           || (b->halt && atomic_load_explicit(b->halt, memory_order_relaxed));
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

/* Stamp event pos[r] of rank r if it can go. Returns 1 when stamped, 0 when
 * it waits (*wait = the rank), -1 on failure. */
static int step(struct builder *b, uint32_t r, uint32_t *wait)
{
    uint64_t i = b->pos[r];
    size_t rp = b->rpos[r], re = rp;
    const struct role *ro = cb_roles_of(b, r, rp, i, &re);   /* event i's roles: ro[0 .. re - rp) */
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
            const struct instance *in = cb_instance_get(b, ro[x].id);
            if (!in)
                return -1;
            if (!cb_exit_ready(in, ro[x].member, wait))
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
            cb_join(v, (uint32_t *)(uintptr_t)sv, b->W);
            cb_vec_put(b, (uint32_t *)(uintptr_t)sv);
            cb_add_partner(b, ro[x].member, r);
        } else if (ro[x].kind == ROLE_EXIT) {
            cb_exit_receive(b, cb_instance_get(b, ro[x].id), ro[x].member, r, v);   /* set up: the wait above */
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
                if (cb_stamp_window(b, r, x, v))
                    return -1;
            }
        }
    } else if (b->npart) {
        /* Fig. 5: climb while the partners lie outside and the clusters cannot merge */
        uint32_t k = 0;
        for (; k < b->L; k++) {
            uint32_t usize;
            if (!cb_outside_clusters(b, k, r, &usize))
                break;
            int mr = cb_try_merge(b, k, r, i);
            if (mr < 0)
                return -1;
            if (mr)
                break;
            st->creceives[k]++;
        }
        if (cb_stamp(b, r, i, k, 1))
            return -1;
        st->receives++;
        st->paper_entries += k < b->L ? (double)b->cmap[k][b->cluster_of[k][r]].n : (double)b->N;
        st->top_events += k == b->L;
    } else {
        uint32_t c = b->cluster_of[0][r];
        const struct rec_last *last = &b->last[r];
        if (!ci_recs_count(b->recs, r) || last->level != 0 || last->cluster != c || last->size != b->cmap[0][c].n)
            if (cb_stamp(b, r, i, 0, 0))
                return -1;
        st->paper_entries += (double)b->cmap[0][c].n;
    }
    if (b->structure && b->sweeps)
        cb_sweep_event(b, r, b->npart != 0);
    for (size_t x = 0; x < nr; x++) {
        if (ro[x].kind == ROLE_SEND) {
            uint32_t *sv = cb_vec_copy(b, v);
            if (!sv || u64map_put(&b->sent, ro[x].id, (uintptr_t)sv) != 0) {
                free(sv);
                b->oom = 1;
                return -1;
            }
        } else if (ro[x].kind == ROLE_ENTER) {
            struct instance *in = cb_instance_get(b, ro[x].id);
            if (!in)
                return -1;
            cb_enter_send(b, in, ro[x].member, v);
            cb_instance_retire(b, ro[x].id, in);
        } else if (ro[x].kind == ROLE_EXIT) {
            struct instance *in = cb_instance_get(b, ro[x].id);
            if (!in)
                return -1;
            in->exited++;
            cb_instance_retire(b, ro[x].id, in);
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
void cb_pass_free(struct builder *b)
{
    for (size_t s = 0; s < b->under_way.cap; s++)
        if (b->under_way.used[s]) {
            struct instance *in = (struct instance *)(uintptr_t)b->under_way.values[s];
            cb_instance_free(b, in);
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

/* A pass's per-rank positions and scratch: the first builder's and a
 * pass thread's copy's alike (cb_pass_state_free frees them). 0, or -1. */
int cb_pass_arrays_new(struct builder *b)
{
    size_t N = b->N;
    b->rwin = calloc(N, sizeof *b->rwin);
    b->pos = calloc(N, sizeof *b->pos);
    b->rpos = calloc(N, sizeof *b->rpos);
    b->rcur = calloc(N, sizeof *b->rcur);
    b->mark = calloc(N, sizeof *b->mark);
    b->part = malloc(sizeof *b->part * N);
    b->clist = malloc(sizeof *b->clist * N);
    return b->rwin && b->pos && b->rpos && b->rcur && b->mark && b->part && b->clist ? 0 : -1;
}

/* A window pass's vectors and key chunks, Wmax columns of every rank
 * (what was there before is freed). 0, or -1. */
int cb_window_arrays_new(struct builder *b)
{
    size_t N = b->N;
    free(b->cur);
    b->cur = calloc(N * b->Wmax, sizeof *b->cur);
    b->key = malloc(sizeof *b->key * N * b->Wmax);
    b->keytop = malloc(sizeof *b->keytop * N * b->cpw);
    return b->cur && b->key && b->keytop ? 0 : -1;
}

/* What a builder runs its passes with: the same for the first builder
 * and a pass thread's copy (causal_passes.c). */
void cb_pass_state_free(struct builder *b)
{
    cb_encoder_free(b);   /* first: its thread may still use the streams and keys */
    cb_pass_free(b);
    free(b->free_vecs);
    cb_roles_free(b);
    free(b->rwin);
    ci_recs_free(b->recs);
    ci_entries_free(b->ent);
    free(b->cur);
    free(b->key);
    free(b->keytop);
    free(b->pos);
    free(b->rpos);
    free(b->rcur);
    free(b->part);
    free(b->clist);
    free(b->mark);
    cb_streams_free(b);   /* every block written before a file closes */
}

static void builder_free(struct builder *b)
{
    cb_pass_state_free(b);
    free(b->coll_off);
    free(b->role_first);
    free(b->last);
    free(b->nroles);
    for (uint32_t k = 0; k < b->L; k++) {
        free(b->cluster_of[k]);
        for (uint32_t c = 0; b->cmap[k] && c < b->N; c++)
            free(b->cmap[k][c].v);
        free(b->cmap[k]);
        free(b->gcr[k]);
    }
    if (b->fd >= 0) {
        close(b->fd);
        unlink(b->cfg->entries_file);
    }
    cb_windows_free(b);
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
const char *cb_build_error(const struct builder *b)
{
    if (cb_cancelled(b))
        return "cancelled";
    if (b->roles_failed)
        return b->roles->err;
    if (b->coll_failed && mg_colls_error(b->match))
        return mg_colls_error(b->match);
    if (b->recs && *ci_recs_error(b->recs))
        return ci_recs_error(b->recs);
    if (b->ent && *ci_entries_error(b->ent))
        return ci_entries_error(b->ent);
    for (uint32_t t = 0; t < b->nmore_ent; t++)
        if (*ci_entries_error(b->more_ent[t]))
            return ci_entries_error(b->more_ent[t]);
    if (b->write_errno)
        return write_problem(b);
    return "out of memory";
}

/* Run every rank until each is done or waits on another: one pass in
 * causal order. Returns 0, or -1 with a message. */
int cb_run_pass(struct builder *b, uint32_t *waiters, uint32_t *next_waiter, uint32_t *stack, uint8_t *queued,
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
            int s = (++b->steps & 0xFFFF) == 1 && cb_cancelled(b) ? -1 : step(b, r, &wait);
            if (s < 0) {
                snprintf(err, errlen, "causal index: %s", cb_build_error(b));
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
    if (cb_encoder_drain(b) != 0) {
        snprintf(err, errlen, "causal index: %s", cb_build_error(b));
        return -1;
    }
    cb_pass_free(b);
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
    b.role_first = calloc(N, sizeof *b.role_first);
    b.nroles = calloc(N, sizeof *b.nroles);
    b.last = calloc(N, sizeof *b.last);
    int arrays = cb_pass_arrays_new(&b);
    uint32_t *waiters = malloc(sizeof *waiters * N), *next_waiter = malloc(sizeof *next_waiter * N);
    uint32_t *stack = malloc(sizeof *stack * N);
    uint8_t *queued = calloc(N, 1);
    int ok = arrays == 0 && b.cur && b.role_first && b.nroles && b.last && waiters && next_waiter && stack && queued;
    for (uint32_t k = 0; ok && k < b.L; k++) {
        b.cluster_of[k] = malloc(sizeof *b.cluster_of[k] * N);
        b.cmap[k] = calloc(N, sizeof *b.cmap[k]);
        b.gcr[k] = malloc(sizeof *b.gcr[k] * N);
        ok = b.cluster_of[k] && b.cmap[k] && b.gcr[k];
        for (uint32_t r = 0; ok && r < N; r++) {
            b.cluster_of[k][r] = r;
            b.gcr[k][r] = CI_NONE;
            ok = cb_u32_push(&b.cmap[k][r], r) == 0;
        }
    }
    /* instances set aside are read back by number as the passes reach them */
    if (ok && match->coll_file && !(b.coll_off = malloc(sizeof *b.coll_off * (match->ncollectives ? match->ncollectives : 1))))
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "causal index: out of memory for %u ranks", nranks);
        goto done;
    }
    if (cb_setup_roles(&b, err, errlen) != 0)
        goto done;
    cb_pass_free(&b);
    const char *adir = cb_roles_dir(&b, b.aside_dir, sizeof b.aside_dir);
    if (adir != b.aside_dir)
        snprintf(b.aside_dir, sizeof b.aside_dir, "%s", adir);
    if (!(b.recs = ci_recs_new(b.N, b.L, b.aside_dir, ROLE_SORT_MEMORY, err, errlen)))
        goto done;

    /* the records, without vectors */
    b.structure = 1;
    if (cb_run_pass(&b, waiters, next_waiter, stack, queued, err, errlen) != 0)
        goto done;
    b.structure = 0;
    if (ci_recs_seal(b.recs) != 0) {
        snprintf(err, errlen, "causal index: %s", ci_recs_error(b.recs));
        goto done;
    }
    if (sweeps)
        cb_sweep_flush(&b);   /* the last item */
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
    int windows = cb_window_arrays_new(&b);
    if (!(b.ent = ci_entries_new(b.nentries, b.aside_dir, err, errlen)))
        goto done;
    /* the file: header, chunk codes' lines (their size is known now), chunk bytes */
    uint64_t codes_size = sizeof(struct ci_line) * ((b.ntop * b.nchunks + CI_LINE_CODES - 1) / CI_LINE_CODES);
    /* the chunks' bytes are most of the file: written by a thread of their
     * own (blockqueue.h) while the pass goes on */
    if (windows != 0 || (b.fd >= 0 && !(b.bq = bq_new(CI_HASH_BLOCK, 4)))) {
        snprintf(err, errlen, "causal index: out of memory for %u ranks (%u columns at once)", nranks, b.Wmax);
        goto done;
    }
    cb_os_open(&b.codes, b.fd, b.skip, &b.write_errno, b.bq);
    cb_os_open(&b.bytes, b.fd, b.skip + ((codes_size + 7) & ~(uint64_t)7), &b.write_errno, b.bq);
    stats->window = b.Wmax;
    stats->vector_bytes = (size_t)(4 * ((uint64_t)b.peak + 2 * N) * b.Wmax + 8 * N * b.cpw);
    if (cb_run_windows(&b, cfg->threads ? cfg->threads : 1, err, errlen) != 0)
        goto done;
    cb_release_replay(&b);
    if (cb_finish(&b, out) != 0) {
        ci_free(out);
        snprintf(err, errlen, "causal index: %s", cb_build_error(&b));
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
