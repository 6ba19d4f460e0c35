/* report.h — what a merge did and how precise it is: report.json for
 * scripts, report.txt for people (`synctrace report OUT`). */
#ifndef SYNCTRACE_REPORT_H
#define SYNCTRACE_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "clockmodel.h"
#include "match.h"
#include "rawtrace.h"

struct report_domain {
    int id;
    double offset_ns, drift_ppm, lo_ns, hi_ns;
    int has_truth;
    double true_offset_ns;    /* truth-derived offset relative to the reference */
    int inside;               /* true offset within [lo, hi] (+ delta) */
    int drift_rejected;
};

struct report {
    uint32_t ranks;
    uint32_t incomplete_ranks;   /* ranks that ended without MPI_Finalize */
    uint64_t events;
    size_t messages, collectives, unmatched_sends, unmatched_recvs, incomplete_collectives, cancelled;
    size_t tachyons_raw, tachyons_after, latency_violations_after, collective_violations_after;
    size_t nonmonotonic_after;
    uint32_t vertices, hubs, unbounded;
    size_t edges;
    double delta_ns, median_rate;
    int drift_dropped;        /* the drift model contradicted the events more than no drift */
    int drift_refined;        /* passes of drift refinement from the events that were kept */
    int have_pairs;
    double pair_max_ns, pair_mean_ns;
    struct report_domain *domains;
    uint32_t ndomains;
    int have_truth;
    double true_err_max_ns, true_err_median_ns, raw_err_max_ns, raw_err_median_ns;
    double interval_distortion_max_ns;
    uint32_t domains_inside;
    size_t truth_violating_messages, truth_violating_collectives;   /* constraints the truth breaks */
    double seconds_read, seconds_match, seconds_solve, seconds_apply, seconds_write, seconds_total;
    /* a few unmatched operations, for people to look at */
    char unmatched_examples[1024];
};

void report_init(struct report *r);
void report_fill(struct report *r, const struct rt_rank *ranks, uint32_t nranks, const struct mg_result *match,
                 const struct cm_model *m, const double *x, const double *lo, const double *hi, uint32_t tau,
                 const double *lmin, uint64_t *const *gtime, uint64_t *const *truth);
int report_write(const struct report *r, const char *dir, char *err, size_t errlen);
void report_print_summary(const struct report *r, FILE *to);
void report_free(struct report *r);

#endif
