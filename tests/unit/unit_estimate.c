/* unit_estimate.c — common/offset_estimate.c on synthetic ping-pongs with a
 * known offset and drift: estimate_offset_bounds (background rounds) holds
 * the true offset within its error, is tighter than the round-trip midpoint
 * when each direction was quick in a different exchange, and falls back on
 * estimate_offset when its bounds do not intersect. Clocks tick in ns. */
#include "offset_estimate.h"
#include "tap.h"

#include <math.h>

#define N 20

/* Peer clock P(tau) = tau * (1 + drift) - off; reference clock R(tau) = tau.
 * Exchange k leaves at tau = start + k * gap; the ping takes 1 us and is
 * noticed ping_late[k] later, the pong likewise with pong_late[k]. */
static void make(struct sample *s, double off, double drift, double start, double gap, const double *ping_late,
                 const double *pong_late)
{
    for (int k = 0; k < N; k++) {
        double t1 = start + k * gap;
        double seen = t1 + 1000 + ping_late[k];   /* true time the peer noticed the ping */
        double sent = seen + 200;
        double back = sent + 1000 + pong_late[k];
        s[k] = (struct sample){ (uint64_t)llround(t1), (uint64_t)llround(seen * (1 + drift) - off),
                                (uint64_t)llround(sent * (1 + drift) - off), (uint64_t)llround(back) };
    }
}

/* The true offset (reference - peer) at the peer's reading p. */
static double truth(double off, double drift, uint64_t p)
{
    double tau = ((double)p + off) / (1 + drift);
    return tau - ((double)p);
}

int main(void)
{
    double ping_late[N], pong_late[N];
    /* Each side notices late (20-60 us) except in one exchange each, and
     * never both in the same one: what polling between calls gives. */
    for (int k = 0; k < N; k++) {
        ping_late[k] = 20000 + 2000.0 * (k % 7);
        pong_late[k] = 25000 + 1500.0 * (k % 5);
    }
    ping_late[4] = 300;
    pong_late[13] = 500;
    struct sample s[N];
    const double off = 5e6;   /* 5 ms */

    make(s, off, 0, 1e9, 50e3, ping_late, pong_late);
    struct estimate mid = estimate_offset(s, N, 1e9, 1e9), b = estimate_offset_bounds(s, N, 1e9, 1e9, 100e-6);
    double t = truth(off, 0, b.peer_time);
    ok(fabs(b.offset_ns - t) <= b.err_ns, "no drift: the true offset %.0f ns within %.0f +- %.0f ns", t, b.offset_ns,
       b.err_ns);
    ok(b.err_ns < mid.err_ns / 10, "quick in different exchanges: bounds +-%.0f ns, round-trip midpoint +-%.0f ns",
       b.err_ns, mid.err_ns);
    /* The quick ping leaves 1.3 us below, the quick pong 1.5 us above; each
     * widened by 100 ppm of the ~241 us to the round's middle. */
    ok(b.err_ns >= 1400 && b.err_ns <= 1400 + 100e-6 * 245e3,
       "the bound is what the two quick notices leave, widened by the drift bound (+-%.1f ns)", b.err_ns);

    /* 50 ppm of drift over a 1 ms round: inside a 100 ppm widening. */
    make(s, off, 50e-6, 1e9, 50e3, ping_late, pong_late);
    b = estimate_offset_bounds(s, N, 1e9, 1e9, 100e-6);
    t = truth(off, 50e-6, b.peer_time);
    ok(fabs(b.offset_ns - t) <= b.err_ns, "50 ppm drift: the true offset %.0f ns within %.0f +- %.0f ns at its time",
       t, b.offset_ns, b.err_ns);

    /* Bounds that cannot both hold (a pong "received" before its ping was
     * answered, as clock noise beyond the drift bound would give): the
     * round-trip estimate, unchanged. */
    make(s, off, 0, 1e9, 50e3, ping_late, pong_late);
    s[7].t4 = s[7].t1 + 100;
    mid = estimate_offset(s, N, 1e9, 1e9);
    b = estimate_offset_bounds(s, N, 1e9, 1e9, 100e-6);
    ok(b.offset_ns == mid.offset_ns && b.err_ns == mid.err_ns && b.peer_time == mid.peer_time,
       "bounds that do not intersect: falls back on estimate_offset (%.0f +- %.0f ns)", b.offset_ns, b.err_ns);
    return tap_finish();
}
