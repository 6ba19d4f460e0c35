/* unit_evtpatch.c — the in-place rewrite of an OTF2 event file
 * (tools/foreign/evtpatch.c) on event files built here byte by byte in
 * OTF2's framing (small chunks, so that there are many): every kind of
 * record (one-integer ones, undefined values, lengths over 254, attribute
 * lists), runs of events at one timestamp; the times rewritten exactly as
 * the map says and nothing else changed; every refusal leaves nothing
 * behind; every truncation and every single-byte change of the file is
 * (payload bytes sampled) is either rewritten with all its events or
 * refused, never read past its bytes (the test runs under ASan in CI). */
#include "evtpatch.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 512

struct file {
    uint8_t b[64 * CHUNK];
    size_t n, chunk_at;          /* bytes, the current chunk's start */
    uint64_t events, time;
    int stamped;                 /* the current time written in this chunk */
};

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);   /* little-endian hosts only (ep_host_supported) */
}

static void close_chunk(struct file *f)
{
    put64(f->b + f->chunk_at + 10, f->events);
}

static void new_chunk(struct file *f)
{
    if (f->n) {
        close_chunk(f);
        memset(f->b + f->n, 0, f->chunk_at + CHUNK - f->n);   /* END_OF_CHUNK padding */
        f->n = f->chunk_at + CHUNK;
    }
    f->chunk_at = f->n;
    f->b[f->n++] = 3;
    f->b[f->n++] = 0x42;
    put64(f->b + f->n, f->events + 1);
    f->n += 16;
    f->stamped = 0;
}

/* An event at time t: its record bytes rec (type first), after an
 * attribute list of `attrs` bytes if any; as OTF2's writer lays it out. */
static void event(struct file *f, uint64_t t, const uint8_t *rec, size_t len, size_t attrs)
{
    size_t need = len + 9 + (attrs ? attrs + 2 : 0);
    if (f->n + need + 1 > f->chunk_at + CHUNK)
        new_chunk(f);
    if (!f->stamped || t != f->time) {
        f->b[f->n++] = 5;
        put64(f->b + f->n, t);
        f->n += 8;
        f->time = t;
        f->stamped = 1;
    }
    if (attrs) {
        f->b[f->n++] = 6;
        f->b[f->n++] = (uint8_t)attrs;
        memset(f->b + f->n, 0x11, attrs);
        f->n += attrs;
    }
    memcpy(f->b + f->n, rec, len);
    f->n += len;
    f->events++;
}

static void finish(struct file *f)
{
    close_chunk(f);
    f->b[f->n++] = 2;   /* END_OF_FILE */
    f->b[f->n++] = 1;   /* END_OF_BUFFER */
}

/* The test file: `n` events of every framing, times from times(i). */
static void build(struct file *f, int n, uint64_t (*times)(int))
{
    memset(f, 0, sizeof *f);
    new_chunk(f);
    static uint8_t big[270];
    big[0] = 40;                        /* an event with a long record */
    big[1] = 0xff;
    put64(big + 2, sizeof big - 10);
    memset(big + 10, 0x22, sizeof big - 10);
    for (int i = 0; i < n; i++) {
        uint64_t t = times(i);
        switch (i % 8) {
        case 0: event(f, t, (const uint8_t[]){ 12, 0 }, 2, 0); break;                      /* Enter region 0 */
        case 1: event(f, t, (const uint8_t[]){ 13, 2, 0x34, 0x12 }, 4, 0); break;          /* Leave 0x1234 */
        case 2: event(f, t, (const uint8_t[]){ 16, 0xff }, 2, 0); break;                   /* undefined */
        case 3: event(f, t, (const uint8_t[]){ 14, 5, 1, 2, 3, 4, 5 }, 7, 0); break;       /* MpiSend, length 5 */
        case 4: event(f, t, big, sizeof big, 0); break;
        case 5: event(f, t, (const uint8_t[]){ 28, 8, 1, 2, 3, 4, 5, 6, 7, 8 }, 10, 0); break;
        case 6: event(f, t, (const uint8_t[]){ 12, 1, 7 }, 3, 12); break;                  /* with attributes */
        default: event(f, t, (const uint8_t[]){ 88, 0 }, 2, 0); break;                     /* empty payload */
        }
    }
    finish(f);
}

static uint64_t in_runs(int i)   /* three events at each time */
{
    return 1000 + (uint64_t)(i / 3) * 10;
}

static uint64_t mapped(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    (void)ctx, (void)location, (void)position;
    return t * 3 + 7;
}

static uint64_t mapped_in_runs(int i)
{
    return in_runs(i) * 3 + 7;
}

static uint64_t by_position(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    (void)ctx, (void)location;
    return t + position;
}

static uint64_t backwards(void *ctx, uint64_t location, uint64_t position, uint64_t t)
{
    (void)ctx, (void)location;
    return position == 40 ? 0 : t;
}

static char dir[4096], in_path[4200], out_path[4200];
static uint8_t buf[CHUNK];

static int write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, n, f) == n;
    return (f && fclose(f) == 0 && ok) ? 0 : -1;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static enum ep_result patch(uint64_t expected, uint64_t (*time)(void *, uint64_t, uint64_t, uint64_t),
                            uint64_t *events, char *err, size_t errlen)
{
    return ep_patch_events(in_path, out_path, 7, expected, CHUNK, buf, time, NULL, events, err, errlen);
}

