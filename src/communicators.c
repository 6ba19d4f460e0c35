/* communicators.c — ids for communicators.
 *
 * MPI requires the members of a communicator to call its collectives,
 * communicator constructors included, in the same order. So the n-th
 * communicator with member set S made by a collective over parent P is the
 * same object on every member of S, and
 *     key = hash(key(P), S, n)
 * is agreed without exchanging a byte — which also works for MPI_Comm_idup,
 * where no collective may be added (its key is taken when it is called).
 * Two constructors are not collective over their parent, so their calls
 * are not ordered with the parent's collectives: MPI_Comm_create_group is
 * collective over the new group only (even ranks may call it before an
 * MPI_Comm_idup of the same members, odd ranks after), and
 * MPI_Intercomm_create over the union of two groups with different local
 * parents. They count in scopes of their own, named by their tag:
 * (P, S, tag) for create_group, (S, tag) for intercomm_create, with S the
 * union of both groups. MPI_Comm_accept/connect and join have no
 * parent the two sides share: they count per union of both groups (a
 * rank is in at most one such blocking call at a time, and both sides
 * complete them pairwise in the same order). MPI_Comm_spawn(_multiple) is
 * collective over its parent: counted in a scope of its own under it, and
 * the key is handed to the children (spawn.c), whose MPI_Comm_get_parent
 * gets it. A communicator of one member has a key of that
 * rank's own (S is that rank), so it never matches another rank's.
 *
 * Processes outside MPI_COMM_WORLD: the remote group of an
 * intercommunicator that reaches another job (spawned children, the
 * parents, an accepted or connected job) becomes an "outside set"
 * (rawformat.h, RF_PROP_OUTSIDE_FMT), and a member of any communicator
 * found in it is written as (set, index in it), so the merge knows the
 * same process wherever it appears; a member in no set stays unknown.
 * The key is written as its group's name (writer.h); the communicator's
 * own name is MPI's (MPI_COMM_WORLD, MPI_COMM_SELF, MPI_Comm_set_name).
 *
 * Life events, as Score-P writes them: a CommCreate inside the call that
 * made the communicator on this rank, stamped with the call's Leave time
 * just before its Leave (MPI_COMM_WORLD and MPI_COMM_SELF inside MPI_Init;
 * an MPI_Comm_idup's communicator inside the call that completed its
 * request, when it exists), and a CommDestroy inside MPI_Comm_free /
 * MPI_Comm_disconnect (MPI_COMM_WORLD and MPI_COMM_SELF inside
 * MPI_Finalize). A communicator freed while requests on it are pending
 * lives, as MPI says, until they are done: its CommDestroy then follows
 * the last one's completion (or MPI_Request_free), so that no event of the
 * trace names a communicator after its end; inside MPI_Finalize if one is
 * never done. Only communicators seen created get them and the
 * definition's CREATE_DESTROY_EVENTS flag: one first met in use (made in a
 * call the tracer did not record) has neither, nor has the tracer's own. */
#include "communicators.h"
#include "fortran.h"
#include "rawformat.h"
#include "handlemap.h"
#include "requests.h"
#include "tracer.h"
#include "writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct st_commrec {
    uint32_t ref;
    uint64_t key;
    int events;               /* it has a CommCreate: its free gets a CommDestroy */
    int peers;                /* ranks a point-to-point call may name: its (remote) group's size */
};

static struct st_handlemap comms;       /* MPI_Comm -> struct st_commrec */
static struct st_handlemap creations;   /* hash(parent, set) -> count so far */
static MPI_Group world_group = MPI_GROUP_NULL;
/* An outside set: the remote group of an intercommunicator to another job,
 * its local group, its key and which side each group is of a spawn (the
 * parents' or the children's; 0 for an accepted or connected job). */
enum { SIDE_NONE, SIDE_PARENTS, SIDE_CHILDREN };
struct outside_set {
    MPI_Group remote, local;
    uint64_t key;
    int remote_side, local_side;
};
static struct outside_set outside[ST_OUTSIDE_SETS];   /* in the order they were met */
static int noutside;
/* A spawned job's keys must differ from its parents' (the merge takes
 * both): they are salted with the spawn's key; 0 for a job mpirun started
 * (its keys stay what they always were). */
static uint64_t job_salt;
static uint32_t world_ref;
/* Communicators freed with requests still pending on them (see above):
 * the reference and how many requests are left. Rare: a list. */
