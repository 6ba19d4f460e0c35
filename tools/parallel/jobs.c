/* jobs.c — see jobs.h. */
#include "jobs.h"
#include "rawformat.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A spawn-N directory found, before it is linked. */
struct found {
    char *dir;
    char *run_id, *parent_run_id;
    uint64_t parent_key;
    int spawned, has_parent;
    long n;                   /* N, for the order */
};

/* The run.meta lines a job is linked by. */
static void read_meta(const char *dir, struct found *f)
{
    char path[4200], line[4400];
    snprintf(path, sizeof path, "%s/" RF_META_FILE, dir);
    FILE *in = fopen(path, "r");
    if (!in)
        return;
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        const char *value = sp + 1;
        if (strcmp(line, RF_META_KEY_RUN_ID) == 0 && !f->run_id)
            f->run_id = strdup(value);
        else if (strcmp(line, RF_META_KEY_SPAWNED) == 0)
            f->spawned = strcmp(value, "yes") == 0;
        else if (strcmp(line, RF_META_KEY_PARENT_RUN_ID) == 0 && !f->parent_run_id)
            f->parent_run_id = strdup(value);
        else if (strcmp(line, RF_META_KEY_PARENT_KEY) == 0) {
            char *end;
            unsigned long long k = strtoull(value, &end, 16);
            if (end != value && !*end) {
                f->parent_key = k;
                f->has_parent = 1;
            }
        }
    }
    fclose(in);
}

static int by_n(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    return (x->n > y->n) - (x->n < y->n);
}

/* Append dir's spawn-N subdirectories to *v, in N order. -1: out of memory. */
static int list_spawned(const char *dir, struct found **v, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t first = *n;
    struct dirent *de;
    size_t prefix = strlen(RF_SPAWN_DIR_PREFIX);
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, RF_SPAWN_DIR_PREFIX, prefix) != 0)
            continue;
        char *end;
        long k = strtol(de->d_name + prefix, &end, 10);
        if (end == de->d_name + prefix || *end || k < 0)
            continue;
        if (*n == *cap) {
            size_t c = *cap ? *cap * 2 : 8;
            struct found *nv = realloc(*v, sizeof *nv * c);
            if (!nv) {
                rc = -1;
                break;
            }
            *v = nv;
            *cap = c;
        }
        struct found *f = &(*v)[*n];
        memset(f, 0, sizeof *f);
        f->n = k;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        if (!(f->dir = malloc(len))) {
            rc = -1;
            break;
        }
        snprintf(f->dir, len, "%s/%s", dir, de->d_name);
        /* a real directory only: a symbolic link could lead back up the
         * tree and the search would never end */
        struct stat st;
        if (lstat(f->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            free(f->dir);
            continue;
        }
        (*n)++;
    }
    closedir(d);
    if (rc == 0)
        qsort(*v + first, *n - first, sizeof **v, by_n);
    return rc;
}

int jobs_find(const char *dir, struct merge_job **jobs, int *nskipped)
{
    *jobs = NULL;
    *nskipped = 0;
    struct found *v = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (!(v = calloc(1, sizeof *v)) || !(v[0].dir = strdup(dir)))
        rc = -1;
    else {
        n = cap = 1;
        read_meta(dir, &v[0]);
    }
    /* breadth first: each directory's spawn-N, and theirs */
    for (size_t k = 0; rc == 0 && k < n; k++) {
        char *here = v[k].dir;   /* v may move */
        size_t before = n;
        rc = list_spawned(here, &v, &n, &cap);
        for (size_t i = before; rc == 0 && i < n; i++)
            read_meta(v[i].dir, &v[i]);
    }
    /* link: a job whose parent run is a job taken already */
    struct merge_job *out = rc == 0 ? calloc(n, sizeof *out) : NULL;
    int nout = 0;
    if (out) {
        out[0] = (struct merge_job){ v[0].dir, v[0].run_id ? v[0].run_id : strdup(""), -1, 0, 0, 0 };
        v[0].dir = v[0].run_id = NULL;
        nout = 1;
        if (!out[0].run_id)
            rc = -1;
        for (size_t i = 1; rc == 0 && i < n; i++) {
            int p = -1;
            for (int j = 0; v[i].spawned && v[i].has_parent && v[i].parent_run_id && j < nout && p < 0; j++)
                if (strcmp(out[j].run_id, v[i].parent_run_id) == 0)
                    p = j;
            if (p < 0 || !v[i].run_id) {
                ++*nskipped;
                continue;
            }
            out[nout++] = (struct merge_job){ v[i].dir, v[i].run_id, p, v[i].parent_key, 0, 0 };
            v[i].dir = v[i].run_id = NULL;
        }
    } else {
        rc = -1;
    }
    for (size_t i = 0; i < n; i++) {
        free(v[i].dir);
        free(v[i].run_id);
        free(v[i].parent_run_id);
    }
    free(v);
    if (rc != 0) {
        jobs_free(out, nout);
        fprintf(stderr, "synctrace merge: out of memory\n");
        return -1;
    }
    *jobs = out;
    return nout;
}

void jobs_free(struct merge_job *jobs, int n)
{
    for (int i = 0; jobs && i < n; i++) {
        free(jobs[i].dir);
        free(jobs[i].run_id);
    }
    free(jobs);
}