int main(void)
{
    /* some 40000 files written and rewritten: in memory where /dev/shm is */
    const char *tmpdir = getenv("TMPDIR");
    struct stat shm;
    if (stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) && access("/dev/shm", W_OK) == 0)
        tmpdir = "/dev/shm";
    snprintf(dir, sizeof dir, "%s/unit_evtpatch.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir) || !ep_host_supported()) {
        printf("1..0 # SKIP %s\n", ep_host_supported() ? "no scratch directory" : "a big-endian host");
        return 0;
    }
    snprintf(in_path, sizeof in_path, "%s/in.evt", dir);
    snprintf(out_path, sizeof out_path, "%s/out.evt", dir);
    static struct file f, want;
    const int N = 96;
    build(&f, N, in_runs);
    build(&want, N, mapped_in_runs);
    size_t chunks = (f.n + CHUNK - 1) / CHUNK;
    write_file(in_path, f.b, f.n);

    char err[512] = "";
    uint64_t events = 0;
    enum ep_result r = patch((uint64_t)N, mapped, &events, err, sizeof err);
    uint8_t *got = malloc(f.n + 1);
    FILE *o = fopen(out_path, "rb");
    size_t gotn = o ? fread(got, 1, f.n + 1, o) : 0;
    if (o)
        fclose(o);
    ok(r == EP_DONE && events == (uint64_t)N, "%d events in %zu chunks of %d bytes rewritten (%d, %s)", N, chunks,
       CHUNK, (int)r, err);
    ok(gotn == want.n && memcmp(got, want.b, want.n) == 0,
       "the copy is the file with every timestamp mapped and nothing else changed (%zu bytes, want %zu)", gotn, want.n);
    unlink(out_path);

    r = patch((uint64_t)N, by_position, &events, err, sizeof err);
    ok(r == EP_CANNOT && !exists(out_path) && strstr(err, "two events at one timestamp"),
       "events sharing a timestamp given different times: refused, nothing left: %s", err);
    r = patch((uint64_t)N, backwards, &events, err, sizeof err);
    ok(r == EP_CANNOT && !exists(out_path), "a map that goes back: refused, nothing left: %s", err);
    r = patch((uint64_t)N + 1, mapped, &events, err, sizeof err);
    ok(r == EP_CANNOT && !exists(out_path) && strstr(err, "definition says"),
       "one event fewer than the definition says: refused: %s", err);
    r = patch((uint64_t)N - 1, mapped, &events, err, sizeof err);
    ok(r == EP_CANNOT && !exists(out_path), "one event more than the definition says: refused: %s", err);

    /* every truncation: all events rewritten (cut after END_OF_FILE) or refused */
    struct agg cut = { 0 };
    for (size_t n = 0; n < f.n; n++) {
        write_file(in_path, f.b, n);
        r = patch((uint64_t)N, mapped, &events, err, sizeof err);
        cut.checks++;
        int whole = r == EP_DONE && events == (uint64_t)N && file_size(out_path) == (long)n;
        if (!(whole && n == f.n - 1) && !(r == EP_CANNOT && !exists(out_path)))
            fail(&cut, "cut at %zu: result %d, %llu events", n, (int)r, (unsigned long long)events);
        unlink(out_path);
    }
    ok(cut.checks > 0 && cut.fails == 0, "%ld truncations refused, nothing left (%s)", cut.checks, cut.first);

    /* every byte changed to framing values and others: rewritten with all
     * its events, or refused with nothing left; never past the bytes */
    static const uint8_t values[] = { 0, 1, 2, 3, 5, 6, 12, 0xff, 200 };
    struct agg mut = { 0 };
    long done = 0;
    for (size_t at = 0; at < f.n; at++)
        for (size_t v = 0; v < sizeof values; v++) {
            if ((f.b[at] == 0x22 || f.b[at] == 0x11) && at % 61)
                continue;   /* the fillers of payloads and attribute lists: a few */
            if (f.b[at] == values[v])
                continue;
            uint8_t keep = f.b[at];
            f.b[at] = values[v];
            write_file(in_path, f.b, f.n);
            f.b[at] = keep;
            r = patch((uint64_t)N, mapped, &events, err, sizeof err);
            mut.checks++;
            if (r == EP_DONE && events == (uint64_t)N && file_size(out_path) == (long)f.n)
                done++;
            else if (!(r == EP_CANNOT && !exists(out_path)))
                fail(&mut, "byte %zu made %u: result %d", at, values[v], (int)r);
            unlink(out_path);
        }
    ok(mut.checks > 0 && mut.fails == 0, "%ld single-byte changes: %ld rewritten whole, the rest refused (%s)",
       mut.checks, done, mut.first);

    write_file(in_path, f.b, f.n);
    f.b[1] = 0x23;   /* OTF2_BIG_ENDIAN */
    write_file(in_path, f.b, f.n);
    f.b[1] = 0x42;
    r = patch((uint64_t)N, mapped, &events, err, sizeof err);
    ok(r == EP_CANNOT && !exists(out_path) && strstr(err, "big-endian"), "a big-endian file: left to OTF2: %s", err);
    unlink(in_path);
    r = patch((uint64_t)N, mapped, &events, err, sizeof err);
    ok(r == EP_CANNOT && strstr(err, in_path), "a missing event file: left to OTF2 (which names it): %s", err);
    write_file(in_path, f.b, f.n);
    snprintf(out_path, sizeof out_path, "%s/no/such/dir/out.evt", dir);
    r = patch((uint64_t)N, mapped, &events, err, sizeof err);
    ok(r == EP_FAILED && strstr(err, out_path), "a copy that cannot be created: failed, named: %s", err);

    free(got);
    snprintf(out_path, sizeof out_path, "%s/out.evt", dir);
    unlink(in_path);
    unlink(out_path);
    rmdir(dir);
    return tap_finish();
}