struct st_dying {
    uint32_t ref, pending;
    struct st_dying *next;
};
static struct st_dying *dying;
static uint64_t lazy_count;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return h;
}

/* World ranks of a group's members, in group rank order. */
static int *world_ranks(MPI_Group group, int *n)
{
    PMPI_Group_size(group, n);
    int *ranks = malloc(sizeof *ranks * (size_t)(*n ? *n : 1));
    int *world = malloc(sizeof *world * (size_t)(*n ? *n : 1));
    if (!ranks || !world) {
        free(ranks);
        free(world);
        *n = 0;
        return NULL;
    }
    for (int i = 0; i < *n; i++)
        ranks[i] = i;
    PMPI_Group_translate_ranks(group, *n, ranks, world_group, world);
    int unknown = 0;
    for (int i = 0; i < *n; i++)
        if (world[i] == MPI_UNDEFINED) {
            world[i] = -1;   /* a process of another world (spawn, connect) */
            unknown = 1;
        }
    /* the newest set first: a process met again is named as last met */
    int *there = unknown && noutside ? malloc(sizeof *there * (size_t)*n) : NULL;
    for (int s = noutside - 1; there && s >= 0; s--) {
        if (PMPI_Group_translate_ranks(group, *n, ranks, outside[s].remote, there) != MPI_SUCCESS)
            continue;
        for (int i = 0; i < *n; i++)
            if (world[i] == -1 && there[i] != MPI_UNDEFINED && there[i] >= 0 && there[i] < ST_OUTSIDE_INDEX_LIMIT)
                world[i] = ST_OUTSIDE_INT(s, there[i]);
    }
    free(there);
    free(ranks);
    return world;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Make the remote group of intercommunicator `inter` an outside set named
 * "KIND KEY" when it holds processes no set knows yet. */
static void register_outside(MPI_Comm inter, const char *kind, uint64_t key)
{
    MPI_Group remote = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
    int inter_flag = 0;
    if (noutside >= ST_OUTSIDE_SETS || PMPI_Comm_test_inter(inter, &inter_flag) != MPI_SUCCESS || !inter_flag
        || PMPI_Comm_remote_group(inter, &remote) != MPI_SUCCESS)
        return;
    int n = 0, fresh = 0;
    int *w = world_ranks(remote, &n);
    for (int i = 0; w && i < n; i++)
        fresh |= w[i] == -1;
    free(w);
    if (!fresh || n > ST_OUTSIDE_INDEX_LIMIT || PMPI_Comm_group(inter, &local) != MPI_SUCCESS) {
        PMPI_Group_free(&remote);
        return;
    }
    char name[64], value[96];
    snprintf(name, sizeof name, RF_PROP_OUTSIDE_FMT, (unsigned)noutside);
    snprintf(value, sizeof value, "%s %016llx", kind, (unsigned long long)key);
    st_writer_property(name, value);
    int spawn = strcmp(kind, RF_OUTSIDE_SPAWN) == 0, parent = strcmp(kind, RF_OUTSIDE_PARENT) == 0;
    outside[noutside++] = (struct outside_set){
        remote, local, key, spawn ? SIDE_CHILDREN : parent ? SIDE_PARENTS : SIDE_NONE,
        spawn ? SIDE_PARENTS : parent ? SIDE_CHILDREN : SIDE_NONE };
}

/* The members of a communicator with processes of another job, as both
 * jobs name them, so that both agree on its key: when every outside member
 * is of one spawn's set and every member of this world is in that spawn's
 * local group, member = (spawn key, side, rank in that side's group);
 * the hash of the sorted set in *out. Returns 0, or -1 (another case: the
 * key stays this job's own). */
static int spawn_relative_set(MPI_Group ga, const int *a, int na, MPI_Group gb, const int *b, int nb, uint64_t *out)
{
    int set = -1;
    for (int i = 0; i < na + nb; i++) {
        int m = i < na ? a[i] : b[i - na];
        if (m == -1)
            return -1;
        if (m < -1) {
            int s = (-2 - m) >> 24;
            if (set >= 0 && s != set)
                return -1;
            set = s;
        }
    }
    if (set < 0 || outside[set].remote_side == SIDE_NONE)
        return -1;
    const struct outside_set *o = &outside[set];
    uint64_t *canon = malloc(sizeof *canon * (size_t)(na + nb + 1));
    int *ranks = malloc(sizeof *ranks * (size_t)(na + nb + 1)), *idx = malloc(sizeof *idx * (size_t)(na + nb + 1));
    int rc = canon && ranks && idx ? 0 : -1;
    for (int g = 0; rc == 0 && g < 2; g++) {
        const int *v = g ? b : a;
        int n = g ? nb : na;
        uint64_t *c = canon + (g ? na : 0);
        for (int i = 0; i < n; i++)
            ranks[i] = i;
        if (n && PMPI_Group_translate_ranks(g ? gb : ga, n, ranks, o->local, idx) != MPI_SUCCESS)
            rc = -1;
        for (int i = 0; rc == 0 && i < n; i++) {
            if (v[i] < -1)
                c[i] = mix(mix(o->key, (uint64_t)o->remote_side), (uint64_t)((-2 - v[i]) & 0xFFFFFF));
            else if (idx[i] != MPI_UNDEFINED && idx[i] >= 0)
                c[i] = mix(mix(o->key, (uint64_t)o->local_side), (uint64_t)idx[i]);
            else
                rc = -1;   /* a member of this world outside the spawn's group */
        }
    }
    if (rc == 0) {
        int n = na + nb;
        qsort(canon, (size_t)n, sizeof *canon, cmp_u64);   /* the set, not the order */
        uint64_t h = mix(0x5ba3a5e7, (uint64_t)n);
        for (int i = 0; i < n; i++)
            h = mix(h, canon[i]);
        *out = h;
    }
    free(canon);
    free(ranks);
    free(idx);
    return rc;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static uint64_t set_hash(const int *a, int na, const int *b, int nb)
{
    int n = na + nb;
    int *all = malloc(sizeof *all * (size_t)(n ? n : 1));
    if (!all)
        return 0;
    memcpy(all, a, sizeof *a * (size_t)na);
    if (nb)
        memcpy(all + na, b, sizeof *b * (size_t)nb);
    qsort(all, (size_t)n, sizeof *all, cmp_int);
    uint64_t h = mix(0x5ca1ab1e, (uint64_t)n);
    for (int i = 0; i < n; i++)
        h = mix(h, (uint64_t)(int64_t)all[i]);
    free(all);
    return h;
}

static struct st_commrec *remember(MPI_Comm comm, const struct st_comm_desc *desc)
{
    struct st_commrec *rec = malloc(sizeof *rec);
    if (!rec)
        return NULL;
    rec->key = desc->key;
    rec->events = 0;
    rec->peers = desc->inter ? desc->nremote : desc->nmembers;
    rec->ref = st_writer_define_comm(desc);
    if (st_handlemap_put(&comms, (uintptr_t)comm, rec) != 0) {
        free(rec);
        return NULL;
    }
    return rec;
}

static struct st_commrec *lookup(MPI_Comm comm)
{
    return st_handlemap_get(&comms, (uintptr_t)comm);
}

/* A topology communicator's in-neighbours of this rank, in the order MPI's
 * neighbourhood collectives receive from them (for each Cartesian
 * dimension the negative then the positive direction; a graph's
 * neighbours; a distributed graph's sources), MPI_PROC_NULL left out: the
 * merge constrains each rank's exit from a neighbourhood collective to
 * follow its in-neighbours' entries. `world` maps comm ranks to world ranks. */
static void record_neighbours(MPI_Comm comm, uint32_t ref, const int *world, int size)
{
    int topo = MPI_UNDEFINED, n = 0, me = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS || topo == MPI_UNDEFINED)
        return;
    PMPI_Comm_rank(comm, &me);
    int *in = NULL;
    if (topo == MPI_CART) {
        int nd = 0;
        PMPI_Cartdim_get(comm, &nd);
        int *sizes = malloc(sizeof *sizes * (size_t)(3 * nd + 1));
        if (sizes && nd > 0 && PMPI_Cart_get(comm, nd, sizes, sizes + nd, sizes + 2 * nd) == MPI_SUCCESS)
            st_writer_comm_cart(ref, nd, sizes, sizes + nd, sizes + 2 * nd, me);
        free(sizes);
        in = malloc(sizeof *in * (size_t)(2 * nd + 1));
        for (int d = 0; in && d < nd; d++) {
            int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &src, &dst);
            /* receives come from the rank below (src) and the rank above (dst) */
            if (src != MPI_PROC_NULL)
                in[n++] = src;
            if (dst != MPI_PROC_NULL)
                in[n++] = dst;
        }
    } else if (topo == MPI_GRAPH) {
        PMPI_Graph_neighbors_count(comm, me, &n);
        in = malloc(sizeof *in * (size_t)(n + 1));
        if (in)
            PMPI_Graph_neighbors(comm, me, n, in);
    } else if (topo == MPI_DIST_GRAPH) {
        int indeg = 0, outdeg = 0, weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
        in = malloc(sizeof *in * (size_t)(indeg + 1));
        int *out = malloc(sizeof *out * (size_t)(outdeg + 1));
        int *inw = malloc(sizeof *inw * (size_t)(indeg + 1)), *outw = malloc(sizeof *outw * (size_t)(outdeg + 1));
        if (in && out && inw && outw
            && PMPI_Dist_graph_neighbors(comm, indeg, in, weighted ? inw : MPI_UNWEIGHTED, outdeg, out,
                                         weighted ? outw : MPI_UNWEIGHTED) == MPI_SUCCESS)
            n = indeg;
        free(out);
        free(inw);
        free(outw);
    }
    if (!in)
        return;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (in[i] >= 0 && in[i] < size)
            in[k++] = world[in[i]];
    st_writer_comm_neighbours(ref, k, in);
    free(in);
}

