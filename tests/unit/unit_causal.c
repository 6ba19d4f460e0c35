/* unit_causal.c — check the causal index against brute force.
 *   unit_causal                 unit test (TAP): synthetic traces with
 *                                 collectives of every shape
 *   unit_causal RAW_DIR PAIRS   a raw trace: "ok - ..." / "not ok - ..."
 *                                 lines (CHECK_LINES) for tests/test-causal.sh
 *   unit_causal --answers RAW_DIR < PAIRS, --refs RAW_DIR: helpers for it
 *
 * The oracle: every event's full Fidge/Mattern vector, computed by
 * relaxing the explicit event graph to a fixpoint (no causal ordering, no
 * clusters), with every edge spelled out: process order, each matched
 * message, and each collective instance member by member as mg_shape_of
 * says (docs/design.md). The index, in several configurations (two-level with
 * cluster sizes 1 to all ranks, hierarchical, other merge policies), must
 * give every vector entry and every relation it is asked for exactly. */
#include "causal.h"
#include "flow.h"
#include "match.h"
#include "rawdir.h"
#include "rawtrace.h"

#include <otf2/OTF2_Events.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>



static uint64_t rng_state = 0x853c49e6748fea9bull;
static uint64_t rnd(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct agg {
    long checks, fails;
    char first[400];
};

static void check(struct agg *a, int cond, const char *fmt, ...)
{
    a->checks++;
    if (cond)
        return;
    if (++a->fails == 1) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(a->first, sizeof a->first, fmt, ap);
        va_end(ap);
    }
}

static int n_failed, tap_number;   /* tap_number > 0: numbered TAP (unit test mode) */
static const char *label = "";
static void report(const struct agg *a, const char *what)
{
    char num[16] = "";
    if (tap_number)
        snprintf(num, sizeof num, " %d", tap_number++);
    if (a->fails || !a->checks) {
        n_failed++;
        printf("not ok%s - %s%s (%ld of %ld checks failed; first: %s)\n", num, label, what, a->fails, a->checks,
               a->checks ? a->first : "no check ran");
    } else {
        printf("ok%s - %s%s (%ld checks)\n", num, label, what, a->checks);
    }
}

/* ---------------------------------------------------------------- oracle */

struct edge {
    uint32_t dr, sr;
    uint64_t di, si;
};

static struct edge *edges;
static size_t nedges, cedges;

static void add_edge(struct mg_event_ref s, struct mg_event_ref d)
{
    if (s.rank == d.rank && s.index == d.index)
        return;
    if (nedges == cedges) {
        cedges = cedges ? cedges * 2 : 1024;
        edges = realloc(edges, sizeof *edges * cedges);
        if (!edges)
            abort();
    }
    edges[nedges++] = (struct edge){ d.rank, s.rank, d.index, s.index };
}

static int by_dst(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->dr != y->dr)
        return x->dr < y->dr ? -1 : 1;
    return (x->di > y->di) - (x->di < y->di);
}

/* Every edge, member by member (P^2 per instance: fine at test sizes),
 * pair by pair as the data-flow rule says (mg_flow_pair; tests/unit/unit_flow.c
 * checks the rule itself against the bytes moved). */
static void collect_edges(const struct mg_result *m)
{
    for (size_t k = 0; k < m->nmessages; k++)
        add_edge(m->messages[k].send, m->messages[k].recv);
    struct mg_flow f = { 0 };
    for (size_t c = 0; c < m->ncollectives; c++) {
        const struct mg_collective *col = &m->collectives[c];
        if (col->neighbor)
            continue;   /* as the index: the merged archive has no topologies */
        if (mg_flow_of(m, col, &f) != 0)
            abort();
        for (uint32_t a = 0; a < col->nmembers; a++)
            for (uint32_t b = 0; b < col->nmembers; b++)
                if (mg_flow_pair(&f, a, b))
                    add_edge(col->members[a].enter, col->members[b].exit);
    }
    mg_flow_free(&f);
    qsort(edges, nedges, sizeof *edges, by_dst);
}

static uint32_t **V;   /* V[r][i * N + q] */
static uint32_t N;
static uint64_t *nev;

static int oracle(void)
{
    V = calloc(N, sizeof *V);
    for (uint32_t r = 0; r < N; r++) {
        V[r] = calloc(nev[r] * N, sizeof **V);
        if (!V[r])
            return -1;
        for (uint64_t i = 0; i < nev[r]; i++)
            V[r][i * N + r] = (uint32_t)(i + 1);
    }
    int changed = 1, sweeps = 0;
    while (changed) {
        changed = 0;
        sweeps++;
        size_t e = 0;
        for (uint32_t r = 0; r < N; r++)
            for (uint64_t i = 0; i < nev[r]; i++) {
                uint32_t *row = V[r] + i * N;
                const uint32_t *prev = i > 0 ? row - N : NULL;
                for (uint32_t q = 0; prev && q < N; q++)
                        if (prev[q] > row[q]) {
                            row[q] = prev[q];
                            changed = 1;
                        }
                for (; e < nedges && (edges[e].dr < r || (edges[e].dr == r && edges[e].di < i)); e++)
                    ;
                for (size_t x = e; x < nedges && edges[x].dr == r && edges[x].di == i; x++) {
                    const uint32_t *src = V[edges[x].sr] + edges[x].si * N;
                    for (uint32_t q = 0; q < N; q++)
                        if (src[q] > row[q]) {
                            row[q] = src[q];
                            changed = 1;
                        }
                }
            }
        if (sweeps > 1000000)
            return -1;
    }
    /* a cycle would have made some event its own predecessor */
    for (uint32_t r = 0; r < N; r++)
        for (uint64_t i = 0; i < nev[r]; i++)
            if (V[r][i * N + r] != i + 1)
                return -1;
    return sweeps;
}

