/* unit_checksum.c — the XXH64 implementation against the published test
 * vectors, streaming against one-shot, and the checksum files: a sealed
 * file and an archive's list verify, and every single-byte change, cut or
 * addition is named. */
#include "hash64.h"
#include "sumfile.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct { const char *in; uint64_t want; } vectors[] = {
    { "", 0xef46db3751d8e999ULL },
    { "a", 0xd24ec4f1a98c6e5bULL },
    { "abc", 0x44bc2cf5ad770999ULL },
    { "1234", 0xd8316e61d84f6ba4ULL },
    { "12345678", 0xd2d02f08cf7cfd4aULL },
    { "123456789012345", 0xc377d78ade001a3cULL },
    { "1234567890123456", 0xb61c33dc6c59f270ULL },
    { "1234567890123456789012345678901", 0x8f367cb873a5376eULL },
    { "12345678901234567890123456789012", 0x40fd1aa52d98274cULL },
    { "The quick brown fox jumps over the lazy dog", 0x0b242d361fda71bcULL },
};

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Flip one byte of PATH at OFFSET; returns the old value. */
static int flip(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    if (!f)
        return -1;
    fseek(f, offset, SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, SEEK_SET);
    fputc(c ^ 0x20, f);
    fclose(f);
    return c;
}

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(void)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        if (hash64(vectors[i].in, strlen(vectors[i].in)) != vectors[i].want) {
            bad++;
            diag("XXH64(\"%s\") = %016llx", vectors[i].in, (unsigned long long)hash64(vectors[i].in, strlen(vectors[i].in)));
        }
    ok(bad == 0, "XXH64 gives the published values of all %zu test vectors", sizeof vectors / sizeof vectors[0]);

    /* Streaming in uneven pieces equals one call, for every length to 300. */
    unsigned char buf[300];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 131 + 7);
    bad = 0;
    for (size_t n = 0; n <= sizeof buf; n++) {
        struct hash64 h;
        hash64_init(&h);
        for (size_t at = 0, step = 1; at < n; step = step * 3 % 37 + 1) {
            size_t take = step < n - at ? step : n - at;
            hash64_update(&h, buf + at, take);
            at += take;
        }
        bad += hash64_final(&h) != hash64(buf, n);
    }
    ok(bad == 0, "streamed in pieces of 1 to 37 bytes, every length 0..300 hashes as in one piece");

    char dir[] = "/tmp/unit_checksum.XXXXXX";
    if (!mkdtemp(dir)) {
        ok(0, "mkdtemp");
        return tap_finish();
    }
    char path[1024], err[1024], sub[512], evt[1024], sum[1024];
    snprintf(path, sizeof path, "%s/run.meta", dir);
    FILE *f = fopen(path, "w");
    fputs("format 1\nworld_size 4\n", f);
    int sealed = sum_seal(f, path);
    fclose(f);
    ok(sealed == 0 && sum_verify_sealed(path, err, sizeof err) == 0, "a sealed file verifies");
    long n = size_of(path);
    bad = 0;
    for (long at = 0; at < n; at++) {
        int c = flip(path, at);
        bad += sum_verify_sealed(path, err, sizeof err) != -1 || !strstr(err, "run.meta: corrupt");
        flip(path, at);
        (void)c;
    }
    ok(bad == 0, "each of its %ld bytes changed: reported as corrupt, naming the file", n);
    truncate(path, n - 1);
    ok(sum_verify_sealed(path, err, sizeof err) == -1, "cut short by one byte: corrupt (%s)", err);
    snprintf(sub, sizeof sub, "%s/none", dir);
    ok(sum_verify_sealed(sub, err, sizeof err) == 1, "a missing file is told apart (1)");

    /* An archive: anchor, definitions, a folder with two files. */
    snprintf(path, sizeof path, "%s/rank-000003.otf2", dir);
    put(path, "anchor\n");
    snprintf(path, sizeof path, "%s/rank-000003.def", dir);
    put(path, "definitions\n");
    snprintf(sub, sizeof sub, "%s/rank-000003", dir);
    mkdir(sub, 0755);
    snprintf(evt, sizeof evt, "%s/3.evt", sub);
    put(evt, "events events events events events events\n");
    snprintf(path, sizeof path, "%s/3.def", sub);
    put(path, "local definitions\n");
    snprintf(path, sizeof path, "%s/rank-000003.otf2", dir);
    snprintf(sum, sizeof sum, "%s/rank-000003.sum", dir);
    ok(sum_verify_archive(path, err, sizeof err) == 1, "no checksum file: the rank did not close (1)");
    ok(sum_write_archive(dir, "rank-000003", err, sizeof err) == 0 && sum_verify_archive(path, err, sizeof err) == 0,
       "a checksum file is written and the archive verifies");
    n = size_of(evt);
    bad = 0;
    for (long at = 0; at < n; at++) {
        flip(evt, at);
        bad += sum_verify_archive(path, err, sizeof err) != -1 || !strstr(err, "3.evt: corrupt");
        flip(evt, at);
    }
    ok(bad == 0, "each byte of an event file changed: corrupt, naming it");
    n = size_of(sum);
    bad = 0;
    for (long at = 0; at < n; at++) {
        flip(sum, at);
        bad += sum_verify_archive(path, err, sizeof err) != -1 || !strstr(err, "rank-000003.sum: corrupt");
        flip(sum, at);
    }
    ok(bad == 0, "each of the %ld bytes of the checksum file changed: corrupt, naming it", n);
    truncate(evt, 3);
    ok(sum_verify_archive(path, err, sizeof err) == -1 && strstr(err, "3.evt: corrupt: 3 bytes"),
       "a cut event file: its size is named (%s)", err);
    unlink(evt);
    ok(sum_verify_archive(path, err, sizeof err) == -1 && strstr(err, "3.evt: missing"),
       "a deleted event file: missing (%s)", err);
    put(evt, "events events events events events events\n");
    snprintf(path, sizeof path, "%s/9.evt", sub);
    put(path, "x");
    snprintf(path, sizeof path, "%s/rank-000003.otf2", dir);
    ok(sum_verify_archive(path, err, sizeof err) == -1 && strstr(err, "9.evt: not in rank-000003.sum"),
       "a file added to the folder: named (%s)", err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return tap_finish();
}