/* Take the key of the next communicator made from a parent with key
 * parent_key by `how` (with `tag`) and with the groups of `like` (the new
 * communicator itself, or for MPI_Comm_idup its parent, whose groups it
 * copies), and unless comm is MPI_COMM_NULL define comm. With `reserved`,
 * the key was taken before. */
static uint64_t define_new(uint64_t parent_key, MPI_Comm like, MPI_Comm comm, const uint64_t *reserved,
                           enum st_comm_how how, int tag)
{
    int inter = 0;
    PMPI_Comm_test_inter(like, &inter);
    MPI_Group local, remote = MPI_GROUP_NULL;
    PMPI_Comm_group(like, &local);
    int nl = 0, nr = 0;
    int *lw = world_ranks(local, &nl);
    int *rw = NULL;
    if (inter) {
        PMPI_Comm_remote_group(like, &remote);
        rw = world_ranks(remote, &nr);
    }
    uint64_t key = 0;
    if (lw && (!inter || rw)) {
        if (reserved) {
            key = *reserved;
        } else {
            uint64_t set = 0;   /* set by spawn_relative_set when it returns 0 */
            if (spawn_relative_set(local, lw, nl, remote, rw, nr, &set) != 0) {
                set = set_hash(lw, nl, rw, nr);
                if (job_salt)
                    set = mix(set, job_salt);
            }
            uint64_t scope;
            if (how == ST_COMM_CREATE_GROUP)
                scope = mix(mix(parent_key, set), mix(0xc9ea7e, (uint64_t)(int64_t)tag));
            else if (how == ST_COMM_INTERCOMM_CREATE)
                scope = mix(mix(0x1e7e5, set), (uint64_t)(int64_t)tag);
            else if (how == ST_COMM_CONNECT)
                scope = mix(0xc0c0c7, set);
            else
                scope = mix(parent_key, set);
            uintptr_t counter = (uintptr_t)st_handlemap_get(&creations, (uintptr_t)scope);
            st_handlemap_put(&creations, (uintptr_t)scope, (void *)(counter + 1));
            key = mix(scope, (uint64_t)counter);
        }
        if (comm != MPI_COMM_NULL) {
            /* Peers of point-to-point calls on an intercommunicator are
             * ranks of its remote group: the reader resolves them there. */
            struct st_comm_desc d = { key, "", 0, nl, lw, inter, nr, rw };
            struct st_commrec *rec = remember(comm, &d);
            if (rec && !inter)
                record_neighbours(comm, rec->ref, lw, nl);
        }
    }
    free(lw);
    free(rw);
    PMPI_Group_free(&local);
    if (remote != MPI_GROUP_NULL)
        PMPI_Group_free(&remote);
    return key;
}

