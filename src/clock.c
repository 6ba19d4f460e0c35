/* synctrace: clock selection, tick-rate calibration, skew injection. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "clock.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sane before st_clock_init: read ns from CLOCK_MONOTONIC_RAW. */
struct st_clock_state st_clock_g = {
    .kind = ST_CLOCK_MONOTONIC_RAW,
    .clockid = CLOCK_MONOTONIC_RAW,
    .ticks_per_sec = 1e9,
};

static char st_hostname[256];

/* Caps keep the hot-path fixed-point arithmetic overflow-free and the
 * distorted clock strictly increasing in slope (drift > -1). */
#define ST_SKEW_MAX_DRIFT_PPM 100000.0 /* 10 % */
#define ST_SKEW_MAX_OFFSET_US 1e9      /* 1000 s */

#define ST_CALIB_INIT_NS 2000000ull  /* quick estimate at init */
#define ST_CALIB_FINAL_NS 20000000ull /* minimum span for the final rate */
#define ST_BRACKET_TRIES 7

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static uint64_t mono_raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Pair a raw tick read with a CLOCK_MONOTONIC_RAW instant.  The tightest of a
 * few ns-tick-ns brackets wins, which rejects reads split by preemption or
 * interrupts; the tick is attributed to the bracket midpoint. */
static void bracket(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < ST_BRACKET_TRIES; i++) {
        uint64_t a = mono_raw_ns();
        uint64_t t = st_clock_raw_();
        uint64_t b = mono_raw_ns();
        if (b - a < best) {
            best = b - a;
            *ticks = t;
            *ns = a + (b - a) / 2;
        }
    }
}

/* Read a small file's first line, newline stripped. */
static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)len, f);
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\r\n")] = '\0';
    return 0;
}

static int has_word(const char *line, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = line; (p = strstr(p, word)) != NULL; p += wl) {
        int start_ok = p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
        int end_ok = p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\t' || p[wl] == '\n';
        if (start_ok && end_ok)
            return 1;
    }
    return 0;
}

/* TSC only where the kernel itself trusts it as its clocksource and the CPU
 * promises an invariant rate (constant_tsc) that keeps ticking in deep
 * C-states (nonstop_tsc). */
static int tsc_trusted(void)
{
#if defined(__x86_64__)
    char cs[64];
    if (read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  cs, sizeof cs) != 0 || strcmp(cs, "tsc") != 0)
        return 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int ok = 0;
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = has_word(line, "constant_tsc") && has_word(line, "nonstop_tsc");
            break;
        }
    }
    free(line);
    fclose(f);
    return ok;
#else
    return 0;
#endif
}

int st_clock_init(const char *request, char *err, size_t errlen)
{
    enum st_clock_kind kind;
    if (!request || !*request || strcmp(request, "auto") == 0) {
        kind = tsc_trusted() ? ST_CLOCK_TSC : ST_CLOCK_MONOTONIC_RAW;
    } else if (strcmp(request, "tsc") == 0) {
#if defined(__x86_64__)
        kind = ST_CLOCK_TSC;
#else
        set_err(err, errlen, "SYNCTRACE_CLOCK: 'tsc' is not available on this architecture "
                "(use auto, monotonic_raw or monotonic)");
        return -1;
#endif
    } else if (strcmp(request, "monotonic_raw") == 0) {
        kind = ST_CLOCK_MONOTONIC_RAW;
    } else if (strcmp(request, "monotonic") == 0) {
        kind = ST_CLOCK_MONOTONIC;
    } else {
        set_err(err, errlen, "SYNCTRACE_CLOCK: unknown value '%s' "
                "(expected auto, tsc, monotonic_raw or monotonic)", request);
        return -1;
    }

    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0) {
        set_err(err, errlen, "SYNCTRACE_CLOCK: clock_gettime(CLOCK_MONOTONIC_RAW) failed: %s",
                strerror(errno));
        return -1;
    }
    if (kind == ST_CLOCK_MONOTONIC && clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
        set_err(err, errlen, "SYNCTRACE_CLOCK: clock_gettime(CLOCK_MONOTONIC) failed: %s",
                strerror(errno));
        return -1;
    }

    /* Re-init resets everything, skew included. */
    struct st_clock_state s = { 0 };
    s.kind = kind;
    s.clockid = kind == ST_CLOCK_MONOTONIC ? CLOCK_MONOTONIC : CLOCK_MONOTONIC_RAW;
    s.ticks_per_sec = 1e9;
    s.initialized = 1;
    st_clock_g = s;

    bracket(&st_clock_g.anchor_ticks, &st_clock_g.anchor_ns);
    if (kind == ST_CLOCK_TSC) {
        sleep_ns(ST_CALIB_INIT_NS);
        uint64_t t1 = 0, n1 = 0;
        bracket(&t1, &n1);
        st_clock_g.ticks_per_sec = (double)(t1 - st_clock_g.anchor_ticks) * 1e9 /
                                   (double)(n1 - st_clock_g.anchor_ns);
    }

    if (gethostname(st_hostname, sizeof st_hostname - 1) != 0)
        strcpy(st_hostname, "unknown");
    st_hostname[sizeof st_hostname - 1] = '\0';
    return 0;
}

