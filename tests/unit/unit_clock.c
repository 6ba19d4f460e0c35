/* TAP unit test for src/clock.c.  Output is buffered so the plan ("1..N")
 * comes first; exit status 1 if any test failed. */
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

#include "tap.h"

static uint64_t ref_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(double ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Tightest of several ns-ticks-ns brackets (independent of the library's). */
static void ref_bracket(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 9; i++) {
        uint64_t a = ref_ns();
        uint64_t t = st_clock_now();
        uint64_t b = ref_ns();
        if (b - a < best) {
            best = b - a;
            *ticks = t;
            *ns = a + (b - a) / 2;
        }
    }
}

static const char *kinds[] = { "tsc", "monotonic_raw", "monotonic" };
static int kind_available[3];

static int init_kind(const char *name)
{
    char err[256] = "";
    if (st_clock_init(name, err, sizeof err) != 0) {
        diag("init(%s) failed: %s", name, err);
        return -1;
    }
    return 0;
}

static int single_line(const char *s) { return s[0] != '\0' && strchr(s, '\n') == NULL; }

/* ---------------------------------------------------------------- parsing */

static int file_is(const char *path, const char *want)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return strcmp(buf, want) == 0;
}

static int cpuinfo_has(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[8192];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            char *tok, *save;
            for (tok = strtok_r(line, " \t\n:", &save); tok; tok = strtok_r(NULL, " \t\n:", &save))
                if (strcmp(tok, flag) == 0)
                    found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

static void test_skew_before_init(void)
{
    char err[256] = "";
    int rc = st_clock_set_skew("seed=1", 0, err, sizeof err);
    ok(rc == -1 && single_line(err), "set_skew before init is an error (%s)", err);
}

static void test_clock_parse(void)
{
    static const struct { const char *req; const char *name; } good[] = {
        { "monotonic_raw", "monotonic_raw" },
        { "monotonic", "monotonic" },
    };
    char err[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        err[0] = '\0';
        int rc = st_clock_init(good[i].req, err, sizeof err);
        ok(rc == 0 && strcmp(st_clock_name(), good[i].name) == 0 && err[0] == '\0',
           "SYNCTRACE_CLOCK=%s accepted -> %s", good[i].req, st_clock_name());
    }

#if defined(__x86_64__)
    err[0] = '\0';
    int rc = st_clock_init("tsc", err, sizeof err);
    ok(rc == 0 && st_clock_kind() == ST_CLOCK_TSC && strcmp(st_clock_name(), "tsc") == 0,
       "SYNCTRACE_CLOCK=tsc accepted on x86_64");
    int trusted = file_is("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc") &&
                  cpuinfo_has("constant_tsc") && cpuinfo_has("nonstop_tsc");
#else
    err[0] = '\0';
    int rc = st_clock_init("tsc", err, sizeof err);
    ok(rc == -1 && single_line(err) && strstr(err, "tsc"),
       "SYNCTRACE_CLOCK=tsc rejected off x86_64 (%s)", err);
    int trusted = 0;
#endif
    kind_available[0] = rc == 0;
    kind_available[1] = kind_available[2] = 1;

    const char *autos[] = { NULL, "", "auto" };
    for (int i = 0; i < 3; i++) {
        rc = st_clock_init(autos[i], err, sizeof err);
        ok(rc == 0 && st_clock_kind() == (trusted ? ST_CLOCK_TSC : ST_CLOCK_MONOTONIC_RAW),
           "auto (%s) picks %s (kernel trusts tsc: %d)", autos[i] ? (autos[i][0] ? autos[i] : "\"\"") : "NULL",
           st_clock_name(), trusted);
    }

    const char *bad[] = { "foo", "TSC", "tsc ", " monotonic", "monotonic_raw2", "realtime" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        rc = st_clock_init(bad[i], err, sizeof err);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
        ok(rc == -1 && single_line(err) && strstr(err, quoted) && strstr(err, "SYNCTRACE_CLOCK"),
           "SYNCTRACE_CLOCK='%s' rejected: %s", bad[i], err);
    }
    ok(st_clock_init("foo", NULL, 0) == -1, "invalid value with NULL err buffer is still -1");

    init_kind("monotonic_raw");
    const char *h = st_clock_hostname();
    char hn[256] = "";
    gethostname(hn, sizeof hn - 1);
    ok(h && h[0] && strcmp(h, hn) == 0, "hostname '%s' matches gethostname", h ? h : "(null)");
}

static void test_skew_parse(void)
{
    char err[256];
    init_kind("monotonic_raw");

    static const char *good[] = {
        "seed=7,offset_us=800,drift_ppm=30", "drift_ppm=30,seed=7,offset_us=800",
        "seed=3", "offset_us=0.5", "drift_ppm=12.25", "offset_us=.5,drift_ppm=1.", "offset_us=1e3",
        "seed=18446744073709551615", "seed=0,offset_us=0,drift_ppm=0", "drift_ppm=100000",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        err[0] = '\0';
        int rc = st_clock_set_skew(good[i], 0, err, sizeof err);
        ok(rc == 0 && st_clock_skew_enabled() && err[0] == '\0', "SKEW '%s' accepted %s", good[i], err);
    }

    int rc = st_clock_set_skew("seed=7,offset_us=800,drift_ppm=30", 0, err, sizeof err);
    double o1 = st_clock_skew_offset_us(), d1 = st_clock_skew_drift_ppm();
    rc |= st_clock_set_skew("drift_ppm=30,offset_us=800,seed=7", 0, err, sizeof err);
    ok(rc == 0 && o1 == st_clock_skew_offset_us() && d1 == st_clock_skew_drift_ppm(),
       "key order does not matter");
    rc = st_clock_set_skew("seed=1,offset_us=800,drift_ppm=30", 0, err, sizeof err);
    double os1 = st_clock_skew_offset_us(), ds1 = st_clock_skew_drift_ppm();
    rc |= st_clock_set_skew("offset_us=800,drift_ppm=30", 0, err, sizeof err);
    ok(rc == 0 && os1 == st_clock_skew_offset_us() && ds1 == st_clock_skew_drift_ppm() && os1 != o1,
       "seed defaults to 1");
    ok(o1 != 0 && d1 != 0, "seed 7 draws non-zero offset/drift");
    rc = st_clock_set_skew("seed=5", 0, err, sizeof err);
    ok(rc == 0 && st_clock_skew_enabled() && st_clock_skew_offset_us() == 0 &&
       st_clock_skew_drift_ppm() == 0, "offset_us and drift_ppm default to 0");

    rc = st_clock_set_skew("", 0, err, sizeof err);
    ok(rc == 0 && !st_clock_skew_enabled(), "SKEW '' turns skew off");
    st_clock_set_skew("seed=1", 0, err, sizeof err);
    rc = st_clock_set_skew(NULL, 0, err, sizeof err);
    ok(rc == 0 && !st_clock_skew_enabled(), "SKEW NULL turns skew off");

    static const struct { const char *spec, *names; } bad[] = {
        { "bogus=1", "bogus" },
        { "seed=7,offset=5", "offset" },
        { "seed=-1", "-1" },
        { "offset_us=-5", "-5" },
        { "drift_ppm=-0.5", "-0.5" },
        { "drift_ppm=abc", "abc" },
        { "offset_us=12abc", "12abc" },
        { "seed=7,", "trailing comma" },
        { ",seed=7", "empty" },
        { "seed=7,,drift_ppm=1", "empty" },
        { "seed", "seed" },
        { "seed=", "seed" },
        { "seed=1.5", "1.5" },
        { "seed=99999999999999999999", "99999999999999999999" },
        { "offset_us=1e", "1e" },
        { "offset_us= 5", " 5" },
        { "offset_us=+5", "+5" },
        { "drift_ppm=nan", "nan" },
        { "drift_ppm=inf", "inf" },
        { "offset_us=0x10", "0x10" },
        { "seed=7,seed=8", "duplicate" },
        { "drift_ppm=100001", "100001" },
        { "offset_us=2e9", "2e9" },
        { "seed=1 ", "1 " },
    };
    /* A failed call must leave the previous skew untouched. */
    st_clock_set_skew("seed=7,offset_us=800,drift_ppm=30", 0, err, sizeof err);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        rc = st_clock_set_skew(bad[i].spec, 0, err, sizeof err);
        ok(rc == -1 && single_line(err) && strstr(err, bad[i].names) && strstr(err, "SYNCTRACE_SKEW") &&
           st_clock_skew_enabled() && st_clock_skew_offset_us() == o1,
           "SKEW '%s' rejected: %s", bad[i].spec, err);
    }
    ok(st_clock_set_skew("bogus", 0, NULL, 0) == -1, "invalid skew with NULL err buffer is still -1");
    st_clock_set_skew(NULL, 0, err, sizeof err);
}

