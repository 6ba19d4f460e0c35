/* dump.c — `synctrace dump RAW_DIR`: every event of a raw trace as one line
 * of text, with communicator-local ranks resolved to world ranks. The format
 * is stable; the tests compare against it.
 *
 *   R I KIND time=T [true=T] fields...
 * where R is the world rank, I the event's index on that rank. */
#include "commands.h"
#include "rawdir.h"
#include "rawformat.h"
#include "rawtrace.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <otf2/OTF2_Events.h>

/* A sparse alltoallv/w member's non-empty source slots (rt_sources_of). */
static void print_sources(const struct rt_location *r, uint64_t index)
{
    uint32_t nslots;
    const uint64_t *bits = rt_sources_of(r, index, &nslots);
    if (!nslots)
        return;
    if (!bits) {
        printf(" sources=?");
        return;
    }
    const char *sep = "";
    printf(" sources=");
    for (uint32_t i = 0; i < nslots; i++)
        if (bits[i / 64] >> (i % 64) & 1) {
            printf("%s%u", sep, i);
            sep = ",";
        }
}

/* How a communicator is named in the dump: by its agreed key ("comm HEX"),
 * but MPI_COMM_WORLD, MPI_COMM_SELF and the tracer's own (keys 1, self, 2;
 * a spawned job's world and tracer's communicator have keys of their own,
 * their first two definitions, named so) and those of traces without keys
 * by their names. */
static const char *comm_label(const struct rt_location *r, uint32_t comm, char *buf, size_t len)
{
    if (comm >= r->ncomms)
        return "?";
    const struct rt_comm *c = &r->comms[comm];
    int fixed = comm <= 1 && c->name
                && (strcmp(c->name, RF_COMM_WORLD_NAME) == 0 || strcmp(c->name, RF_COMM_SYNC_NAME) == 0);
    if (!c->has_key || c->self || c->key <= 2 || fixed)
        return c->name ? c->name : "?";
    snprintf(buf, len, "comm %016" PRIx64, c->key);
    return buf;
}

static void print_peer(const struct rt_location *r, const struct rt_event *e)
{
    char buf[32];
    printf(" peer=%d lpeer=%" PRIu32 " comm=%s", rt_world_rank(r, e->ref, e->peer), e->peer,
           comm_label(r, e->ref, buf, sizeof buf));
}

/* A communicator member: its world rank, or -1 for a process outside this
 * rank's world (rawformat.h: an outside set's member, or unknown). */
static void print_member(int first, uint64_t m)
{
    if (m >= (uint64_t)INT_MAX)
        printf("%s-1", first ? "=" : ",");
    else
        printf("%s%d", first ? "=" : ",", (int)m);
}

/* The outside-set members of v, as "SET:INDEX" (nothing when none). */
static void print_outside(const struct rt_location *r, const char *label, const char *what, const uint64_t *v, uint32_t n)
{
    int any = 0;
    for (uint32_t i = 0; i < n; i++)
        if (RF_MEMBER_IS_OUTSIDE(v[i])) {
            if (!any)
                printf("# rank %d comm_outside %s %s", r->rank, label, what);
            printf("%s%u:%u", any ? "," : "=", RF_OUTSIDE_SET(v[i]), RF_OUTSIDE_INDEX(v[i]));
            any = 1;
        }
    if (any)
        printf("\n");
}

