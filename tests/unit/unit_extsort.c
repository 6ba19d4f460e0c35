/* unit_extsort.c — the external sort (tools/util/extsort.c) against qsort,
 * byte for byte: seeded records of 8, 13, 40 and 48 bytes (a 64-bit key
 * with many duplicates and a unique id), 0 to 2 million of them, all in
 * memory, in a few runs and in so many that intermediate merges happen
 * (st_extsort_runs and _merges show which); rewinding gives the same
 * sequence again. Spill files are never seen in the spill directory, even
 * while sorting; a missing spill directory, a vanished one, a truncated
 * spill file and the file size limit (write fails with EFBIG when SIGXFSZ
 * is ignored; the sort fails before writing when it is not) are reported
 * in one line naming the directory. Memory: 200 MB sorted within a 4 MB
 * budget raise the peak RSS by the budget and 2 MB at most (not checked
 * under ASan). Spill files go to a fresh directory in $TMPDIR or /tmp. */
#include "extsort.h"
#include "fsutil.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t rng;
static uint64_t next_rand(void)   /* xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

/* A record: the key (few distinct values) in its first 8 bytes, then as
 * many bytes of the id as fit (8 at most; none in 8-byte records, whose
 * equal keys are equal records), then random bytes. */
static size_t rec_bytes, id_bytes;

static void set_record_bytes(size_t n)
{
    rec_bytes = n;
    id_bytes = n - 8 < 8 ? n - 8 : 8;
}

enum { KEYS = 1000 };

static void make_record(unsigned char *r, uint64_t id)
{
    uint64_t key = next_rand() % KEYS;
    memcpy(r, &key, 8);
    memcpy(r + 8, &id, id_bytes);   /* little-endian: the id's low bytes */
    for (size_t i = 8 + id_bytes; i < rec_bytes; i += 8) {
        uint64_t v = next_rand();
        memcpy(r + i, &v, rec_bytes - i < 8 ? rec_bytes - i : 8);
    }
}

static int cmp(const void *a, const void *b)
{
    uint64_t x, y, i = 0, j = 0;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y)
        return x < y ? -1 : 1;
    if (id_bytes == 8) {
        memcpy(&i, (const char *)a + 8, 8);
        memcpy(&j, (const char *)b + 8, 8);
    } else {
        memcpy(&i, (const char *)a + 8, id_bytes);
        memcpy(&j, (const char *)b + 8, id_bytes);
    }
    return i < j ? -1 : i > j;
}

static char *xmalloc(size_t n)
{
    char *p = calloc(n ? n : 1, 1);
    if (!p)
        abort();
    return p;
}

/* Entries of dir other than . and .. (-1 when it cannot be read). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static char spill_dir[512];   /* $TMPDIR/unit_extsort.XXXXXX */

/* Read every record of s and compare with want[0..n); a: the checks. */
static void compare(struct agg *a, struct st_extsort *s, const char *want, size_t n, const char *what)
{
    size_t i = 0;
    int differ = 0;
    for (const void *r; (r = st_extsort_next(s)); i++) {
        if (i < n && !differ && memcmp(r, want + i * rec_bytes, rec_bytes) != 0) {
            fail(a, "%s: record %zu differs from qsort's", what, i);
            differ = 1;
        }
        if (i == n / 2)
            check(a, entries(spill_dir) == 0, "%s: %d entries in the spill directory while reading", what, entries(spill_dir));
    }
    check(a, !differ, "%s", what);
    check(a, i == n, "%s: %zu records read, %zu put", what, i, n);
    check(a, !st_extsort_failed(s), "%s: failed: %s", what, st_extsort_error(s));
}

enum mode { IN_MEMORY, FEW_RUNS, MERGES };

/* Sort in[0..n) within budget, read it twice; the runs and merges must
 * show the mode. */
