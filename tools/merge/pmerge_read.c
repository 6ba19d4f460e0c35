/* pmerge_read.c — the parallel merge's read (pmerge.h): a worker reads
 * its share of the rank archives, walks each location for the match
 * where it reads it, and sends process 0 what the stages between the
 * match and the write need (locstream.h), keeping the events themselves
 * for its own write; process 0 hands each record on as if its own read
 * had made it. The records come in whatever order the workers' threads
 * read them in, like its own threads' hand-overs: the match's result does
 * not depend on that order (match.h). */
#include <config.h>
#include "locstream.h"
#include "merge_state.h"
#include "pmerge.h"
#include "rma_flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE_BYTES ((size_t)4 << 20)   /* a worker sends its stream in pieces of about this */

/* ---------- a worker ---------- */

struct worker {
    struct merge_state *st;
    struct mg_matcher *matcher;   /* relays its records into `pending` */
    struct rma_orderer *rma;
    struct ls_buf out;            /* records not sent yet */
    struct ls_buf pending[MG_SINKS];   /* the chunk's match records, by sort */
    int *finalized;               /* per rank: its main location entered MPI_Finalize (read_stage.c fills it) */
    uint32_t loc;                 /* the location being handed over */
};

static void send_out(struct worker *w)
{
    if (w->out.n)
        pm_send_piece(w->out.v, w->out.n);
    w->out.n = 0;
}

/* The match records of one sort gathered so far, as one record of the
 * stream (of the location being handed over): 0, or -1 out of memory. */
static int flush_pending(struct worker *w, int which)
{
    struct ls_buf *b = &w->pending[which];
    if (!b->n)
        return 0;
    const void *part = b->v;
    size_t len = b->n;
    b->n = 0;
    return ls_put(&w->out, LS_SENDS + (uint32_t)which, w->loc, 1, &part, &len);
}

/* A record of the walk (mg_match_chunk), gathered by sort; sent on as the
 * pieces fill, so that a large chunk's records are not all held at once. */
static int relay(void *ctx, enum mg_sink which, const void *record)
{
    struct worker *w = ctx;
    struct ls_buf *b = &w->pending[which];
    size_t size = mg_record_size(which);
    if (ls_reserve(b, size) != 0)
        return -1;
    memcpy(b->v + b->n, record, size);
    b->n += size;
    if (b->n >= PIECE_BYTES / 4) {
        if (flush_pending(w, which) != 0)
            return -1;
        if (w->out.n >= PIECE_BYTES)
            send_out(w);
    }
    return 0;
}

/* A worker's true times go to process 0 (its report) and to its own
 * store (the true_time attributes it writes). */
static int put_truth(void *ctx, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known)
{
    struct worker *w = ctx;
    merge_put_truth(w->st, w->loc, from, n, raw, known);
    return ls_put_truth(&w->out, w->loc, from, n, raw, known);
}

static uint64_t worker_chunk(void *ctx, uint32_t r)
{
    struct worker *w = ctx;
    return merge_read_chunk(w->st, r);
}

/* A chunk of location r read: its records, times and true times into the
 * stream; its events kept or set aside for the write; at its last chunk
 * what the location is. */
static int worker_done(void *ctx, uint32_t r, int last, char *err, size_t errlen)
{
    struct worker *w = ctx;
    struct merge_state *st = w->st;
    struct rt_location *loc = &st->locs[r];
    w->loc = r;
    if (mg_match_chunk(w->matcher, r, last) != 0 || rma_order_chunk(w->rma, r, last) != 0) {
        snprintf(err, errlen, "out of memory while matching the events of %s", loc->path ? loc->path : "?");
        return -1;
    }
    for (int k = 0; k < MG_SINKS; k++)
        flush_pending(w, k);   /* a failure sticks in w->out */
    /* the chunk's times: to process 0, and with the events if they are set aside */
    struct rt_times *t = loc->nheld ? rt_times_of(loc->events, loc->nheld) : NULL;
    if ((loc->nheld && (!t || ls_put_times(&w->out, r, loc->events_from, t) != 0))
        || rt_truth_hand(loc, last, put_truth, w) != 0 || w->out.failed) {
        rt_times_free(t);
        snprintf(err, errlen, "out of memory while reading %s", loc->path ? loc->path : "?");
        return -1;
    }
    int kept = merge_keep_or_set_aside(st, r, t, err, errlen);
    rt_times_free(t);
    if (kept != 0)
        return -1;
    if (last) {
        void *packed;
        size_t len;
        if (rma_order_pack(w->rma, r, &packed, &len) != 0) {
            snprintf(err, errlen, "out of memory while ordering one-sided operations");
            return -1;
        }
        if (packed)
            ls_put(&w->out, LS_RMA, r, 1, (const void *const *)&packed, &len);
        free(packed);
        struct ls_location l = { loc->nevents, loc->trace_length, loc->recovered_from_records, loc->nsources,
                                 loc->nsource_words, { 0, 0, 0, 0 }, loc->recovered_records_file,
                                 !loc->thread && w->finalized[loc->rank] };
        rt_facts(loc, &l.facts);
        ls_put_location(&w->out, r, &l, loc->sources, loc->source_words);
    }
    if (w->out.failed) {
        snprintf(err, errlen, "out of memory while reading %s", loc->path ? loc->path : "?");
        return -1;
    }
    if (w->out.n >= PIECE_BYTES)
        send_out(w);
    return 0;
}

