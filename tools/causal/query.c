/* query.c — `synctrace query OUT_DIR --precedes R:I R:I | --batch`:
 * happened-before between events of a merged trace, from its causal index.
 * R:I is the I-th event (from 0) of location R, numbered as
 * location_order.h says (R = rank R's main thread for R < P).
 * Answers: before (the first happened before the second), after, concurrent
 * or same. */
#include <config.h>
#include "causal_cmd.h"
#include "location_order.h"
#include "synctrace/causal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *to)
{
    fprintf(to, "usage: synctrace query OUT_DIR --precedes R:I R:I\n"
                "       synctrace query OUT_DIR --batch < PAIRS\n"
                "How two events of a merged trace are ordered: before (the first happened before the\n"
                "second), after, concurrent or same.\n"
                LOC_RI_HELP "\n"
                "--batch reads one pair \"R:I R:I\" per line and answers one per line.\n"
                "Uses OUT_DIR/causal.idx, which synctrace merge writes (synctrace causal OUT_DIR rebuilds it).\n");
    return to == stdout ? 0 : 2;
}

/* "R:I" -> rank, index; NULL on success, else what is wrong. */
static const char *parse_ref(const char *s, char **end, uint32_t *rank, uint64_t *index)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return "expected R:I (rank:event)";
    errno = 0;
    unsigned long long r = strtoull(s, &e, 10);
    if (errno || *e != ':' || r > UINT32_MAX)
        return "expected R:I (rank:event)";
    s = e + 1;
    if (*s < '0' || *s > '9')
        return "expected R:I (rank:event)";
    unsigned long long i = strtoull(s, &e, 10);
    if (errno)
        return "event index too large";
    *rank = (uint32_t)r;
    *index = i;
    *end = e;
    return NULL;
}

static const char *check_ref(const stc_causal *c, uint32_t r, uint64_t i, char *buf, size_t len)
{
    if (r >= stc_causal_ranks(c))
        snprintf(buf, len, "rank %u: the trace has ranks 0 to %u", r, stc_causal_ranks(c) - 1);
    else if (stc_causal_events(c, r) == 0)
        snprintf(buf, len, "event %u:%llu: rank %u has no events", r, (unsigned long long)i, r);
    else if (i >= stc_causal_events(c, r))
        snprintf(buf, len, "event %u:%llu: rank %u has events 0 to %llu", r, (unsigned long long)i, r,
                 (unsigned long long)stc_causal_events(c, r) - 1);
    else
        return NULL;
    return buf;
}

int cmd_query(int argc, char **argv)
{
    const char *dir = NULL, *a = NULL, *b = NULL;
    int batch = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h"))
            return usage(stdout);
        if (!strcmp(argv[k], "--precedes")) {
            if (k + 2 >= argc) {
                fprintf(stderr, "synctrace query: --precedes needs two events R:I R:I\n");
                return 2;
            }
            a = argv[++k];
            b = argv[++k];
        } else if (!strcmp(argv[k], "--batch")) {
            batch = 1;
        } else if (argv[k][0] == '-' || dir) {
            fprintf(stderr, "synctrace query: unexpected argument '%s' (see --help)\n", argv[k]);
            return 2;
        } else {
            dir = argv[k];
        }
    }
    if (!dir || (!a && !batch) || (a && batch)) {
        fprintf(stderr, "synctrace query: need OUT_DIR and one of --precedes R:I R:I or --batch (see --help)\n");
        return 2;
    }
    uint32_t ra, rb;
    uint64_t ia, ib;
    char *end;
    const char *bad;
    if (a && ((bad = parse_ref(a, &end, &ra, &ia)) || *end || (bad = parse_ref(b, &end, &rb, &ib)) || *end)) {
        fprintf(stderr, "synctrace query: '%s %s': %s\n", a, b, bad ? bad : "expected R:I (rank:event)");
        return 2;
    }
    char err[4600], buf[256];
    stc_causal *c = stc_causal_open(dir, err, sizeof err);
    if (!c) {
        fprintf(stderr, "synctrace query: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (a) {
        if ((bad = check_ref(c, ra, ia, buf, sizeof buf)) || (bad = check_ref(c, rb, ib, buf, sizeof buf))) {
            fprintf(stderr, "synctrace query: %s\n", bad);
            rc = 1;
        } else {
            printf("%s\n", stc_relation_name(stc_causal_relation(c, ra, ia, rb, ib)));
        }
    } else {
        static char out[1 << 16];
        setvbuf(stdout, out, _IOFBF, sizeof out);
        char line[512];
        unsigned long long n = 0;
        while (fgets(line, sizeof line, stdin)) {
            n++;
            size_t len = strlen(line);
            if (len == sizeof line - 1 && line[len - 1] != '\n') {
                fprintf(stderr, "synctrace query: stdin line %llu: too long\n", n);
                rc = 1;
                break;
            }
            char *p = line;
            if ((bad = parse_ref(p, &end, &ra, &ia)) || (bad = parse_ref(end, &end, &rb, &ib))) {
                fprintf(stderr, "synctrace query: stdin line %llu: %s\n", n, bad);
                rc = 1;
                break;
            }
            while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
                end++;
            if (*end) {
                fprintf(stderr, "synctrace query: stdin line %llu: expected two events R:I R:I\n", n);
                rc = 1;
                break;
            }
            if ((bad = check_ref(c, ra, ia, buf, sizeof buf)) || (bad = check_ref(c, rb, ib, buf, sizeof buf))) {
                fprintf(stderr, "synctrace query: stdin line %llu: %s\n", n, bad);
                rc = 1;
                break;
            }
            fputs(stc_relation_name(stc_causal_relation(c, ra, ia, rb, ib)), stdout);
            putchar('\n');
        }
    }
    if (fflush(stdout) != 0 && !rc) {
        fprintf(stderr, "synctrace query: cannot write the answers\n");
        rc = 1;
    }
    stc_causal_close(c);
    return rc;
}
