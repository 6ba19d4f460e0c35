/* rawdir.c — find the per-rank archives of a raw trace directory. */
#include "rawdir.h"
#include "rawformat.h"
#include "sumfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "rank-NNNNNN" + suffix: the rank, or -1. */
static int rank_of(const char *name, const char *suffix)
{
    size_t prefix = strlen(RF_RANK_PREFIX);
    if (strlen(name) != RF_RANK_NAME_LEN + strlen(suffix) || strncmp(name, RF_RANK_PREFIX, prefix) != 0
        || strcmp(name + RF_RANK_NAME_LEN, suffix) != 0)
        return -1;
    int rank = 0;
    for (size_t i = prefix; i < RF_RANK_NAME_LEN; i++) {
        if (name[i] < '0' || name[i] > '9')
            return -1;
        rank = rank * 10 + (name[i] - '0');
    }
    return rank;
}

/* world_size from DIR/run.meta (rank 0 writes it at MPI_Init), or 0. */
static int meta_world_size(const char *dir)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/" RF_META_FILE, dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int n = 0;
    while (!n && fgets(line, sizeof line, f))
        if (sscanf(line, RF_META_KEY_WORLD_SIZE " %d", &n) != 1 || n < 0 || n > RF_MAX_WORLD_SIZE)
            n = 0;
    fclose(f);
    return n;
}

int rawdir_list(const char *dir, char ***anchors, char *err, size_t errlen)
{
    *anchors = NULL;
    char meta[4200];
    snprintf(meta, sizeof meta, "%s/run.meta", dir);
    if (sum_verify_sealed(meta, err, errlen) < 0)   /* damaged run metadata is never trusted */
        return -1;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    /* A rank is there with its anchor (complete, or empty when it died
     * while writing it) or with only a recovery journal (killed before it
     * could close its archive: rt_read_rank rebuilds it). */
    unsigned char *seen = NULL;
    int nseen = 0, found = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int r = rank_of(de->d_name, RF_ANCHOR_SUFFIX);
        if (r < 0)
            r = rank_of(de->d_name, RF_JOURNAL_SUFFIX);
        if (r < 0)
            r = rank_of(de->d_name, RF_SUM_SUFFIX);
        if (r < 0)
            continue;
        if (r >= nseen) {
            int n = r + 1 > 2 * nseen ? r + 1 : 2 * nseen;
            unsigned char *nv = realloc(seen, (size_t)n);
            if (!nv) {
                closedir(d);
                free(seen);
                snprintf(err, errlen, "%s: out of memory", dir);
                return -1;
            }
            memset(nv + nseen, 0, (size_t)(n - nseen));
            seen = nv;
            nseen = n;
        }
        found += !seen[r];
        seen[r] = 1;
    }
    closedir(d);
    if (found == 0) {
        free(seen);
        snprintf(err, errlen, "%s: no rank archives (rank-NNNNNN.otf2) in this directory", dir);
        return -1;
    }
    /* Every rank of the run, up to the highest found and the world size of
     * run.meta: one that left nothing at all is listed too, so that reading
     * it names it as missing. */
    int n = 0;
    for (int r = 0; r < nseen; r++)
        if (seen[r])
            n = r + 1;
    int world = meta_world_size(dir);
    if (world > n)
        n = world;
    char **v = calloc((size_t)n, sizeof *v);
    for (int r = 0; v && r < n; r++) {
        size_t len = strlen(dir) + sizeof "/" RF_RANK_PREFIX "000000" RF_ANCHOR_SUFFIX;
        if (!(v[r] = malloc(len))) {
            rawdir_free(v, r);
            v = NULL;
            break;
        }
        snprintf(v[r], len, "%s/" RF_RANK_NAME_FMT RF_ANCHOR_SUFFIX, dir, r);
    }
    free(seen);
    if (!v) {
        snprintf(err, errlen, "%s: out of memory", dir);
        return -1;
    }
    *anchors = v;
    return n;
}

void rawdir_free(char **anchors, int n)
{
    for (int i = 0; i < n; i++)
        free(anchors[i]);
    free(anchors);
}