static int worker_rank_failed(void *ctx, uint32_t rank, const char *message)
{
    struct worker *w = ctx;
    const void *part = message;
    size_t len = strlen(message) + 1;
    return ls_put(&w->out, LS_ERROR, rank, 1, &part, &len);
}

int pm_worker_read(struct merge_state *st)
{
    char err[4400];
    struct worker w = { .st = st };
    struct mg_sort_config sort = { st->opt.spill_dir, st->opt.sort_memory, SIZE_MAX };
    int rc = -1;
    uint64_t held;
    w.finalized = calloc(st->nanchors > 0 ? (size_t)st->nanchors : 1, sizeof *w.finalized);
    if (!w.finalized || merge_plan_keeping(st, &held) != 0)
        snprintf(err, sizeof err, "out of memory");
    else if (!(w.matcher = mg_match_begin_relay(st->locs, st->nlocs, &sort, relay, &w, &st->match, err, sizeof err)))
        ;
    else if (!(w.rma = rma_order_begin(st->locs, st->nlocs, &st->match)))
        snprintf(err, sizeof err, "out of memory while ordering one-sided operations");
    else {
        const struct merge_hand_over h = { worker_chunk, worker_done, &w, st->share[st->place],
                                           st->share[st->place + 1], NULL, worker_rank_failed, w.finalized };
        st->match.outside = &st->outside;
        rc = merge_read_events(st, &h);
        struct ls_counts c = { st->match.outside_sends, st->match.outside_recvs, st->match.cancelled };
        const void *part = &c;
        size_t len = sizeof c;
        ls_put(&w.out, LS_COUNTS, 0, 1, &part, &len);
    }
    if (!w.matcher || !w.rma || !w.finalized) {
        /* nothing was read: process 0 hears why, as the first rank's failure */
        worker_rank_failed(&w, st->share[st->place], err);
    }
    ls_put(&w.out, LS_END, 0, 0, NULL, NULL);
    if (w.out.failed) {
        /* process 0 must hear the end of this stream whatever happened */
        struct ls_buf last = { 0 };
        const void *part = "out of memory while sending what was read";
        size_t len = strlen(part) + 1;
        ls_put(&last, LS_ERROR, st->share[st->place], 1, &part, &len);
        ls_put(&last, LS_END, 0, 0, NULL, NULL);
        pm_send_piece(last.v, last.n);
        ls_buf_free(&last);
        rc = -1;
    } else {
        send_out(&w);
    }
    if (w.matcher)
        mg_match_relay_end(w.matcher);
    rma_order_free(w.rma);
    for (int k = 0; k < MG_SINKS; k++)
        ls_buf_free(&w.pending[k]);
    ls_buf_free(&w.out);
    free(w.finalized);
    return rc;
}

/* ---------- process 0 ---------- */

/* One record of a worker's stream handed over: 0, 1 at its end, or -1
 * when the bytes are not what a worker sends (err says so). */
