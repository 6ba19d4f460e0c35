/* strtab.h — a table of distinct strings, each referenced by its index in
 * order of first use: the string definitions of an OTF2 archive (the raw
 * archive's, format/defs_write.c; the merged one's, tools/output/otf2out.c). */
#ifndef SYNCTRACE_STRTAB_H
#define SYNCTRACE_STRTAB_H

#include <stdint.h>

struct st_strtab {
    char **v;
    uint32_t n, cap;
    uint32_t *slots;          /* open addressing over v: index + 1, 0 = empty */
    uint32_t nslots;
    int failed;               /* a string could not be added (out of memory) */
};

/* The string's index, added when new; UINT32_MAX (OTF2's undefined
 * reference) when it cannot be added, and then t->failed is set. Hashed:
 * a raw archive holds a key string per communicator, and a run may make
 * a million of them. */
uint32_t st_strtab_ref(struct st_strtab *t, const char *s);
void st_strtab_free(struct st_strtab *t);

#endif
