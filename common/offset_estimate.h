/* offset_estimate.h — the clock offset between two ranks from one sync
 * round's ping-pong samples. Plain C, no MPI: the tracer (src/sync.c) and
 * the trace generator (tools/gen/gen.c) must compute it identically. */
#ifndef SYNCTRACE_OFFSET_ESTIMATE_H
#define SYNCTRACE_OFFSET_ESTIMATE_H

#include <stdint.h>

/* One ping-pong: ping sent (t1) and pong arrived (t4) on the reference's
 * clock; ping arrived (t2) and pong sent (t3) on the peer's. */
struct sample {
    uint64_t t1, t2, t3, t4;
};

struct estimate {
    double offset_ns;    /* peer clock + offset = reference clock */
    double err_ns;       /* half the fastest round trip minus nothing: an upper bound of the midpoint error */
    double rtt_min_ns, rtt_median_ns, rtt_max_ns;
    uint64_t peer_time;  /* peer ticks at the chosen samples */
    double chosen_rtt_ns;
};

/* rate0, rate_p: the two clocks' ticks per second. */
struct estimate estimate_offset(const struct sample *s, int n, double rate0, double rate_p);

/* The offset from the samples' one-way bounds: every ping says the
 * offset is above t1 - t2, every pong that it is below t4 - t3, each at
 * its own time; their intersection, each bound widened by max_drift times
 * its distance from the round's middle, is the interval. Unlike the
 * midpoint of a round trip, it is tight when each direction was quick in
 * SOME exchange, not both in the same one: what background rounds need,
 * whose two sides notice messages only between the program's calls. Falls
 * back on estimate_offset when the bounds do not intersect (drift or
 * noise above max_drift). */
struct estimate estimate_offset_bounds(const struct sample *s, int n, double rate0, double rate_p, double max_drift);

/* The offset of a peer to the reference through an intermediate clock:
 * to_mid (peer to intermediate, one sync-tree edge) followed by
 * mid_to_ref (intermediate to reference, already composed). Offsets add,
 * and so do their error bounds; the sample times and round-trip figures
 * stay to_mid's, the peer's own. */
struct estimate estimate_compose(struct estimate to_mid, struct estimate mid_to_ref);

#endif
