/* export_json.c — what both exports write alike: JSON strings, times in
 * microseconds, and the counters of the command's summary (export.h). */
#include <config.h>
#include "export.h"

#include <stdint.h>
#include <stdio.h>

struct export_stats export_last;

void export_json_string(FILE *to, const char *s)
{
    fputc('"', to);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(to, "\\%c", c);
        else if (c < 0x20)
            fprintf(to, "\\u%04x", c);
        else if (c == '<')
            fputs("\\u003c", to);   /* never "</script>" inside an HTML page */
        else
            fputc(c, to);
    }
    fputc('"', to);
}

void export_us(FILE *to, uint64_t ns)
{
    /* by hand: printf's parsing is a third of a Chrome export's time */
    char buf[32], *p = buf + sizeof buf;
    uint64_t frac = ns % 1000, whole = ns / 1000;
    *--p = (char)('0' + frac % 10);
    *--p = (char)('0' + frac / 10 % 10);
    *--p = (char)('0' + frac / 100);
    *--p = '.';
    do
        *--p = (char)('0' + whole % 10);
    while ((whole /= 10) > 0);
    fwrite(p, 1, (size_t)(buf + sizeof buf - p), to);
}