/* ------------------------------------------------------------- monotonic */

static int find_rank(const char *spec, double lo, double hi)
{
    char err[256];
    for (int r = 0; r < 1000000; r++) {
        st_clock_set_skew(spec, r, err, sizeof err);
        double d = st_clock_skew_drift_ppm();
        if (d >= lo && d <= hi)
            return r;
    }
    return -1;
}

static void test_monotonic(void)
{
    char err[256];
    const char *spec_big = "seed=11,offset_us=800,drift_ppm=1000";
    for (int k = 0; k < 3; k++) {
        if (!kind_available[k])
            continue;
        init_kind(kinds[k]);
        int r_pos = find_rank(spec_big, 990, 1000);
        int r_neg = find_rank(spec_big, -1000, -990);
        struct { const char *label; const char *spec; int rank; } cfg[] = {
            { "skew off", NULL, 0 },
            { "skew seed=7,offset_us=800,drift_ppm=30", "seed=7,offset_us=800,drift_ppm=30", 0 },
            { "skew drift ~ +1000 ppm", spec_big, r_pos },
            { "skew drift ~ -1000 ppm", spec_big, r_neg },
        };
        for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
            int rc = st_clock_set_skew(cfg[c].spec, cfg[c].rank < 0 ? 0 : cfg[c].rank, err, sizeof err);
            uint64_t prev = st_clock_now(), first = prev;
            long bad = 0;
            for (int i = 0; i < 1000000; i++) {
                uint64_t t = st_clock_now();
                if (t < prev)
                    bad++;
                prev = t;
            }
            ok(rc == 0 && cfg[c].rank >= 0 && bad == 0 && prev > first,
               "%s: 1e6 st_clock_now() non-decreasing, %s (drift %.3f ppm, %ld decreases)",
               kinds[k], cfg[c].label, st_clock_skew_drift_ppm(), bad);
        }

        /* Exhaustive-ish check of the fixed-point term far from the origin,
         * where a floor/overflow bug would show. */
        for (int s = 0; s < 2; s++) {
            st_clock_set_skew(spec_big, s ? r_neg : r_pos, err, sizeof err);
            uint64_t origin = st_clock_g.origin;
            static const int64_t centers[] = { 0, 1, -1, 1ll << 32, -(1ll << 32), 1ll << 40,
                                               -(1ll << 40), 1ll << 47, 1ll << 50, 1ll << 61 };
            long bad = 0;
            for (size_t ci = 0; ci < sizeof centers / sizeof centers[0]; ci++) {
                if (centers[ci] < 0 && (uint64_t)(-centers[ci]) > origin / 2)
                    continue;
                /* absolute value: distorted - raw = off + drift * d */
                uint64_t x = origin + (uint64_t)centers[ci];
                double abs_got = (double)(int64_t)(st_clock_distort(x) - x) - (double)st_clock_g.off_ticks;
                double abs_want = st_clock_skew_drift_ppm() * 1e-6 * (double)centers[ci];
                if (fabs(abs_got - abs_want) > 1e-6 * fabs(abs_want) + 2)
                    bad++;
                uint64_t base = origin + (uint64_t)centers[ci] - 50000;
                uint64_t prev = st_clock_distort(base);
                for (uint64_t i = 1; i < 100000; i++) {
                    uint64_t t = st_clock_distort(base + i);
                    if (t < prev)
                        bad++;
                    prev = t;
                }
                /* and the slope: distortion over a large span matches drift */
                uint64_t span = 1ull << 36;
                double got = (double)(st_clock_distort(base + span) - st_clock_distort(base)) - (double)span;
                double want = st_clock_skew_drift_ppm() * 1e-6 * (double)span;
                if (fabs(got - want) > 1e-6 * fabs(want) + 2)
                    bad++;
            }
            ok(bad == 0, "%s: st_clock_distort non-decreasing and linear far from origin, drift %+.1f ppm",
               kinds[k], st_clock_skew_drift_ppm());
        }
        st_clock_set_skew(NULL, 0, err, sizeof err);
    }
}