/* MPI_Comm_idup calls whose request has not completed yet. Their keys are
 * taken when they are called, the order MPI prescribes for all members:
 * the order in which a rank completes them is its own (two idups waited
 * for in opposite orders on different ranks). */
struct st_idup {
    MPI_Comm parent;
    MPI_Comm *target;          /* where MPI puts the new communicator */
    uint64_t key;
    struct st_idup *next;
};
static struct st_idup *idups;

static void comms_init(MPI_Comm sync_comm, const uint64_t *spawn_key)
{
    job_salt = spawn_key ? mix(*spawn_key, 0x10b5a17) : 0;
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int n = st_g.size;
    int *all = malloc(sizeof *all * (size_t)n);
    if (all) {
        for (int i = 0; i < n; i++)
            all[i] = i;
        struct st_comm_desc world = { job_salt ? mix(job_salt, 1) : 1, RF_COMM_WORLD_NAME, 0, n, all, 0, 0, NULL };
        struct st_commrec *w = remember(MPI_COMM_WORLD, &world);
        world_ref = w ? w->ref : OTF2_UNDEFINED_COMM;
        struct st_comm_desc sync = { job_salt ? mix(job_salt, 2) : 2, RF_COMM_SYNC_NAME, 0, n, all, 0, 0, NULL };
        remember(sync_comm, &sync);
        free(all);
    }
    int me = st_g.rank;
    struct st_comm_desc self = { mix(3, (uint64_t)me), "MPI_COMM_SELF", 1, 1, &me, 0, 0, NULL };
    remember(MPI_COMM_SELF, &self);
}