double st_clock_calibrate_final(void)
{
    if (st_clock_g.kind != ST_CLOCK_TSC)
        return st_clock_g.ticks_per_sec; /* ns ticks: exactly 1e9 */
    uint64_t elapsed = mono_raw_ns() - st_clock_g.anchor_ns;
    if (elapsed < ST_CALIB_FINAL_NS)
        sleep_ns(ST_CALIB_FINAL_NS - elapsed);
    uint64_t t1 = 0, n1 = 0;
    bracket(&t1, &n1);
    st_clock_g.ticks_per_sec = (double)(t1 - st_clock_g.anchor_ticks) * 1e9 /
                               (double)(n1 - st_clock_g.anchor_ns);
    return st_clock_g.ticks_per_sec;
}

double st_clock_ticks_per_second(void) { return st_clock_g.ticks_per_sec; }
enum st_clock_kind st_clock_kind(void) { return (enum st_clock_kind)st_clock_g.kind; }

const char *st_clock_name(void)
{
    switch (st_clock_g.kind) {
    case ST_CLOCK_TSC: return "tsc";
    case ST_CLOCK_MONOTONIC: return "monotonic";
    default: return "monotonic_raw";
    }
}

const char *st_clock_hostname(void)
{
    if (!st_hostname[0] && gethostname(st_hostname, sizeof st_hostname - 1) != 0)
        strcpy(st_hostname, "unknown");
    st_hostname[sizeof st_hostname - 1] = '\0';
    return st_hostname;
}

/* ---- skew injection ---- */



/* Strict non-negative decimal: digits[.digits][e[+-]digits], nothing else
 * (strtod alone would accept signs, spaces, hex, inf, nan). */