/* ------------------------------------------------------------------- rate */

static void test_rate(void)
{
    for (int k = 0; k < 3; k++) {
        if (!kind_available[k])
            continue;
        uint64_t before = ref_ns();
        init_kind(kinds[k]);
        double est = st_clock_ticks_per_second();
        uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
        ref_bracket(&t0, &n0);
        sleep_ms(50);
        ref_bracket(&t1, &n1);
        double meas = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
        double rel = fabs(est / meas - 1);
        ok(rel < 1e-3, "%s: init estimate %.6f MHz vs 50 ms measurement %.6f MHz (rel %.2e < 1e-3)",
           kinds[k], est / 1e6, meas / 1e6, rel);
        if (k != 0)
            ok(est == 1e9, "%s: rate is exactly 1e9 ticks/s", kinds[k]);

        double fin = st_clock_calibrate_final();
        ref_bracket(&t1, &n1);
        meas = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
        rel = fabs(fin / meas - 1);
        ok(rel < 5e-4 && st_clock_ticks_per_second() == fin,
           "%s: calibrate_final %.6f MHz vs measurement %.6f MHz (rel %.2e < 5e-4)",
           kinds[k], fin / 1e6, meas / 1e6, rel);
        diag("%s: init estimate off by %.2e, final off by %.2e (vs %.0f ms reference)", kinds[k],
             fabs(est / meas - 1), rel, (double)(n1 - n0) / 1e6);
        (void)before;

        if (k == 0) {
            /* calibrate_final right after init must stretch the span to 20 ms. */
            before = ref_ns();
            init_kind(kinds[k]);
            fin = st_clock_calibrate_final();
            uint64_t span = ref_ns() - before;
            ok(span >= 20000000 && fabs(fin / meas - 1) < 5e-4,
               "%s: calibrate_final right after init waits to 20 ms (span %.2f ms, rel %.2e)",
               kinds[k], span / 1e6, fabs(fin / meas - 1));
        }
    }
}

