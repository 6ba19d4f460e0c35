/* tap.h — TAP output for the C unit tests: results are buffered, so the
 * plan "1..N" can come first, and tap_finish() prints everything and gives
 * the exit status (1 if any test failed). Include once per test program. */
#ifndef SYNCTRACE_TAP_H
#define SYNCTRACE_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static char *out;
static size_t out_len, out_cap;
static int n_tests, n_failed;

static void emit(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    if (out_len + (size_t)n + 2 > out_cap) {
        out_cap = (out_len + (size_t)n + 2) * 2;
        out = realloc(out, out_cap);
        if (!out)
            abort();
    }
    vsnprintf(out + out_len, out_cap - out_len, fmt, ap);
    out_len += (size_t)n;
    out[out_len++] = '\n';
    out[out_len] = '\0';
}

static void __attribute__((unused)) diag(const char *fmt, ...)
{
    char f[512];
    snprintf(f, sizeof f, "# %s", fmt);
    va_list ap;
    va_start(ap, fmt);
    emit(f, ap);
    va_end(ap);
}

static int __attribute__((unused)) ok(int cond, const char *fmt, ...)
{
    char f[512];
    n_tests++;
    if (!cond)
        n_failed++;
    snprintf(f, sizeof f, "%s %d - %s", cond ? "ok" : "not ok", n_tests, fmt);
    va_list ap;
    va_start(ap, fmt);
    emit(f, ap);
    va_end(ap);
    return cond;
}

/* Many checks reported as one TAP line; the first failure's message is kept.
 * An aggregate that ran no check at all fails: it tested nothing. */
struct agg {
    long checks, fails;
    char first[400];
};

static void __attribute__((unused)) vfail(struct agg *a, const char *fmt, va_list ap)
{
    a->fails++;
    if (a->fails == 1)
        vsnprintf(a->first, sizeof a->first, fmt, ap);
}

static void __attribute__((unused)) fail(struct agg *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(a, fmt, ap);
    va_end(ap);
}

static void __attribute__((unused)) check(struct agg *a, int cond, const char *fmt, ...)
{
    a->checks++;
    if (cond)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfail(a, fmt, ap);
    va_end(ap);
}

static void __attribute__((unused)) report(struct agg *a, const char *what)
{
    if (a->fails)
        ok(0, "%s (%ld of %ld checks failed; first: %s)", what, a->fails, a->checks, a->first);
    else
        ok(a->checks > 0, "%s (%ld checks)", what, a->checks);
}


static int tap_finish(void)
{
    printf("1..%d\n%s", n_tests, out ? out : "");
    free(out);
    return n_failed ? 1 : 0;
}

#endif