static void comms_finalize(void)
{
    for (size_t i = 0; i < comms.cap; i++)
        if (comms.keys[i] > 1)
            free(comms.values[i]);
    st_handlemap_clear(&comms);
    st_handlemap_clear(&creations);
    while (dying) {
        struct st_dying *next = dying->next;
        free(dying);
        dying = next;
    }
    while (idups) {
        struct st_idup *next = idups->next;
        free(idups);
        idups = next;
    }
    if (world_group != MPI_GROUP_NULL)
        PMPI_Group_free(&world_group);
    while (noutside > 0) {
        noutside--;
        PMPI_Group_free(&outside[noutside].remote);
        PMPI_Group_free(&outside[noutside].local);
    }
}

static uint32_t comm_ref(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return world_ref;
    struct st_commrec *rec = lookup(comm);
    if (!rec && comm != MPI_COMM_NULL) {
        /* Not seen created (e.g. made by a thread that does not record):
         * its key is this rank's own, so the merge reports it unmatched
         * rather than pairing it wrongly. */
        define_new(mix(0x1a2f, mix((uint64_t)st_g.rank, ++lazy_count)), comm, comm, NULL, ST_COMM_FROM_PARENT, 0);
        rec = lookup(comm);
    }
    return rec ? rec->ref : OTF2_UNDEFINED_COMM;
}

/* The parent of an intracommunicator (an intercommunicator's two sides
 * have different local parents: none is written). */
static void record_parent(MPI_Comm parent, MPI_Comm newcomm)
{
    int inter = 0;
    if (parent == MPI_COMM_NULL || PMPI_Comm_test_inter(newcomm, &inter) != MPI_SUCCESS || inter)
        return;
    struct st_commrec *p = lookup(parent), *c = lookup(newcomm);
    if (p && c)
        st_writer_comm_parent(c->ref, p->ref);
}

/* `comm` came into being on this rank in the recorded call `call`. */
static void life_begins(struct st_call *call, MPI_Comm comm)
{
    struct st_commrec *rec = lookup(comm);
    if (!rec || rec->ref == OTF2_UNDEFINED_COMM || !call->loc)
        return;
    rec->events = 1;
    st_writer_comm_events(rec->ref);
    st_write_comm_create(call->loc, call->leave, rec->ref);
}

static void write_destroy(const struct st_call *call, uint32_t ref)
{
    if (call->loc)
        st_write_comm_destroy(call->loc, call->leave, ref);
}

static void life_ends(struct st_call *call, const struct st_commrec *rec)
{
    if (rec && rec->events && rec->ref != OTF2_UNDEFINED_COMM)
        write_destroy(call, rec->ref);
}

/* The collective pair Score-P writes around a communicator's life event:
 * a MpiCollectiveBegin at the call's Enter, the CommCreate/CommDestroy,
 * then a MpiCollectiveEnd CREATE_HANDLE/DESTROY_HANDLE on `scope`, the
 * communicator over which the call is collective (root none, no bytes:
 * the merge derives no clock constraint from it). */
static void handle_begin(const struct st_call *call, struct st_time at)
{
    if (call->loc)
        st_write_coll_begin(call->loc, at);
}

/* The Begin of a constructor's or free's pair, written after the call: at
 * its Enter, as Score-P does, unless the call recorded nested events (MPI
 * calls of attribute copy/delete callbacks, error handlers), which the
 * Begin must not precede out of order: then as the call returned. */
static void handle_begin_after(const struct st_call *call)
{
    if (call->loc)
        handle_begin(call, st_rec_last_enter_at(call->loc, call->enter.t) ? call->enter : call->leave);
}

