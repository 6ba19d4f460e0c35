/* heldstderr.h — a worker's stderr held back, for the commands that run
 * as K processes (merge, waits): a failure is said once, by process 0
 * when it failed too, else by the worker that saw it; what a worker held
 * is said at the end (say) or dropped. */
#ifndef SYNCTRACE_HELDSTDERR_H
#define SYNCTRACE_HELDSTDERR_H

struct held_stderr {
    int saved, fd;            /* the real stderr; where it goes meanwhile (-1: not held) */
};

/* stderr into a memory file named name (as it comes when none can be made). */
void hold_stderr(struct held_stderr *h, const char *name);
/* A worker of K processes: its stdout dropped (one summary, one help
 * text: process 0's) and its stderr held as hold_stderr does. */
void quiet_worker(struct held_stderr *h, const char *name);
/* The real stderr back, what was held said on it (say) or dropped. */
void release_stderr(struct held_stderr *h, int say);

#endif