static void sort_case(struct agg *a, const char *in, const char *want, size_t n, size_t budget, enum mode mode)
{
    char what[128], err[512];
    snprintf(what, sizeof what, "%zu records of %zu bytes, budget %zu", n, rec_bytes, budget);
    struct st_extsort *s = st_extsort_new(rec_bytes, cmp, budget, spill_dir, err, sizeof err);
    if (!s) {
        fail(a, "%s: %s", what, err);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (st_extsort_put(s, in + i * rec_bytes) != 0) {
            fail(a, "%s: put: %s", what, st_extsort_error(s));
            break;
        }
    check(a, entries(spill_dir) == 0, "%s: spill files seen after put", what);
    check(a, st_extsort_finish(s) == 0, "%s: finish: %s", what, st_extsort_error(s));
    check(a, st_extsort_count(s) == n, "%s: count %llu", what, (unsigned long long)st_extsort_count(s));
    compare(a, s, want, n, what);
    check(a, st_extsort_rewind(s) == 0, "%s: rewind: %s", what, st_extsort_error(s));
    compare(a, s, want, n, what);
    uint32_t runs = st_extsort_runs(s), merges = st_extsort_merges(s);
    uint64_t spilled = st_extsort_spilled_bytes(s);
    switch (mode) {
    case IN_MEMORY:
        check(a, runs == 0 && spilled == 0, "%s: in memory, yet %u runs, %llu bytes spilled",
              what, runs, (unsigned long long)spilled);
        break;
    case FEW_RUNS:
        check(a, runs >= 2 && merges == 0, "%s: %u runs, %u merges; want a few runs merged at once", what, runs, merges);
        check(a, spilled == n * rec_bytes, "%s: %llu bytes spilled", what, (unsigned long long)spilled);
        break;
    case MERGES:
        check(a, merges > 0 && spilled > n * rec_bytes, "%s: %u runs, %u merges; want intermediate merges",
              what, runs, merges);
        break;
    }
    diag("%s: %u runs, %u merges, %llu bytes spilled", what, runs, merges, (unsigned long long)spilled);
    st_extsort_free(s);
    check(a, entries(spill_dir) == 0, "%s: spill files left", what);
}

/* qsort's order of in[0..n), made faster: the ids rise in the order the
 * records were made, so the order by (key, id) is a stable counting sort
 * by key. Checked against qsort itself up to 300,001 records (qsort of 2
 * million 40-byte records took 2 s of the test's time, 3 s under ASan). */
static void qsort_order(struct agg *a, const char *in, char *want, size_t n)
{
    size_t start[KEYS + 1] = { 0 };
    uint64_t key;
    for (size_t i = 0; i < n; i++) {
        memcpy(&key, in + i * rec_bytes, 8);
        start[key + 1]++;
    }
    for (int k = 0; k < KEYS; k++)
        start[k + 1] += start[k];
    for (size_t i = 0; i < n; i++) {
        memcpy(&key, in + i * rec_bytes, 8);
        memcpy(want + start[key]++ * rec_bytes, in + i * rec_bytes, rec_bytes);
    }
    if (n > 300001)
        return;
    char *q = xmalloc(n * rec_bytes);
    memcpy(q, in, n * rec_bytes);
    qsort(q, n, rec_bytes, cmp);
    check(a, memcmp(q, want, n * rec_bytes) == 0, "the counting sort of %zu records differs from qsort", n);
    free(q);
}

/* n records of rec bytes against qsort, in each budget. */
static void sorts(size_t rec, size_t n, const size_t *budgets, const enum mode *modes, int nb)
{
    struct agg a = { 0 };
    set_record_bytes(rec);
    rng = 0x9e3779b97f4a7c15ull ^ n ^ rec;
    char *in = xmalloc(n * rec), *want = xmalloc(n * rec);
    for (size_t i = 0; i < n; i++)
        make_record((unsigned char *)in + i * rec, i);
    qsort_order(&a, in, want, n);
    for (int b = 0; b < nb; b++)
        sort_case(&a, in, want, n, budgets[b], modes[b]);
    char what[128];
    snprintf(what, sizeof what, "%zu records of %zu bytes sorted as qsort does in %d budget%s, twice each",
             n, rec, nb, nb > 1 ? "s" : "");
    report(&a, what);
    free(in);
    free(want);
}

/* Under ASan the peak RSS is not the program's: freed blocks stay in the
 * quarantine, touched. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

/* 200 MB of 32-byte records, made on the fly, within 4 MB: the output is
 * in order and holds what was put (a sum of record hashes), and the peak
 * RSS grows by the budget and 2 MB at most: qsort's scratch counted (as
 * long as the records, up to 32 bytes; 8 MB in all when runs took the
 * whole budget). */
static void memory_bound(void)
{
#ifdef ASAN
    enum { N = 1250000 };   /* the RSS is not checked: a shorter run */
#else
    enum { N = 6250000 };
#endif
    enum { REC = 32 };
    const size_t budget = 4 << 20;
    char err[512];
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    set_record_bytes(REC);
    rng = 42;
    struct st_extsort *s = st_extsort_new(rec_bytes, cmp, budget, spill_dir, err, sizeof err);
    if (!ok(s != NULL, "memory bound: new (%s)", s ? "" : err))
        return;
    unsigned char r[REC], prev[REC];
    uint64_t sum_in = 0, sum_out = 0;
    int put_ok = 1, sorted = 1;
    for (uint64_t i = 0; i < N && put_ok; i++) {
        make_record(r, i);
        uint64_t h = 14695981039346656037ull;
        for (int k = 0; k < REC; k++)
            h = (h ^ r[k]) * 1099511628211ull;
        sum_in += h;
        put_ok = st_extsort_put(s, r) == 0;
    }
    put_ok = put_ok && st_extsort_finish(s) == 0;
    uint64_t n = 0;
    for (const unsigned char *p; put_ok && (p = st_extsort_next(s)); n++) {
        uint64_t h = 14695981039346656037ull;
        for (int k = 0; k < REC; k++)
            h = (h ^ p[k]) * 1099511628211ull;
        sum_out += h;
        if (n && cmp(prev, p) >= 0)
            sorted = 0;
        memcpy(prev, p, REC);
    }
    getrusage(RUSAGE_SELF, &after);
    long grown_kb = after.ru_maxrss - before.ru_maxrss;
    ok(put_ok && !st_extsort_failed(s) && n == N && sorted && sum_in == sum_out,
       "memory bound: %d MB sorted within 4 MB: %llu records in order, the same ones (%s)",
       N * REC / 1000000, (unsigned long long)n, st_extsort_error(s));
    ok(st_extsort_runs(s) >= N * REC / (budget / 2), "memory bound: %u runs, %u merges",
       st_extsort_runs(s), st_extsort_merges(s));
#ifdef ASAN
    ok(1, "memory bound: peak RSS # SKIP under ASan (grew by %ld KB)", grown_kb);
#else
    ok(grown_kb * 1024 < (long)budget + (2 << 20), "memory bound: peak RSS grew by %ld KB (budget %zu KB)",
       grown_kb, budget / 1024);
#endif
    st_extsort_free(s);
}

/* st_extsort_pointer_scratch: 300 000 records of 48 bytes (14.4 MB) fit
 * in 20 MB with it (15 MB for records), spill without it (10 MB); the
 * same order either way; refused for 32-byte records and after a put. */
static void pointer_scratch(void)
{
    enum { N = 300000 };
    char err[512];
    uint32_t runs[2] = { 0, 0 };
    uint64_t digest[2] = { 0, 0 };
    int good = 1;
    for (int k = 0; k < 2; k++) {
        set_record_bytes(48);
        rng = 7;
        struct st_extsort *s = st_extsort_new(rec_bytes, cmp, 20 << 20, spill_dir, err, sizeof err);
        if (!s) {
            good = 0;
            break;
        }
        if (k == 1)
            good &= st_extsort_pointer_scratch(s) == 0;
        unsigned char r[48];
        for (uint64_t i = 0; i < N; i++) {
            make_record(r, i);
            good &= st_extsort_put(s, r) == 0;
        }
        good &= k == 0 || st_extsort_pointer_scratch(s) == -1;
        good &= st_extsort_finish(s) == 0;
        uint64_t h = 14695981039346656037ull, n = 0;
        for (const unsigned char *p; (p = st_extsort_next(s)); n++)
            for (int b = 0; b < 48; b++)
                h = (h ^ p[b]) * 1099511628211ull;
        good &= n == N && !st_extsort_failed(s);
        digest[k] = h;
        runs[k] = st_extsort_runs(s);
        st_extsort_free(s);
    }
    set_record_bytes(32);
    struct st_extsort *s = st_extsort_new(rec_bytes, cmp, 20 << 20, spill_dir, err, sizeof err);
    good &= s && st_extsort_pointer_scratch(s) == -1;
    st_extsort_free(s);
    ok(good && runs[0] > 0 && runs[1] == 0 && digest[0] == digest[1],
       "pointer scratch: 14.4 MB of 48-byte records in 20 MB: %u runs without, %u with, the same order", runs[0],
       runs[1]);
}

static void bad_arguments(void)
{
    char err[512] = "";
    const char *missing = "/nonexistent-unit-extsort/spill";
    struct st_extsort *s = st_extsort_new(8, cmp, 1 << 20, missing, err, sizeof err);
    ok(!s && strstr(err, missing) && strstr(err, "No such file") && !strchr(err, '\n'),
       "a missing spill directory: NULL, one line naming it (%s)", err);
    st_extsort_free(s);

    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/file", spill_dir);
    int fd = open(file, O_CREAT | O_WRONLY, 0600);
    close(fd);
    s = st_extsort_new(8, cmp, 1 << 20, file, err, sizeof err);
    ok(!s && strstr(err, file) && strstr(err, "Not a directory"), "a file as spill directory: NULL (%s)", err);
    st_extsort_free(s);
    unlink(file);

    s = st_extsort_new(0, cmp, 1 << 20, spill_dir, err, sizeof err);
    ok(!s && strstr(err, "records of 0 bytes") && strstr(err, spill_dir), "records of 0 bytes: NULL (%s)", err);
    st_extsort_free(s);

    char ro[PATH_MAX];
    snprintf(ro, sizeof ro, "%s/ro", spill_dir);
    if (geteuid() == 0) {
        ok(1, "an unwritable spill directory # SKIP root may write anywhere");
    } else if (mkdir(ro, 0500) == 0) {
        s = st_extsort_new(8, cmp, 1 << 20, ro, err, sizeof err);
        ok(!s && strstr(err, ro) && strstr(err, "Permission denied"), "an unwritable spill directory: NULL (%s)", err);
        st_extsort_free(s);
        rmdir(ro);
    } else {
        ok(0, "mkdir %s: %s", ro, strerror(errno));
    }

    /* the budget of one byte is raised: 2 records spill, then merge */
    set_record_bytes(8);
    s = st_extsort_new(8, cmp, 1, spill_dir, err, sizeof err);
    int good = s != NULL;
    uint64_t prev = 0;
    for (uint64_t i = 0; good && i < 100000; i++) {
        uint64_t v = (i * 7919) % 100000;
        good = st_extsort_put(s, &v) == 0;
    }
    good = good && st_extsort_finish(s) == 0 && st_extsort_put(s, &prev) == -1;
    good = good && strstr(st_extsort_error(s), "after finish") && st_extsort_next(s) == NULL;
    ok(good && st_extsort_runs(s) > 1, "a budget of 1 byte is raised: %u runs; a put after finish fails (%s)",
       s ? st_extsort_runs(s) : 0, s ? st_extsort_error(s) : err);
    st_extsort_free(s);
}

/* The spill directory removed before the first spill: put fails, naming it. */
static void vanished_dir(void)
{
    char dir[PATH_MAX], err[512];
    snprintf(dir, sizeof dir, "%s/gone", spill_dir);
    mkdir(dir, 0700);
    set_record_bytes(8);
    struct st_extsort *s = st_extsort_new(8, cmp, 1 << 20, dir, err, sizeof err);
    if (!ok(s != NULL, "vanished spill directory: new (%s)", s ? "" : err))
        return;
    rmdir(dir);
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < 1000000; i++)
        rc = st_extsort_put(s, &i);
    const char *e = st_extsort_error(s);
    ok(rc == -1 && st_extsort_failed(s) && strstr(e, dir) && strstr(e, "No such file") && !strchr(e, '\n')
       && st_extsort_finish(s) == -1 && st_extsort_next(s) == NULL,
       "vanished spill directory: put fails, one line naming it (%s)", e);
    st_extsort_free(s);
}

