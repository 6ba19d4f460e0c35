/* otf2copy_run.c — tests/test-otf2copy.sh's driver of the archive copy
 * (tools/foreign/otf2copy.h):
 *   otf2copy_run ANCHOR OUT_DIR                 an exact copy into OUT_DIR/traces.otf2
 *   otf2copy_run ANCHOR OUT_DIR --shift NS      every timestamp moved by NS (the
 *                                               ClockOffsets' and the clock's global
 *                                               offset with them)
 *   otf2copy_run ANCHOR OUT_DIR --shift-drop NS the same, the ClockOffsets dropped
 *   otf2copy_run ANCHOR OUT_DIR --stretch NS    every event's time moved by NS plus
 *                                               its position: events that share a
 *                                               timestamp get different times (the
 *                                               ClockOffsets dropped)
 * Each optionally with --jobs N last: the locations copied on N threads
 * (default 1: the plain single-threaded copy bench/foreign.sh compares with),
 * and --in-place anywhere after OUT_DIR: the events rewritten in place where
 * that can be done (OC_IN_PLACE; default: every record through OTF2's reader
 * and writer, the plain copy).
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

static uint64_t stretched(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    (void)location;
    return t + *(const uint64_t *)ctx + position;
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
    unsigned flags = 0;
    for (int i = 3; i < argc; i++)
        if (strcmp(argv[i], "--in-place") == 0) {
            flags |= OC_IN_PLACE;
            memmove(argv + i, argv + i + 1, sizeof *argv * (size_t)(argc - i));
            argc--;
            break;
        }
    if (argc >= 5 && strcmp(argv[argc - 2], "--jobs") == 0) {
        jobs = atoi(argv[argc - 1]);
        argc -= 2;
    }
    if (jobs < 1 || (argc != 3 && !(argc == 5 && (strcmp(argv[3], "--shift") == 0 || strcmp(argv[3], "--shift-drop") == 0 ||
                                                strcmp(argv[3], "--stretch") == 0)))) {
        fprintf(stderr, "usage: otf2copy_run ANCHOR OUT_DIR [--in-place] [--shift|--shift-drop|--stretch NS] [--jobs N]\n");
        return 2;
    }
    uint64_t shift = argc == 5 ? strtoull(argv[4], NULL, 10) : 0;
    struct oc_time_map map = { shifted, shift_clock, &shift, argc == 5 && strcmp(argv[3], "--shift") == 0, NULL, NULL };
    if (argc == 5 && strcmp(argv[3], "--stretch") == 0)
        map.time = stretched;
    struct oc_stats st;
    char err[4400];
    if (oc_copy_archive(argv[1], argv[2], "traces", argc == 5 ? &map : NULL, jobs, flags, NULL, &st, err, sizeof err) != 0) {
        fprintf(stderr, "otf2copy_run: %s\n", err);
        return 1;
    }
    printf("locations=%llu events=%llu global_definitions=%llu local_definitions=%llu offsets_dropped=%llu "
           "in_place=%llu kinds=%u/%u/%u\n",
           (unsigned long long)st.locations, (unsigned long long)st.events,
           (unsigned long long)st.global_definitions, (unsigned long long)st.local_definitions,
           (unsigned long long)st.offsets_dropped, (unsigned long long)st.locations_in_place, oc_record_kinds[0], oc_record_kinds[1], oc_record_kinds[2]);
    return 0;
}
