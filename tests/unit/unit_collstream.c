/* unit_collstream.c — the matched collective instances set aside on disk
 * (tools/match/collstream.c): every instance and member comes back in
 * order, with instances of no member, one, and more than a read block,
 * to several readers interleaved; held in memory they read the same way;
 * mg_colls_load copies them; mg_colls_read_at reads one by the offset a
 * reader gave; a file cut short and a write over the
 * file-size limit each give a one-line error that sticks, never an
 * instance that was not written. */
#include <config.h>
#include "collstream.h"
#include "tap.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* Instance i's size: mostly small, some empty, one of 5000 members
 * (350 KB: several read blocks). */
static uint32_t size_of(size_t i)
{
    return i == 17 ? 5000 : i % 11 == 3 ? 0 : (uint32_t)(i % 13 + 1);
}

static struct mg_member member(size_t i, uint32_t k)
{
    struct mg_member m = { .enter = { (uint32_t)(i + k), i * 7 + k, (i << 20) + k },
                           .exit = { (uint32_t)(i + k), i * 7 + k + 1, (i << 20) + k + 9 },
                           .comm_rank = k, .quiet = (uint8_t)(k % 4), .side = (uint8_t)(k % 2),
                           .sparse = (uint8_t)(i % 2), .nsrc = k % 5, .comm_ref = (uint32_t)i, .src_at = i + k };
    return m;
}

static struct mg_collective instance(size_t i, struct mg_member *members)
{
    uint32_t n = size_of(i);
    for (uint32_t k = 0; k < n; k++)
        members[k] = member(i, k);
    struct mg_collective c = { .comm = (uint32_t)(i % 9), .op = (uint32_t)(i % 17), .root = (int)(i % 4) - 1,
                               .neighbor = i % 6 == 0, .nmembers = n, .members = members, .inter = i % 5 == 0 };
    return c;
}

static int same(const struct mg_collective *c, size_t i)
{
    static struct mg_member want[5000];
    struct mg_collective w = instance(i, want);
    if (c->comm != w.comm || c->op != w.op || c->root != w.root || c->neighbor != w.neighbor
        || c->nmembers != w.nmembers || c->inter != w.inter)
        return 0;
    for (uint32_t k = 0; k < w.nmembers; k++) {
        const struct mg_member *a = &c->members[k], *b = &want[k];
        if (a->enter.rank != b->enter.rank || a->enter.index != b->enter.index || a->enter.time != b->enter.time
            || a->exit.rank != b->exit.rank || a->exit.index != b->exit.index || a->exit.time != b->exit.time
            || a->comm_rank != b->comm_rank || a->quiet != b->quiet || a->side != b->side || a->sparse != b->sparse
            || a->nsrc != b->nsrc || a->comm_ref != b->comm_ref || a->src_at != b->src_at)
            return 0;
    }
    return 1;
}

/* n instances into a file (a result that holds none in memory). */
static int written(struct mg_result *r, size_t n, char *err, size_t errlen)
{
    static struct mg_member members[5000];
    memset(r, 0, sizeof *r);
    if (!(r->coll_file = mc_file_new("/tmp", err, errlen)))
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct mg_collective c = instance(i, members);
        if (mc_file_append(r->coll_file, &c) != 0)
            return -1;
    }
    r->ncollectives = n;
    return mc_file_flush(r->coll_file);
}

/* Two readers taking turns see every instance in order; 0 when one differs. */
static int read_twice(const struct mg_result *r, size_t *seen)
{
    struct mg_coll_reader a, b;
    mg_colls_begin(r, &a);
    mg_colls_begin(r, &b);
    size_t n = 0;
    int good = 1;
    for (;; n++) {
        const struct mg_collective *x = mg_colls_next(&a);
        if (!x)
            break;
        if (!same(x, n) || a.index != n) {
            good = 0;
            break;
        }
        const struct mg_collective *y = mg_colls_next(&b);
        if (!y || !same(y, n) || b.index != n) {
            good = 0;
            break;
        }
    }
    good = good && !mg_colls_next(&b);
    mg_colls_end(&a);
    mg_colls_end(&b);
    *seen = n;
    return good;
}

