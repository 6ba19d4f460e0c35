/* heldstderr.c — see heldstderr.h. */
#include <config.h>
#include "heldstderr.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

void hold_stderr(struct held_stderr *h, const char *name)
{
    h->saved = h->fd = -1;
    fflush(stderr);
    int fd = memfd_create(name, MFD_CLOEXEC);
    int saved = fd >= 0 ? dup(2) : -1;
    if (fd < 0 || saved < 0 || dup2(fd, 2) < 0) {
        if (fd >= 0)
            close(fd);
        if (saved >= 0)
            close(saved);
        return;   /* said as it comes, then */
    }
    h->saved = saved;
    h->fd = fd;
}

void release_stderr(struct held_stderr *h, int say)
{
    if (h->fd < 0)
        return;
    fflush(stderr);
    dup2(h->saved, 2);
    close(h->saved);
    if (say && lseek(h->fd, 0, SEEK_SET) == 0) {
        char buf[4096];
        ssize_t n;
        while ((n = read(h->fd, buf, sizeof buf)) > 0)
            if (write(2, buf, (size_t)n) != n)
                break;
    }
    close(h->fd);
    h->fd = -1;
}

void quiet_worker(struct held_stderr *h, const char *name)
{
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        fflush(stdout);
        dup2(null, 1);
        close(null);
    }
    hold_stderr(h, name);
}
