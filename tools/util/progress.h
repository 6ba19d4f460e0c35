/* progress.h — one self-overwriting status line on stderr for long runs,
 * only when stderr is a terminal (scripts and logs stay clean). At most
 * ten updates a second. Not thread-safe: callers serialise. */
#ifndef SYNCTRACE_PROGRESS_H
#define SYNCTRACE_PROGRESS_H

#include <stdint.h>

/* `tool` prefixes the line ("synctrace merge"). */
void progress_begin(const char *tool);
/* Stage and, when total > 0, how far it is. */
void progress_update(const char *stage, uint64_t done, uint64_t total);
/* Clear the line (before normal output). */
void progress_end(void);

#endif
