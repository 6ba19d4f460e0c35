/* export.h — `synctrace export OUT --format chrome|html`: views of a merged
 * archive for tools other than Vampir. Both read OUT/traces.otf2 as a
 * stream (format/mtread.h) and write to an open file; export.c handles the
 * command line and the temporary-file-then-rename. */
#ifndef SYNCTRACE_EXPORT_H
#define SYNCTRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int cmd_export(int argc, char **argv);

/* How the archive is read (mtread.h): locations read at once (0: the
 * default), and where the events of more are put in time order (NULL:
 * $TMPDIR, else /tmp). */
struct export_reading {
    uint32_t max_open;
    const char *spill_dir;
};

/* Chrome trace-event JSON (Perfetto, chrome://tracing). rd may be NULL. */
int export_chrome(const char *outdir, FILE *to, const struct export_reading *rd, char *err, size_t errlen);
/* One self-contained HTML page. rd may be NULL. */
int export_html(const char *outdir, FILE *to, const struct export_reading *rd, char *err, size_t errlen);

/* Counters both exporters fill, for the command's one-line summary. */
struct export_stats {
    unsigned long long events, slices, flows;   /* html: the embedded slices and messages */
    unsigned long long waits;                   /* wait instances marked (OUT/waits-instances.bin) */
};
extern struct export_stats export_last;

/* A JSON string literal (with the quotes) for s. */
void export_json_string(FILE *to, const char *s);
/* ns as microseconds with three decimals, exactly (no floating point). */
void export_us(FILE *to, uint64_t ns);

#endif
