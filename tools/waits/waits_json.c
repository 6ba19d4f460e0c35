/* waits_json.c — a small JSON reader for OUT/report.json: the whole text
 * parsed into a tree, enough to look up the clocks' bounds by name. */
#include "waits_json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *s;
    int depth;
};

static void skip_ws(struct parser *p)
{
    while (isspace((unsigned char)*p->s))
        p->s++;
}

static struct wj *new_node(int type)
{
    struct wj *n = calloc(1, sizeof *n);
    if (n)
        n->type = type;
    return n;
}

/* Strings keep their bytes; escapes other than \" and \\ are kept as
 * written (the names looked up never hold any). */
static char *parse_string(struct parser *p)
{
    if (*p->s != '"')
        return NULL;
    const char *start = ++p->s;
    while (*p->s && *p->s != '"')
        p->s += (*p->s == '\\' && p->s[1]) ? 2 : 1;
    if (*p->s != '"')
        return NULL;
    size_t n = (size_t)(p->s - start);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    memcpy(out, start, n);
    out[n] = 0;
    p->s++;
    return out;
}

static struct wj *parse_value(struct parser *p);

static int append(struct wj *parent, struct wj *child, char *key)
{
    if (parent->n == parent->cap) {
        size_t cap = parent->cap ? 2 * parent->cap : 8;
        struct wj **k = realloc(parent->kids, cap * sizeof *k);
        char **names = realloc(parent->keys, cap * sizeof *names);
        if (k)
            parent->kids = k;
        if (names)
            parent->keys = names;
        if (!k || !names)
            return -1;
        parent->cap = cap;
    }
    parent->kids[parent->n] = child;
    parent->keys[parent->n] = key;
    parent->n++;
    return 0;
}

static struct wj *parse_container(struct parser *p, int object)
{
    struct wj *n = new_node(object ? WJ_OBJECT : WJ_ARRAY);
    if (!n || ++p->depth > 64)
        goto fail;
    p->s++;
    skip_ws(p);
    if (*p->s == (object ? '}' : ']')) {
        p->s++;
        p->depth--;
        return n;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(p);
        if (object) {
            if (!(key = parse_string(p)))
                goto fail;
            skip_ws(p);
            if (*p->s != ':') {
                free(key);
                goto fail;
            }
            p->s++;
        }
        struct wj *v = parse_value(p);
        if (!v || append(n, v, key) != 0) {
            free(key);
            wj_free(v);
            goto fail;
        }
        skip_ws(p);
        if (*p->s == ',') {
            p->s++;
            continue;
        }
        if (*p->s != (object ? '}' : ']'))
            goto fail;
        p->s++;
        p->depth--;
        return n;
    }
fail:
    wj_free(n);
    return NULL;
}

static struct wj *parse_value(struct parser *p)
{
    skip_ws(p);
    char c = *p->s;
    if (c == '{' || c == '[')
        return parse_container(p, c == '{');
    if (c == '"') {
        struct wj *n = new_node(WJ_STRING);
        if (n && !(n->str = parse_string(p))) {
            free(n);
            return NULL;
        }
        return n;
    }
    static const struct { const char *word; int type, truth; } words[] = {
        { "null", WJ_NULL, 0 }, { "true", WJ_BOOL, 1 }, { "false", WJ_BOOL, 0 },
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strncmp(p->s, words[i].word, strlen(words[i].word))) {
            p->s += strlen(words[i].word);
            struct wj *n = new_node(words[i].type);
            if (n)
                n->num = words[i].truth;
            return n;
        }
    char *end;
    double v = strtod(p->s, &end);
    if (end == p->s)
        return NULL;
    p->s = end;
    struct wj *n = new_node(WJ_NUMBER);
    if (n)
        n->num = v;
    return n;
}

struct wj *wj_parse(const char *text)
{
    struct parser p = { text, 0 };
    struct wj *root = parse_value(&p);
    skip_ws(&p);
    if (root && *p.s) {
        wj_free(root);
        return NULL;
    }
    return root;
}

const struct wj *wj_get(const struct wj *obj, const char *key)
{
    if (!obj || obj->type != WJ_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return obj->kids[i];
    return NULL;
}

int wj_number(const struct wj *obj, const char *key, double *out)
{
    const struct wj *v = wj_get(obj, key);
    if (!v || (v->type != WJ_NUMBER && v->type != WJ_BOOL))
        return -1;
    *out = v->num;
    return 0;
}

void wj_free(struct wj *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++) {
        wj_free(n->kids[i]);
        if (n->keys)
            free(n->keys[i]);
    }
    free(n->kids);
    free(n->keys);
    free(n->str);
    free(n);
}

char *wj_read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
            if (!b) {
                snprintf(err, errlen, "%s: out of memory", path);
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read failed: %s", path, strerror(errno));
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    return buf;
}
