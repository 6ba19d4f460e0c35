/* waits_rows.c — include/synctrace/waits.h: OUT/waits.json read back
 * for a tool (libsynctrace-causal), through the waits' own JSON reader. */
#include "synctrace/waits.h"
#include "waits_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stc_waits {
    struct stc_wait_row *rows;
    size_t n;
    char **strings;           /* the rows' strings, decoded: 3 per row */
    uint64_t events;
};

/* A JSON string's bytes (wj keeps escapes as written) decoded; NULL when
 * memory failed or an escape is malformed. */
static char *unescape(const char *s)
{
    char *out = malloc(strlen(s) * 3 + 1), *o = out;   /* \uXXXX (6) is at most 3 bytes of UTF-8 */
    if (!out)
        return NULL;
    while (*s) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        char c = s[1];
        s += 2;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *k = c ? strchr(from, c) : NULL;
        if (k) {
            *o++ = to[k - from];
            continue;
        }
        unsigned v = 0;
        for (int i = 0; c == 'u' && i < 4; i++, s++) {
            char h = *s;
            if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
                c = 0;
                break;
            }
            v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
        }
        if (c != 'u') {
            free(out);
            return NULL;
        }
        /* synctrace writes \u only for control characters; others as UTF-8 */
        if (v < 0x80)
            *o++ = (char)v;
        else if (v < 0x800)
            *o++ = (char)(0xc0 | v >> 6), *o++ = (char)(0x80 | (v & 63));
        else
            *o++ = (char)(0xe0 | v >> 12), *o++ = (char)(0x80 | ((v >> 6) & 63)), *o++ = (char)(0x80 | (v & 63));
    }
    *o = 0;
    return out;
}

/* A number field: 0, or -1 with the message. null is INFINITY when allowed. */
static int number(const struct wj *row, const char *key, int null_is_inf, int optional, double *out, size_t i,
                  const char *path, char *err, size_t errlen)
{
    const struct wj *v = wj_get(row, key);
    if (!v && optional) {
        *out = NAN;
        return 0;
    }
    if (v && v->type == WJ_NULL && (null_is_inf || optional)) {
        *out = null_is_inf ? INFINITY : NAN;
        return 0;
    }
    if (!v || v->type != WJ_NUMBER) {
        snprintf(err, errlen, "%s: waits[%zu]: \"%s\" %s", path, i, key, v ? "is not a number" : "missing");
        return -1;
    }
    *out = v->num;
    return 0;
}

static int string(const struct wj *row, const char *key, char **out, size_t i, const char *path, char *err,
                  size_t errlen)
{
    const struct wj *v = wj_get(row, key);
    if (!v || v->type != WJ_STRING) {
        snprintf(err, errlen, "%s: waits[%zu]: \"%s\" %s", path, i, key, v ? "is not a string" : "missing");
        return -1;
    }
    if (!(*out = unescape(v->str))) {
        snprintf(err, errlen, "%s: waits[%zu]: \"%s\": a bad escape (or out of memory)", path, i, key);
        return -1;
    }
    return 0;
}

