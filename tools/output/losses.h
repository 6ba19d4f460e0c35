/* losses.h — what each rank of a job that died lost, and why: one warning
 * line per rank on stderr, and the same in report.json ("incomplete").
 * A rank that died still merges: with what its archive holds when it was
 * closed on the way out (MPI_Abort, a fatal MPI error, a signal), with
 * what its buffer flushes left when it was killed before it could close
 * it (rebuilt from its journal), or with no events at all when it was
 * killed before its first flush. */
#ifndef SYNCTRACE_LOSSES_H
#define SYNCTRACE_LOSSES_H

#include "rawtrace.h"
#include "report.h"

/* Did rank R's main location enter MPI_Finalize? From the events it
 * holds (ask of each chunk before it is set aside, and take any yes). */
int losses_finalized(const struct rt_location *r);
/* Say what rank R (its main location) lost, if anything, and record it in
 * REP: ALL_EVENTS its locations hold in all, FINALIZED as above. ANCHOR
 * names its archive. */
void losses_note(struct report *rep, const struct rt_location *r, const char *anchor, uint64_t all_events,
                 int finalized);

#endif