static void dump_rank(const struct rt_location *r, int events_only)
{
    if (!events_only && !r->thread) {   /* the rank's definitions, once */
        printf("# rank %d world_size %d host %s clock %s domain %d run_id %s resolution %" PRIu64
               " events %" PRIu64 " skew_offset_us %.6f skew_drift_ppm %.6f\n",
               r->rank, r->world_size, r->host ? r->host : "?", r->clock ? r->clock : "?", r->domain,
               r->run_id ? r->run_id : "?", r->resolution, r->nevents, r->skew_offset_us, r->skew_drift_ppm);
        for (uint32_t c = 0; c < r->ncomms; c++) {
            char buf[32];
            const char *label = comm_label(r, c, buf, sizeof buf);
            /* members: whom peers name (an intercommunicator's remote group) */
            printf("# rank %d comm %s members", r->rank, label);
            for (uint32_t i = 0; i < r->comms[c].nmembers; i++)
                print_member(i == 0, r->comms[c].members[i]);
            printf("\n");
            print_outside(r, label, "members", r->comms[c].members, r->comms[c].nmembers);
            if (r->comms[c].inter)
                print_outside(r, label, "local", r->comms[c].local, r->comms[c].nlocal);
            printf("# rank %d comm_info %s name=%s", r->rank, label, r->comms[c].name ? r->comms[c].name : "");
            if (r->comms[c].has_key)
                printf(" key=%016" PRIx64, r->comms[c].key);
            if (r->comms[c].self)
                printf(" self");
            if (r->comms[c].events)   /* CommCreate/CommDestroy events mark its life */
                printf(" events");
            if (r->comms[c].inter) {
                printf(" inter local");
                for (uint32_t i = 0; i < r->comms[c].nlocal; i++)
                    print_member(i == 0, r->comms[c].local[i]);
            }
            printf("\n");
            if (r->comms[c].has_in) {   /* a topology communicator */
                printf("# rank %d in_neighbours comm %s%s", r->rank, label, r->comms[c].nin ? "" : " =-");
                for (uint32_t i = 0; i < r->comms[c].nin; i++)
                    printf("%s%d", i ? "," : " =", (int)(int64_t)r->comms[c].in[i]);
                printf("\n");
            }
        }
        for (uint32_t i = 0; i < r->noutside; i++)   /* processes of other jobs (rawformat.h) */
            printf("# rank %d outside_set %u %s\n", r->rank, i, r->outside[i] ? r->outside[i] : "?");
        for (uint32_t i = 0; i < r->noffsets; i++)
            printf("# rank %d clock_offset time=%" PRIu64 " offset=%" PRId64 " stddev=%.1f\n", r->rank,
                   r->offsets[i].time, r->offsets[i].offset, r->offsets[i].stddev);
    }
    /* a thread other than the main one: its own location, events as "RANK.THREAD INDEX ..." */
    char who[32];
    if (r->thread) {
        snprintf(who, sizeof who, "%d.%u", r->rank, r->thread);
        if (!events_only)
            printf("# rank %d thread %u location %" PRIu64 " events %" PRIu64 "\n", r->rank, r->thread, r->location,
                   r->nevents);
    } else {
        snprintf(who, sizeof who, "%d", r->rank);
    }
    for (uint64_t i = 0; i < r->nevents; i++) {
        const struct rt_event ev = rt_event_at(r, i), *e = &ev;
        printf("%s %" PRIu64 " %s time=%" PRIu64, who, i, rt_kind_name(e->kind), e->time);
        if (e->has_truth)
            printf(" true=%" PRIu64, e->truth);
        switch (e->kind) {
        case RT_ENTER:
        case RT_LEAVE:
            printf(" region=%s", e->ref < r->nregions && r->regions[e->ref] ? r->regions[e->ref] : "?");
            if (e->kind == RT_ENTER && e->bytes > 1)   /* polling calls written as one region */
                printf(" calls=%" PRIu64, e->bytes);
            break;
        case RT_SEND:
        case RT_RECV:
            print_peer(r, e);
            printf(" tag=%" PRIu32 " bytes=%" PRIu64, e->tag, e->bytes);
            break;
        case RT_IRECV_FREED:   /* as posted: -1 for MPI_ANY_SOURCE, MPI_ANY_TAG */
            print_peer(r, e);
            printf(" tag=%d req=%" PRIu64, e->tag == RT_ANY ? -1 : (int)e->tag, e->req);
            break;
        case RT_ISEND:
        case RT_IRECV:
            print_peer(r, e);
            printf(" tag=%" PRIu32 " bytes=%" PRIu64 " req=%" PRIu64, e->tag, e->bytes, e->req);
            break;
        case RT_COLL_END:
        case RT_NBC_COMPLETE:
        {
            char buf[32];
            printf(" op=%s comm=%s root=%d sent=%" PRIu64 " recv=%" PRIu64, rt_collective_name(e->tag),
                   comm_label(r, e->ref, buf, sizeof buf),
                   e->peer >= OTF2_COLLECTIVE_ROOT_THIS_GROUP ? -1 : rt_world_rank(r, e->ref, e->peer), e->bytes,
                   e->received);
            /* an intercommunicator's root group: MPI_ROOT, MPI_PROC_NULL */
            if (e->peer == OTF2_COLLECTIVE_ROOT_SELF || e->peer == OTF2_COLLECTIVE_ROOT_THIS_GROUP)
                printf(" root_is=%s", e->peer == OTF2_COLLECTIVE_ROOT_SELF ? "SELF" : "THIS_GROUP");
            print_sources(r, i);
            if (e->kind == RT_NBC_COMPLETE)
                printf(" req=%" PRIu64, e->req);
            break;
        }
        case RT_FLUSH:
            printf(" stop=%" PRIu64, e->req);
            break;
        case RT_COMM_CREATE:
        case RT_COMM_DESTROY: {
            char buf[32];
            printf(" comm=%s", comm_label(r, e->ref, buf, sizeof buf));
            break;
        }
        case RT_COLL_BEGIN:
            break;
        case RT_RMA:   /* which record (enum rt_rma), window, remote window rank, bytes (sync: its type) */
            printf(" req=%" PRIu64 " rma=%u win=%" PRIu32 " peer=%" PRIu32 " bytes=%" PRIu64, e->req,
                   (unsigned)(e->tag & 0xff), e->ref, e->peer, e->bytes);
            break;
        default:
            printf(" req=%" PRIu64, e->req);
        }
        printf("\n");
    }
}

int cmd_dump(int argc, char **argv)
{
    const char *dir = NULL;
    int events_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: synctrace dump RAW_DIR [--events]\n"
                   "Print every event of a raw trace, one line each, peers as world ranks.\n"
                   "  --events   events only, no '#' header lines\n");
            return 0;
        } else if (strcmp(argv[i], "--events") == 0) {
            events_only = 1;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "synctrace dump: unexpected argument '%s' (see --help)\n", argv[i]);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "synctrace dump: no RAW_DIR given (see --help)\n");
        return 2;
    }
    char err[4200];
    char **anchors;
    int n = rawdir_list(dir, &anchors, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "synctrace dump: %s\n", err);
        return 1;
    }
    int rc = 0, world = -1;
    for (int i = 0; i < n; i++) {
        struct rt_location r;
        if (rt_read_rank(anchors[i], &r, err, sizeof err) != 0) {
            fprintf(stderr, "synctrace dump: %s\n", err);
            rc = 1;
        } else {
            dump_rank(&r, events_only);
            for (uint32_t k = 0; k < r.nthreads; k++)
                dump_rank(&r.threads[k], events_only);
            if (world < 0)
                world = r.world_size;
        }
        rt_free_location(&r);
    }
    /* Archives are named by rank: a gap or a short count means ranks are missing. */
    if (rc == 0 && world != n) {
        fprintf(stderr, "synctrace dump: %s: %d rank archives of a %d-rank run\n", dir, n, world);
        rc = 1;
    }
    rawdir_free(anchors, n);
    if (fflush(stdout) != 0)
        rc = 1;
    return rc;
}
