/* synctrace.c — the post-mortem tool: dispatch to a subcommand. */
#include <config.h>
#include "causal_cmd.h"
#include "commands.h"
#include "export.h"
#include "launcher.h"
#include "merge.h"
#include "foreign_merge.h"
#include "waits.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} commands[] = {
    { "merge", cmd_merge_any, "merge a raw trace into one synchronised OTF2 archive" },
    { "report", cmd_report, "print what a merge corrected and how precisely" },
    { "export", cmd_export, "write a Chrome/Perfetto trace or an HTML timeline of a merged trace" },
    { "waits", cmd_waits, "where ranks wait for whom (Scalasca's patterns), each time with its bounds" },
    { "query", cmd_query, "is one event before, after or concurrent with another (causal index)" },
    { "causal", cmd_causal, "(re)build the causal index of a merged trace from its archive" },
    { "dump", cmd_dump, "print the events of a raw trace as text" },
};

static void usage(FILE *to)
{
    fprintf(to, "usage: synctrace COMMAND [ARGS] (synctrace COMMAND --help for more)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-8s %s\n", commands[i].name, commands[i].what);
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) must fail a write with EFBIG, which
     * every writer reports in one line, not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    /* Started by mpirun (or srun, mpiexec) as several processes: merge
     * and waits share the work among them (tools/parallel/pmerge.h,
     * tools/waits/waits_share.h); anything else runs once, in the first,
     * rather than K times racing for one output. */
    uint32_t place, processes;
    merge_launch_place(&place, &processes);
    if (place > 0 && strcmp(argv[1], "merge") != 0 && strcmp(argv[1], "waits") != 0)
        return 0;
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("synctrace %s\n", PACKAGE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "synctrace: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