static int count(const struct wj *row, const char *key, uint64_t *out, size_t i, const char *path, char *err,
                 size_t errlen)
{
    double v;
    if (number(row, key, 0, 0, &v, i, path, err, errlen) != 0)
        return -1;
    if (!(v >= 0 && v <= 9007199254740992.0 && v == floor(v))) {
        snprintf(err, errlen, "%s: waits[%zu]: \"%s\" is not a count (%g)", path, i, key, v);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

static int read_row(const struct wj *r, size_t i, struct stc_wait_row *row, char **s, const char *path, char *err,
                    size_t errlen)
{
    double rank, none;
    const struct wj *pn = wj_get(r, "possibly_none");
    if (r->type != WJ_OBJECT) {
        snprintf(err, errlen, "%s: waits[%zu] is not an object", path, i);
        return -1;
    }
    if (string(r, "pattern", &s[0], i, path, err, errlen) != 0 || string(r, "region", &s[1], i, path, err, errlen) != 0
        || string(r, "communicator", &s[2], i, path, err, errlen) != 0
        || number(r, "rank", 0, 0, &rank, i, path, err, errlen) != 0
        || count(r, "count", &row->count, i, path, err, errlen) != 0
        || count(r, "count_sure", &row->count_sure, i, path, err, errlen) != 0
        || count(r, "count_possible", &row->count_possible, i, path, err, errlen) != 0
        || number(r, "seconds", 0, 0, &row->seconds, i, path, err, errlen) != 0
        || number(r, "lo", 0, 0, &row->lo, i, path, err, errlen) != 0
        || number(r, "hi", 1, 0, &row->hi, i, path, err, errlen) != 0
        || number(r, "true_seconds", 0, 1, &row->true_seconds, i, path, err, errlen) != 0
        || number(r, "raw_seconds", 0, 1, &row->raw_seconds, i, path, err, errlen) != 0)
        return -1;
    if (!(rank >= 0 && rank <= UINT32_MAX && rank == floor(rank))) {
        snprintf(err, errlen, "%s: waits[%zu]: \"rank\" is not a rank (%g)", path, i, rank);
        return -1;
    }
    if (!pn || pn->type != WJ_BOOL) {
        snprintf(err, errlen, "%s: waits[%zu]: \"possibly_none\" %s", path, i, pn ? "is not true or false" : "missing");
        return -1;
    }
    none = pn->num;
    row->rank = (uint32_t)rank;
    row->possibly_none = none != 0;
    row->pattern = s[0];
    row->region = s[1];
    row->communicator = s[2];
    return 0;
}

stc_waits *stc_waits_open(const char *dir, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/waits.json", dir ? dir : "");
    if (!dir) {
        snprintf(err, errlen, "stc_waits_open: no directory given");
        return NULL;
    }
    char *text = wj_read_file(path, err, errlen);
    if (!text)
        return NULL;
    struct wj *root = wj_parse(text);
    free(text);
    stc_waits *w = NULL;
    double format, events;
    const struct wj *rows = wj_get(root, "waits");
    if (!root) {
        snprintf(err, errlen, "%s: not JSON (or out of memory)", path);
        goto fail;
    }
    if (wj_number(root, "format", &format) != 0 || format != 1) {
        snprintf(err, errlen, "%s: not of format 1 (made by another synctrace?)", path);
        goto fail;
    }
    if (!rows || rows->type != WJ_ARRAY) {
        snprintf(err, errlen, "%s: no \"waits\" list", path);
        goto fail;
    }
    if (!(w = calloc(1, sizeof *w)) || !(w->rows = calloc(rows->n ? rows->n : 1, sizeof *w->rows))
        || !(w->strings = calloc(3 * (rows->n ? rows->n : 1), sizeof *w->strings))) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto fail;
    }
    w->events = wj_number(root, "events", &events) == 0 && events >= 0 ? (uint64_t)events : 0;
    for (size_t i = 0; i < rows->n; i++) {
        w->n = i + 1;   /* its strings freed on failure too */
        if (read_row(rows->kids[i], i, &w->rows[i], w->strings + 3 * i, path, err, errlen) != 0)
            goto fail;
    }
    w->n = rows->n;
    wj_free(root);
    return w;
fail:
    wj_free(root);
    stc_waits_close(w);
    return NULL;
}

void stc_waits_close(stc_waits *w)
{
    if (!w)
        return;
    for (size_t i = 0; w->strings && i < 3 * w->n; i++)
        free(w->strings[i]);
    free(w->strings);
    free(w->rows);
    free(w);
}

size_t stc_waits_count(const stc_waits *w)
{
    return w ? w->n : 0;
}

const struct stc_wait_row *stc_waits_row(const stc_waits *w, size_t i)
{
    return w && i < w->n ? &w->rows[i] : NULL;
}

uint64_t stc_waits_events(const stc_waits *w)
{
    return w ? w->events : 0;
}
