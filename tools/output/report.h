/* report.h — what a merge did and how precise it is: report.json for
 * scripts, report.txt for people (`synctrace report OUT`). */
#ifndef SYNCTRACE_REPORT_H
#define SYNCTRACE_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "clc.h"
#include "clockmodel.h"
#include "causal_report.h"
#include "gtime.h"
#include "truthstore.h"
#include "match.h"
#include "rawtrace.h"

/* A clock between two sync rounds (clockmodel.h): offset against the
 * reference at its start, drift, bounds. */
struct report_segment {
    double start_ns;          /* local time since the domain's first event */
    double offset_ns, drift_ppm, lo_ns, hi_ns;
    int has_truth;
    double true_offset_ns;
    int inside;
    int drift_rejected;
};

/* A clock domain: its first segment's figures, the run's mean drift, and
 * whether the truth lies inside the bounds of every segment. */
struct report_domain {
    int id;
    double offset_ns, drift_ppm, lo_ns, hi_ns;
    int has_truth;
    double true_offset_ns;    /* truth-derived offset relative to the reference */
    int inside;               /* true offsets within [lo, hi] (+ delta), in every segment */
    int drift_rejected;
    uint32_t nsegments, first_segment;   /* into report.segments */
    /* Beyond its sync rounds: how far its events lie before the first and
     * after the last (local ns), where its drift is extrapolated, and the
     * bound the drift's uncertainty leaves on the offset at the farthest
     * event; none for the time base. */
    double before_rounds_ns, after_rounds_ns, outside_bound_ns;
    int is_time_base;
    uint32_t sync_rounds;     /* its rounds, and the longest span of its run without one (ns): */
    double longest_without_round_ns;   /* where no round could be taken (periodic ones need world collectives) */         /* 1 held, 0 extrapolated, -1 the reference (the time base) */
};

/* A rank of a job that died: what it lost and why (losses.c). */
struct report_loss {
    int rank;
    char why[600];
};

