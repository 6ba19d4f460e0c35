/* otf2out_writing.h — what the steps of ow_write (otf2out.c) share: one
 * merged archive being written. Private to otf2out.c and otf2out_defs.c. */
#ifndef SYNCTRACE_OTF2OUT_WRITING_H
#define SYNCTRACE_OTF2OUT_WRITING_H

#include "otf2out.h"
#include "otf2_memory.h"
#include "strtab.h"

#include <otf2/otf2.h>

struct writing {
    /* the inputs (ow_write's arguments) */
    const char *dir, *name;
    const struct rt_location *ranks;
    uint32_t nranks;
    const struct mg_result *match;
    const struct gtime_map *gtime;
    struct truth_store *truth;
    const struct ow_hooks *hooks;
    const struct ow_parallel *par;   /* NULL: this process writes the whole archive */
    char *err;
    size_t errlen;

    OTF2_Archive *ar;
    struct om_pool chunks;           /* OTF2's event chunks, within OW_EVENT_BUDGET */
    /* Every OTF2 call's status (CHECK): an archive with a record missing
     * is no output. */
    OTF2_ErrorCode failed;
    int ok;                          /* no other failure so far (the processes agree at each step) */

    /* what the events refer to */
    struct st_strtab regions;        /* region names; ref = index */
    uint8_t *roles;                  /* OTF2_RegionRole by region ref */
    uint32_t nroles;
    uint32_t **region_map;           /* [location][region ref] -> merged region */
    uint32_t **win_map;              /* [location][window ref] -> merged window */
    uint32_t nwins, *win_comm;
    const char **win_names;
    /* the attributes' numbers: true_time (0), then the collective source
     * ones when there are any, then the freed_receive_* and collapsed_calls */
    struct ow_attributes found;
    uint32_t src_slots, src_bits, freed;
    uint64_t last_time;              /* the latest event's global time */
    struct rt_time_reader tr;        /* the location being written: its times */
};

#define CHECK(call)                                 \
    do {                                            \
        OTF2_ErrorCode status_ = (call);            \
        if (status_ != OTF2_SUCCESS)                \
            wr->failed = status_;                   \
    } while (0)

/* A region's role when its archive did not say (otf2out.c). */
OTF2_RegionRole ow_fallback_role(const char *name);
/* The global definitions (otf2out_defs.c): 0, or -1 with wr->err set. */
int ow_write_global_defs(struct writing *wr);
/* OUT/neighbours.txt (neighbours_out.c): the graph communicators'
 * in-neighbours, those without a Cartesian topology (cart_src_rank[c]
 * UINT32_MAX). 0, or -1 with err naming the file. */
int ow_write_neighbours(const char *dir, const struct rt_location *ranks, uint32_t nranks,
                        const struct mg_result *match, const uint32_t *cart_src_rank, char *err, size_t errlen);

#endif
