/* rawview.c — see rawview.h: the map read back (the exports); writing
 * it is rawview_write.c's. */
#include "rawview.h"
#include "blockcache.h"
#include "fsutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last of v[0..n) at or before event `index` (0 when none is). */
static uint32_t last_at_or_before(const struct rv_point *v, uint32_t n, uint64_t index)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].index <= index)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

double rv_raw(const struct rv_rank *r, uint64_t index, double g)
{
    if (r->n == 0)
        return g;
    if (r->n == 1)
        return r->v[0].raw + (g - r->v[0].g);
    uint32_t lo = last_at_or_before(r->v, r->n, index);
    const struct rv_point *a, *b;
    if (lo + 1 == r->n) {   /* at or beyond the last breakpoint: its piece, extrapolated */
        a = &r->v[lo - 1];
        b = &r->v[lo];
        if (b->g > a->g)
            return b->raw + (b->raw - a->raw) * (g - b->g) / (b->g - a->g);
        return b->raw + (g - b->g);
    }
    a = &r->v[lo];
    b = &r->v[lo + 1];
    if (b->g > a->g)
        return a->raw + (b->raw - a->raw) * (g - a->g) / (b->g - a->g);
    return a->raw + (g - a->g);   /* a step: the event is on a's side */
}

/* Points are set aside as struct rv_point, RV_BLOCK to a block; a block
 * is read whole into slot (its number in the file) mod the slots: when
 * the map has no more blocks than RV_CACHE_SLOTS (6 MB), every block has
 * its own and is read once. */
#define RV_BLOCK 32u
#define RV_CACHE_SLOTS 8192u

struct rv_rank_file {
    uint64_t first;           /* its first point's number in the file */
    uint64_t block0;          /* its first block's */
    uint32_t n;
    uint64_t *fence;          /* the index of each block's first point */
};

struct rv_file {
    int fd;
    uint32_t nranks;
    struct rv_rank_file *ranks;
    struct st_blockcache cache;   /* slot: the block's number in the file, mod the slots */
    char path[512];
    char err[640];
};

static uint32_t blocks_of(uint32_t n)
{
    return (n + RV_BLOCK - 1) / RV_BLOCK;
}

const char *rv_file_error(const struct rv_file *m)
{
    return m->err;
}

void rv_close(struct rv_file *m)
{
    if (!m)
        return;
    for (uint32_t r = 0; m->ranks && r < m->nranks; r++)
        free(m->ranks[r].fence);
    free(m->ranks);
    st_blockcache_free(&m->cache);
    if (m->fd >= 0)
        close(m->fd);
    free(m);
}

uint32_t rv_count(const struct rv_file *m, uint32_t rank)
{
    return rank < m->nranks ? m->ranks[rank].n : 0;
}

/* Block b of rank r (its *n points), read in if need be; NULL when the
 * read failed (the failure sticks in m->err). */
static const struct rv_point *block_at(struct rv_file *m, uint32_t r, uint32_t b, uint32_t *n)
{
    const struct rv_rank_file *rk = &m->ranks[r];
    uint64_t key = rk->block0 + b;
    *n = rk->n - b * RV_BLOCK < RV_BLOCK ? rk->n - b * RV_BLOCK : RV_BLOCK;
    const struct rv_point *v = st_blockcache_get(&m->cache, (uint32_t)(key % m->cache.nslots), key,
                                                 (rk->first + (uint64_t)b * RV_BLOCK) * sizeof *v, sizeof *v * *n);
    if (!v && !m->err[0])
        snprintf(m->err, sizeof m->err, "%s: its points set aside: read failed: %s", m->path,
                 st_blockcache_why(&m->cache));
    return v;
}

int rv_point_at(struct rv_file *m, uint32_t rank, uint32_t k, struct rv_point *p)
{
    uint32_t n;
    const struct rv_point *v = block_at(m, rank, k / RV_BLOCK, &n);
    if (!v)
        return -1;
    *p = v[k % RV_BLOCK];
    return 0;
}

double rv_file_raw(struct rv_file *m, uint32_t rank, uint64_t index, double g)
{
    const struct rv_rank_file *rk = &m->ranks[rank];
    if (rk->n == 0)
        return g;
    /* k: the last point at or before the event (0 when none is): its
     * block by the fences, then within the block */
    uint32_t lo = 0, hi = blocks_of(rk->n);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rk->fence[mid] <= index)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t n;
    const struct rv_point *v = block_at(m, rank, lo, &n);
    if (!v)
        return g;
    uint32_t k = lo * RV_BLOCK + last_at_or_before(v, n, index);
    /* the two points rv_raw would take of the whole list */
    struct rv_point w[2];
    struct rv_rank win = { w, rk->n == 1 ? 1 : 2 };
    uint32_t first = rk->n == 1 ? 0 : k + 1 == rk->n ? k - 1 : k;
    for (uint32_t j = 0; j < win.n; j++)
        if (rv_point_at(m, rank, first + j, &w[j]) != 0)
            return g;
    return rv_raw(&win, index, g);
}