static int parse_num(const char *s, size_t n, int allow_frac, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    size_t i = 0, mant = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, mant++;
    if (allow_frac && i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, mant++;
    }
    if (mant == 0)
        return -1;
    if (allow_frac && i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t ed = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++, ed++;
        if (ed == 0)
            return -1;
    }
    if (i != n)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int st_clock_set_skew(const char *spec, int rank, char *err, size_t errlen)
{
    if (!st_clock_g.initialized) {
        set_err(err, errlen, "SYNCTRACE_SKEW: st_clock_init must be called first");
        return -1;
    }
    if (!spec || !*spec) {
        st_clock_g.skew_on = 0;
        st_clock_g.off_ticks = 0;
        st_clock_g.drift_fp = 0;
        st_clock_g.skew_offset_us = 0;
        st_clock_g.skew_drift_ppm = 0;
        return 0;
    }

    uint64_t seed = 1;
    double offset_us = 0, drift_ppm = 0;
    int seen_seed = 0, seen_off = 0, seen_drift = 0;
    const char *p = spec;
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        if (len == 0) {
            set_err(err, errlen, "SYNCTRACE_SKEW: empty item in '%s' "
                    "(expected e.g. seed=7,offset_us=800,drift_ppm=30)", spec);
            return -1;
        }
        if (!eq) {
            set_err(err, errlen, "SYNCTRACE_SKEW: item '%.*s' is not key=value", (int)len, p);
            return -1;
        }
        size_t klen = (size_t)(eq - p);
        const char *v = eq + 1;
        size_t vlen = len - klen - 1;
        int *seen;
        int bad;
        if (klen == 4 && memcmp(p, "seed", 4) == 0) {
            seen = &seen_seed;
            bad = parse_u64(v, vlen, &seed);
        } else if (klen == 9 && memcmp(p, "offset_us", 9) == 0) {
            seen = &seen_off;
            bad = parse_num(v, vlen, 1, &offset_us);
            if (!bad && offset_us > ST_SKEW_MAX_OFFSET_US) {
                set_err(err, errlen, "SYNCTRACE_SKEW: offset_us=%.*s exceeds the maximum of %.0f",
                        (int)vlen, v, ST_SKEW_MAX_OFFSET_US);
                return -1;
            }
        } else if (klen == 9 && memcmp(p, "drift_ppm", 9) == 0) {
            seen = &seen_drift;
            bad = parse_num(v, vlen, 1, &drift_ppm);
            if (!bad && drift_ppm > ST_SKEW_MAX_DRIFT_PPM) {
                set_err(err, errlen, "SYNCTRACE_SKEW: drift_ppm=%.*s exceeds the maximum of %.0f",
                        (int)vlen, v, ST_SKEW_MAX_DRIFT_PPM);
                return -1;
            }
        } else {
            set_err(err, errlen, "SYNCTRACE_SKEW: unknown key '%.*s' "
                    "(expected seed, offset_us or drift_ppm)", (int)klen, p);
            return -1;
        }
        if (bad) {
            set_err(err, errlen, "SYNCTRACE_SKEW: bad value '%.*s' for %.*s "
                    "(expected a non-negative %s)", (int)vlen, v, (int)klen, p,
                    seen == &seen_seed ? "integer" : "number");
            return -1;
        }
        if (*seen) {
            set_err(err, errlen, "SYNCTRACE_SKEW: duplicate key '%.*s'", (int)klen, p);
            return -1;
        }
        *seen = 1;
        if (p[len] == '\0')
            break;
        p += len + 1;
        if (*p == '\0') {
            set_err(err, errlen, "SYNCTRACE_SKEW: trailing comma in '%s'", spec);
            return -1;
        }
    }

    /* deterministic in (seed, rank): common/skew.h, shared with the generator */
    double off, drift;
    st_skew_draw(seed, (uint32_t)rank, offset_us, drift_ppm, &off, &drift);

    int64_t off_ticks = llround(off * 1e-6 * st_clock_g.ticks_per_sec);
    int64_t drift_fp = st_skew_drift_fp(drift);
    uint64_t origin = st_clock_raw_();
    /* A negative offset larger than the clock value would wrap around. */
    if (off_ticks < 0 && (uint64_t)(-off_ticks) > origin) {
        set_err(err, errlen, "SYNCTRACE_SKEW: offset %.3f us exceeds the clock's current value",
                off);
        return -1;
    }
    st_clock_g.origin = origin;
    st_clock_g.off_ticks = off_ticks;
    st_clock_g.drift_fp = drift_fp;
    st_clock_g.skew_offset_us = off;
    st_clock_g.skew_drift_ppm = drift;
    st_clock_g.skew_on = 1;
    return 0;
}

int st_clock_skew_enabled(void) { return st_clock_g.skew_on; }
double st_clock_skew_offset_us(void) { return st_clock_g.skew_offset_us; }
double st_clock_skew_drift_ppm(void) { return st_clock_g.skew_drift_ppm; }

uint64_t st_clock_distort(uint64_t raw)
{
    return st_clock_g.skew_on ? st_clock_apply_skew_(raw) : raw;
}

void st_clock_early_read(struct st_clock_early *e)
{
    struct timespec raw = { 0, 0 }, mono = { 0, 0 };
#if defined(__x86_64__)
    e->tsc = __rdtsc();
#else
    e->tsc = 0;
#endif
    clock_gettime(CLOCK_MONOTONIC_RAW, &raw);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    e->monotonic_raw_ns = (uint64_t)raw.tv_sec * 1000000000u + (uint64_t)raw.tv_nsec;
    e->monotonic_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
}

uint64_t st_clock_early_raw(const struct st_clock_early *e)
{
    switch (st_clock_g.kind) {
    case ST_CLOCK_TSC: return e->tsc;
    case ST_CLOCK_MONOTONIC: return e->monotonic_ns;
    default: return e->monotonic_raw_ns;
    }
}
