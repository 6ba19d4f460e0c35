/* signal_in_write.c — a test shim, preloaded before libsynctrace.so, that
 * sends its process SIGTERM from inside the tracer's K-th write of OTF2
 * event data (SIGNAL_IN_WRITE=K: the K-th write(2) to a *.evt file; the
 * tracer writes a location's event chunks itself, format/evtchunk.c) on one
 * rank (SIGNAL_IN_WRITE_RANK, default 1): the signal then comes while the
 * tracer is writing events, deterministically. The tracer must let that
 * write finish before it closes the archive.
 * With SIGNAL_IN_WRITE_PROCESS=1 the signal goes to the process instead
 * (kill): when an I/O thread writes the events, it blocks signals, and a
 * thread of the program takes it, as an outside SIGTERM would come. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);

static int is_event_file(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 4)
        return 0;
    path[n] = '\0';
    return strcmp(path + n - 4, ".evt") == 0;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    static long calls;
    static write_fn real;
    if (!real)
        real = (write_fn)dlsym(RTLD_NEXT, "write");
    const char *at = getenv("SIGNAL_IN_WRITE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    const char *victim = getenv("SIGNAL_IN_WRITE_RANK");
    if (at && rank && atoi(rank) == (victim ? atoi(victim) : 1) && is_event_file(fd)
        && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) == atol(at)) {
        const char *process = getenv("SIGNAL_IN_WRITE_PROCESS");
        if (process && atoi(process) == 1)
            kill(getpid(), SIGTERM);
        else
            raise(SIGTERM);   /* handled (or not) before the data is written */
    }
    return real(fd, buf, len);
}
