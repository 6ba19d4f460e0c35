/* report_cmd.c — `synctrace report OUT [--json]`: print what a merge
 * wrote in OUT/report.txt (or report.json), as the merge left it, and the
 * top waits of OUT/waits.json when `synctrace waits --json` wrote one. */
#include "commands.h"
#include "waits.h"

#include <stdio.h>
#include <string.h>

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: synctrace report OUT_DIR [--json]\nPrint what a merge corrected and how precisely.\n");
            return 0;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "synctrace report: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "synctrace report: no OUT_DIR given (see --help)\n");
        return 2;
    }
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, json ? "report.json" : "report.txt");
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "synctrace report: %s: no report here (is this the output of synctrace merge?)\n", path);
        return 1;
    }
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(f);
    if (!json)
        wt_summary(stdout, dir, 5);   /* once `synctrace waits --json` has run */
    return 0;
}
