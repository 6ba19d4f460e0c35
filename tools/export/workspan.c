/* workspan.c — see workspan.h. */
#include <config.h>
#include "workspan.h"

#include <stdlib.h>
#include <string.h>

enum { WS_INIT = 1, WS_FINALIZE = 2 };

int ws_init(struct workspan *w, const struct mt_trace *t)
{
    w->nregions = t->nregions;
    w->begin = UINT64_MAX;
    w->end = 0;
    if (!(w->bound = calloc(t->nregions ? t->nregions : 1, 1)))
        return -1;
    for (uint32_t r = 0; r < t->nregions; r++) {
        const char *name = mt_region(t, r);
        if (strcmp(name, "MPI_Init") == 0 || strcmp(name, "MPI_Init_thread") == 0)
            w->bound[r] = WS_INIT;
        else if (strcmp(name, "MPI_Finalize") == 0)
            w->bound[r] = WS_FINALIZE;
    }
    return 0;
}

void ws_note(struct workspan *w, const struct rt_event *e)
{
    if ((e->kind != RT_ENTER && e->kind != RT_LEAVE) || e->ref >= w->nregions || !w->bound[e->ref])
        return;
    if (e->kind == RT_LEAVE && w->bound[e->ref] == WS_INIT && e->time < w->begin)
        w->begin = e->time;
    if (e->kind == RT_ENTER && w->bound[e->ref] == WS_FINALIZE && e->time > w->end)
        w->end = e->time;
}

int ws_span(const struct workspan *w, uint64_t *begin, uint64_t *end)
{
    if (w->begin >= w->end)
        return 0;
    *begin = w->begin;
    *end = w->end;
    return 1;
}

void ws_free(struct workspan *w)
{
    free(w->bound);
    w->bound = NULL;
}
