/* fuzz_common.c — see fuzz_common.h. */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void die(const char *what, const char *path)
{
    fprintf(stderr, "fuzz: %s: %s%s%s\n", path, what, errno ? ": " : "", errno ? strerror(errno) : "");
    exit(1);
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (!buf || ferror(f))
        die("cannot read", path);
    fclose(f);
    *size = n;
    return buf;
}

static void add_files(struct fz_tree *t, const char *base, const char *rel)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", base, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d)
        die("cannot list", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4096], full[8200];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", base, sub);
        struct stat st;
        if (stat(full, &st) != 0)
            die("cannot stat", full);
        if (S_ISDIR(st.st_mode)) {
            add_files(t, base, sub);
            continue;
        }
        t->files = realloc(t->files, sizeof *t->files * (t->nfiles + 1));
        if (!t->files)
            die("out of memory", full);
        struct fz_file *f = &t->files[t->nfiles++];
        f->rel = strdup(sub);
        f->data = slurp(full, &f->size);
    }
    closedir(d);
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const struct fz_file *)a)->rel, ((const struct fz_file *)b)->rel);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        die("cannot write", path);
}

static void make_parents(char *path)
{
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            die("cannot create", path);
        *p = '/';
    }
}

/* The scratch copies are removed when the harness exits normally
 * (libFuzzer's exit at the end of a run; not after a crash, whose
 * directory may help to reproduce it). */
static char *scratch[16];
static int nscratch;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void remove_scratch(void)
{
    for (int k = 0; k < nscratch; k++)
        nftw(scratch[k], remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void fz_tree_open(struct fz_tree *t, const char *name)
{
    const char *seeds = getenv("FUZZ_SEEDS");
    if (!seeds || !*seeds) {
        errno = 0;
        die("FUZZ_SEEDS is not set (the output directory of tests/fuzz/make-seeds.sh)", "environment");
    }
    char src[4096];
    snprintf(src, sizeof src, "%s/templates/%s", seeds, name);
    memset(t, 0, sizeof *t);
    add_files(t, src, "");
    if (t->nfiles == 0) {
        errno = 0;
        die("empty template", src);
    }
    qsort(t->files, t->nfiles, sizeof *t->files, by_rel);
    const char *tmp = getenv("TMPDIR");
    char root[4096];
    snprintf(root, sizeof root, "%s/synctrace-fuzz-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (!mkdtemp(root))
        die("cannot create", root);
    t->root = strdup(root);
    if (nscratch == 0)
        atexit(remove_scratch);
    if (nscratch < (int)(sizeof scratch / sizeof *scratch))
        scratch[nscratch++] = t->root;
    for (size_t k = 0; k < t->nfiles; k++) {
        char path[8200];
        fz_path(t, t->files[k].rel, path, sizeof path);
        make_parents(path);
        write_file(path, t->files[k].data, t->files[k].size);
    }
    t->dirty = t->nfiles;
}

size_t fz_tree_find(const struct fz_tree *t, const char *rel)
{
    for (size_t k = 0; k < t->nfiles; k++)
        if (strcmp(t->files[k].rel, rel) == 0)
            return k;
    errno = 0;
    die("not in the template", rel);
    return 0;
}

const char *fz_path(const struct fz_tree *t, const char *rel, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", t->root, rel);
    return buf;
}

void fz_tree_put(struct fz_tree *t, size_t index, const uint8_t *data, size_t size)
{
    char path[8200];
    if (t->dirty < t->nfiles && t->dirty != index) {
        const struct fz_file *f = &t->files[t->dirty];
        write_file(fz_path(t, f->rel, path, sizeof path), f->data, f->size);
    }
    write_file(fz_path(t, t->files[index].rel, path, sizeof path), data, size);
    t->dirty = index;
}

void fz_verbose(const char *harness, int rc, const char *err)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "%s: %s%s\n", harness, rc == 0 ? "read" : "rejected: ", rc == 0 ? "" : err);
}

/* 256 functions that differ (each bumps its own counter), never merged.
 * Named with octal digits: mark_00 .. mark_377. */
static volatile unsigned marks_hit[400];
#define MARK(n) static __attribute__((noinline)) void mark_##n(void) { marks_hit[n]++; }
#define MARK8(n) MARK(n##0) MARK(n##1) MARK(n##2) MARK(n##3) MARK(n##4) MARK(n##5) MARK(n##6) MARK(n##7)
MARK8(0)
MARK8(1)
MARK8(2)
MARK8(3)
MARK8(4)
MARK8(5)
MARK8(6)
MARK8(7)
MARK8(10)
MARK8(11)
MARK8(12)
MARK8(13)
MARK8(14)
MARK8(15)
MARK8(16)
MARK8(17)
MARK8(20)
MARK8(21)
MARK8(22)
MARK8(23)
MARK8(24)
MARK8(25)
MARK8(26)
MARK8(27)
MARK8(30)
MARK8(31)
MARK8(32)
MARK8(33)
MARK8(34)
MARK8(35)
MARK8(36)
MARK8(37)
#define NAME8(n) mark_##n##0, mark_##n##1, mark_##n##2, mark_##n##3, mark_##n##4, mark_##n##5, mark_##n##6, mark_##n##7
static void (*const marks[256])(void) = {
    NAME8(0), NAME8(1), NAME8(2), NAME8(3), NAME8(4), NAME8(5), NAME8(6), NAME8(7),
    NAME8(10), NAME8(11), NAME8(12), NAME8(13), NAME8(14), NAME8(15), NAME8(16), NAME8(17),
    NAME8(20), NAME8(21), NAME8(22), NAME8(23), NAME8(24), NAME8(25), NAME8(26), NAME8(27),
    NAME8(30), NAME8(31), NAME8(32), NAME8(33), NAME8(34), NAME8(35), NAME8(36), NAME8(37)
};

void fz_mark(unsigned k)
{
    marks[k % 256]();
}
