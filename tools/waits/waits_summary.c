/* waits_summary.c — the top waits of OUT/waits.json in a few lines, for
 * `synctrace report` (which shows them after report.txt once `synctrace
 * waits --json` has run). */
#include "waits.h"
#include "waits_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 4096 > cap) {
            char *b = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!b)
                break;
            buf = b;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad || n + 4096 > cap) {   /* a read or the last realloc failed */
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

static void ms(char *b, size_t n, const struct wj *v)
{
    if (v && v->type == WJ_NUMBER)
        snprintf(b, n, "%.3f ms", v->num * 1e3);
    else
        snprintf(b, n, "inf");
}

int wt_summary(FILE *to, const char *outdir, size_t top)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/waits.json", outdir);
    char *text = slurp_file(path);
    if (!text)
        return 1;             /* no waits computed yet: nothing to say */
    struct wj *root = wj_parse(text);
    free(text);
    const struct wj *waits = wj_get(root, "waits");
    if (!waits || waits->type != WJ_ARRAY) {
        fprintf(to, "  waits         %s: not readable (run synctrace waits OUT --json again)\n", path);
        wj_free(root);
        return -1;
    }
    fprintf(to, "  waits         the %zu biggest of %zu (synctrace waits; [bounds]):\n",
            waits->n < top ? waits->n : top, waits->n);
    for (size_t i = 0; i < waits->n && i < top; i++) {
        const struct wj *w = waits->kids[i], *p = wj_get(w, "pattern"), *g = wj_get(w, "region");
        double rank = -1, count = 0, none = 1;
        wj_number(w, "rank", &rank);
        wj_number(w, "count", &count);
        wj_number(w, "possibly_none", &none);
        char v[32], lo[32], hi[32];
        ms(v, sizeof v, wj_get(w, "seconds"));
        ms(lo, sizeof lo, wj_get(w, "lo"));
        ms(hi, sizeof hi, wj_get(w, "hi"));
        fprintf(to, "    %-24s rank %-5.0f %-16s %s [%s, %s] x%.0f%s\n", p && p->str ? p->str : "?", rank,
                g && g->str ? g->str : "?", v, lo, hi, count, none ? "  possibly none" : "");
    }
    wj_free(root);
    return 0;
}
