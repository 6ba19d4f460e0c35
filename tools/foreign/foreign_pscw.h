/* foreign_pscw.h — Score-P's PSCW epochs as the RmaSync notifications our
 * tracer writes (src/rma.c) and the merge orders (rma_flow.h).
 *
 * Score-P writes an RmaGroupSync(level, window, group) when MPI_Win_start,
 * _complete, _post, _wait or _test returns (inside the call's region, at
 * its exit time; its group a COMM_GROUP of world ranks). The merge needs
 * complete's NOTIFY_OUT per target at complete's ENTRY and wait's NOTIFY_IN
 * per origin at wait's exit. So: the access group comes from the
 * location's preceding start on the window (complete's own RmaGroupSync
 * comes too late to be stamped with), an exposure's from wait's (or a
 * successful test's: level not NONE) RmaGroupSync itself. The conversion
 * (foreign_raw.c) holds complete's Enter back until complete's
 * RmaGroupSync says which window it closed. */
#ifndef SYNCTRACE_FOREIGN_PSCW_H
#define SYNCTRACE_FOREIGN_PSCW_H

#include <stdint.h>
#include <otf2/otf2.h>
#include "foreign_defs.h"

enum fp_call { FP_OTHER, FP_START, FP_COMPLETE, FP_POST, FP_WAIT, FP_TEST };

/* Which PSCW call each region of d is, by region ref (malloc'd; NULL when
 * out of memory). */
uint8_t *fp_region_calls(const struct foreign_defs *d);

/* One location's walk: its open access epochs by window, the peers of the
 * last notification found, what was left unordered. */
struct fp_location {
    uint32_t *open;           /* by window ref: starts not yet completed */
    uint32_t *group;          /* by window ref: the last start's group */
    uint32_t *remotes;        /* fp_group_sync's answer */
    uint32_t nremotes, cremotes;
    uint64_t unordered;       /* completes with no single open epoch known */
};

enum fp_notify { FP_NOTIFY_NONE, FP_NOTIFY_OUT, FP_NOTIFY_IN, FP_NOTIFY_FAILED };

/* An RmaGroupSync of `rank`'s location inside `call`: FP_NOTIFY_OUT (a
 * complete closing the window's one open access epoch) or FP_NOTIFY_IN
 * (a wait, a successful test) with l->remotes the peers as ranks in the
 * window's communicator (members outside it left out), NONE, or FAILED
 * (out of memory). */
enum fp_notify fp_group_sync(struct fp_location *l, const struct foreign_defs *d, int rank, enum fp_call call,
                             OTF2_RmaSyncLevel level, uint32_t win, uint32_t group);
/* A complete that ended without its RmaGroupSync: counted as unordered. */
void fp_complete_unseen(struct fp_location *l);
void fp_location_free(struct fp_location *l);

#endif