/* The points of one rank, from the text into the file, RV_BLOCK at a
 * time; 0, or -1 with the message in err. */
static int read_rank(FILE *f, struct rv_file *m, uint32_t r, uint64_t *written, uint64_t *blocks, unsigned long *lineno,
                     struct rv_point *buf, char *err, size_t errlen)
{
    char line[256];
    unsigned rr, cnt;
    ++*lineno;
    if (!fgets(line, sizeof line, f) || sscanf(line, "rank %u %u", &rr, &cnt) != 2 || rr != r || cnt > (1u << 28)) {
        snprintf(err, errlen, "%s:%lu: expected 'rank %u COUNT'", m->path, *lineno, r);
        return -1;
    }
    struct rv_rank_file *rk = &m->ranks[r];
    rk->first = *written;
    rk->block0 = *blocks;
    if (cnt && !(rk->fence = malloc(sizeof *rk->fence * blocks_of(cnt)))) {
        snprintf(err, errlen, "%s: out of memory", m->path);
        return -1;
    }
    struct rv_point prev = { 0, 0, 0 };
    for (uint32_t k = 0; k < cnt; k++) {
        struct rv_point *p = &buf[k % RV_BLOCK];
        char extra;
        unsigned long long idx;
        ++*lineno;
        if (!fgets(line, sizeof line, f) || sscanf(line, "%llu %lf %lf %c", &idx, &p->g, &p->raw, &extra) != 3
            || !isfinite(p->g) || !isfinite(p->raw) || (k && (p->g < prev.g || idx < prev.index))) {
            snprintf(err, errlen, "%s:%lu: expected 'event_index global_ns raw_ns', both rising", m->path, *lineno);
            return -1;
        }
        p->index = idx;
        prev = *p;
        if (k % RV_BLOCK == 0)
            rk->fence[k / RV_BLOCK] = idx;
        if ((k + 1) % RV_BLOCK == 0 || k + 1 == cnt) {
            size_t n = k % RV_BLOCK + 1;
            if (st_pwrite_all(m->fd, buf, sizeof *buf * n, (*written + k + 1 - n) * sizeof *buf) != 0) {
                snprintf(err, errlen, "%s: its points cannot be set aside: %s", m->path, strerror(errno));
                return -1;
            }
        }
        rk->n = k + 1;
    }
    *written += cnt;
    *blocks += blocks_of(cnt);
    return 0;
}

struct rv_file *rv_open(const char *path, uint32_t expect_ranks, const char *tmpdir, char *err, size_t errlen)
{
    struct rv_file *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    m->fd = -1;
    snprintf(m->path, sizeof m->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        free(m);
        return NULL;
    }
    char line[256];
    unsigned long lineno = 2;
    int version = 0;
    unsigned nranks = 0;
    struct rv_point *buf = NULL;
    if (!fgets(line, sizeof line, f) || sscanf(line, "synctrace-rawview %d", &version) != 1) {
        snprintf(err, errlen, "%s: not a synctrace raw-view map (no 'synctrace-rawview' header)", path);
        goto bad;
    }
    if (version != 2) {
        snprintf(err, errlen, "%s: raw-view map version %d, this synctrace reads version 2", path, version);
        goto bad;
    }
    if (!fgets(line, sizeof line, f) || sscanf(line, "ranks %u", &nranks) != 1) {
        snprintf(err, errlen, "%s:%lu: expected 'ranks N'", path, lineno);
        goto bad;
    }
    if (nranks != expect_ranks) {   /* before anything is made for them */
        snprintf(err, errlen, "%s: %u ranks, the archive has %u", path, nranks, expect_ranks);
        goto bad;
    }
    const char *dir = tmpdir ? tmpdir : st_temp_dir();
    m->fd = st_nameless_file(dir, "rawview");
    if (m->fd < 0) {
        snprintf(err, errlen, "%s: its points cannot be set aside in %s: %s", path, dir, strerror(errno));
        goto bad;
    }
    m->ranks = calloc(nranks ? nranks : 1, sizeof *m->ranks);
    buf = malloc(sizeof *buf * RV_BLOCK);
    if (!m->ranks || !buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto bad;
    }
    m->nranks = nranks;
    uint64_t written = 0, blocks = 0;
    for (uint32_t r = 0; r < nranks; r++) {
        if (read_rank(f, m, r, &written, &blocks, &lineno, buf, err, errlen) != 0)
            goto bad;
    }
    /* as many slots as blocks, up to the cache's size */
    uint32_t nslots = blocks < RV_CACHE_SLOTS ? (uint32_t)(blocks ? blocks : 1) : RV_CACHE_SLOTS;
    if (st_blockcache_init(&m->cache, m->fd, sizeof(struct rv_point) * RV_BLOCK, nslots) != 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        goto bad;
    }
    free(buf);
    fclose(f);
    return m;
bad:
    free(buf);
    fclose(f);
    rv_close(m);
    return NULL;
}
