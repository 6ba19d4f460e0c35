/* unit_clockmodel.c — tools/clock/clockmodel.c's offset estimates from the
 * sync rounds (cm_build), on two ranks without events whose rounds are
 * given: with a physical drift the line passes through the first round;
 * with a drift beyond --max-drift-ppm (two rounds 1.5 ms apart 3.2 us
 * apart: 2,133 ppm) the drift is held at 0 and the line fits both rounds
 * alike, at their mean, as if both had measured it. */
#include "clockmodel.h"
#include "tap.h"

#include <math.h>
#include <string.h>

/* Rank 1's first segment estimate (x_est) with its two rounds at local
 * ticks t1, t2 (1 GHz) measuring offsets o1, o2 against rank 0 (whose own
 * are 0); *rejected whether its drift was. */
static double estimate(int64_t o1, int64_t o2, int *rejected)
{
    static struct rt_offset ref[2], peer[2];
    struct rt_location ranks[2];
    memset(ranks, 0, sizeof ranks);
    const uint64_t t1 = 1000000000ULL, t2 = t1 + 1500000;
    ref[0] = (struct rt_offset){ t1, 0, 0 };
    ref[1] = (struct rt_offset){ t2, 0, 0 };
    peer[0] = (struct rt_offset){ t1, o1, 5000 };
    peer[1] = (struct rt_offset){ t2, o2, 5000 };
    for (int r = 0; r < 2; r++) {
        ranks[r].rank = r;
        ranks[r].domain = r;
        ranks[r].world_size = 2;
        ranks[r].resolution = 1000000000ULL;
        ranks[r].global_offset = t1 - 1000;
        ranks[r].offsets = r ? peer : ref;
        ranks[r].noffsets = 2;
    }
    struct cm_model m;
    if (cm_build(ranks, 2, 0, CM_LINE, 200e-6, &m) != 0)
        return NAN;
    uint32_t d = m.domain_of[1];
    double x = m.domains[d].seg[0].x_est;
    *rejected = m.domains[d].drift_rejected;
    cm_free(&m);
    return x;
}

int main(void)
{
    int rej_same, rej_mean, rej_phys, rej_first;
    /* rounds 3.2 us apart over 1.5 ms; the same clock measured 1.6 us
     * higher at its first round alone, with no drift */
    double wild = estimate(1000000, 1003200, &rej_same);
    double mean = estimate(1001600, 1001600, &rej_mean);
    ok(rej_same && !rej_mean, "a drift of 2,133 ppm between the rounds is rejected, none is not (%d, %d)", rej_same,
       rej_mean);
    ok(fabs(wild - mean) < 1e-3, "rejected: the line sits at the rounds' mean, %.3f ns, as a clock measured there "
       "by both (%.3f ns)", wild, mean);
    /* a physical drift (100 ppm: 150 ns over 1.5 ms) keeps the line through
     * the first round, as interpolating the ClockOffsets does: at the
     * clock's start, 1 us before that round, 0.1 ns lower */
    double phys = estimate(1000000, 1000150, &rej_phys);
    double first = estimate(1000000, 1000000, &rej_first);
    ok(!rej_phys && !rej_first && fabs(phys - (first - 100e-6 * 1000)) < 1e-3,
       "a physical drift: the line through the first round, %.3f ns at the start (%.3f - 0.1)", phys, first);
    return tap_finish();
}
