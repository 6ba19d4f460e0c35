/* rawdir.c — find the per-rank archives of a raw trace directory. */
#include "rawdir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_anchor(const char *name)
{
    size_t len = strlen(name);
    if (len != strlen("rank-000000.otf2") || strncmp(name, "rank-", 5) != 0 || strcmp(name + 11, ".otf2") != 0)
        return 0;
    for (int i = 5; i < 11; i++)
        if (name[i] < '0' || name[i] > '9')
            return 0;
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rawdir_list(const char *dir, char ***anchors, char *err, size_t errlen)
{
    *anchors = NULL;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_anchor(de->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, sizeof *nv * (size_t)cap);
            if (!nv)
                break;
            v = nv;
        }
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        if (!(v[n] = malloc(len)))
            break;
        snprintf(v[n], len, "%s/%s", dir, de->d_name);
        n++;
    }
    closedir(d);
    if (n == 0) {
        free(v);
        snprintf(err, errlen, "%s: no rank archives (rank-NNNNNN.otf2) in this directory", dir);
        return -1;
    }
    qsort(v, (size_t)n, sizeof *v, by_name);
    *anchors = v;
    return n;
}

void rawdir_free(char **anchors, int n)
{
    for (int i = 0; i < n; i++)
        free(anchors[i]);
    free(anchors);
}
