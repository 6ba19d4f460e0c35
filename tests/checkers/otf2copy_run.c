/* otf2copy_run.c — tests/test-otf2copy.sh's driver of the archive copy
 * (tools/foreign/otf2copy.h):
 *   otf2copy_run ANCHOR OUT_DIR                 an exact copy into OUT_DIR/traces.otf2
 *   otf2copy_run ANCHOR OUT_DIR --shift NS      every timestamp moved by NS (the
 *                                               ClockOffsets' and the clock's global
 *                                               offset with them)
 *   otf2copy_run ANCHOR OUT_DIR --shift-drop NS the same, the ClockOffsets dropped
 * Each optionally with --jobs N last: the locations copied on N threads
 * (default 1: the plain single-threaded copy bench/foreign.sh compares with).
 * Prints the copy's counts as one line of key=value; exit 1 with the copy's
 * one-line message. */
#include "otf2copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t shifted(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    (void)location; (void)position;
    return t + *(const uint64_t *)ctx;
}

static void shift_clock(void *ctx, uint64_t *resolution, uint64_t *global_offset, uint64_t *trace_length,
                        uint64_t *realtime)
{
    (void)resolution; (void)trace_length; (void)realtime;
    *global_offset += *(const uint64_t *)ctx;
}

int main(int argc, char **argv)
{
    int jobs = 1;
    if (argc >= 5 && strcmp(argv[argc - 2], "--jobs") == 0) {
        jobs = atoi(argv[argc - 1]);
        argc -= 2;
    }
    if (jobs < 1 || (argc != 3 && !(argc == 5 && (strcmp(argv[3], "--shift") == 0 || strcmp(argv[3], "--shift-drop") == 0)))) {
        fprintf(stderr, "usage: otf2copy_run ANCHOR OUT_DIR [--shift|--shift-drop NS] [--jobs N]\n");
        return 2;
    }
    uint64_t shift = argc == 5 ? strtoull(argv[4], NULL, 10) : 0;
    struct oc_time_map map = { shifted, shift_clock, &shift, argc == 5 && strcmp(argv[3], "--shift") == 0, NULL, NULL };
    struct oc_stats st;
    char err[4400];
    if (oc_copy_archive(argv[1], argv[2], "traces", argc == 5 ? &map : NULL, jobs, NULL, &st, err, sizeof err) != 0) {
        fprintf(stderr, "otf2copy_run: %s\n", err);
        return 1;
    }
    printf("locations=%llu events=%llu global_definitions=%llu local_definitions=%llu offsets_dropped=%llu "
           "kinds=%u/%u/%u\n",
           (unsigned long long)st.locations, (unsigned long long)st.events,
           (unsigned long long)st.global_definitions, (unsigned long long)st.local_definitions,
           (unsigned long long)st.offsets_dropped, oc_record_kinds[0], oc_record_kinds[1], oc_record_kinds[2]);
    return 0;
}
