/* pread_fails.c — a test shim, preloaded into synctrace, that makes reads
 * or writes of its spill files fail as a failing or full disk would.
 * PREAD_FAILS_DIR=D: the pread(2) calls on files in directory D (the
 * merge's --spill-dir, whose files have no name: /proc/self/fd shows
 * "D/#inode (deleted)") are counted; with PREAD_FAILS_AFTER=N every one
 * after the first N fails with EIO; with PREAD_FAILS_COUNT=FILE their
 * number is appended to FILE at exit, a line per process. With
 * PREAD_FAILS_WRITES=1 the same is done to write(2) and pwrite(2)
 * instead, which fail with ENOSPC. A test counts a run's calls, then
 * fails its last ones: the calls after a stage, deterministically for a
 * merge with --jobs 1. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);

static unsigned long reads;

static int writes_fail(void)
{
    const char *w = getenv("PREAD_FAILS_WRITES");
    return w && *w == '1';
}

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

/* Whether this call on fd is to fail (counting it when fd is in D and
 * calls of its kind are the ones counted). */
static int fails(int fd, int is_write)
{
    if (is_write != writes_fail() || !in_dir(fd))
        return 0;
    unsigned long k = __atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED);
    const char *after = getenv("PREAD_FAILS_AFTER");
    if (after && k > strtoul(after, NULL, 10)) {
        errno = is_write ? ENOSPC : EIO;
        return 1;
    }
    return 0;
}

static ssize_t counted(pread_fn real, int fd, void *buf, size_t len, off_t off)
{
    return fails(fd, 0) ? -1 : real(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    static pwrite_fn real;
    if (!real)
        real = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite");
    return fails(fd, 1) ? -1 : real(fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
    static pwrite_fn real;
    if (!real)
        real = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite64");
    return fails(fd, 1) ? -1 : real(fd, buf, len, off);
}

ssize_t write(int fd, const void *buf, size_t len)
{
    static write_fn real;
    if (!real)
        real = (write_fn)dlsym(RTLD_NEXT, "write");
    return fails(fd, 1) ? -1 : real(fd, buf, len);
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