static void handle_end(const struct st_call *call, OTF2_CollectiveOp op, uint32_t scope)
{
    if (call->loc)
        st_write_coll_end(call->loc, call->leave, op, scope, OTF2_UNDEFINED_UINT32, 0, 0, 0, NULL);
}

/* The communicator over which a constructor is collective (MPI 4.0 §7.4,
 * §7.6.2, §11.8): the parent for dup, split, create, the topology
 * constructors, Cart_sub, Intercomm_merge, accept/connect and spawn;
 * MPI_Comm_create_group only over the new group, MPI_Intercomm_create
 * over the union of both local groups, which is exactly the new
 * intercommunicator's membership, and MPI_Comm_join (no parent) between
 * the two processes it connects: the new communicator itself for those. */
static MPI_Comm creation_scope(MPI_Comm parent, MPI_Comm newcomm, enum st_comm_how how)
{
    if (how == ST_COMM_CREATE_GROUP || how == ST_COMM_INTERCOMM_CREATE || parent == MPI_COMM_NULL)
        return newcomm;
    return parent;
}

static int idup_completion(MPI_Comm parent, MPI_Comm newcomm)
{
    for (const struct st_idup *d = idups; d; d = d->next)
        if (d->parent == parent && *d->target == newcomm)
            return 1;
    return 0;
}

static void comm_defined(struct st_call *call, MPI_Comm parent, MPI_Comm newcomm, enum st_comm_how how, int tag);

/* An MPI_Comm_idup's communicator gets its CommCreate alone, in the call
 * that completed the request: MPI_Comm_idup is a nonblocking collective,
 * whose pair Score-P does not write either. A call that returned
 * MPI_COMM_NULL on this rank (split with MPI_UNDEFINED, create with a group
 * this rank is not in) still took part in the collective over the parent:
 * the pair without a CommCreate. */
static void comm_created(struct st_call *call, int ret, MPI_Comm parent, MPI_Comm newcomm, enum st_comm_how how,
                         int tag)
{
    if (ret != MPI_SUCCESS)
        return;
    if (newcomm != MPI_COMM_NULL && idup_completion(parent, newcomm)) {
        comm_defined(call, parent, newcomm, how, tag);
        return;
    }
    MPI_Comm scope = creation_scope(parent, newcomm, how);
    if (scope == MPI_COMM_NULL)
        return;
    handle_begin_after(call);
    if (newcomm != MPI_COMM_NULL)
        comm_defined(call, parent, newcomm, how, tag);
    handle_end(call, OTF2_COLLECTIVE_OP_CREATE_HANDLE, comm_ref(scope));
}

static void comm_defined(struct st_call *call, MPI_Comm parent, MPI_Comm newcomm, enum st_comm_how how, int tag)
{
    uint64_t parent_key = 0;
    if (parent != MPI_COMM_NULL) {
        comm_ref(parent);
        struct st_commrec *p = lookup(parent);
        parent_key = p ? p->key : 0;
    }
    /* A handle MPI reuses after a free must not keep the old id. */
    free(st_handlemap_remove(&comms, (uintptr_t)newcomm));
    /* The completion of an MPI_Comm_idup: use the key taken at the call. */
    for (struct st_idup **p = &idups; *p; p = &(*p)->next) {
        struct st_idup *d = *p;
        if (d->parent == parent && *d->target == newcomm) {
            *p = d->next;
            define_new(parent_key, newcomm, newcomm, &d->key, how, tag);
            free(d);
            record_parent(parent, newcomm);
            life_begins(call, newcomm);
            return;
        }
    }
    if (how == ST_COMM_CONNECT) {
        /* the key first (counted as before), then the other job's group as
         * an outside set, so that the definition names its processes */
        uint64_t key = define_new(parent_key, newcomm, MPI_COMM_NULL, NULL, how, tag);
        register_outside(newcomm, RF_OUTSIDE_CONNECT, key);
        define_new(parent_key, newcomm, newcomm, &key, how, tag);
        life_begins(call, newcomm);
        return;
    }
    define_new(parent_key, newcomm, newcomm, NULL, how, tag);
    record_parent(parent, newcomm);
    life_begins(call, newcomm);
}

/* MPI_Comm_spawn(_multiple) over `comm`: the key of the intercommunicator
 * it is about to make, taken before the call (the root hands it to the
 * children): the n-th spawn over a communicator is the same on all its
 * members, MPI orders its collectives alike. */
