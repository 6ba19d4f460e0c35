/* util.c — small helpers shared by the tracer's modules. */
#include "options.h"
#include "tracer.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int st_threads_concurrent;
static pthread_mutex_t state_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

void st_state_lock_slow(void)
{
    pthread_mutex_lock(&state_lock);
}

void st_state_unlock_slow(void)
{
    pthread_mutex_unlock(&state_lock);
}

/* Statuses for calls given MPI_STATUSES_IGNORE: one growing buffer per
 * thread, freed when the thread exits (a key's destructor). */
static _Thread_local MPI_Status *scratch;
static _Thread_local int scratch_len;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_ok;

static void scratch_free(void *p)
{
    free(p);
}

static void scratch_key_init(void)
{
    scratch_key_ok = pthread_key_create(&scratch_key, scratch_free) == 0;
}

MPI_Status *st_statuses_scratch(int count)
{
    if (count <= scratch_len)
        return scratch;
    MPI_Status *grown = realloc(scratch, sizeof *grown * (size_t)count);
    if (!grown)
        return MPI_STATUSES_IGNORE;   /* fall back: completions go unrecorded, the program is unaffected */
    scratch = grown;
    scratch_len = count;
    pthread_once(&scratch_once, scratch_key_init);
    if (scratch_key_ok)
        pthread_setspecific(scratch_key, scratch);
    return scratch;
}

static void vsay(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "synctrace: %s\n", line);
}

void st_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

void st_verbose(const char *fmt, ...)
{
    if (!st_cfg.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

char *st_f_string(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    while (len > 0 && *s == ' ') {
        s++;
        len--;
    }
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}
