/* asidefile.h — a nameless file holding what a stage of the merge set
 * aside on disk (the matched messages, the collective instances): its
 * descriptor, how much was written, and the first error, which sticks
 * (readers in several threads may fail at once) and names the file's
 * contents and directory, as "the matched messages set aside in DIR:
 * read: cut short". */
#ifndef SYNCTRACE_ASIDEFILE_H
#define SYNCTRACE_ASIDEFILE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct st_aside {
    int fd;
    uint64_t end;             /* bytes written */
    char *dir;
    const char *what;         /* e.g. "the matched messages" (a literal) */
    pthread_mutex_t lock;
    int failed;
    char err[512];
};

/* Made in dir (st_nameless_file, named stem while the kernel lacks
 * O_TMPFILE): 0, or -1 with a one-line message in err. */
int st_aside_open(struct st_aside *a, const char *dir, const char *stem, const char *what, char *err,
                  size_t errlen);
/* The first failure sticks: "WHAT set aside in DIR: OP: WHY". Returns -1. */
int st_aside_fail(struct st_aside *a, const char *op, const char *why);
/* len bytes appended: 0, or -1 (the error sticks). */
int st_aside_write(struct st_aside *a, const void *p, size_t len);
/* len bytes written at off (the file grows as needed): 0, or -1 (the
 * error sticks). */
int st_aside_pwrite(struct st_aside *a, const void *p, size_t len, uint64_t off);
/* The file made `size` bytes long, zeros beyond what was written: 0 or -1. */
int st_aside_resize(struct st_aside *a, uint64_t size);
/* Exactly len bytes at off, never past what was written ("cut short"):
 * 0, or -1 (the error sticks). */
int st_aside_read(struct st_aside *a, void *p, size_t len, uint64_t off);
void st_aside_close(struct st_aside *a);

#endif
