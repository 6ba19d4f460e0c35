/* losses.c — one line per rank of a job that died (see losses.h). */
#include "losses.h"
#include "rawformat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(struct report *rep, int rank, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct report *rep, int rank, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "synctrace merge: warning: %s\n", why);
    rep->incomplete_ranks++;
    struct report_loss *v = realloc(rep->losses, sizeof *v * (rep->nlosses + 1));
    if (!v)
        return;   /* the line above said it; report.json then counts it only */
    rep->losses = v;
    v[rep->nlosses].rank = rank;
    snprintf(v[rep->nlosses].why, sizeof v[rep->nlosses].why, "%s", why);
    rep->nlosses++;
}

int losses_finalized(const struct rt_location *r)
{
    int finalized = 0;
    for (uint64_t k = r->events_from + r->nheld; k-- > r->events_from && !finalized;) {
        const struct rt_event ev = rt_event_at(r, k), *e = &ev;
        finalized = e->kind == RT_ENTER && e->ref < r->nregions && r->regions[e->ref]
                    && strcmp(r->regions[e->ref], "MPI_Finalize") == 0;
    }
    return finalized;
}

void losses_note(struct report *rep, const struct rt_location *r, const char *anchor, uint64_t all, int finalized)
{
    /* A recovered rank's main thread may have flushed nothing while its
     * other threads did: `all` counts them too. */
    if (r->recovered && all == 0 && !r->recovered_records_file)
        note(rep, r->rank, RF_RANK_NAME_FMT ": killed before its first buffer flush, and before it could close its archive: "
                           "no events survived; merged as a rank without events", r->rank);
    else if (r->recovered && r->recovered_records_file && !r->recovered_note)
        /* Killed (SIGKILL) before it could close its archive: rebuilt from
         * its journal, its event files and its records file, which kept
         * what it recorded up to the kill. */
        note(rep, r->rank, RF_RANK_NAME_FMT ": recovered %llu events from a rank that was killed "
                           "(%llu of them from its records file): all it had recorded",
             r->rank, (unsigned long long)all, (unsigned long long)r->recovered_from_records);
    else if (r->recovered && r->recovered_records_file)
        note(rep, r->rank, RF_RANK_NAME_FMT ": recovered %llu events from a rank that was killed "
                           "(%llu of them from its records file); the rest of its records are lost: %s",
             r->rank, (unsigned long long)all, (unsigned long long)r->recovered_from_records, r->recovered_note);
    else if (r->recovered)
        /* Killed (SIGKILL) before it could close its archive, by a tracer
         * that kept no records file (SYNCTRACE_KILL_SAFE=0, or an older
         * one): rebuilt from its journal, with what its locations' buffer
         * flushes had written. */
        note(rep, r->rank, RF_RANK_NAME_FMT ": recovered %llu events from a rank that was killed; "
                           "events after its last buffer flush are lost", r->rank, (unsigned long long)all);
    else if (all == 0)
        note(rep, r->rank, "%s: rank %d recorded no events; merged as a rank without events", anchor, r->rank);
    else if (!finalized)
        /* Its archive was closed on the way out: nothing recorded is lost,
         * but its last messages will not match. */
        note(rep, r->rank, "%s: rank %d ended without MPI_Finalize (MPI_Abort, a fatal MPI error or a signal; "
                           "it closed its archive on the way out); its %llu recorded events are merged",
             anchor, r->rank, (unsigned long long)r->nevents);
}