struct report {
    uint32_t ranks;
    uint32_t threads;            /* locations besides the ranks' main ones */
    uint32_t incomplete_ranks;   /* ranks that ended without MPI_Finalize */
    struct report_loss *losses;  /* one per incomplete rank, in rank order */
    uint32_t nlosses;
    uint64_t events;
    size_t messages, collectives, unmatched_sends, unmatched_recvs, incomplete_collectives, cancelled;
    size_t thread_overlapping_collectives;   /* match.h: erroneous, said in report.json and the summary */
    /* processes outside the trace (spawned jobs, parents, connected jobs): how
     * many, and the messages and collectives with them (not unmatched) */
    uint32_t outside_processes;
    int spawned_jobs, spawned_jobs_skipped;   /* merged with the run; found but not linked to it */
    size_t outside_sends, outside_recvs, outside_collectives;
    size_t freed_receives;    /* sends paired with receives released by MPI_Request_free */
    uint64_t polling_regions;    /* regions that stand for a run of polling calls (collapsed_calls) */
    uint64_t polling_calls;      /* the calls they stand for */
    size_t tachyons_raw, tachyons_after, latency_violations_after, collective_violations_after;
    size_t collective_violations_raw;   /* the collectives' data flow broken with the ClockOffsets interpolated */
    size_t nonmonotonic_after;
    /* one-sided orderings MPI guarantees (rma_flow.h): fences and PSCW */
    size_t rma_flows, rma_violations_raw, rma_violations_after;
    /* neighbourhood collectives: (member, in-neighbour) pairs whose exit precedes the entry */
    size_t neighbour_violations_raw, neighbour_violations_after, neighbour_violations_truth;
    size_t neighbour_edges;
    uint32_t vertices, hubs, unbounded;
    size_t edges;
    /* hubstore.h: groups kept beside the graph (0: none), passes over them, pair vertices made */
    uint64_t hub_groups_beside, hub_passes, hub_pairs;
    double delta_ns, median_rate;
    /* repair.c: with delta > 0, the controlled logical clock's moves */
    int repair_done;
    size_t repair_jumps, repair_backward_moved;
    double repair_max_jump_ns;
    /* the streaming repair (clc_stream.h): its files, the sends and instances it held at most */
    uint64_t repair_disk_bytes, repair_max_in_flight, repair_max_open_instances;
    int drift_dropped;        /* the drift model contradicted the events more than no drift */
    int segments_used;        /* clocks cut at their sync rounds (the events contradicted one drift per clock) */
    int drift_refined;        /* passes of drift refinement from the events that were kept */
    int drift_searched;       /* solves of the drift search (model_select.c), 0: none */
    int drift_search_moves;   /* its steps kept: the drifts it moved */
    uint32_t drift_fitted;    /* clocks whose line the messages moved off their rounds' (drift_fit.c) */
    double max_drift_ppm;     /* the largest drift a clock may have (--max-drift-ppm): also the
                               * reference's against true time, which every merged interval inherits */
    int placed_estimates;     /* offsets at the rounds' estimates (else at alpha of their intervals) */
    double placed_alpha;
    uint32_t placed_moved;    /* clocks the messages moved off their estimate */
    int have_pairs;
    double pair_max_ns, pair_mean_ns;
    /* precision.c: over all pairs of clocks, or (pairs_sampled) over every
     * pair of pair_sources clocks chosen from pair_seed with the others */
    int pairs_sampled;
    uint32_t pair_domains, pair_sources;
    uint64_t pairs_measured, pair_seed;
    int pair_worst[2];        /* sampled: the clocks of the widest pair measured */
    double seconds_precision;
    struct report_domain *domains;
    uint32_t ndomains;
    struct report_segment *segments;
    uint32_t nsegments;
    int have_truth;
    double true_err_max_ns, true_err_median_ns, raw_err_max_ns, raw_err_median_ns;
    uint32_t true_err_max_rank;          /* where our largest error lies: event R:I ... */
    uint64_t true_err_max_index;
    double true_err_max_from_rounds_ns;  /* ... this far outside its clock's sync rounds (0: between them) */
    double interval_distortion_max_ns;
    double raw_interval_distortion_max_ns;   /* of the interpolated ClockOffsets */
    /* the controlled logical clock (Scalasca's repair) on the same input, with true_time only */
    int have_clc;
    size_t clc_tachyons_after, clc_collective_violations_after;
    double clc_err_max_ns, clc_err_median_ns, clc_interval_distortion_max_ns;
    struct clc_stats clc;
    double seconds_clc;
    uint32_t domains_inside;
    size_t truth_violating_messages, truth_violating_collectives;   /* constraints the truth breaks */
    uint64_t sort_memory, sort_spilled_bytes;   /* the match's sorts: their memory, what they spilled */
    uint64_t events_set_aside_bytes;   /* the events kept on disk from the match to the write (eventspill.h) */
    uint64_t messages_set_aside_bytes; /* the matched messages kept on disk (msgstream.h) */
    uint64_t collectives_set_aside_bytes; /* the matched collectives kept on disk (collstream.h) */
    uint32_t sort_runs;
    double seconds_read, seconds_match, seconds_solve, seconds_apply, seconds_write, seconds_total;
    const struct causal_summary *causal;   /* the causal index (causal_report.c), or NULL */
    /* a few unmatched operations, for people to look at */
    char unmatched_examples[1024];
};

void report_init(struct report *r);
void report_fill(struct report *r, const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                 const struct cm_model *m, const double *x, const double *lo, const double *hi, uint32_t tau,
                 double lmin, const struct gtime_map *gtime, struct truth_store *truth);
/* With true_time: how the controlled logical clock's global times ctime
 * (clc_correct) fare, measured as ours are. */
/* Times read by event: at(ctx, location, event). */
struct time_source {
    uint64_t (*at)(const void *ctx, uint32_t r, uint64_t i);
    const void *ctx;
};
void report_fill_clc(struct report *r, const struct rt_location *ranks, uint32_t nranks, const struct mg_result *match,
                     const struct time_source *ctime, struct truth_store *truth, const struct clc_stats *st,
                     double seconds);
int report_write(const struct report *r, const char *dir, char *err, size_t errlen);
void report_print_summary(const struct report *r, FILE *to);
void report_free(struct report *r);

#endif
