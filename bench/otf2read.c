/* otf2read.c — the baseline of bench/export.sh: read every event of a
 * merged archive with the streaming reader the exports use (format/mtread.h)
 * and do nothing with it. export = this + formatting + writing.
 * Usage: otf2read OUT_DIR   (prints the number of events) */
#include "mtread.h"

#include <stdio.h>

static int count(void *user, uint32_t location, const struct rt_event *e)
{
    (void)location; (void)e;
    ++*(unsigned long long *)user;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: otf2read OUT_DIR\n");
        return 2;
    }
    char path[4300], err[4400];
    snprintf(path, sizeof path, "%s/traces.otf2", argv[1]);
    struct mt_trace t;
    unsigned long long n = 0;
    if (mt_open(path, &t, err, sizeof err) != 0 || mt_read_events(&t, count, &n, err, sizeof err) != 0) {
        fprintf(stderr, "otf2read: %s\n", err);
        return 1;
    }
    mt_close(&t);
    printf("%llu\n", n);
    return 0;
}