static void round_trips(void)
{
    static const size_t counts[] = { 0, 1, 17, 18, 1000 };
    for (size_t t = 0; t < sizeof counts / sizeof *counts; t++) {
        char err[600] = "";
        struct mg_result r;
        int w = written(&r, counts[t], err, sizeof err);
        size_t seen = 0;
        int good = w == 0 && read_twice(&r, &seen) && seen == counts[t] && !mg_colls_error(&r);
        struct mg_collective *all = good ? mg_colls_load(&r) : NULL;
        for (size_t i = 0; all && i < counts[t]; i++)
            good &= same(&all[i], i);
        ok(good && all, "%zu instances (%llu bytes) back in order to two readers, and loaded%s%s", counts[t],
           (unsigned long long)mc_file_bytes(r.coll_file), *err ? ": " : "", err);
        mg_colls_free(all, counts[t]);
        mg_free(&r);
    }
}

/* By number: the offsets a reader gives, read back in reverse order (as
 * the causal index reads those it reaches), each with members of its own. */
static void by_offset(void)
{
    char err[600] = "";
    struct mg_result r;
    enum { N = 300 };
    int good = written(&r, N, err, sizeof err) == 0;
    static uint64_t off[N];
    struct mg_coll_reader it;
    mg_colls_begin(&r, &it);
    size_t n = 0;
    for (const struct mg_collective *c; good && (c = mg_colls_next(&it)); n++)
        off[it.index] = it.offset;
    mg_colls_end(&it);
    good = good && n == N;
    for (size_t i = N; good && i-- > 0;) {
        struct mg_collective c;
        good = mg_colls_read_at(&r, off[i], &c) == 0 && same(&c, i);
        free(c.members);
    }
    ok(good && !mg_colls_error(&r), "%d instances read back by the offsets a reader gave, in reverse order%s%s", N,
       *err ? ": " : "", err);
    /* an offset past the end: one line, sticky, no instance */
    struct mg_collective c;
    int rc = mg_colls_read_at(&r, mc_file_bytes(r.coll_file), &c);
    ok(rc != 0 && !c.members && mg_colls_error(&r) && strstr(mg_colls_error(&r), "cut short"),
       "an offset past the end: %s", mg_colls_error(&r) ? mg_colls_error(&r) : "no error");
    mg_free(&r);
}

/* Instances held in memory read the same way. */
static void held(void)
{
    struct mg_result r;
    memset(&r, 0, sizeof r);
    enum { N = 40 };
    r.collectives = calloc(N, sizeof *r.collectives);
    for (size_t i = 0; r.collectives && i < N; i++) {
        struct mg_member *m = malloc(sizeof *m * (size_of(i) ? size_of(i) : 1));
        r.collectives[i] = instance(i, m);
        r.ncollectives++;
    }
    size_t seen = 0;
    ok(r.collectives && read_twice(&r, &seen) && seen == N, "instances held in memory read the same way");
    mg_free(&r);
}

/* A result that claims more instances than the file has: the readers stop
 * where it ends and the error says so, once for all. */
static void cut_short(void)
{
    char err[600] = "";
    struct mg_result r;
    int w = written(&r, 300, err, sizeof err);
    r.ncollectives = 400;
    struct mg_coll_reader it;
    mg_colls_begin(&r, &it);
    size_t n = 0;
    while (mg_colls_next(&it))
        n++;
    mg_colls_end(&it);
    const char *why = mg_colls_error(&r);
    ok(w == 0 && n == 300 && why && strstr(why, "cut short") && strstr(why, "/tmp"),
       "a file cut short: the reader stops after the last instance written (%zu read): %s", n, why ? why : "no error");
    mg_colls_begin(&r, &it);
    ok(!mg_colls_next(&it), "the error sticks: a new reader reads nothing");
    mg_colls_end(&it);
    ok(!mg_colls_load(&r), "nor is any array loaded");
    mg_free(&r);
}

/* A write over RLIMIT_FSIZE (SIGXFSZ ignored, as synctrace does): EFBIG. */
static void too_big(void)
{
    struct rlimit old;
    getrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = { 64 * 1024, old.rlim_max };
    setrlimit(RLIMIT_FSIZE, &lim);
    char err[600] = "";
    struct mg_result r;
    int w = written(&r, 1000, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    const char *why = mc_file_error(r.coll_file);
    ok(w != 0 && strstr(why, "write") && strstr(why, "/tmp"), "a write beyond the file-size limit fails: %s", why);
    struct mg_member m[1] = { member(0, 0) };
    struct mg_collective c = { .nmembers = 1, .members = m };
    ok(mc_file_append(r.coll_file, &c) != 0 && mc_file_flush(r.coll_file) != 0, "and later writes fail too");
    mg_free(&r);
}

int main(void)
{
    round_trips();
    held();
    by_offset();
    cut_short();
    too_big();
    return tap_finish();
}
