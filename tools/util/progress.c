/* progress.c — see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const char *tool_name;
static int enabled, shown;
static double last;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_begin(const char *tool)
{
    tool_name = tool;
    enabled = isatty(STDERR_FILENO);
    shown = 0;
    last = 0;
}

void progress_update(const char *stage, uint64_t done, uint64_t total)
{
    if (!enabled)
        return;
    double t = now();
    if (shown && t - last < 0.1 && !(total && done == total))
        return;
    last = t;
    shown = 1;
    if (total)
        fprintf(stderr, "\r\033[K%s: %s %llu/%llu (%.0f%%)", tool_name, stage, (unsigned long long)done,
                (unsigned long long)total, 100.0 * (double)done / (double)total);
    else
        fprintf(stderr, "\r\033[K%s: %s", tool_name, stage);
    fflush(stderr);
}

void progress_end(void)
{
    if (enabled && shown)
        fprintf(stderr, "\r\033[K");
    shown = 0;
}
