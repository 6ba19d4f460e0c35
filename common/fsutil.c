/* fsutil.c — see fsutil.h. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

int st_mkdir_p(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

int st_remove_tree(const char *path)
{
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *st_temp_dir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

int st_nameless_file(const char *dir, const char *stem)
{
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
#endif
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s.XXXXXX", dir, stem) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0 && unlink(path) != 0) {
        int e = errno;
        close(fd);
        fd = -1;
        errno = e;
    }
    return fd;
}

int st_write_all(int fd, const void *p, size_t len)
{
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p = (const char *)p + w;
        len -= (size_t)w;
    }
    return 0;
}

int st_pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
    while (len) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {   /* a write cut short is followed by one that says why (EFBIG, ENOSPC) */
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p = (const char *)p + w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

int st_pread_all(int fd, void *p, size_t len, uint64_t off, size_t *got)
{
    *got = 0;
    while (*got < len) {
        ssize_t r = pread(fd, (char *)p + *got, len - *got, (off_t)(off + *got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return 0;
}

const char *st_pread_exact(int fd, void *p, size_t len, uint64_t off)
{
    size_t got;
    if (st_pread_all(fd, p, len, off, &got) != 0)
        return strerror(errno);
    return got == len ? NULL : "cut short";
}
