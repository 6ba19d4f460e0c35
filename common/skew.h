/* skew.h — the arithmetic of injected clock skew (SYNCTRACE_SKEW), shared by
 * the tracer (src/clock.c) and the trace generator (tools/gen/gen.c), which must
 * distort clocks identically. Plain C, header only. */
#ifndef SYNCTRACE_SKEW_H
#define SYNCTRACE_SKEW_H

#include <math.h>
#include <stdint.h>

static inline uint64_t st_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1) from the top 53 bits: exact in double, so the result is
 * identical on every machine. */
static inline double st_unit_signed(uint64_t u)
{
    return (double)(u >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Clock `id`'s offset in [-offset_us, offset_us) and drift in
 * [-drift_ppm, drift_ppm), deterministic in (seed, id). splitmix64's output
 * is a bijection of its state, so distinct ids get distinct draws. */
static inline void st_skew_draw(uint64_t seed, uint32_t id, double offset_us, double drift_ppm, double *off_us,
                                double *drift)
{
    uint64_t st = seed;
    st = st_splitmix64(&st) ^ (uint64_t)id;
    *off_us = st_unit_signed(st_splitmix64(&st)) * offset_us;
    *drift = st_unit_signed(st_splitmix64(&st)) * drift_ppm;
}

/* A drift as 2^-32 fixed point. */
static inline int64_t st_skew_drift_fp(double drift_ppm)
{
    return llround(drift_ppm * 1e-6 * 4294967296.0);
}

/* distorted = raw + off + floor(drift_fp * (raw - origin) / 2^32).
 * d is split into 32-bit halves so every product fits in int64 for any d
 * (|drift_fp| < 2^29); the result is the exact floor, and since
 * 2^32 + drift_fp > 0 it is non-decreasing in raw.  (>> on negative values is
 * an arithmetic shift with gcc/clang.) */
static inline uint64_t st_skew_apply(uint64_t raw, uint64_t origin, int64_t off_ticks, int64_t drift_fp)
{
    int64_t d = (int64_t)(raw - origin);
    int64_t hi = d >> 32;
    int64_t lo = (int64_t)((uint64_t)d & 0xffffffffu);
    int64_t dr = hi * drift_fp + ((lo * drift_fp) >> 32);
    return raw + (uint64_t)(off_ticks + dr);
}

#endif
