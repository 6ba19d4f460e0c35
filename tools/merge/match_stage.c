/* match_stage.c — the events read rank by rank and handed to the match as
 * they come (tools/match/), with the one-sided operations' orderings and
 * the true times' store; a location's events leave memory beyond
 * --event-memory. */
#include <config.h>
#include "merge_state.h"
#include "collstream.h"
#include "msgstream.h"
#include "rawtrace.h"
#include "rma_flow.h"

#include <stdio.h>
#include <stdlib.h>

/* What the match needs while the events are read: the matcher and the
 * one-sided orderings. */
struct fused {
    struct merge_state *st;
    struct mg_matcher *matcher;
    struct rma_orderer *rma;
};

static uint64_t chunk_of(void *ctx, uint32_t r)
{
    const struct fused *f = ctx;
    return merge_read_chunk(f->st, r);
}

/* True times of location `loc` go to the store, made at the first. */
struct truth_put {
    struct merge_state *st;
    uint32_t loc;
};

static int put_truth(void *ctx, uint64_t from, uint64_t n, const uint64_t *raw, const uint64_t *known)
{
    struct truth_put *tp = ctx;
    merge_put_truth(tp->st, tp->loc, from, n, raw, known);
    return 0;
}

/* A chunk of a location's events is read (one at a time: read_stage.c
 * serialises); `last` ends the location. */
static int hand_over(void *ctx, uint32_t r, int last, char *err, size_t errlen)
{
    struct fused *f = ctx;
    struct merge_state *st = f->st;
    /* a failure sticks in the matcher or the orderer: their ends say it */
    mg_match_chunk(f->matcher, r, last);
    rma_order_chunk(f->rma, r, last);
    /* the true times leave memory for the store */
    struct truth_put tp = { st, r };
    if (rt_truth_hand(&st->locs[r], last, put_truth, &tp) != 0)
        return -1;
    return merge_keep_or_set_aside(st, r, NULL, err, errlen);
}

/* The parallel merge's process 0: what the workers read, handed over. */
static int take_remote(void *ctx, pthread_mutex_t *lock, char **errors, int *finalized, char *err, size_t errlen)
{
    struct fused *f = ctx;
    return pm_receive_locations(f->st, f->matcher, f->rma, lock, errors, finalized, err, errlen);
}

/* The events, read rank by rank and handed to the match as they come:
 * sends, receives, calls and requests go into its sorts (match.c), and a
 * location's events leave memory beyond --event-memory. Then the pairing. */
int merge_match(struct merge_state *st)
{
    char err[4400];
    uint64_t held;
    if (merge_plan_keeping(st, &held) != 0) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    /* the matched messages share the budget: what the kept events leave */
    struct mg_sort_config sort = { st->opt.spill_dir, st->opt.sort_memory, (size_t)(st->opt.event_memory - held) };
    struct fused f = { st, NULL, NULL };
    if (!(f.matcher = mg_match_begin(st->locs, st->nlocs, &sort, &st->match, err, sizeof err))) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        return -1;
    }
    if (!(f.rma = rma_order_begin(st->locs, st->nlocs, &st->match))) {
        mg_match_abandon(f.matcher);
        fprintf(stderr, "synctrace merge: out of memory while ordering one-sided operations\n");
        return -1;
    }
    struct merge_hand_over h = { chunk_of, hand_over, &f, 0, 0, NULL, NULL, NULL };
    if (st->share) {   /* process 0 of the parallel merge reads its share and takes the workers' */
        h.first = st->share[0];
        h.end = st->share[1];
        h.remote = take_remote;
    }
    int rc = merge_read_events(st, &h);
    st->rep.seconds_read += st_now_s() - st->t_read_start;
    if (rc != 0) {
        mg_match_abandon(f.matcher);
        rma_order_free(f.rma);
        return -1;
    }
    if (mg_match_end(f.matcher, err, sizeof err) != 0
        || rma_order_end(f.rma, &st->match.rma_flows, &st->match.nrma_flows, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace merge: %s\n", err);
        rma_order_free(f.rma);
        return -1;
    }
    rma_order_free(f.rma);
    st->match.outside = &st->outside;
    st->rep.sort_memory = sort.memory;
    st->rep.sort_runs = st->match.sort_runs;
    st->rep.sort_spilled_bytes = st->match.sort_spilled_bytes;
    st->rep.events_set_aside_bytes = rt_spill_bytes(st->spill);
    st->rep.messages_set_aside_bytes = ms_file_bytes(st->match.message_file);
    st->rep.collectives_set_aside_bytes = mc_file_bytes(st->match.coll_file);
    return 0;
}
