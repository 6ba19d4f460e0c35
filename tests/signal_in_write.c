/* signal_in_write.c — a test shim, preloaded before libsynctrace.so, that
 * sends its process SIGTERM from inside the tracer's K-th OTF2 Enter record
 * (SIGNAL_IN_WRITE=K) on one rank (SIGNAL_IN_WRITE_RANK, default 1): the
 * signal then comes while the tracer is writing an event, deterministically.
 * The tracer must let that write finish before it closes the archive.
 * With SIGNAL_IN_WRITE_PROCESS=1 the signal goes to the process instead
 * (kill): when an I/O thread writes the events, it blocks signals, and a
 * thread of the program takes it, as an outside SIGTERM would come. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <otf2/otf2.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

typedef OTF2_ErrorCode (*enter_fn)(OTF2_EvtWriter *, OTF2_AttributeList *, OTF2_TimeStamp, OTF2_RegionRef);

OTF2_ErrorCode OTF2_EvtWriter_Enter(OTF2_EvtWriter *w, OTF2_AttributeList *a, OTF2_TimeStamp t, OTF2_RegionRef r)
{
    static long calls;
    static enter_fn real;
    if (!real)
        real = (enter_fn)dlsym(RTLD_NEXT, "OTF2_EvtWriter_Enter");
    const char *at = getenv("SIGNAL_IN_WRITE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    const char *victim = getenv("SIGNAL_IN_WRITE_RANK");
    if (at && rank && atoi(rank) == (victim ? atoi(victim) : 1) && ++calls == atol(at)) {
        const char *process = getenv("SIGNAL_IN_WRITE_PROCESS");
        if (process && atoi(process) == 1)
            kill(getpid(), SIGTERM);
        else
            raise(SIGTERM);   /* handled (or not) before the record is written */
    }
    return real(w, a, t, r);
}
