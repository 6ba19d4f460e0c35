/* strtab.c — see strtab.h. */
#include "strtab.h"
#include "table.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h ^ (h >> 29);
}

/* Keep the hash at most half full. */
static int rehash(struct st_strtab *t)
{
    uint32_t ns = t->nslots ? t->nslots * 2 : 256;
    uint32_t *slots = ns ? calloc(ns, sizeof *slots) : NULL;
    if (!slots)
        return -1;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t k = (uint32_t)(hash_str(t->v[i]) & (ns - 1));
        while (slots[k])
            k = (k + 1) & (ns - 1);
        slots[k] = i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = ns;
    return 0;
}

uint32_t st_strtab_ref(struct st_strtab *t, const char *s)
{
    if ((uint64_t)(t->n + 1) * 2 > t->nslots && rehash(t) != 0)
        goto fail;
    uint32_t k = (uint32_t)(hash_str(s) & (t->nslots - 1));
    for (; t->slots[k]; k = (k + 1) & (t->nslots - 1))
        if (strcmp(t->v[t->slots[k] - 1], s) == 0)
            return t->slots[k] - 1;
    char *copy = NULL;
    if ((t->n == t->cap && st_grow((void **)&t->v, &t->cap, sizeof *t->v) != 0) || !(copy = strdup(s)))
        goto fail;
    t->v[t->n] = copy;
    t->slots[k] = t->n + 1;
    return t->n++;
fail:
    t->failed = 1;
    return UINT32_MAX;
}

void st_strtab_free(struct st_strtab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i]);
    free(t->v);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
