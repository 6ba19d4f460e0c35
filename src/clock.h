/* synctrace: raw per-node clock, tick-rate calibration and optional skew injection.
 *
 * Timestamps are raw ticks of a per-node clock (never a synchronised one);
 * offline analysis aligns the clocks of different nodes.  st_clock_now() is on
 * the hot path of every traced MPI call, hence inline and branch-minimal.
 *
 * Threading: st_clock_init / st_clock_set_skew / st_clock_calibrate_final are
 * meant to run once, single-threaded (MPI_Init / MPI_Finalize); the read
 * functions are safe from any thread in between.
 */
#ifndef SYNCTRACE_CLOCK_H
#define SYNCTRACE_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "skew.h"
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

enum st_clock_kind { ST_CLOCK_TSC, ST_CLOCK_MONOTONIC_RAW, ST_CLOCK_MONOTONIC };

/* Global state; only read by the inline functions below.  Hot fields first so
 * a now() call touches a single cache line. */
struct st_clock_state {
    int kind;            /* enum st_clock_kind */
    int skew_on;         /* 1 when SYNCTRACE_SKEW distortion is active */
    clockid_t clockid;   /* for the clock_gettime kinds */
    uint64_t origin;     /* raw value read in st_clock_set_skew */
    int64_t off_ticks;   /* injected offset in ticks */
    int64_t drift_fp;    /* injected drift as 2^-32 fixed point, |drift| <= 0.1 */
    /* cold */
    int initialized;
    double ticks_per_sec;
    uint64_t anchor_ticks; /* raw ticks at st_clock_init (calibration start) */
    uint64_t anchor_ns;    /* CLOCK_MONOTONIC_RAW ns at the same instant */
    double skew_offset_us;
    double skew_drift_ppm;
};
extern struct st_clock_state st_clock_g;

int st_clock_init(const char *request, char *err, size_t errlen);
int st_clock_set_skew(const char *spec, int rank, char *err, size_t errlen);
int st_clock_skew_enabled(void);
double st_clock_skew_offset_us(void);
double st_clock_skew_drift_ppm(void);
uint64_t st_clock_distort(uint64_t raw);
enum st_clock_kind st_clock_kind(void);
const char *st_clock_name(void);
double st_clock_ticks_per_second(void);
double st_clock_calibrate_final(void);
const char *st_clock_hostname(void);

/* Before MPI_Init the clock is not chosen yet (its choice is configured and
 * agreed on inside it): every candidate is read, and once st_clock_init has
 * chosen, st_clock_early_raw gives the reading of the chosen one, in its
 * raw ticks (skew applies as to any raw value: st_clock_distort). */
struct st_clock_early {
    uint64_t tsc, monotonic_raw_ns, monotonic_ns;
};
void st_clock_early_read(struct st_clock_early *e);
uint64_t st_clock_early_raw(const struct st_clock_early *e);

static inline uint64_t st_clock_raw_(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(st_clock_g.kind == ST_CLOCK_TSC, 1))
        return __rdtsc();
#endif
    struct timespec ts;
    clock_gettime(st_clock_g.clockid, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The tracer's clock state applied to skew.h's arithmetic. */
static inline uint64_t st_clock_apply_skew_(uint64_t raw)
{
    return st_skew_apply(raw, st_clock_g.origin, st_clock_g.off_ticks, st_clock_g.drift_fp);
}

/* Hot path: distorted ticks when skew is on, else raw ticks. */
static inline uint64_t st_clock_now(void)
{
    uint64_t raw = st_clock_raw_();
    if (__builtin_expect(st_clock_g.skew_on, 0))
        return st_clock_apply_skew_(raw);
    return raw;
}

/* One clock read; returns distorted ticks, *true_ticks gets the raw value. */
static inline uint64_t st_clock_now2(uint64_t *true_ticks)
{
    uint64_t raw = st_clock_raw_();
    *true_ticks = raw;
    if (__builtin_expect(st_clock_g.skew_on, 0))
        return st_clock_apply_skew_(raw);
    return raw;
}

#endif /* SYNCTRACE_CLOCK_H */
