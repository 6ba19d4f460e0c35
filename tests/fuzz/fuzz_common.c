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