/* Spill files cut short under the sorter (through /proc/self/fd): "truncated". */
static void truncated(void)
{
    char err[512];
    set_record_bytes(8);
    struct st_extsort *s = st_extsort_new(8, cmp, 1 << 20, spill_dir, err, sizeof err);
    if (!s) {
        ok(0, "truncated: new: %s", err);
        return;
    }
    for (uint64_t i = 0; i < 1000000; i++)
        st_extsort_put(s, &i);
    int cut = 0;
    if (st_extsort_finish(s) == 0) {
        DIR *d = opendir("/proc/self/fd");
        size_t len = strlen(spill_dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            char target[PATH_MAX];
            ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
            if (n > (ssize_t)len && strncmp(target, spill_dir, len) == 0 && target[len] == '/')
                cut += ftruncate(atoi(e->d_name), 100000) == 0;
        }
        if (d)
            closedir(d);
    }
    uint64_t n = 0;
    while (st_extsort_next(s))
        n++;
    const char *e = st_extsort_error(s);
    ok(cut > 1 && n < 1000000 && st_extsort_failed(s) && strstr(e, "truncated") && strstr(e, spill_dir),
       "truncated spill files (%d): reading stops after %llu records with an error (%s)", cut, (unsigned long long)n, e);
    st_extsort_free(s);
}

