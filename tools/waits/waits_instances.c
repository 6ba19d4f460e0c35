/* waits_instances.c — OUT/waits-instances.bin written while the rules
 * run (streamed: nothing held in memory) and read back whole by the
 * exporters. See waits_instances.h for the layout. */
#include "waits_instances.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char MAGIC[8] = { 'S', 'T', 'W', 'A', 'I', 'T', 'I', '1' };

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_f64(unsigned char *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    put_u64(p, v);
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static double get_f64(const unsigned char *p)
{
    uint64_t v = get_u64(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* The archive's anchor file as it is now: a later merge changes it. */
static int archive_stamp(const char *outdir, int64_t *mtime_ns, uint64_t *size, char *err, size_t errlen)
{
    char path[4200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/traces.otf2", outdir);
    if (stat(path, &sb) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    *mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    *size = (uint64_t)sb.st_size;
    return 0;
}

static int on_instance(void *ctx, enum wt_pattern p, uint32_t rank, uint32_t region, uint32_t comm,
                       const struct wt_diff *d)
{
    struct wt_instances_out *o = ctx;
    unsigned char r[WT_INSTANCE_BYTES] = { 0 };
    r[0] = (unsigned char)p;
    put_u32(r + 4, rank);
    put_u32(r + 8, region);
    put_u32(r + 12, comm);
    /* the rule's last difference started on the waiting rank: its entry */
    double from = o->probe.rank == rank ? o->probe.from : NAN;
    o->unplaced += from != from;
    put_f64(r + 16, from);
    put_f64(r + 24, d->w);
    put_f64(r + 32, d->lo);
    put_f64(r + 40, d->hi);
    if (fwrite(r, sizeof r, 1, o->f) != 1) {
        o->failed = errno ? errno : EIO;
        return -1;
    }
    o->n++;
    return 0;
}

int wt_instances_begin(struct wt_instances_out *o, const char *outdir, struct wt_table *tb, struct wt_bounds *bd,
                       char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    snprintf(o->path, sizeof o->path, "%s/%s", outdir, WT_INSTANCES_FILE);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", o->path, (long)getpid());
    if (!(o->f = fopen(o->tmp, "wb"))) {
        snprintf(err, errlen, "%s: cannot write: %s", o->tmp, strerror(errno));
        return -1;
    }
    unsigned char h[WT_INSTANCES_HEADER] = { 0 };   /* filled in by finish */
    if (fwrite(h, sizeof h, 1, o->f) != 1) {
        snprintf(err, errlen, "%s: write failed: %s", o->tmp, strerror(errno));
        wt_instances_abort(o);
        return -1;
    }
    tb->on_instance = on_instance;
    tb->on_instance_ctx = o;
    o->probe = (struct wt_probe){ NAN, UINT32_MAX };
    bd->probe = &o->probe;
    return 0;
}

int wt_instances_finish(struct wt_instances_out *o, const char *outdir, const struct wt_records *rec, char *err,
                        size_t errlen)
{
    int64_t mtime;
    uint64_t size;
    if (o->failed) {
        snprintf(err, errlen, "%s: write failed: %s", o->tmp, strerror(o->failed));
        goto fail;
    }
    if (archive_stamp(outdir, &mtime, &size, err, errlen) != 0)
        goto fail;
    unsigned char h[WT_INSTANCES_HEADER] = { 0 };
    memcpy(h, MAGIC, sizeof MAGIC);
    put_u32(h + 8, 1);
    put_u32(h + 12, rec->nranks);
    put_u64(h + 16, o->n);
    put_u64(h + 24, rec->events);
    put_u64(h + 32, (uint64_t)mtime);
    put_u64(h + 40, size);
    if (fseek(o->f, 0, SEEK_SET) != 0 || fwrite(h, sizeof h, 1, o->f) != 1 || ferror(o->f)) {
        snprintf(err, errlen, "%s: write failed: %s", o->tmp, strerror(errno));
        goto fail;
    }
    FILE *f = o->f;
    o->f = NULL;
    if (fclose(f) != 0) {
        snprintf(err, errlen, "%s: write failed: %s", o->tmp, strerror(errno));
        goto fail;
    }
    return 0;
fail:
    wt_instances_abort(o);
    return -1;
}

int wt_instances_commit(struct wt_instances_out *o, char *err, size_t errlen)
{
    if (rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "%s: cannot rename to %s: %s", o->tmp, o->path, strerror(errno));
        wt_instances_abort(o);
        return -1;
    }
    o->tmp[0] = 0;
    return 0;
}

void wt_instances_abort(struct wt_instances_out *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = 0;
}

int wt_instances_read(const char *outdir, uint32_t nranks, struct wt_instance **v, size_t *n, char *err,
                      size_t errlen)
{
    char path[4200];
    *v = NULL;
    *n = 0;
    snprintf(path, sizeof path, "%s/%s", outdir, WT_INSTANCES_FILE);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    unsigned char h[WT_INSTANCES_HEADER], r[WT_INSTANCE_BYTES];
    int64_t mtime;
    uint64_t size;
    struct wt_instance *out = NULL;
    if (fread(h, sizeof h, 1, f) != 1 || memcmp(h, MAGIC, sizeof MAGIC) != 0 || get_u32(h + 8) != 1) {
        snprintf(err, errlen, "%s: not a waits-instances file of version 1", path);
        goto fail;
    }
    if (archive_stamp(outdir, &mtime, &size, err, errlen) != 0)
        goto fail;
    if (get_u64(h + 32) != (uint64_t)mtime || get_u64(h + 40) != size || get_u32(h + 12) != nranks) {
        snprintf(err, errlen, "%s: stale (computed on another traces.otf2: run synctrace waits %s --json again)",
                 path, outdir);
        goto fail;
    }
    uint64_t count = get_u64(h + 16);
    struct stat sb;
    /* compared by division: a count near 2^64 must not wrap into a match */
    if (fstat(fileno(f), &sb) != 0 || (uint64_t)sb.st_size < WT_INSTANCES_HEADER
        || ((uint64_t)sb.st_size - WT_INSTANCES_HEADER) % WT_INSTANCE_BYTES != 0
        || ((uint64_t)sb.st_size - WT_INSTANCES_HEADER) / WT_INSTANCE_BYTES != count) {
        snprintf(err, errlen, "%s: %llu instances announced, the file's size does not match", path,
                 (unsigned long long)count);
        goto fail;
    }
    if (count && !(out = malloc((size_t)count * sizeof *out))) {
        snprintf(err, errlen, "%s: out of memory for %llu instances", path, (unsigned long long)count);
        goto fail;
    }
    for (uint64_t k = 0; k < count; k++) {
        if (fread(r, sizeof r, 1, f) != 1) {
            snprintf(err, errlen, "%s: cut short at instance %llu", path, (unsigned long long)k);
            goto fail;
        }
        out[k] = (struct wt_instance){ r[0], get_u32(r + 4), get_u32(r + 8), get_u32(r + 12),
                                       get_f64(r + 16), get_f64(r + 24), get_f64(r + 32), get_f64(r + 40) };
        if (out[k].pattern >= WT_PATTERNS || out[k].rank >= nranks) {
            snprintf(err, errlen, "%s: instance %llu: pattern %u or rank %u out of range", path,
                     (unsigned long long)k, out[k].pattern, out[k].rank);
            goto fail;
        }
    }
    fclose(f);
    *v = out;
    *n = (size_t)count;
    return 0;
fail:
    free(out);
    fclose(f);
    return -1;
}
