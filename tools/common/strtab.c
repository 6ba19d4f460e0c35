/* strtab.c — see strtab.h. */
#include "strtab.h"
#include "table.h"

#include <stdlib.h>
#include <string.h>

uint32_t st_strtab_ref(struct st_strtab *t, const char *s)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i], s) == 0)
            return i;
    char *copy = NULL;
    if ((t->n == t->cap && st_grow((void **)&t->v, &t->cap, sizeof *t->v) != 0) || !(copy = strdup(s))) {
        t->failed = 1;
        return UINT32_MAX;
    }
    t->v[t->n] = copy;
    return t->n++;
}

void st_strtab_free(struct st_strtab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    memset(t, 0, sizeof *t);
}
