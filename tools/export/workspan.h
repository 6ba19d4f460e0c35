/* workspan.h — the program's own work in a merged trace: from where the
 * first location leaves MPI_Init (or MPI_Init_thread) to where the last
 * enters MPI_Finalize. Open MPI's start-up inside MPI_Init can be 90 % of a
 * short run; the exports open on (HTML) or mark (Chrome) this span. */
#ifndef SYNCTRACE_WORKSPAN_H
#define SYNCTRACE_WORKSPAN_H

#include <stdint.h>
#include "mtread.h"

struct workspan {
    uint8_t *bound;           /* per region: WS_INIT, WS_FINALIZE or 0 */
    uint32_t nregions;
    uint64_t begin, end;      /* ns of global time; begin > end until both are seen */
};

/* The regions of t that bound the work. 0, or -1 (out of memory). */
int ws_init(struct workspan *w, const struct mt_trace *t);
/* An event as mtread delivers it (enter and leave carry their region). */
void ws_note(struct workspan *w, const struct rt_event *e);
/* 1 and the span when the trace has one, else 0. */
int ws_span(const struct workspan *w, uint64_t *begin, uint64_t *end);
void ws_free(struct workspan *w);

#endif
