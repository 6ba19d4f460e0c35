/* clc_roles.h — the streaming controlled logical clock's view of the
 * match (clc_stream.h): each event's parts in messages and collective
 * instances, sorted by (location, event) into a nameless file in which each
 * location's records are a run, so that a pass over the locations reads
 * every location's next records through a small window of its own.
 *
 * Events claimed twice (a broken match) are resolved as clc.c resolves
 * them: receives claim first, the lowest message first (a later message's
 * send then has no receive to take its value); an instance that shares an
 * event with a receive, with an earlier instance that was kept, or between
 * its own ends is left out (`skipped`). Instances whose data flow forces nothing
 * (flow.h: zero counts, < 2 members) make no records. */
#ifndef SYNCTRACE_CLC_ROLES_H
#define SYNCTRACE_CLC_ROLES_H

#include <stddef.h>
#include <stdint.h>
#include "match.h"

enum clc_role_kind { K_SEND, K_RECV, K_ENTRY, K_EXIT };

/* One part of one event. kq: kind << 30 | (the send's location for
 * K_RECV, the member for K_ENTRY / K_EXIT). */
struct role_rec {
    uint64_t idx;             /* the event, on loc */
    uint64_t ref;             /* message, or instance */
    uint64_t aux;             /* K_RECV: the send's event; K_ENTRY / K_EXIT: the instance's place in its file */
    uint32_t loc;
    uint32_t kq;
};
#define KIND(rec) ((enum clc_role_kind)((rec)->kq >> 30))
#define LOW(rec) ((rec)->kq & ((1u << 30) - 1))

struct clc_roles {
    int fd;                   /* the records; -1 when none made */
    uint64_t *first;          /* location r's: [first[r], first[r + 1]) */
    uint64_t n;
    uint64_t *skipped;        /* sorted: the instances left out */
    size_t nskipped;
    size_t skipped_collectives;   /* left out, those that force nothing included */
    uint64_t spilled_bytes;   /* the sort's */
};

/* Build them for the nlocs locations with nevents[r] events each, the file
 * and the sort's spill files in dir, the sort in budget bytes. 0, or -1
 * with a one-line message (an event reference out of range, out of
 * memory, an I/O error). */
int clc_roles_build(const struct mg_result *m, uint32_t nlocs, const uint64_t *nevents, const char *dir,
                    size_t budget, struct clc_roles *out, char *err, size_t errlen);
void clc_roles_free(struct clc_roles *r);

/* Whether the sorted v[0 .. n) holds key. */
int clc_sorted_has(const uint64_t *v, size_t n, uint64_t key);

#endif