static int take_record(struct merge_state *st, struct mg_matcher *m, struct rma_orderer *rma,
                       const struct ls_record *rec, char **errors, int *finalized, uint32_t from, char *err,
                       size_t errlen)
{
    if (rec->kind != LS_END && rec->kind != LS_COUNTS && rec->kind != LS_ERROR && rec->loc >= st->nlocs)
        goto bad;
    struct rt_location *loc = rec->kind == LS_ERROR || rec->kind == LS_END || rec->kind == LS_COUNTS
                          ? NULL : &st->locs[rec->loc];
    switch (rec->kind) {
    case LS_TIMES: {
        uint64_t first;
        struct rt_times view;
        if (ls_get_times(rec, &first, &view) != 0)
            goto bad;
        if (!st->spill && !(st->spill = rt_spill_new(st->opt.spill_dir, err, errlen)))
            return -1;
        if (rt_spill_times(st->spill, loc, first, &view) != 0) {
            snprintf(err, errlen, "%s", rt_spill_error(st->spill));
            return -1;
        }
        return 0;
    }
    case LS_TRUTH: {
        uint64_t first, n;
        const uint64_t *raw, *known;
        if (ls_get_truth(rec, &first, &n, &raw, &known) != 0)
            goto bad;
        merge_put_truth(st, rec->loc, first, n, raw, known);
        return 0;
    }
    case LS_SENDS: case LS_RECVS: case LS_CALLS: case LS_REQUESTS: {
        enum mg_sink which = (enum mg_sink)(rec->kind - LS_SENDS);
        size_t size = mg_record_size(which);
        if (rec->len % size)
            goto bad;
        mg_match_put(m, which, rec->p, rec->len / size);   /* a failure sticks: the match's end says it */
        return 0;
    }
    case LS_RMA:
        if (rma_order_unpack(rma, rec->loc, rec->p, rec->len) != 0)
            goto bad;
        return 0;
    case LS_LOCATION: {
        struct ls_location l;
        const struct rt_sources *src;
        const uint64_t *words;
        if (ls_get_location(rec, &l, &src, &words) != 0 || loc->sources || loc->source_words)
            goto bad;
        loc->nevents = l.nevents;
        loc->trace_length = l.trace_length;
        loc->recovered_from_records = l.recovered_from_records;
        loc->recovered_records_file = l.recovered_records_file;
        loc->spilled_facts = l.facts;
        if ((l.nsources && !(loc->sources = malloc(sizeof *src * l.nsources)))
            || (l.nwords && !(loc->source_words = malloc(sizeof *words * l.nwords)))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (l.nsources)
            memcpy(loc->sources, src, sizeof *src * l.nsources);
        if (l.nwords)
            memcpy(loc->source_words, words, sizeof *words * l.nwords);
        loc->nsources = l.nsources;
        loc->nsource_words = l.nwords;
        if (!loc->thread && loc->rank >= 0 && (int64_t)loc->rank < (int64_t)st->nanchors)
            finalized[loc->rank] = l.finalized;
        return 0;
    }
    case LS_COUNTS: {
        struct ls_counts c;
        if (rec->len != sizeof c)
            goto bad;
        memcpy(&c, rec->p, sizeof c);
        mg_match_add_counts(m, c.outside_sends, c.outside_recvs, c.cancelled);
        return 0;
    }
    case LS_ERROR:
        if (!rec->len || rec->p[rec->len - 1] != '\0')
            goto bad;
        if (rec->loc == UINT32_MAX || rec->loc >= (uint32_t)st->nanchors) {
            snprintf(err, errlen, "process %u: %s", from, (const char *)rec->p);
            return -1;
        }
        if (!errors[rec->loc] && !(errors[rec->loc] = strdup((const char *)rec->p))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        return 0;
    case LS_END:
        return 1;
    default:
        break;
    }
bad:
    snprintf(err, errlen, "process %u sent what the merge does not understand (record kind %u, location %u)", from,
             rec->kind, rec->loc);
    return -1;
}

int pm_receive_locations(struct merge_state *st, struct mg_matcher *m, struct rma_orderer *rma, pthread_mutex_t *lock,
                         char **errors, int *finalized, char *err, size_t errlen)
{
    uint32_t workers = pm_processes() - 1, ended = 0;
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    int rc = 0;
    /* every worker's stream is taken to its end, whatever fails: a worker
     * blocked in a send would never end */
    while (ended < workers) {
        uint32_t from = pm_receive_piece(&buf, &cap, &len);
        size_t at = 0;
        struct ls_record rec;
        int more;
        pthread_mutex_lock(lock);
        while ((more = ls_next(buf, len, &at, &rec)) > 0) {
            if (rec.kind == LS_END) {
                ended++;
                continue;
            }
            if (rc == 0 && take_record(st, m, rma, &rec, errors, finalized, from, err, errlen) < 0)
                rc = -1;
        }
        pthread_mutex_unlock(lock);
        if (more < 0) {
            /* its end may be in what cannot be read: waiting for it could be forever */
            fprintf(stderr, "synctrace merge: process %u sent a stream cut short\n", from);
            pm_abort();
        }
    }
    free(buf);
    st->streams_taken = 1;
    return rc;
}

void pm_drain_locations(void)
{
    uint32_t workers = pm_processes() - 1, ended = 0;
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    while (ended < workers) {
        pm_receive_piece(&buf, &cap, &len);
        size_t at = 0;
        struct ls_record rec;
        while (ls_next(buf, len, &at, &rec) > 0)
            ended += rec.kind == LS_END;
    }
    free(buf);
}
