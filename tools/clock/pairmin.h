/* pairmin.h — the tightest weight per ordered pair of vertices: the
 * constraint graph's table of direct constraints (constraints.c) and the
 * pair vertices of hubs kept beside it (hubstore.c). Entries keep the
 * order they were first put in (a pair's index never changes). */
#ifndef SYNCTRACE_PAIRMIN_H
#define SYNCTRACE_PAIRMIN_H

#include <stddef.h>
#include <stdint.h>

struct pair_min {
    uint32_t *u, *v;          /* entry i: the pair u[i] -> v[i], its tightest weight w[i] */
    double *w;
    size_t n, ecap;
    uint64_t *keys;           /* open addressing: (u << 32 | v) + 1, 0 empty */
    uint32_t *slot;           /* the entry of each key */
    size_t cap;
};

/* (u, v) at weight w, or tighter: 1 if new or tightened, 0 if it already
 * was at least as tight, -1 (memory; the table is unchanged). */
int pmin_put(struct pair_min *p, uint32_t u, uint32_t v, double w);
void pmin_free(struct pair_min *p);

#endif
