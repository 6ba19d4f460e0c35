/* tap.h — TAP output for the C unit tests: results are buffered, so the
 * plan "1..N" can come first, and tap_finish() prints everything and gives
 * the exit status (1 if any test failed). Include once per test program. */
#ifndef SYNCTRACE_TAP_H
#define SYNCTRACE_TAP_H

#include <stdarg.h>
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

static int tap_finish(void)
{
    printf("1..%d\n%s", n_tests, out ? out : "");
    free(out);
    return n_failed ? 1 : 0;
}

#endif