/* ------------------------------------------------------------------- skew */

static void test_skew_values(void)
{
    char err[256];
    init_kind("monotonic_raw");
    const char *spec = "seed=7,offset_us=800,drift_ppm=30";

    st_clock_set_skew(spec, 3, err, sizeof err);
    double o3 = st_clock_skew_offset_us(), d3 = st_clock_skew_drift_ppm();
    st_clock_set_skew(spec, 4, err, sizeof err);
    double o4 = st_clock_skew_offset_us(), d4 = st_clock_skew_drift_ppm();
    st_clock_set_skew(spec, 3, err, sizeof err);
    ok(o3 == st_clock_skew_offset_us() && d3 == st_clock_skew_drift_ppm(),
       "same (seed, rank) -> same offset %.6f us / drift %.6f ppm", o3, d3);
    ok(o3 != o4 && d3 != d4, "rank 3 vs 4 differ (%.3f/%.3f us, %.3f/%.3f ppm)", o3, o4, d3, d4);
    st_clock_set_skew("seed=8,offset_us=800,drift_ppm=30", 3, err, sizeof err);
    ok(o3 != st_clock_skew_offset_us() && d3 != st_clock_skew_drift_ppm(), "seed 7 vs 8 differ");

    /* Golden values: the derivation must not change across runs, builds or
     * machines (analysis tools may recompute the injected skew). */
    st_clock_set_skew(spec, 0, err, sizeof err);
    double go = st_clock_skew_offset_us(), gd = st_clock_skew_drift_ppm();
    ok(go == 0x1.6269c032d7b1ap+8 && gd == 0x1.1f6eaceb02aeep+3, "seed=7 rank=0 golden values: offset %a us, drift %a ppm", go, gd);

    /* Bounds and distinctness over many ranks; the clock rate matters for
     * off_ticks only, so monotonic_raw is fine here. */
    enum { NR = 2000 };
    static double offs[NR], drs[NR];
    int in_bounds = 1, distinct = 1;
    double omin = 1e300, omax = -1e300, dmin = 1e300, dmax = -1e300;
    for (int r = 0; r < NR; r++) {
        st_clock_set_skew(spec, r, err, sizeof err);
        offs[r] = st_clock_skew_offset_us();
        drs[r] = st_clock_skew_drift_ppm();
        if (!(offs[r] >= -800 && offs[r] <= 800 && drs[r] >= -30 && drs[r] <= 30))
            in_bounds = 0;
        omin = fmin(omin, offs[r]); omax = fmax(omax, offs[r]);
        dmin = fmin(dmin, drs[r]); dmax = fmax(dmax, drs[r]);
        int64_t expect_ticks = llround(offs[r] * 1e-6 * st_clock_ticks_per_second());
        if (st_clock_g.off_ticks != expect_ticks)
            in_bounds = 0;
    }
    for (int a = 0; a < NR && distinct; a++)
        for (int b = a + 1; b < NR; b++)
            if (offs[a] == offs[b] || drs[a] == drs[b]) {
                distinct = 0;
                break;
            }
    ok(in_bounds, "%d ranks: offsets in [-800, 800] us (seen %.1f..%.1f), drifts in [-30, 30] ppm (seen %.2f..%.2f)",
       NR, omin, omax, dmin, dmax);
    ok(distinct, "%d ranks: all offsets and drifts distinct", NR);
    ok(omin < -700 && omax > 700 && dmin < -26 && dmax > 26, "%d ranks: draws cover the whole range", NR);
    st_clock_set_skew(NULL, 0, err, sizeof err);
}