static int truth(uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)   /* relation */
{
    if (ra == rb && ia == ib)
        return 0;
    if (V[rb][ib * N + ra] > ia)
        return 1;
    if (V[ra][ia * N + rb] > ib)
        return 2;
    return 3;
}

static int relation(const struct ci_index *ix, uint32_t ra, uint64_t ia, uint32_t rb, uint64_t ib)
{
    if (ra == rb && ia == ib)
        return 0;
    if (ci_precedes(ix, ra, ia, rb, ib))
        return 1;
    if (ci_precedes(ix, rb, ib, ra, ia))
        return 2;
    return 3;
}

/* ---------------------------------------------------------------- policies */

static int never_merge(const struct ci_merge_request *req, void *arg)
{
    (void)req; (void)arg;
    return 0;
}

/* Arbitrary but deterministic: merges at some events and not at others. */
static int odd_policy(const struct ci_merge_request *req, void *arg)
{
    (void)arg;
    return req->union_size <= req->max_size && (req->event * 2654435761u + req->rank) % 3 != 0;
}

/* The stored cluster of event (r, i) in x (empty at the top level). */
static void cluster_of_event(const struct ci_index *x, uint32_t r, uint64_t i, const uint32_t **map, uint32_t *size)
{
    uint64_t lo = x->rec_first[r], hi = x->rec_first[r + 1];
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (x->rec_start[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t k = x->rec_level[lo];
    *map = NULL;
    *size = 0;
    if (k < x->nlevels) {
        *map = x->map[k] + x->map_first[k][x->rec_cluster[lo]];
        *size = x->rec_size[lo];
    }
}

struct pair {
    uint32_t ra, rb;
    uint64_t ia, ib;
    int kind;   /* 0 same event, 1 same rank, 2 same cluster, 3 other cluster */
};

/* --answers: the oracle's relation for each "R:I R:I" line of stdin. */
static int answers(void)
{
    static const char *names[] = { "same", "before", "after", "concurrent" };
    unsigned ra, rb;
    unsigned long long ia, ib;
    while (scanf(" %u:%llu %u:%llu", &ra, &ia, &rb, &ib) == 4) {
        if (ra >= N || rb >= N || ia >= nev[ra] || ib >= nev[rb])
            return 1;
        puts(names[truth(ra, ia, rb, ib)]);
    }
    return 0;
}

/* --refs: the events the matches name, "KIND R I" per line. */
static void refs(const struct mg_result *m)
{
    for (size_t k = 0; k < m->nmessages; k++)
        printf("send %u %llu\nrecv %u %llu\n", m->messages[k].send.rank,
               (unsigned long long)m->messages[k].send.index, m->messages[k].recv.rank,
               (unsigned long long)m->messages[k].recv.index);
    for (size_t c = 0; c < m->ncollectives; c++)
        for (uint32_t k = 0; k < m->collectives[c].nmembers; k++)
            printf("enter %u %llu\nexit %u %llu\n", m->collectives[c].members[k].enter.rank,
                   (unsigned long long)m->collectives[c].members[k].enter.index, m->collectives[c].members[k].exit.rank,
                   (unsigned long long)m->collectives[c].members[k].exit.index);
}

static void bail(const char *why)
{
    printf("Bail out! %s%s\n", label, why);
    exit(1);
}

/* Two index files are the same but for the header's build identity
 * (bytes 168 to 255, as tests/test-causal-rebuild.sh compares). */
static int same_file_but_identity(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    long at = 0;
    for (int ca = 0, cb = 0; same && ca != EOF; at++) {
        ca = fgetc(fa);
        cb = fgetc(fb);
        same = ca == cb || (at >= 168 && at < 256);
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same && at > 256;
}

/* Two indexes built in memory hold the same bytes in every section. */
static int same_index(const struct ci_index *a, const struct ci_index *b)
{
    if (a->nranks != b->nranks || a->nrecords != b->nrecords || a->nentries != b->nentries || a->ntop != b->ntop
        || a->nbytes != b->nbytes || a->nlines != b->nlines || a->strip_chunks != b->strip_chunks
        || a->nlevels != b->nlevels)
        return 0;
    if (memcmp(a->tline, b->tline, sizeof *a->tline * a->nlines) || memcmp(a->cbytes, b->cbytes, a->nbytes)
        || memcmp(a->entries, b->entries, 4 * a->nentries) || memcmp(a->rec_start, b->rec_start, 4 * a->nrecords)
        || memcmp(a->rec_vec, b->rec_vec, 8 * a->nrecords) || memcmp(a->rec_bound, b->rec_bound, 8 * a->nrecords))
        return 0;
    return 1;
}

/* Every check on one trace: CHECK_LINES report lines. Needs N, nev, V. */
#define CHECK_LINES 9
static void check_trace(const struct mg_result *mp, long npairs, uint64_t total)
{
    char err[4400];
    /* configurations: two-level, hierarchical, other policies */
    /* chunk: full vectors in chunks of 2^chunk columns (0: the default);
     * budget: bytes of vectors a build pass may keep (1: one chunk's
     * columns a pass, so several passes over windows of columns) */
    /* threads: window passes at once (0: one); same: 1 + the
     * configuration whose index it must equal byte for byte (0: none) */
    struct cfgdesc {
        const char *levels;
        ci_merge_policy policy;
        const char *name;
        uint32_t chunk;
        size_t budget;
        uint32_t threads;
        int same;
    } cfgs[] = {
        { "8", NULL, "two-level 8", 0, 0, 0, 0 }, { "1", NULL, "two-level 1", 0, 0, 0, 0 }, { "2", NULL, "two-level 2", 0, 0, 0, 0 },
        { "4", NULL, "two-level 4", 0, 0, 0, 0 }, { "1000000", NULL, "two-level, one cluster", 0, 0, 0, 0 },
        { "2,4", NULL, "hierarchical 2,4", 0, 0, 0, 0 }, { "3,9,27", NULL, "hierarchical 3,9,27", 0, 0, 0, 0 },
        { "4,16", NULL, "hierarchical 4,16", 0, 0, 0, 0 }, { "2,64", NULL, "hierarchical 2,64", 0, 0, 0, 0 }, { "2,8", never_merge, "hierarchical 2,8, never merging", 0, 0, 0, 0 },
        { "3,6", odd_policy, "hierarchical 3,6, odd policy", 0, 0, 0, 0 },
        { "2", NULL, "two-level 2, chunks of 2, a window of 2 columns a pass", 1, 1, 0, 0 },
        { "1", NULL, "two-level 1, chunks of 4, a window of 4 columns a pass", 2, 1, 0, 0 },
        { "2,4", NULL, "hierarchical 2,4, chunks of 8, windows of 8", 3, 1, 0, 0 },
        { "2", never_merge, "two-level 2 never merging, chunks of 16, windows of 16", 4, 1, 0, 0 },
        { "4", NULL, "two-level 4, chunks of 2, strips of several chunks", 1, 5000, 0, 0 },
        { "2", NULL, "two-level 2, chunks of 2, a window of 2 columns a pass, 2 passes at once", 1, 1, 2, 12 },
        { "2,4", NULL, "hierarchical 2,4, chunks of 8, windows of 8, 3 passes at once", 3, 1, 3, 14 },
        { "4", NULL, "two-level 4, chunks of 2, strips of several chunks, 4 passes at once", 1, 5000, 4, 16 },
        { "1", NULL, "two-level 1, chunks of 4, a window of 4 columns a pass, 64 threads", 2, 1, 64, 13 },
        { "2", NULL, "two-level 2, one window, its full vectors encoded beside its pass", 0, 0, 2, 3 },
    };
    enum { NCFG = sizeof cfgs / sizeof cfgs[0] };
    struct ci_index ix[NCFG];
    struct ci_stats st[NCFG];
    struct ci_sweeps *sweeps = ci_sweeps_new(N, N);
    if (!sweeps)
        bail("out of memory");
    ci_sweeps_start(sweeps);   /* its thread replays the items, as in the merge */
    struct agg build = { 0 }, values = { 0 }, sweep = { 0 };
    for (int c = 0; c < NCFG; c++) {
        struct ci_config cfg = { 0 };
        if (ci_parse_levels(cfgs[c].levels, &cfg, err, sizeof err) != 0)
            bail(err);
        cfg.policy = cfgs[c].policy;
        cfg.chunk_shift = cfgs[c].chunk;
        cfg.vector_budget = cfgs[c].budget;
        cfg.threads = cfgs[c].threads;
        int rc = ci_build(nev, N, mp, &cfg, &ix[c], &st[c], c == 0 ? sweeps : NULL, err, sizeof err);
        check(&build, rc == 0, "%s: %s", cfgs[c].name, err);
        if (rc != 0)
            bail(err);
        check(&build, st[c].events == total, "%s: %llu events stamped of %llu", cfgs[c].name,
              (unsigned long long)st[c].events, (unsigned long long)total);
        uint32_t columns = cfgs[c].chunk ? 1u << cfgs[c].chunk : 1u << CI_CHUNK_SHIFT;
        uint32_t w = st[c].window, chunks = (w + columns - 1) / columns;
        check(&build, st[c].passes == (N + w - 1) / w && (w >= N || (w % columns == 0 && !(chunks & (chunks - 1))))
                          && (cfgs[c].budget != 1 || w == (columns < N ? columns : N)) && (cfgs[c].budget || w == N),
              "%s: %u passes over windows of %u columns", cfgs[c].name, st[c].passes, w);
        if (cfgs[c].budget > 1)
            printf("# %s: %u passes over windows of %u columns\n", cfgs[c].name, st[c].passes, w);
        printf("# %s: %llu receives, %llu cluster receives at level 0, %llu full vectors, %llu records, "
               "%llu entries (%.3f per event; Fidge/Mattern %u), %.1f paper entries per event, peak %zu live vectors\n",
               cfgs[c].name, (unsigned long long)st[c].receives, (unsigned long long)st[c].creceives[0],
               (unsigned long long)st[c].top_events, (unsigned long long)st[c].records,
               (unsigned long long)st[c].entries, (double)st[c].entries / total, N, st[c].paper_entries / total,
               st[c].peak_live_vectors);
        /* every entry of random vectors, half of them outside the event's cluster */
        for (int k = 0; k < 20000; k++) {
            uint32_t r = (uint32_t)(rnd() % N);
            uint64_t i = rnd() % nev[r];
            uint32_t q = (uint32_t)(rnd() % N);
            uint64_t got = ci_value(&ix[c], r, i, q), want = V[r][i * N + q];
            check(&values, got == want, "%s: V(%u:%llu)[%u] = %llu, oracle %llu", cfgs[c].name, r,
                  (unsigned long long)i, q, (unsigned long long)got, (unsigned long long)want);
        }
    }
    /* window passes at once: the index of one pass at a time, byte for byte */
    struct agg threaded = { 0 };
    int nthreaded = 0, at_once = 0;
    for (int c = 0; c < NCFG; c++) {
        if (!cfgs[c].same)
            continue;
        const struct ci_index *a = &ix[c], *b = &ix[cfgs[c].same - 1];
        nthreaded++;
        check(&threaded, st[c].threads == (cfgs[c].threads < st[c].passes ? cfgs[c].threads : st[c].passes),
              "%s: %u passes at once of %u", cfgs[c].name, st[c].threads, st[c].passes);
        check(&threaded, st[c].passes == st[cfgs[c].same - 1].passes, "%s: %u passes, one at a time %u",
              cfgs[c].name, st[c].passes, st[cfgs[c].same - 1].passes);
        at_once += st[c].threads > 1;
        check(&threaded, same_index(a, b), "%s: the index differs from %s's", cfgs[c].name,
              cfgs[cfgs[c].same - 1].name);
        check(&threaded, memcmp(st[c].chunks, st[cfgs[c].same - 1].chunks, sizeof st[c].chunks) == 0
                             && st[c].key_chunks == st[cfgs[c].same - 1].key_chunks,
              "%s: chunk counts differ", cfgs[c].name);
    }
    check(&threaded, nthreaded == 5 && at_once >= 1, "%d threaded configurations, %d with passes at once",
          nthreaded, at_once);
    report(&threaded, "window passes run at once (2, 3, 4 and 64 threads), and full vectors encoded beside a "
                      "pass, give the index of one at a time, byte for byte");
    report(&build, "the index builds in every configuration and stamps every event");
    report(&values, "vector entries equal the oracle's in every configuration");
    ci_sweeps_wait(sweeps);
    /* The sweep replays the two-level algorithm: same sizes as the builds */
    for (int c = 0; c < NCFG; c++) {
        if (cfgs[c].policy || ix[c].nlevels != 1)
            continue;
        double so, co;
        ci_sweeps_result(sweeps, ix[c].maxsize[0] > N ? N : ix[c].maxsize[0], &so, &co);
        double want = st[c].paper_entries / total;
        check(&sweep, so > want - 1e-9 && so < want + 1e-9, "%s: sweep %.6f, build %.6f", cfgs[c].name, so, want);
        check(&sweep, co >= 1 && co <= N, "%s: contiguous %.3f", cfgs[c].name, co);
    }
    report(&sweep, "the size sweep replays the two-level builds exactly");

    /* random pairs of every kind, classified by the two-level 2 index's clusters */
    struct pair *pairs = malloc(sizeof *pairs * (size_t)(npairs > 0 ? npairs : 1));
    if (!pairs)
        bail("out of memory");
    long kinds[4] = { 0 }, cross_rel[4] = { 0 };
    for (long k = 0; k < npairs; k++) {
        struct pair p;
        p.rb = (uint32_t)(rnd() % N);
        p.ib = rnd() % nev[p.rb];
        int want = (int)(k % 4);
        const uint32_t *map = NULL;
        uint32_t size = 0;
        cluster_of_event(&ix[2], p.rb, p.ib, &map, &size);
        if (want == 0) {
            p.ra = p.rb;
            p.ia = p.ib;
        } else {
            p.ra = want == 1 ? p.rb : want == 2 && size > 1 ? map[rnd() % size] : (uint32_t)(rnd() % N);
            p.ia = rnd() % nev[p.ra];
        }
        int inside = 0;
        for (uint32_t j = 0; j < size; j++)
            inside |= map[j] == p.ra;
        p.kind = p.ra == p.rb && p.ia == p.ib ? 0 : p.ra == p.rb ? 1 : inside ? 2 : 3;
        kinds[p.kind]++;
        pairs[k] = p;
    }
    struct agg rel = { 0 }, agree = { 0 }, cover = { 0 };
    for (long k = 0; k < npairs; k++) {
        const struct pair *p = &pairs[k];
        int want = truth(p->ra, p->ia, p->rb, p->ib), first = -1;
        if (p->kind == 3)
            cross_rel[want]++;
        for (int c = 0; c < NCFG; c++) {
            int got = relation(&ix[c], p->ra, p->ia, p->rb, p->ib);
            static const char *names[] = { "same", "before", "after", "concurrent" };
            check(&rel, got == want, "%s: %u:%llu vs %u:%llu (kind %d): %s, oracle %s", cfgs[c].name, p->ra,
                  (unsigned long long)p->ia, p->rb, (unsigned long long)p->ib, p->kind, names[got], names[want]);
            /* the cluster algorithm alone, without the full-vector shortcut */
            int slow = ci_precedes_clusters(&ix[c], p->ra, p->ia, p->rb, p->ib);
            check(&rel, slow == (want == 1), "%s, clusters alone: %u:%llu -> %u:%llu is %d, oracle %s", cfgs[c].name,
                  p->ra, (unsigned long long)p->ia, p->rb, (unsigned long long)p->ib, slow, names[want]);
            if (first < 0)
                first = got;
            else
                check(&agree, got == first, "%s and %s disagree on %u:%llu vs %u:%llu", cfgs[0].name, cfgs[c].name,
                      p->ra, (unsigned long long)p->ia, p->rb, (unsigned long long)p->ib);
        }
    }
    char what[400];
    snprintf(what, sizeof what, "%ld pairs (%ld same event, %ld same rank, %ld same cluster, %ld other cluster): "
                                "every relation equals the oracle's in all %d configurations",
             npairs, kinds[0], kinds[1], kinds[2], kinds[3], NCFG);
    report(&rel, what);
    report(&agree, "two-level and hierarchical indexes (and other policies) give the same answers");
    for (int k = 0; k < 4; k++)
        check(&cover, kinds[k] > 0, "no pair of kind %d", k);
    check(&cover, cross_rel[1] > 0 && cross_rel[2] > 0 && cross_rel[3] > 0,
          "other-cluster pairs: %ld before, %ld after, %ld concurrent", cross_rel[1], cross_rel[2], cross_rel[3]);
    snprintf(what, sizeof what, "the pairs cover every kind; other-cluster pairs are before (%ld), after (%ld) and "
                                "concurrent (%ld)", cross_rel[1], cross_rel[2], cross_rel[3]);
    report(&cover, what);

    /* The file: written, read back, same answers; damage is refused. */
    char path[256];
    snprintf(path, sizeof path, "%s/causal-oracle-%ld.idx", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    struct agg file = { 0 }, damage = { 0 };
    uint64_t fp[2] = { 1, 2 };
    int h = 12;   /* two-level 1, chunks of 4 columns: full vectors in several chunks */
    check(&file, ci_write(&ix[h], path, fp, err, sizeof err) == 0, "write: %s", err);
    struct ci_index back;
    if (ci_read(path, NULL, &back, err, sizeof err) == 0) {
        for (long k = 0; k < npairs && k < 50000; k++) {
            const struct pair *p = &pairs[k];
            check(&file, relation(&back, p->ra, p->ia, p->rb, p->ib) == relation(&ix[h], p->ra, p->ia, p->rb, p->ib),
                  "read back: %u:%llu vs %u:%llu differs", p->ra, (unsigned long long)p->ia, p->rb,
                  (unsigned long long)p->ib);
        }
        ci_free(&back);
    } else {
        check(&file, 0, "read back: %s", err);
    }
    /* built straight into its file (as the merge does), completed in place */
    {
        char tmp_path[300], final_path[300];
        snprintf(tmp_path, sizeof tmp_path, "%s.entries", path);
        snprintf(final_path, sizeof final_path, "%s.inplace", path);
        struct ci_config cfg = { 0 };
        ci_parse_levels("3,9", &cfg, err, sizeof err);
        cfg.entries_file = tmp_path;
        cfg.chunk_shift = 1;      /* several windows, their chunks streamed into the file */
        cfg.vector_budget = 1;
        struct ci_index built;
        struct ci_stats bst;
        int ok = ci_build(nev, N, mp, &cfg, &built, &bst, NULL, err, sizeof err) == 0;
        check(&file, ok, "in place: build: %s", err);
        if (ok) {
            check(&file, ci_write_in_place(&built, final_path, fp, err, sizeof err) == 0, "in place: %s", err);
            check(&file, access(tmp_path, F_OK) != 0, "in place: the temporary file is left");
            if (ci_read(final_path, NULL, &back, err, sizeof err) == 0) {
                for (long k = 0; k < npairs && k < 50000; k++) {
                    const struct pair *p = &pairs[k];
                    check(&file, relation(&back, p->ra, p->ia, p->rb, p->ib) == truth(p->ra, p->ia, p->rb, p->ib),
                          "in place: %u:%llu vs %u:%llu differs from the oracle", p->ra, (unsigned long long)p->ia,
                          p->rb, (unsigned long long)p->ib);
                }
                ci_free(&back);
            } else {
                check(&file, 0, "in place: read back: %s", err);
            }
            ci_free(&built);
            /* 3 window passes at once, two of them into files of their
             * own first: the same file but for the build's identity */
            char threaded_path[320];
            snprintf(threaded_path, sizeof threaded_path, "%s.threads", path);
            cfg.threads = 3;
            ok = ci_build(nev, N, mp, &cfg, &built, &bst, NULL, err, sizeof err) == 0;
            check(&file, ok && bst.threads == (bst.passes < 3 ? bst.passes : 3), "3 passes at once: build: %s",
                  ok ? "threads" : err);
            if (ok) {
                check(&file, ci_write_in_place(&built, threaded_path, fp, err, sizeof err) == 0,
                      "3 passes at once: %s", err);
                ci_free(&built);
                check(&file, same_file_but_identity(final_path, threaded_path),
                      "3 passes at once: %s differs from %s", threaded_path, final_path);
            }
            cfg.threads = 0;
            remove(threaded_path);
        }
        remove(final_path);
        /* a build never completed leaves no file behind */
        ok = ci_build(nev, N, mp, &cfg, &built, &bst, NULL, err, sizeof err) == 0;
        if (ok)
            ci_free(&built);
        check(&file, ok && access(tmp_path, F_OK) != 0, "an abandoned in-place build left %s", tmp_path);
        /* cancelled (the merge failed elsewhere): it stops, says so, leaves nothing */
        atomic_int stop;
        atomic_init(&stop, 1);
        cfg.cancel = &stop;
        ok = ci_build(nev, N, mp, &cfg, &built, &bst, NULL, err, sizeof err) == 0;
        if (ok)
            ci_free(&built);
        check(&file, !ok && strstr(err, "cancelled") && access(tmp_path, F_OK) != 0,
              "a cancelled build: %s, file %s", ok ? "built" : err, access(tmp_path, F_OK) ? "gone" : "left");
    }
    report(&file, "the index file reads back and answers alike (written from memory and built in place)");
    FILE *f = fopen(path, "r+b");
    long size = 0;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    for (int t = 0; f && t < 24; t++) {
        long at = t == 0 ? 8 : t == 1 ? 12 : (long)(rnd() % (uint64_t)size);   /* version, then anywhere */
        int c;
        fseek(f, at, SEEK_SET);
        c = fgetc(f);
        fseek(f, at, SEEK_SET);
        fputc(c ^ 0x10, f);
        fflush(f);
        int rc = ci_read(path, NULL, &back, err, sizeof err);
        check(&damage, rc != 0 && (strstr(err, "corrupt") || strstr(err, "version") || strstr(err, "order")),
              "a flipped bit at byte %ld of %ld went unnoticed (%s)", at, size, rc ? err : "opened");
        if (rc == 0)
            ci_free(&back);
        fseek(f, at, SEEK_SET);
        fputc(c, f);
        fflush(f);
    }
    if (f) {
        fclose(f);
        check(&damage, truncate(path, size - 8) == 0 && ci_read(path, NULL, &back, err, sizeof err) != 0
                           && strstr(err, "corrupt"), "a truncated index opened");
    }
    /* Damage behind valid checksums (written from a damaged index in
     * memory): the structural checks of the chunks refuse it. */
    struct ci_index *d = &ix[h];
    for (int t = 0; t < 5 && d->ntchunks; t++) {
        /* a chunk with values (else the first), and its line */
        uint64_t at = rnd() % d->ntchunks;
        for (uint64_t k = 0; k < d->ntchunks && !CI_CODE_W(ci_code(d, at)); k++)
            at = (at + 1) % d->ntchunks;
        if (t == 2)
            at = 0;
        struct ci_line *line = &d->tline[at / CI_LINE_CODES], keep = *line;
        uint32_t *code = &line->code[at % CI_LINE_CODES];
        if (t == 0)
            line->base = d->nbytes + 1;                  /* data past the bytes */
        else if (t == 1) {   /* a u32 chunk at the very end */
            *code = CI_CODE(3, CI_CODE_KW(*code), CI_CODE_DIST(*code));
            line->base = d->nbytes - 1;
        }
        else if (t == 2)
            *code = CI_CODE(CI_CODE_W(*code), 1, 1);     /* the first chunk's key: before the bytes */
        else if (t == 3)
            line->base = UINT64_MAX - 7;                 /* an offset far out */
        else
            *code = UINT32_MAX;                          /* everything set */
        int rc = ci_write(d, path, fp, err, sizeof err) == 0 ? ci_read(path, NULL, &back, err, sizeof err) : 0;
        check(&damage, rc != 0 && strstr(err, "corrupt causal index (structure)") && strstr(err, path),
              "line %llu (chunk %llu, damage %d) opened: %s", (unsigned long long)(at / CI_LINE_CODES),
              (unsigned long long)at, t, rc ? err : "opened");
        if (rc == 0)
            ci_free(&back);
        *line = keep;
    }
    /* a full-vector bound that is not the record's */
    for (uint64_t x = 0; x < d->nrecords; x++)
        if (d->rec_bound[2 * x] != d->rec_bound[2 * x + 1] && d->rec_bound[2 * x + 1] != CI_NONE) {
            uint32_t keep = d->rec_bound[2 * x + 1];
            d->rec_bound[2 * x + 1] = keep - 1 == d->rec_bound[2 * x] ? CI_NONE : keep - 1;
            int rc = ci_write(d, path, fp, err, sizeof err) == 0 ? ci_read(path, NULL, &back, err, sizeof err) : 0;
            check(&damage, rc != 0 && strstr(err, "corrupt causal index (structure)"), "a wrong bound opened: %s",
                  rc ? err : "opened");
            if (rc == 0)
                ci_free(&back);
            d->rec_bound[2 * x + 1] = keep;
            break;
        }
    check(&damage, d->ntchunks > 0, "the index has no full vectors to damage");
    for (uint64_t x = 0; x < d->nrecords; x++)
        if (d->rec_level[x] == d->nlevels) {
            uint64_t keep = d->rec_vec[x];
            d->rec_vec[x] = d->ntop;   /* past the last full vector */
            int rc = ci_write(d, path, fp, err, sizeof err) == 0 ? ci_read(path, NULL, &back, err, sizeof err) : 0;
            check(&damage, rc != 0 && strstr(err, "corrupt causal index (structure)"), "a misplaced vector opened: %s",
                  rc ? err : "opened");
            if (rc == 0)
                ci_free(&back);
            d->rec_vec[x] = keep;
            break;
        }
    /* an index of format version 1 (4-byte entries) or 2 (8-byte chunk
     * codes): refused, saying how to rebuild it */
    for (uint32_t old = 1; old <= 2; old++)
        if (ci_write(d, path, fp, err, sizeof err) == 0 && (f = fopen(path, "r+b"))) {
            char want[32];
            snprintf(want, sizeof want, "version %u;", old);
            fseek(f, 8, SEEK_SET);
            fwrite(&old, 4, 1, f);
            fclose(f);
            int rc = ci_read(path, NULL, &back, err, sizeof err);
            check(&damage, rc != 0 && strstr(err, want) && strstr(err, "synctrace causal") && strstr(err, path),
                  "a version %u index: %s", old, rc ? err : "opened");
            if (rc == 0)
                ci_free(&back);
        } else {
            check(&damage, 0, "write: %s", err);
        }
    remove(path);
    report(&damage, "a damaged, truncated or old-format index is refused with a clear message");

    for (int c = 0; c < NCFG; c++)
        ci_free(&ix[c]);
    ci_sweeps_free(sweeps);
    free(pairs);
}

static void oracle_free(void)
{
    for (uint32_t r = 0; r < N; r++)
        free(V[r]);
    free(V);
    free(nev);
    free(edges);
    V = NULL;
    nev = NULL;
    edges = NULL;
    nedges = cedges = 0;
}

/* A random trace whose edges all point forward in one global order (so it
 * has no cycle): local events, messages delivered in any order (self
 * messages too), and collectives of every shape over random member subsets
 * with communicator ranks in random order, overlapping each other. */
static void synthetic(uint32_t nranks, int steps, struct mg_result *m)
{
    static const uint32_t ops[] = { OTF2_COLLECTIVE_OP_BARRIER, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                    OTF2_COLLECTIVE_OP_BCAST, OTF2_COLLECTIVE_OP_SCATTERV, OTF2_COLLECTIVE_OP_REDUCE,
                                    OTF2_COLLECTIVE_OP_GATHER, OTF2_COLLECTIVE_OP_SCAN, OTF2_COLLECTIVE_OP_EXSCAN,
                                    OTF2_COLLECTIVE_OP_ALLTOALL, OTF2_COLLECTIVE_OP_CREATE_HANDLE };
    memset(m, 0, sizeof *m);
    N = nranks;
    nev = calloc(N, sizeof *nev);
    size_t cmsg = 0, ccol = 0, npend = 0, nopen = 0;
    struct mg_message *pend = malloc(sizeof *pend * (size_t)steps);
    size_t *open = malloc(sizeof *open * (size_t)steps);
    uint32_t *perm = malloc(sizeof *perm * N);
    if (!nev || !pend || !open || !perm)
        abort();
#define EV(r) ((struct mg_event_ref){ .rank = (r), .index = nev[(r)]++ })
    for (int t = 0; t < steps; t++) {
        uint64_t a = rnd() % 20;
        if (a < 7) {
            (void)EV((uint32_t)(rnd() % N));
        } else if (a < 12) {
            uint32_t s = (uint32_t)(rnd() % N), d = rnd() % 10 ? (uint32_t)(rnd() % N) : s;
            pend[npend++] = (struct mg_message){ EV(s), { d, 0, 0 }, 0, 0, 0 };
        } else if (a < 18 && npend) {
            size_t k = rnd() % npend;
            struct mg_message msg = pend[k];
            pend[k] = pend[--npend];
            msg.recv = EV(msg.recv.rank);
            if (m->nmessages == cmsg) {
                cmsg = cmsg ? 2 * cmsg : 64;
                m->messages = realloc(m->messages, sizeof *m->messages * cmsg);
                if (!m->messages)
                    abort();
            }
            m->messages[m->nmessages++] = msg;
        } else if (a == 18 || !nopen) {
            /* open an instance: entries now, exits later */
            if (m->ncollectives == ccol) {
                ccol = ccol ? 2 * ccol : 16;
                m->collectives = realloc(m->collectives, sizeof *m->collectives * ccol);
                if (!m->collectives)
                    abort();
            }
            struct mg_collective *c = &m->collectives[m->ncollectives];
            memset(c, 0, sizeof *c);
            c->op = ops[rnd() % (sizeof ops / sizeof ops[0])];
            for (uint32_t r = 0; r < N; r++)
                perm[r] = r;
            for (uint32_t r = N - 1; r > 0; r--) {
                uint32_t j = (uint32_t)(rnd() % (r + 1)), x = perm[r];
                perm[r] = perm[j];
                perm[j] = x;
            }
            uint32_t n = rnd() % 3 ? N : 2 + (uint32_t)(rnd() % (N - 1));
            c->members = malloc(sizeof *c->members * n);
            if (!c->members)
                abort();
            c->nmembers = n;
            c->root = rnd() % 8 ? (int)perm[rnd() % n] : -1;   /* sometimes no root: rooted ones say nothing */
            for (uint32_t k = 0; k < n; k++)
                c->members[k] = (struct mg_member){ .enter = EV(perm[k]), .exit = { perm[k], 0 }, .comm_rank = (uint32_t)((k * 7 + 3) % n) };
            open[nopen++] = m->ncollectives++;
        } else {
            size_t k = rnd() % nopen, ci = open[k];
            open[k] = open[--nopen];
            struct mg_collective *c = &m->collectives[ci];
            for (uint32_t j = 0; j < c->nmembers; j++)
                c->members[j].exit = EV(c->members[j].exit.rank);
        }
    }
    for (size_t k = 0; k < npend; k++) {   /* deliver what is left */
        struct mg_message msg = pend[k];
        msg.recv = EV(msg.recv.rank);
        if (m->nmessages == cmsg) {
            cmsg = cmsg ? 2 * cmsg : 64;
            m->messages = realloc(m->messages, sizeof *m->messages * cmsg);
            if (!m->messages)
                abort();
        }
        m->messages[m->nmessages++] = msg;
    }
    for (size_t k = 0; k < nopen; k++) {
        struct mg_collective *c = &m->collectives[open[k]];
        for (uint32_t j = 0; j < c->nmembers; j++)
            c->members[j].exit = EV(c->members[j].exit.rank);
    }
    for (uint32_t r = 0; r < N; r++)   /* every rank has an event */
        if (!nev[r])
            (void)EV(r);
#undef EV
    free(pend);
    free(open);
    free(perm);
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        /* unit test: synthetic traces of every collective shape */
        static const uint32_t sizes[] = { 3, 5, 12, 37 };
        enum { NTRACES = sizeof sizes / sizeof sizes[0] };
        printf("1..%d\n", NTRACES * CHECK_LINES);
        tap_number = 1;
        for (int t = 0; t < NTRACES; t++) {
            struct mg_result m;
            char name[64];
            synthetic(sizes[t], 4000, &m);
            snprintf(name, sizeof name, "synthetic, %u ranks: ", sizes[t]);
            label = name;
            uint64_t total = 0;
            for (uint32_t r = 0; r < N; r++)
                total += nev[r];
            collect_edges(&m);
            int sweeps = oracle();
            printf("# %u ranks, %llu events, %zu messages, %zu collectives, %zu edges; oracle: %d sweeps\n", N,
                   (unsigned long long)total, m.nmessages, m.ncollectives, nedges, sweeps);
            if (sweeps < 0)
                return 1;
            check_trace(&m, 20000, total);
            oracle_free();
            mg_free(&m);
        }
        return n_failed ? 1 : 0;
    }
    const char *mode = argc == 3 && argv[1][0] == '-' ? argv[1] : NULL;
    if (argc != 3 || (mode && strcmp(mode, "--answers") && strcmp(mode, "--refs"))) {
        fprintf(stderr, "usage: unit_causal RAW_DIR PAIRS | --answers RAW_DIR < PAIRS | --refs RAW_DIR\n");
        return 2;
    }
    if (mode)
        argv[1] = argv[2];
    long npairs = mode ? 0 : atol(argv[2]);
    char err[4400];
    char **anchors = NULL;
    int n = rawdir_list(argv[1], &anchors, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "unit_causal: %s\n", err);
        return 1;
    }
    struct rt_location *ranks = calloc((size_t)n, sizeof *ranks);
    for (int r = 0; r < n; r++)
        if (rt_read_rank(anchors[r], &ranks[r], err, sizeof err) != 0) {
            fprintf(stderr, "unit_causal: %s\n", err);
            return 1;
        }
    struct mg_result m;
    if (mg_match(ranks, (uint32_t)n, &m, err, sizeof err) != 0) {
        fprintf(stderr, "unit_causal: %s\n", err);
        return 1;
    }
    N = (uint32_t)n;
    nev = malloc(sizeof *nev * N);
    uint64_t total = 0;
    for (uint32_t r = 0; r < N; r++)
        total += nev[r] = ranks[r].nevents;
    if (mode && !strcmp(mode, "--refs")) {
        refs(&m);
        return 0;
    }
    collect_edges(&m);
    int sweeps = oracle();
    if (!mode)
        printf("# %u ranks, %llu events, %zu messages, %zu collectives, %zu edges; oracle: %d sweeps\n", N,
           (unsigned long long)total, m.nmessages, m.ncollectives, nedges, sweeps);
    if (sweeps < 0) {
        printf("not ok - the oracle found a cycle or ran out of memory\n");
        return 1;
    }
    if (mode)
        return answers();

    check_trace(&m, npairs, total);
    oracle_free();
    mg_free(&m);
    for (int r = 0; r < n; r++)
        rt_free_location(&ranks[r]);
    free(ranks);
    rawdir_free(anchors, n);
    return n_failed ? 1 : 0;
}
