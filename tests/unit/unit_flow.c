/* unit_flow.c — the data-flow rule of collectives (tools/match/flow.c)
 * against a brute-force enumeration: random instances of every operation
 * (intra- and intercommunicator, random roots, zero and sparse counts) are
 * given as a matrix bytes[i][j] of what member i sends member j, as MPI
 * defines the operation; the members' facts are derived from it the way
 * the tracer records them (bytes sent and received, a sparse alltoallv/w
 * member's sources). For every pair i != j, mg_flow_pair must say "entry
 * of i before exit of j" exactly where bytes[i][j] > 0 (scan: the prefix
 * of a non-zero count). Also: the groups are compact (O(n) members for
 * the dense patterns) and mg_flow_violations agrees with a pairwise check. */
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"
#include "tap.h"

#define MAXN 9

static uint64_t rng = 88172645463325252ULL;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static const uint32_t OPS[] = {
    OTF2_COLLECTIVE_OP_BARRIER,   OTF2_COLLECTIVE_OP_ALLREDUCE,      OTF2_COLLECTIVE_OP_ALLGATHER,
    OTF2_COLLECTIVE_OP_ALLGATHERV, OTF2_COLLECTIVE_OP_ALLTOALL,      OTF2_COLLECTIVE_OP_ALLTOALLV,
    OTF2_COLLECTIVE_OP_ALLTOALLW, OTF2_COLLECTIVE_OP_REDUCE_SCATTER, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
    OTF2_COLLECTIVE_OP_BCAST,     OTF2_COLLECTIVE_OP_SCATTER,        OTF2_COLLECTIVE_OP_SCATTERV,
    OTF2_COLLECTIVE_OP_REDUCE,    OTF2_COLLECTIVE_OP_GATHER,         OTF2_COLLECTIVE_OP_GATHERV,
    OTF2_COLLECTIVE_OP_SCAN,      OTF2_COLLECTIVE_OP_EXSCAN,
};
#define NOPS (sizeof OPS / sizeof OPS[0])

struct inst {
    uint32_t op, n;
    int inter, root, scan;        /* root: member index or -1; scan: a prefix rule of non-zero count */
    uint8_t side[MAXN];
    uint32_t bytes[MAXN][MAXN];   /* what i sends j */
};

/* a count that is zero one time in three */
static uint32_t count(void)
{
    return rnd(3) ? 1 + rnd(4) : 0;
}

static void gen(struct inst *x)
{
    memset(x, 0, sizeof *x);
    x->op = OPS[rnd(NOPS)];
    x->n = 2 + rnd(MAXN - 1);
    x->root = -1;
    int scan = x->op == OTF2_COLLECTIVE_OP_SCAN || x->op == OTF2_COLLECTIVE_OP_EXSCAN;
    x->inter = !scan && x->n >= 2 && rnd(3) == 0;
    if (x->inter) {   /* both sides not empty */
        x->side[0] = 0;
        x->side[1] = 1;
        for (uint32_t k = 2; k < x->n; k++)
            x->side[k] = (uint8_t)rnd(2);
    }
    uint32_t n = x->n, c = count();
#define ACROSS(i, j) ((i) != (j) && (!x->inter || x->side[i] != x->side[j]))
    uint32_t block[MAXN];
    for (uint32_t k = 0; k < n; k++)
        block[k] = count();
    switch (x->op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                x->bytes[i][j] = ACROSS(i, j);
        break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                x->bytes[i][j] = ACROSS(i, j) ? c : 0;
        break;
    case OTF2_COLLECTIVE_OP_ALLGATHERV:   /* i's block to everybody */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                x->bytes[i][j] = ACROSS(i, j) ? block[i] : 0;
        break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:   /* everybody's part for j: recvcounts[j] */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                x->bytes[i][j] = ACROSS(i, j) ? block[j] : 0;
        break;
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                x->bytes[i][j] = ACROSS(i, j) ? (rnd(4) == 0 ? 1 + rnd(3) : rnd(2) ? count() : 0) : 0;
        break;
    case OTF2_COLLECTIVE_OP_BCAST:
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
        x->root = (int)rnd(n);
        for (uint32_t j = 0; j < n; j++)
            x->bytes[x->root][j] = ACROSS((uint32_t)x->root, j)
                                   ? (x->op == OTF2_COLLECTIVE_OP_SCATTERV ? block[j] : c) : 0;
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
        x->root = (int)rnd(n);
        for (uint32_t i = 0; i < n; i++)
            x->bytes[i][x->root] = ACROSS(i, (uint32_t)x->root)
                                   ? (x->op == OTF2_COLLECTIVE_OP_GATHERV ? block[i] : c) : 0;
        break;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:   /* communicator rank = member index here */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < n; j++)
                x->bytes[i][j] = (x->op == OTF2_COLLECTIVE_OP_SCAN ? i <= j : i < j) && i != j ? c : 0;
        x->scan = c > 0;
        break;
    }
#undef ACROSS
}