static void test_skew_timing(void)
{
    char err[256];
    const char *spec = "seed=42,offset_us=800,drift_ppm=500";
    for (int k = 0; k < 3; k++) {
        if (!kind_available[k])
            continue;
        init_kind(kinds[k]);
        int r = find_rank(spec, 250, 500);
        if (r < 0)
            r = 0;
        /* alternate sign for the other kinds */
        if (k == 1)
            r = find_rank(spec, -500, -250);
        st_clock_set_skew(spec, r, err, sizeof err);
        double tps = st_clock_ticks_per_second();
        double off = st_clock_skew_offset_us(), drift = st_clock_skew_drift_ppm();
        uint64_t tr1, tr2;
        uint64_t d1 = st_clock_now2(&tr1);
        double diff1 = (double)(int64_t)(d1 - tr1);
        double want_off = off * 1e-6 * tps;
        ok(fabs(diff1 - want_off) <= 1e-6 * tps,
           "%s: right after set_skew distorted-true = %.0f ticks, offset %.3f us = %.0f ticks (within 1 us)",
           kinds[k], diff1, off, want_off);
        sleep_ms(100);
        uint64_t d2 = st_clock_now2(&tr2);
        double diff2 = (double)(int64_t)(d2 - tr2);
        double grow = diff2 - diff1, want = drift * 1e-6 * (double)(tr2 - tr1);
        ok(fabs(grow - want) <= 0.01 * fabs(want),
           "%s: after 100 ms the difference grew by %.0f ticks, drift %.3f ppm predicts %.0f (within 1%%)",
           kinds[k], grow, drift, want);

        /* st_clock_distort reproduces st_clock_now2 exactly. */
        long mism = 0;
        for (int i = 0; i < 100000; i++) {
            uint64_t tr;
            uint64_t d = st_clock_now2(&tr);
            if (st_clock_distort(tr) != d)
                mism++;
        }
        ok(mism == 0, "%s: st_clock_distort(raw) == st_clock_now2 for 1e5 samples (%ld mismatches)",
           kinds[k], mism);
        st_clock_set_skew(NULL, 0, err, sizeof err);
        mism = 0;
        for (int i = 0; i < 1000; i++) {
            uint64_t tr;
            uint64_t d = st_clock_now2(&tr);
            if (d != tr || st_clock_distort(tr) != tr)
                mism++;
        }
        ok(mism == 0, "%s: skew off -> now2 and distort return the raw value", kinds[k]);
    }
}

/* ------------------------------------------------------------------- cost */

static void measure_cost(void)
{
    char err[256];
    for (int k = 0; k < 3; k++) {
        if (!kind_available[k])
            continue;
        init_kind(kinds[k]);
        for (int s = 0; s < 2; s++) {
            st_clock_set_skew(s ? "seed=1,offset_us=800,drift_ppm=30" : NULL, 0, err, sizeof err);
            uint64_t sink = 0;
            for (int i = 0; i < 100000; i++)
                sink += st_clock_now();
            uint64_t a = ref_ns();
            for (int i = 0; i < 10000000; i++)
                sink += st_clock_now();
            uint64_t b = ref_ns();
            diag("cost %s%s: %.2f ns per st_clock_now() (1e7 calls, sink %llu)", kinds[k],
                 s ? " +skew" : "", (double)(b - a) / 1e7, (unsigned long long)(sink & 1));
        }
        st_clock_set_skew(NULL, 0, err, sizeof err);
    }
}

int main(void)
{
    test_skew_before_init();
    test_clock_parse();
    test_skew_parse();
    test_monotonic();
    test_rate();
    test_skew_values();
    test_skew_timing();
    measure_cost();
    if (n_failed)
        diag("%d of %d tests failed", n_failed, n_tests);
    return tap_finish();
}
