/* waits_rows.c — `waits_rows DIR`: DIR/waits.json's rows through
 * libsynctrace-causal (synctrace/waits.h), one JSON object a line with
 * every number as read (%.17g: Python parses back the same double), for
 * tests/checkers/waits_views_check.py to compare with Python's json. On
 * error the library's message on stderr and exit 1. */
#include <synctrace/waits.h>

#include <math.h>
#include <stdio.h>

static void str(const char *key, const char *s)
{
    printf(", \"%s\": \"", key);
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    putchar('"');
}

static void num(const char *key, double v)
{
    if (isnan(v))
        return;   /* absent from waits.json */
    if (isinf(v))
        printf(", \"%s\": null", key);
    else
        printf(", \"%s\": %.17g", key, v);
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc != 2) {
        fprintf(stderr, "usage: waits_rows DIR\n");
        return 2;
    }
    stc_waits *w = stc_waits_open(argv[1], err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (size_t i = 0; i < stc_waits_count(w); i++) {
        const struct stc_wait_row *r = stc_waits_row(w, i);
        printf("{\"rank\": %u", r->rank);
        str("pattern", r->pattern);
        str("region", r->region);
        str("communicator", r->communicator);
        printf(", \"count\": %llu, \"count_sure\": %llu, \"count_possible\": %llu", (unsigned long long)r->count,
               (unsigned long long)r->count_sure, (unsigned long long)r->count_possible);
        num("seconds", r->seconds);
        num("lo", r->lo);
        num("hi", r->hi);
        printf(", \"possibly_none\": %s", r->possibly_none ? "true" : "false");
        num("true_seconds", r->true_seconds);
        num("raw_seconds", r->raw_seconds);
        puts("}");
    }
    int bad = stc_waits_row(w, stc_waits_count(w)) != NULL;   /* out of range: NULL */
    fprintf(stderr, "%zu rows, %llu events\n", stc_waits_count(w), (unsigned long long)stc_waits_events(w));
    stc_waits_close(w);
    return bad ? 3 : ferror(stdout) ? 1 : 0;
}