static uint64_t spawn_key(MPI_Comm comm)
{
    comm_ref(comm);
    struct st_commrec *p = lookup(comm);
    uint64_t scope = mix(mix(p ? p->key : 0, 0x5ba3a), 0x5ba3a);
    uintptr_t counter = (uintptr_t)st_handlemap_get(&creations, (uintptr_t)scope);
    st_handlemap_put(&creations, (uintptr_t)scope, (void *)(counter + 1));
    return mix(scope, (uint64_t)counter);
}

static void comm_spawned(struct st_call *call, int ret, MPI_Comm comm, MPI_Comm intercomm, uint64_t key)
{
    if (ret != MPI_SUCCESS || intercomm == MPI_COMM_NULL)
        return;
    handle_begin_after(call);   /* collective over `comm` */
    free(st_handlemap_remove(&comms, (uintptr_t)intercomm));
    register_outside(intercomm, RF_OUTSIDE_SPAWN, key);
    define_new(0, intercomm, intercomm, &key, ST_COMM_CONNECT, 0);
    life_begins(call, intercomm);
    handle_end(call, OTF2_COLLECTIVE_OP_CREATE_HANDLE, comm_ref(comm));
}

/* A spawned job's parent intercommunicator, at MPI_Init: its key is the
 * parents' when they said it (*key), else counted as a connection's. */
static void comm_parent(MPI_Comm parent, const uint64_t *key)
{
    if (parent == MPI_COMM_NULL)
        return;
    free(st_handlemap_remove(&comms, (uintptr_t)parent));
    uint64_t k = key ? *key : define_new(0, parent, MPI_COMM_NULL, NULL, ST_COMM_CONNECT, 0);
    register_outside(parent, RF_OUTSIDE_PARENT, k);
    define_new(0, parent, parent, &k, ST_COMM_CONNECT, 0);
}

/* MPI_Comm_idup: the new communicator exists once the request completes;
 * requests.c then calls st_comm_created(call, MPI_SUCCESS, parent, *newcomm)
 * with the completing call, in which its CommCreate is written. */
static void comm_idup(int ret, MPI_Comm parent, MPI_Comm *newcomm, MPI_Request request)
{
    if (ret != MPI_SUCCESS || request == MPI_REQUEST_NULL || newcomm == NULL || parent == MPI_COMM_NULL)
        return;
    struct st_idup *d = malloc(sizeof *d);
    if (!d)
        return;
    comm_ref(parent);
    struct st_commrec *p = lookup(parent);
    d->parent = parent;
    d->target = newcomm;
    d->key = define_new(p ? p->key : 0, parent, MPI_COMM_NULL, NULL, ST_COMM_FROM_PARENT, 0);
    struct st_req *r = st_req_new(request, ST_KIND_IDUP, OTF2_UNDEFINED_COMM);
    if (!r) {
        free(d);
        return;
    }
    r->idup_target = newcomm;
    r->idup_parent = parent;
    d->next = idups;
    idups = d;
}

static void comm_named(int ret, MPI_Comm comm, const char *name)
{
    if (ret != MPI_SUCCESS || comm == MPI_COMM_NULL || !name)
        return;
    uint32_t ref = comm_ref(comm);
    if (ref != OTF2_UNDEFINED_COMM)
        st_writer_comm_name(ref, name);
}

static void comm_freed(struct st_call *call, int ret, MPI_Comm comm)
{
    if (ret != MPI_SUCCESS || comm == MPI_COMM_NULL)
        return;
    uint32_t ref = comm_ref(comm);   /* collective over the freed communicator */
    handle_begin_after(call);
    struct st_commrec *rec = st_handlemap_remove(&comms, (uintptr_t)comm);
    struct st_dying *d = NULL;
    if (rec && rec->events && rec->ref != OTF2_UNDEFINED_COMM && (d = malloc(sizeof *d)) != NULL
        && (d->pending = st_req_hold_comm(rec->ref)) > 0) {
        d->ref = rec->ref;
        d->next = dying;
        dying = d;
    } else {
        free(d);   /* nothing pending (or no memory: ended now, as Score-P does) */
        life_ends(call, rec);
    }
    free(rec);
    handle_end(call, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, ref);
}

/* The entry points: under MPI_THREAD_MULTIPLE threads create, use and free
 * communicators concurrently (see st_state_lock). */
