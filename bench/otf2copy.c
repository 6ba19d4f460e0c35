/* otf2copy.c — the baseline of bench/merge.sh: read a raw trace and write it
 * as one OTF2 archive with the same reader and writer the merge uses, but
 * with the recorded times (local ns, each rank's own clock) and no
 * synchronisation. merge = this + matching + solving + report.
 * Usage: otf2copy RAW_DIR OUT_DIR */
#include "match.h"
#include "otf2out.h"
#include "rawdir.h"
#include "rawtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: otf2copy RAW_DIR OUT_DIR\n");
        return 2;
    }
    char err[4400];
    char **anchors;
    int n = rawdir_list(argv[1], &anchors, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "otf2copy: %s\n", err);
        return 1;
    }
    struct rt_location *ranks = calloc((size_t)n, sizeof *ranks);
    uint64_t **times = calloc((size_t)n, sizeof *times);
    struct mg_result match;
    int rc = 1;
    if (!ranks || !times)
        goto done;
    for (int i = 0; i < n; i++)
        if (rt_read_rank(anchors[i], &ranks[i], err, sizeof err) != 0) {
            fprintf(stderr, "otf2copy: %s\n", err);
            goto done;
        }
    /* Communicators are unified by name as in the merge (the matcher does it). */
    if (mg_match(ranks, (uint32_t)n, &match, err, sizeof err) != 0) {
        fprintf(stderr, "otf2copy: %s\n", err);
        goto done;
    }
    for (int r = 0; r < n; r++) {
        times[r] = malloc(sizeof **times * (ranks[r].nevents ? ranks[r].nevents : 1));
        if (!times[r])
            goto done_match;
        double res = ranks[r].resolution ? (double)ranks[r].resolution : 1e9;
        uint64_t origin = ranks[r].nevents ? ranks[r].events[0].time : 0;
        for (uint64_t i = 0; i < ranks[r].nevents; i++)
            times[r][i] = (uint64_t)((double)(ranks[r].events[i].time - origin) / res * 1e9);
    }
    mkdir(argv[2], 0777);
    struct gtime_map stored = { .locs = ranks, .n = (uint32_t)n, .stored = times };   /* every location stored */
    if (ow_write(argv[2], "traces", ranks, (uint32_t)n, &match, &stored, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "otf2copy: %s\n", err);
        goto done_match;
    }
    rc = 0;
done_match:
    mg_free(&match);
done:
    for (int r = 0; r < n; r++) {
        if (times)
            free(times[r]);
        if (ranks)
            rt_free_location(&ranks[r]);
    }
    free(times);
    free(ranks);
    rawdir_free(anchors, n);
    return rc;
}
