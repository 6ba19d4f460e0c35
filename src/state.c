/* state.c — the tracer's globals, below every module that reads them:
 * the run (st_g) and whether the calling thread is inside the tracer. */
#include "tracer.h"

struct st_global st_g;
_Thread_local int st_in_tracer;