void st_comms_init(MPI_Comm sync_comm, const uint64_t *spawn_key)
{
    static const struct st_req_comm_hooks hooks = { st_comm_request_released, st_comm_created };
    st_req_set_comm_hooks(&hooks);
    st_state_lock();
    comms_init(sync_comm, spawn_key);
    st_state_unlock();
}

void st_comms_started(struct st_call *call, struct st_time begun, MPI_Comm parent)
{
    st_state_lock();
    handle_begin(call, begun);   /* collective over MPI_COMM_WORLD, as Score-P writes it */
    life_begins(call, MPI_COMM_WORLD);
    life_begins(call, MPI_COMM_SELF);
    if (parent != MPI_COMM_NULL)   /* a spawned job's intercommunicator to its parents */
        life_begins(call, parent);
    handle_end(call, OTF2_COLLECTIVE_OP_CREATE_HANDLE, world_ref);
    st_state_unlock();
}

void st_comms_ending(struct st_call *call, struct st_time begun)
{
    st_state_lock();
    handle_begin(call, begun);
    while (dying) {   /* requests never done: their communicators end with MPI */
        struct st_dying *next = dying->next;
        write_destroy(call, dying->ref);
        free(dying);
        dying = next;
    }
    life_ends(call, lookup(MPI_COMM_WORLD));
    life_ends(call, lookup(MPI_COMM_SELF));
    handle_end(call, OTF2_COLLECTIVE_OP_DESTROY_HANDLE, world_ref);
    st_state_unlock();
}

void st_comms_finalize(void)
{
    st_state_lock();
    comms_finalize();
    st_state_unlock();
}

int st_comm_known(MPI_Comm comm, uint32_t *ref, int *peers)
{
    st_state_lock();
    const struct st_commrec *rec = comm == MPI_COMM_NULL ? NULL : lookup(comm);
    if (rec) {
        *ref = rec->ref;
        *peers = rec->peers;
    }
    st_state_unlock();
    return rec ? 0 : -1;
}

uint32_t st_comm_ref(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return world_ref;
    st_state_lock();
    uint32_t ref = comm_ref(comm);
    st_state_unlock();
    return ref;
}

void st_comm_created(struct st_call *call, int ret, MPI_Comm parent, MPI_Comm newcomm)
{
    st_state_lock();
    comm_created(call, ret, parent, newcomm, ST_COMM_FROM_PARENT, 0);
    st_state_unlock();
}

void st_comm_created_by(struct st_call *call, int ret, MPI_Comm parent, MPI_Comm newcomm, enum st_comm_how how,
                        int tag)
{
    st_state_lock();
    comm_created(call, ret, parent, newcomm, how, tag);
    st_state_unlock();
}

void st_comm_named(int ret, MPI_Comm comm, const char *name)
{
    st_state_lock();
    comm_named(ret, comm, name);
    st_state_unlock();
}

void st_comm_named_f(int ret, MPI_Comm comm, const char *name, size_t len)
{
    if (ret != MPI_SUCCESS || !name)
        return;
    char *c = st_f_string(name, len);
    if (!c)
        return;
    st_comm_named(ret, comm, c);
    free(c);
}

void st_comm_idup(int ret, MPI_Comm parent, MPI_Comm *newcomm, MPI_Request request)
{
    st_state_lock();
    comm_idup(ret, parent, newcomm, request);
    st_state_unlock();
}

void st_comm_freed(struct st_call *call, int ret, MPI_Comm comm)
{
    st_state_lock();
    comm_freed(call, ret, comm);
    st_state_unlock();
}

void st_comm_request_released(struct st_call *call, uint32_t ref)
{
    st_state_lock();
    for (struct st_dying **p = &dying; *p; p = &(*p)->next) {
        struct st_dying *d = *p;
        if (d->ref != ref)
            continue;
        if (--d->pending == 0) {
            write_destroy(call, ref);
            *p = d->next;
            free(d);
        }
        break;
    }
    st_state_unlock();
}

uint64_t st_comm_spawn_key(MPI_Comm comm)
{
    st_state_lock();
    uint64_t key = spawn_key(comm);
    st_state_unlock();
    return key;
}

void st_comm_spawned(struct st_call *call, int ret, MPI_Comm comm, MPI_Comm intercomm, uint64_t key)
{
    st_state_lock();
    comm_spawned(call, ret, comm, intercomm, key);
    st_state_unlock();
}

void st_comm_parent(MPI_Comm parent, const uint64_t *key)
{
    st_state_lock();
    comm_parent(parent, key);
    st_state_unlock();
}
