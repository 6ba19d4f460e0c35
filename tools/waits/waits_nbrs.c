/* waits_nbrs.c — OUT/neighbours.txt (tools/output/neighbours_out.c): the
 * in-neighbours of each rank on the graph communicators, for the
 * neighbourhood collectives' waits. No file: none known (an archive of
 * an older merge, or no graph communicator). */
#include "waits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int by_key(const void *pa, const void *pb)
{
    const struct wt_nbr *a = pa, *b = pb;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

int wt_nbrs_read(const char *outdir, struct wt_records *rec, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/neighbours.txt", outdir);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, capidx = 0, caplist = 0;
    unsigned long lineno = 0;
    int rc = -1;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (lineno == 1) {
            if (strcmp(line, "# synctrace neighbours 1\n") != 0) {
                snprintf(err, errlen, "%s: not a synctrace neighbours file (format 1)", path);
                goto done;
            }
            continue;
        }
        unsigned long comm, rank;
        int used = 0;
        if (sscanf(line, "%lu %lu %n", &comm, &rank, &used) != 2 || comm >= rec->ncomms || rank >= rec->nranks)
            goto bad;
        struct wt_nbr x = { (uint32_t)comm, (uint32_t)rank, rec->nnbr_list, 0 };
        char *p = line + used;
        if (!strcmp(p, "-\n"))
            p += 1;
        else
            for (;;) {
                char *end;
                errno = 0;
                unsigned long long in = strtoull(p, &end, 10);
                if (end == p || errno || in >= rec->nranks)
                    goto bad;
                if (rec->nnbr_list == caplist) {
                    size_t c = caplist ? 2 * caplist : 256;
                    uint32_t *v = realloc(rec->nbr_list, c * sizeof *v);
                    if (!v)
                        goto oom;
                    rec->nbr_list = v;
                    caplist = c;
                }
                rec->nbr_list[rec->nnbr_list++] = (uint32_t)in;
                x.n++;
                p = end;
                if (*p != ',')
                    break;
                p++;
            }
        if (strcmp(p, "\n") != 0)
            goto bad;
        if (rec->nnbrs == capidx) {
            size_t c = capidx ? 2 * capidx : 64;
            struct wt_nbr *v = realloc(rec->nbrs, c * sizeof *v);
            if (!v)
                goto oom;
            rec->nbrs = v;
            capidx = c;
        }
        rec->nbrs[rec->nnbrs++] = x;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        goto done;
    }
    if (lineno == 0) {
        snprintf(err, errlen, "%s: empty", path);
        goto done;
    }
    qsort(rec->nbrs, rec->nnbrs, sizeof *rec->nbrs, by_key);
    for (size_t i = 1; i < rec->nnbrs; i++)
        if (!by_key(&rec->nbrs[i - 1], &rec->nbrs[i])) {
            snprintf(err, errlen, "%s: communicator %" PRIu32 ", rank %" PRIu32 " given twice", path,
                     rec->nbrs[i].comm, rec->nbrs[i].rank);
            goto done;
        }
    rc = 0;
    goto done;
bad:
    snprintf(err, errlen, "%s:%lu: not a line of the neighbours file", path, lineno);
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
done:
    free(line);
    fclose(f);
    return rc;
}

const struct wt_nbr *wt_nbrs_of(const struct wt_records *rec, uint32_t comm, uint32_t rank)
{
    struct wt_nbr key = { comm, rank, 0, 0 };
    return rec->nnbrs ? bsearch(&key, rec->nbrs, rec->nnbrs, sizeof key, by_key) : NULL;
}