/* Sort 8 MB of 40-byte records within budget; the first error or "". */
static const char *sort_under_limit(size_t budget, char *err, size_t errlen)
{
    set_record_bytes(40);
    rng = 7;
    struct st_extsort *s = st_extsort_new(40, cmp, budget, spill_dir, err, errlen);
    if (!s)
        return err;
    unsigned char r[40];
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < 200000; i++) {
        make_record(r, i);
        rc = st_extsort_put(s, r);
    }
    if (rc == 0 && st_extsort_finish(s) == 0)
        while (st_extsort_next(s))
            ;
    snprintf(err, errlen, "%s", st_extsort_error(s));
    st_extsort_free(s);
    return err;
}

/* RLIMIT_FSIZE at 1 MiB. With SIGXFSZ ignored, write fails with EFBIG past
 * the limit; the sort reports it, from the first run (2 MB) or from a
 * merge (runs of 128 KB merged two at a time into longer ones). With SIGXFSZ
 * at its default, a write past the limit would end the process: the sort
 * fails before writing instead (in a child, which must exit normally). */
static void file_size_limit(void)
{
    struct rlimit old, low;
    getrlimit(RLIMIT_FSIZE, &old);
    low = old;
    low.rlim_cur = 1 << 20;
    if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < low.rlim_cur)
        low.rlim_cur = old.rlim_cur;
    struct sigaction ign = { .sa_handler = SIG_IGN }, prev;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &prev);
    setrlimit(RLIMIT_FSIZE, &low);

    char path[PATH_MAX], err[512];
    snprintf(path, sizeof path, "%s/big", spill_dir);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    char *buf = calloc(1, 2 << 20);
    ssize_t w1 = fd >= 0 && buf ? write(fd, buf, 2 << 20) : -1;
    ssize_t w2 = fd >= 0 && buf ? write(fd, buf, 2 << 20) : 0;
    int e = errno;
    ok(w1 == (ssize_t)low.rlim_cur && w2 == -1 && e == EFBIG,
       "file size limit, SIGXFSZ ignored: write stops at the limit (%zd bytes), then fails with EFBIG (%s)", w1, strerror(e));
    free(buf);
    if (fd >= 0)
        close(fd);
    unlink(path);

    const char *m = sort_under_limit(4 << 20, err, sizeof err);
    ok(strstr(m, "File too large") && strstr(m, spill_dir) && entries(spill_dir) == 0,
       "file size limit: a first run of 2 MB fails (%s)", m);
    m = sort_under_limit(256 << 10, err, sizeof err);
    ok(strstr(m, "File too large") && strstr(m, spill_dir) && entries(spill_dir) == 0,
       "file size limit: an intermediate merge past it fails (%s)", m);

    sigaction(SIGXFSZ, &prev, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_DFL);
        m = sort_under_limit(4 << 20, err, sizeof err);
        _exit(strstr(m, "File too large") ? 0 : 1);
    }
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
       "file size limit, SIGXFSZ at its default: the sort fails without the signal (%s %d)",
       WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    setrlimit(RLIMIT_FSIZE, &old);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(spill_dir, sizeof spill_dir, "%s/unit_extsort.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(spill_dir)) {
        ok(0, "mkdtemp %s: %s", spill_dir, strerror(errno));
        return tap_finish();
    }
    memory_bound();   /* first: the peak RSS grows with nothing else yet */
    int fds = entries("/proc/self/fd");

    const size_t big = 1 << 30, tiny = 1;
    for (int r = 0; r < 4; r++)
        for (size_t n = 0; n <= 1; n++)
            sorts((size_t[]){ 8, 13, 40, 48 }[r], n, (size_t[]){ big, tiny }, (enum mode[]){ IN_MEMORY, IN_MEMORY }, 2);
    /* records filling half the budget stay in memory; one more spills two runs */
    sorts(8, 65536, (size_t[]){ 2 * 65536 * 8, 2 * 65536 * 8 - 16 }, (enum mode[]){ IN_MEMORY, FEW_RUNS }, 2);
    /* 2 million in memory only when 8 bytes long: 40-byte ones take
     * qsort 2 s (glibc sorts pointers to records over 32 bytes) */
    sorts(8, 2000000, (size_t[]){ 32 << 20, tiny }, (enum mode[]){ IN_MEMORY, MERGES }, 2);
    sorts(40, 2000000, (size_t[]){ 20 << 20, 1 << 20 }, (enum mode[]){ FEW_RUNS, MERGES }, 2);
    sorts(48, 2000000, (size_t[]){ 1 << 20 }, (enum mode[]){ MERGES }, 1);
    sorts(40, 300000, (size_t[]){ 32 << 20, 256 << 10 }, (enum mode[]){ IN_MEMORY, MERGES }, 2);
    sorts(48, 300000, (size_t[]){ 32 << 20, 2 << 20 }, (enum mode[]){ IN_MEMORY, FEW_RUNS }, 2);
    sorts(13, 300001, (size_t[]){ 8 << 20, 1 << 20, tiny }, (enum mode[]){ IN_MEMORY, FEW_RUNS, MERGES }, 3);

    pointer_scratch();
    bad_arguments();
    vanished_dir();
    truncated();
    file_size_limit();

    ok(entries(spill_dir) == 0, "the spill directory is empty at the end");
    ok(entries("/proc/self/fd") == fds, "no descriptor left open (%d before, %d after)", fds, entries("/proc/self/fd"));
    st_remove_tree(spill_dir);
    return tap_finish();
}
