/* waits_json.h — a small JSON tree reader (for report.json). */
#ifndef SYNCTRACE_WAITS_JSON_H
#define SYNCTRACE_WAITS_JSON_H

#include <stddef.h>

enum { WJ_NULL, WJ_BOOL, WJ_NUMBER, WJ_STRING, WJ_ARRAY, WJ_OBJECT };

struct wj {
    int type;
    double num;               /* number; bool: 0 or 1 */
    char *str;
    struct wj **kids;         /* array elements, object values */
    char **keys;              /* object keys (NULL entries in arrays) */
    size_t n, cap;
};

/* The tree of a whole text, or NULL when it is not JSON (or memory failed). */
struct wj *wj_parse(const char *text);
const struct wj *wj_get(const struct wj *obj, const char *key);
/* A number (or bool) member: 0, or -1 when missing or of another type. */
int wj_number(const struct wj *obj, const char *key, double *out);
void wj_free(struct wj *n);
/* A whole file as one NUL-terminated string (malloc'd), or NULL with a
 * one-line message naming it. */
char *wj_read_file(const char *path, char *err, size_t errlen);

#endif