/* The members' facts as the tracer records them and mg_flow_facts reads them. */
static void facts(const struct inst *x, struct mg_collective *c, struct mg_member *m, struct mg_result *r,
                  uint32_t *pool)
{
    memset(c, 0, sizeof *c);
    memset(r, 0, sizeof *r);
    c->op = x->op;
    c->nmembers = x->n;
    c->members = m;
    c->inter = x->inter;
    c->root = x->root;   /* ranks are member indices */
    size_t npool = 0;
    for (uint32_t k = 0; k < x->n; k++) {
        memset(&m[k], 0, sizeof m[k]);
        m[k].enter = (struct mg_event_ref){ k, 0, 0 };
        m[k].exit = (struct mg_event_ref){ k, 1, 0 };
        m[k].comm_rank = k;
        m[k].side = x->side[k];
        uint64_t sent = 0, recv = 0;
        uint32_t slots = 0, nonzero = 0;
        for (uint32_t j = 0; j < x->n; j++) {
            sent += x->bytes[k][j];
            recv += x->bytes[j][k];
        }
        /* an intracommunicator root counts its own block, as the tracer does */
        if (x->root == (int)k && !x->inter && (x->op == OTF2_COLLECTIVE_OP_BCAST || x->op == OTF2_COLLECTIVE_OP_SCATTER))
            recv += 1;
        if (x->op == OTF2_COLLECTIVE_OP_BARRIER)
            sent = recv = 0;   /* a barrier records no bytes */
        m[k].quiet = (uint8_t)((sent ? 0 : MG_QUIET_SEND) | (recv ? 0 : MG_QUIET_RECV));
        if (x->op != OTF2_COLLECTIVE_OP_ALLTOALLV && x->op != OTF2_COLLECTIVE_OP_ALLTOALLW)
            continue;
        for (uint32_t i = 0; i < x->n; i++)
            if (!x->inter || x->side[i] != x->side[k]) {
                slots++;   /* its own slot too on an intracommunicator (always empty here) */
                nonzero += x->bytes[i][k] > 0;
            }
        if (nonzero && nonzero < slots) {
            m[k].sparse = 1;
            m[k].src_at = npool;
            for (uint32_t i = 0; i < x->n; i++)
                if (x->bytes[i][k])
                    pool[npool++] = i;
            m[k].nsrc = (uint32_t)(npool - m[k].src_at);
        }
    }
    r->sources = pool;
    r->nsources = npool;
    r->collectives = c;
    r->ncollectives = 1;
}

int main(void)
{
    struct mg_flow f = { 0 };
    struct mg_member m[MAXN];
    uint32_t pool[MAXN * MAXN];
    struct mg_collective c;
    struct mg_result r;
    size_t pairs = 0, flowing = 0, bad = 0, big = 0, viol_bad = 0, per_op[NOPS] = { 0 };
    for (int t = 0; t < 40000; t++) {
        struct inst x;
        gen(&x);
        facts(&x, &c, m, &r, pool);
        if (mg_flow_of(&r, &c, &f) != 0) {
            ok(0, "mg_flow_of: out of memory");
            break;
        }
        for (size_t o = 0; o < NOPS; o++)
            per_op[o] += OPS[o] == x.op;
        size_t members = 0;
        int sparse = 0;
        for (uint32_t g = 0; g < f.ngroups; g++) {
            members += f.groups[g].nsrc + f.groups[g].ndst;
            sparse |= f.groups[g].ndst == 1 && f.groups[g].nsrc < x.n - 1;
        }
        /* dense patterns: at most two groups of O(n) members */
        if (x.op != OTF2_COLLECTIVE_OP_ALLTOALLV && x.op != OTF2_COLLECTIVE_OP_ALLTOALLW && members > 2 * (size_t)x.n)
            big++;
        for (uint32_t i = 0; i < x.n; i++)
            for (uint32_t j = 0; j < x.n; j++) {
                if (i == j)
                    continue;
                int want = x.bytes[i][j] > 0, got = mg_flow_pair(&f, i, j);
                pairs++;
                flowing += want;
                if (want != got && bad++ < 5)
                    diag("op %u n %u inter %d root %d: pair %u->%u: rule says %d, bytes %u", x.op, x.n, x.inter,
                         x.root, i, j, got, x.bytes[i][j]);
            }
        /* violations: random times, against the pairwise definition */
        uint64_t tin[MAXN], tout[MAXN], *times[MAXN];
        uint64_t tv[MAXN][2];
        for (uint32_t k = 0; k < x.n; k++) {
            tin[k] = rnd(100);
            tout[k] = tin[k] + rnd(60);
            tv[k][0] = tin[k];
            tv[k][1] = tout[k];
            times[k] = tv[k];
        }
        int want_v = 0;
        for (uint32_t i = 0; i < x.n; i++)
            for (uint32_t j = 0; j < x.n; j++)
                want_v |= i != j && x.bytes[i][j] > 0 && tout[j] < tin[i];
        viol_bad += (size_t)want_v != mg_flow_violations(&r, times, 0);
        (void)sparse;
    }
    ok(bad == 0, "the rule equals the per-pair enumeration of bytes moved: %zu pairs (%zu with data), %zu differ",
       pairs, flowing, bad);
    ok(flowing > pairs / 4 && flowing < pairs, "the instances mix pairs with and without data (%zu of %zu)", flowing,
       pairs);
    size_t missing = 0;
    for (size_t o = 0; o < NOPS; o++)
        missing += per_op[o] == 0;
    ok(missing == 0, "every operation tested (%zu missing)", missing);
    ok(big == 0, "dense patterns are encoded in O(n): %zu instances with more than 2n group members", big);
    ok(viol_bad == 0, "mg_flow_violations agrees with the pairwise check on random times (%zu differ)", viol_bad);
    mg_flow_free(&f);
    return tap_finish();
}
