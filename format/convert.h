/* convert.h — compact records into OTF2 event records (convert.c). */
#ifndef SYNCTRACE_CONVERT_H
#define SYNCTRACE_CONVERT_H

#include <stdatomic.h>
#include <stdint.h>
#include "defs_write.h"
#include "evtchunk.h"

/* The attribute references events carry: the archive's fixed layout, and
 * per 64-slot word of a collective's sources its reference (0 while the
 * word has not been defined: such a word is left out). */
struct st_convert_refs {
    const struct rf_attr_layout *attrs;
    const _Atomic uint32_t *source_ref;   /* ST_REC_MAX_WORDS of them */
};

/* Convert the records [w, end) into events of f, in order. */
void st_convert(struct st_evtfile *f, const struct st_convert_refs *r, const uint64_t *w, const uint64_t *end);

#endif
