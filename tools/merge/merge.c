/* merge.c — `synctrace merge RAW_DIR -o OUT`: read every rank's archive,
 * match messages and collectives, solve clock offsets as difference
 * constraints, and write one tachyon-free OTF2 archive plus report.json.
 *
 * Only the wiring of the stages (merge_state.h lists them and their
 * files) and their timings for the report. */
#include <config.h>
#include "merge.h"
#include "launcher.h"
#include "merge_state.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>

/* Every stage in order; 0 when OUT is in place. */
static int run_stages(struct merge_state *st)
{
    /* read: every rank's definitions, then (in the match) its events */
    st->t_read_start = st_now_s();
    if (merge_read(st) != 0 || merge_outside(st) != 0 || merge_match(st) != 0 || merge_analyse(st) != 0)
        return -1;
    progress_update("writing the merged archive", 0, 0);
    if (merge_write(st) != 0)
        return -1;
    return merge_conclude(st);
}

static int merge_run(int argc, char **argv, int times_only)
{
    struct merge_options o;
    int rc = merge_parse_options(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    o.times_only = times_only;
    if (outdir_refuse_existing(&o))
        return 1;
    struct merge_state *st = malloc(sizeof *st);
    if (!st) {
        fprintf(stderr, "synctrace merge: out of memory\n");
        return 1;
    }
    merge_state_init(st, &o);
    progress_begin("synctrace merge");
    rc = run_stages(st);
    progress_end();
    if (rc == 0)
        report_print_summary(&st->rep, stdout);
    merge_state_free(st);
    free(st);
    return rc == 0 ? 0 : 1;
}

int cmd_merge(int argc, char **argv)
{
    /* started by mpirun (or srun, mpiexec) as several processes: they merge together */
    uint32_t place, processes;
    merge_launch_place(&place, &processes);
    if (processes > 1)
        return merge_parallel(argc, argv, processes, 0);
    return merge_run(argc, argv, 0);
}

int merge_times_only(int argc, char **argv)
{
    /* the foreign path under mpirun: its processes merge the raw trace together */
    uint32_t place, processes;
    merge_launch_place(&place, &processes);
    if (processes > 1)
        return merge_parallel(argc, argv, processes, 1);
    return merge_run(argc, argv, 1);
}
