/* asidefile.c — see asidefile.h. */
#include <config.h>
#include "asidefile.h"
#include "fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int st_aside_open(struct st_aside *a, const char *dir, const char *stem, const char *what, char *err,
                  size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->what = what;
    if (!(a->dir = strdup(dir))) {
        snprintf(err, errlen, "setting %s aside in %s: out of memory", what, dir);
        return -1;
    }
    if ((a->fd = st_nameless_file(dir, stem)) < 0) {
        snprintf(err, errlen, "%s: cannot make a file to set %s aside: %s", dir, what, strerror(errno));
        free(a->dir);
        a->dir = NULL;
        return -1;
    }
    pthread_mutex_init(&a->lock, NULL);
    return 0;
}

int st_aside_fail(struct st_aside *a, const char *op, const char *why)
{
    pthread_mutex_lock(&a->lock);
    if (!a->failed) {
        snprintf(a->err, sizeof a->err, "%s set aside in %s: %s: %s", a->what, a->dir, op, why);
        a->failed = 1;
    }
    pthread_mutex_unlock(&a->lock);
    return -1;
}

int st_aside_write(struct st_aside *a, const void *p, size_t len)
{
    if (a->failed)
        return -1;
    if (len && st_write_all(a->fd, p, len) != 0)
        return st_aside_fail(a, "write", strerror(errno));
    a->end += len;
    return 0;
}

int st_aside_pwrite(struct st_aside *a, const void *p, size_t len, uint64_t off)
{
    if (a->failed)
        return -1;
    if (st_pwrite_all(a->fd, p, len, off) != 0)
        return st_aside_fail(a, "write", strerror(errno));
    if (off + len > a->end)
        a->end = off + len;
    return 0;
}

int st_aside_resize(struct st_aside *a, uint64_t size)
{
    if (a->failed)
        return -1;
    if (ftruncate(a->fd, (off_t)size) != 0)
        return st_aside_fail(a, "resize", strerror(errno));
    a->end = size;
    return 0;
}

int st_aside_read(struct st_aside *a, void *p, size_t len, uint64_t off)
{
    if (a->failed)
        return -1;
    if (off > a->end || len > a->end - off)
        return st_aside_fail(a, "read", "cut short");
    const char *why = st_pread_exact(a->fd, p, len, off);
    return why ? st_aside_fail(a, "read", why) : 0;
}

void st_aside_close(struct st_aside *a)
{
    if (a->fd >= 0) {
        close(a->fd);
        pthread_mutex_destroy(&a->lock);
    }
    free(a->dir);
    a->fd = -1;
    a->dir = NULL;
}
