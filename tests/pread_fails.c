/* pread_fails.c — a test shim, preloaded into synctrace, that makes reads
 * of its spill files fail as a failing disk would. PREAD_FAILS_DIR=D:
 * the pread(2) calls on files in directory D (the merge's --spill-dir,
 * whose files have no name: /proc/self/fd shows "D/#inode (deleted)")
 * are counted; with PREAD_FAILS_AFTER=N every one after the first N fails
 * with EIO; with PREAD_FAILS_COUNT=FILE their number is appended to FILE
 * at exit, a line per process. A test counts a run's reads, then fails
 * its last ones: the reads after a stage, deterministically for a merge
 * with --jobs 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);

static unsigned long reads;

static int in_dir(int fd)
{
    const char *dir = getenv("PREAD_FAILS_DIR");
    char link[64], path[4096];
    if (!dir || !*dir)
        return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = 0;
    size_t k = strlen(dir);
    return strncmp(path, dir, k) == 0 && path[k] == '/';
}

static ssize_t counted(pread_fn real, int fd, void *buf, size_t len, off_t off)
{
    if (in_dir(fd)) {
        unsigned long k = __atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED);
        const char *after = getenv("PREAD_FAILS_AFTER");
        if (after && k > strtoul(after, NULL, 10)) {
            errno = EIO;
            return -1;
        }
    }
    return real(fd, buf, len, off);
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
    static pread_fn real;
    if (!real)
        real = (pread_fn)dlsym(RTLD_NEXT, "pread");
    return counted(real, fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
    static pread_fn real;
    if (!real)
        real = (pread_fn)dlsym(RTLD_NEXT, "pread64");
    return counted(real, fd, buf, len, off);
}

__attribute__((destructor)) static void say_count(void)
{
    const char *file = getenv("PREAD_FAILS_COUNT");
    FILE *f = file && *file ? fopen(file, "a") : NULL;
    if (f) {
        fprintf(f, "%lu\n", reads);
        fclose(f);
    }
}
