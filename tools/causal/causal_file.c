/* causal_file.c — OUT_DIR/causal.idx: the causal index on disk, and
 * stc_causal_open.
 *
 * Layout (native little-endian; the header says so): a fixed header with
 * magic, version, counts, the merged archive's fingerprint, the file size
 * and two checksums (header, body); then the arrays of struct ci_index in
 * order, each padded to 8 bytes, the full vectors' chunk bytes first.
 * Version 3 stores full vectors in chunks with 4-byte codes in 64-byte
 * lines (causal.h); the header is padded to 64 bytes so that the lines
 * are cache lines. Older files (version 1: one 4-byte entry per column;
 * 2: 8-byte chunk codes) are refused with a message saying
 * `synctrace causal` rebuilds them. Opening maps the file, checks everything
 * that could make a query read out of bounds, and never trusts a file whose
 * checksum, size, version or fingerprint disagree. */
#define _DEFAULT_SOURCE
#include "causal.h"
#include "synctrace/causal.h"

#include <dirent.h>
#include <stddef.h>
#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CI_MAGIC "STCAUSAL"
#define CI_VERSION 3u
#define CI_ENDIAN 0x01020304u

struct file_header {
    char magic[8];
    uint32_t version, endian;
    uint32_t nranks, nlevels;
    uint32_t maxsize[CI_MAX_LEVELS];
    uint32_t chunk_shift, strip_chunks;
    uint64_t nrecords, nentries, ntop, nbytes;
    uint64_t nmap[CI_MAX_LEVELS];
    uint64_t nlines;
    uint64_t fingerprint[2];    /* bytes 168 ..: what differs between builds of one body */
    uint64_t file_size;
    uint64_t body_checksum;
    uint64_t reserved[6];       /* zero: the header fills 64-byte lines */
    uint64_t header_checksum;   /* of this header with this field 0 */
};
_Static_assert(sizeof(struct file_header) % 64 == 0, "the chunk lines start on a cache line");
_Static_assert(offsetof(struct file_header, fingerprint) == 168, "tests/test-causal-rebuild.sh compares the bytes before");

/* ---------------------------------------------------------------- hashing */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* A fast 64-bit hash (multiply-rotate over 8-byte words): detects
 * corruption, not adversaries. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    h ^= n * 0x9E3779B97F4A7C15ull;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = rotl(h ^ (w * 0xBF58476D1CE4E5B9ull), 29) * 0x94D049BB133111EBull;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = rotl(h ^ (w * 0xBF58476D1CE4E5B9ull), 29) * 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

uint64_t ci_hash_bytes(uint64_t h, const void *data, size_t n)
{
    return hash_bytes(h, data, n);
}

/* A section's bytes in CI_HASH_BLOCK blocks: a build hashes the chunks as
 * it writes them, block by block. */
static uint64_t hash_section(uint64_t sum, const void *data, uint64_t n)
{
    const char *p = data;
    while (n) {
        size_t k = n < CI_HASH_BLOCK ? (size_t)n : CI_HASH_BLOCK;
        sum = hash_bytes(sum, p, k);
        p += k;
        n -= k;
    }
    return sum;
}

/* Hash `len` bytes of f from `at` into fp (missing bytes hash as absent). */
static int hash_range(FILE *f, long at, size_t len, uint64_t fp[2])
{
    unsigned char buf[4096];
    if (fseek(f, at, SEEK_SET) != 0)
        return -1;
    while (len) {
        size_t want = len < sizeof buf ? len : sizeof buf, got = fread(buf, 1, want, f);
        fp[0] = hash_bytes(fp[0], buf, got);
        fp[1] = hash_bytes(fp[1] ^ 0x5bd1e995u, buf, got);
        if (got < want)
            return ferror(f) ? -1 : 0;
        len -= got;
    }
    return 0;
}

static int hash_file(const char *path, int whole, uint64_t fp[2], char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    uint64_t size = (uint64_t)st.st_size;
    fp[0] = hash_bytes(fp[0], &size, sizeof size);
    int rc = 0;
    const size_t sample = 4096;
    if (whole || size <= 3 * sample)
        rc = hash_range(f, 0, (size_t)size, fp);
    else
        rc = hash_range(f, 0, sample, fp) || hash_range(f, (long)(size / 2), sample, fp)
             || hash_range(f, (long)(size - sample), sample, fp);
    fclose(f);
    if (rc)
        snprintf(err, errlen, "%s: cannot read", path);
    return rc ? -1 : 0;
}

static int evt_file(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && strcmp(d->d_name + n - 4, ".evt") == 0;
}

/* What identifies the merged archive, cheaply enough for every query:
 *   - traces.otf2 and traces.def in full: small, and the definitions hold
 *     every location's event count, the clock range and the strings, so any
 *     re-merge or edit of the run changes them;
 *   - the size of every event file (a truncated or regrown file);
 *   - 3 x 4 KiB (start, middle, end) of at most 64 event files spread over
 *     the ranks: an in-place edit of event bytes is caught when it touches a
 *     sample, and a full hash would read the whole trace (gigabytes) per query.
 * So at most ~0.8 MiB is read, plus one stat per rank. */
int ci_fingerprint(const char *dir, uint64_t fp[2], char *err, size_t errlen)
{
    char path[4200];
    fp[0] = 0x243F6A8885A308D3ull;
    fp[1] = 0x13198A2E03707344ull;
    if (snprintf(path, sizeof path, "%s/traces.otf2", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        return -1;
    }
    if (hash_file(path, 1, fp, err, errlen))
        return -1;
    snprintf(path, sizeof path, "%s/traces.def", dir);
    if (hash_file(path, 1, fp, err, errlen))
        return -1;
    snprintf(path, sizeof path, "%s/traces", dir);
    struct dirent **names = NULL;
    int n = scandir(path, &names, evt_file, alphasort);
    if (n < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    int stride = n > 64 ? (n + 63) / 64 : 1;
    for (int k = 0; k < n && !rc; k++) {
        if (snprintf(path, sizeof path, "%s/traces/%s", dir, names[k]->d_name) >= (int)sizeof path) {
            snprintf(err, errlen, "%.200s...: path too long", dir);
            rc = -1;
            break;
        }
        fp[1] = hash_bytes(fp[1], names[k]->d_name, strlen(names[k]->d_name));
        if (k % stride == 0 || k == n - 1) {
            rc = hash_file(path, 0, fp, err, errlen);
        } else {
            struct stat st;
            if (stat(path, &st) != 0) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                rc = -1;
            } else {
                uint64_t size = (uint64_t)st.st_size;
                fp[0] = hash_bytes(fp[0], &size, sizeof size);
            }
        }
    }
    for (int k = 0; k < n; k++)
        free(names[k]);
    free(names);
    return rc;
}

/* ---------------------------------------------------------------- layout */

struct section {
    void **ptr;
    uint64_t size;            /* bytes */
};

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

/* The sections in file order; returns their number. Sizes come from the
 * header's counts (checked against overflow by the caller). */
static int sections(struct ci_index *ix, struct section *s)
{
    uint64_t N = ix->nranks, R = ix->nrecords;
    int n = 0;
    /* the full vectors first: a build writes them in place (ci_write_in_place) */
    s[n++] = (struct section){ (void **)&ix->tline, sizeof(struct ci_line) * ix->nlines };
    s[n++] = (struct section){ (void **)&ix->cbytes, ix->nbytes };
    s[n++] = (struct section){ (void **)&ix->entries, 4 * ix->nentries };
    s[n++] = (struct section){ (void **)&ix->nevents, 8 * N };
    s[n++] = (struct section){ (void **)&ix->rec_first, 8 * (N + 1) };
    s[n++] = (struct section){ (void **)&ix->rec_start, 4 * R };
    s[n++] = (struct section){ (void **)&ix->rec_cluster, 4 * R };
    s[n++] = (struct section){ (void **)&ix->rec_size, 4 * R };
    s[n++] = (struct section){ (void **)&ix->rec_vec, 8 * R };
    s[n++] = (struct section){ (void **)&ix->rec_bound, 8 * R };
    s[n++] = (struct section){ (void **)&ix->rec_level, R };
    for (uint32_t k = 0; k < ix->nlevels; k++) {
        s[n++] = (struct section){ (void **)&ix->map_first[k], 8 * (N + 1) };
        s[n++] = (struct section){ (void **)&ix->map[k], 4 * ix->nmap[k] };
        s[n++] = (struct section){ (void **)&ix->rec_gcr[k], 4 * R };
    }
    return n;
}

#define MAX_SECTIONS CI_MAX_SECTIONS

size_t ci_header_size(void)
{
    return sizeof(struct file_header);
}

int ci_layout(const struct ci_index *ix_in, uint64_t off[CI_MAX_SECTIONS], uint64_t size[CI_MAX_SECTIONS])
{
    struct ci_index ix = *ix_in;   /* sections() wants places for pointers: a copy's */
    struct section s[MAX_SECTIONS];
    int ns = sections(&ix, s);
    uint64_t at = sizeof(struct file_header);
    for (int k = 0; k < ns; k++) {
        off[k] = at;
        size[k] = s[k].size;
        at += pad8(s[k].size);
    }
    return ns;
}

/* The header of an index whose body is the sections s: sizes, fingerprint
 * and both checksums (the body's over every section and its padding). */
static const char zeros[8];
static void make_header(const struct ci_index *ix, const struct section *s, int ns, const uint64_t fp[2],
                        struct file_header *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CI_MAGIC, 8);
    h->version = CI_VERSION;
    h->endian = CI_ENDIAN;
    h->nranks = ix->nranks;
    h->nlevels = ix->nlevels;
    memcpy(h->maxsize, ix->maxsize, sizeof h->maxsize);
    h->nrecords = ix->nrecords;
    h->nentries = ix->nentries;
    h->chunk_shift = ix->chunk_shift;
    h->strip_chunks = ix->strip_chunks;
    h->ntop = ix->ntop;
    h->nlines = ix->nlines;
    h->nbytes = ix->nbytes;
    memcpy(h->nmap, ix->nmap, sizeof h->nmap);
    h->fingerprint[0] = fp[0];
    h->fingerprint[1] = fp[1];
    h->file_size = sizeof *h;
    uint64_t sum = CI_SUM_SEED;
    for (int k = 0; k < ns; k++) {
        h->file_size += pad8(s[k].size);
        /* an index built into its file was hashed as written */
        uint64_t sec = ix->body_in_file ? ix->sums[k] : hash_section(CI_SUM_SEED, *s[k].ptr, s[k].size);
        sec = hash_bytes(sec, zeros, (size_t)(pad8(s[k].size) - s[k].size));
        sum = hash_bytes(sum, &sec, sizeof sec);
    }
    h->body_checksum = sum;
    h->header_checksum = hash_bytes(0, h, sizeof *h);
}

int ci_write(const struct ci_index *ix_in, const char *path, const uint64_t fp[2], char *err, size_t errlen)
{
    struct ci_index ix = *ix_in;
    struct section s[MAX_SECTIONS];
    int ns = sections(&ix, s);
    struct file_header h;
    make_header(&ix, s, ns, fp, &h);

    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    int bad = fwrite(&h, sizeof h, 1, f) != 1;
    for (int k = 0; k < ns && !bad; k++)
        bad = (s[k].size && fwrite(*s[k].ptr, 1, (size_t)s[k].size, f) != s[k].size)
              || fwrite(zeros, 1, (size_t)(pad8(s[k].size) - s[k].size), f) != pad8(s[k].size) - s[k].size;
    /* on disk before its name, and out of the page cache (ci_drop_cached) */
    bad = bad || fflush(f) != 0 || fdatasync(fileno(f)) != 0;
    if (!bad)
        ci_drop_cached(fileno(f));
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: write failed", tmp);
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

int ci_write_in_place(struct ci_index *ix_in, const char *path, const uint64_t fp[2], char *err, size_t errlen)
{
    if (!ix_in->body_in_file)
        return ci_write(ix_in, path, fp, err, errlen);
    struct ci_index ix = *ix_in;
    struct section s[MAX_SECTIONS];
    int ns = sections(&ix, s);
    struct file_header h;
    make_header(&ix, s, ns, fp, &h);
    int fd = ix_in->entries_fd;
    /* every section is in place; the padding between them was never
     * written (zeros), and the header goes last */
    int bad = ftruncate(fd, (off_t)h.file_size) != 0 || pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h;
    /* on disk before its name: then its cached pages can go (ci_free) */
    if (!bad && fdatasync(fd) != 0)
        bad = 1;
    if (bad || rename(ix_in->entries_path, path) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;   /* ci_free removes the partial file */
    }
    /* written: keep the file; ci_free drops its pages once unmapped */
    ix_in->written_fd = fd;
    ix_in->entries_fd = 0;
    return 0;
}

/* v[j] += value j of n of width code w at p (one loop per width: the
 * check reads every value of the index). */
static void add_values(uint64_t *v, const uint8_t *p, uint32_t w, uint32_t n)
{
    if (w == 1) {
        for (uint32_t j = 0; j < n; j++)
            v[j] += p[j];
    } else if (w == 2) {
        for (uint32_t j = 0; j < n; j++) {
            uint16_t h;
            memcpy(&h, p + 2 * (size_t)j, 2);
            v[j] += h;
        }
    } else if (w == 3) {
        for (uint32_t j = 0; j < n; j++) {
            uint32_t x;
            memcpy(&x, p + 4 * (size_t)j, 4);
            v[j] += x;
        }
    }
}

#define KNOWN_KEYS ((size_t)1 << 16)

/* Every chunk, in the order of the lines: its bytes and its key's (if
 * any) inside cbytes, and every value (key + data) a count of its column's
 * events. known: a direct-mapped cache of 2 x KNOWN_KEYS words, (key
 * offset, chunk and width) pairs checked, or NULL (check every chunk). */
static const char *check_full_vectors(const struct ci_index *ix, uint64_t *known)
{
    uint32_t N = ix->nranks;
    uint64_t at = 0, off = 0;
    uint32_t cols = 1u << ix->chunk_shift;
    for (uint32_t s0 = 0; s0 < ix->nchunks; s0 += ix->strip_chunks) {
        uint32_t sw = ci_strip_width(ix, s0);
        for (uint64_t t = 0; t < ix->ntop; t++)
            for (uint32_t c = s0; c < s0 + sw; c++, at++) {
                if (at % CI_LINE_CODES == 0)
                    off = ix->tline[at / CI_LINE_CODES].base;
                uint32_t code = ci_code(ix, at), w = CI_CODE_W(code);
                uint64_t size = (uint64_t)CI_W_BYTES(w) << ix->chunk_shift, c0 = (uint64_t)c << ix->chunk_shift;
                if (off > ix->nbytes || size > ix->nbytes - off)
                    return "full vectors";
                /* the key: values of its own width, before these (an
                 * earlier vector's); queries only compare full-vector
                 * values, never index with them: the counts are about
                 * answers, not memory safety */
                uint32_t kw = CI_CODE_KW(code);
                uint64_t back = (uint64_t)CI_CODE_DIST(code) << ix->chunk_shift;
                uint64_t ksize = (uint64_t)CI_W_BYTES(kw) << ix->chunk_shift;
                if (kw ? back == 0 || back > off || ksize > ix->nbytes - (off - back) : back != 0)
                    return "full vectors";
                /* a chunk equal to its key (no data, most of them) has the
                 * key's values: those checked once are not checked again */
                uint64_t koff = off - back, what = (uint64_t)c << 2 | kw;
                uint64_t *seen = known ? &known[2 * ((koff >> ix->chunk_shift ^ c) & (KNOWN_KEYS - 1))] : NULL;
                int skip = w == 0 && kw && seen && seen[0] == koff && seen[1] == what;
                if ((w || kw) && !skip) {
                    uint64_t v[1u << 12];   /* chunks have at most 2^12 columns */
                    memset(v, 0, sizeof *v * cols);
                    add_values(v, ix->cbytes + off, w, cols);
                    add_values(v, ix->cbytes + koff, kw, cols);
                    for (uint32_t j = 0; j < cols; j++)
                        if (c0 + j < N ? v[j] > ix->nevents[c0 + j] : v[j] != 0)
                            return "full vectors";
                }
                if (w == 0 && kw && seen) {
                    seen[0] = koff;
                    seen[1] = what;
                }
                off += size;
            }
    }
    for (; at < ix->nlines * CI_LINE_CODES; at++)
        if (ci_code(ix, at))
            return "full vectors";   /* the last line's unused codes */
    return NULL;
}

/* Everything a query relies on: no index out of bounds, records in order. */
static const char *check_structure(const struct ci_index *ix)
{
    uint32_t N = ix->nranks;
    uint64_t *known = malloc(sizeof *known * 2 * KNOWN_KEYS);
    if (known)
        memset(known, 0xff, sizeof *known * 2 * KNOWN_KEYS);
    const char *problem = check_full_vectors(ix, known);
    free(known);
    if (problem)
        return problem;
    for (uint32_t k = 0; k < ix->nlevels; k++) {
        if (ix->map_first[k][0] != 0 || ix->map_first[k][N] != ix->nmap[k])
            return "cluster tables";
        for (uint32_t c = 0; c < N; c++)
            if (ix->map_first[k][c + 1] < ix->map_first[k][c])
                return "cluster tables";
        for (uint64_t x = 0; x < ix->nmap[k]; x++)
            if (ix->map[k][x] >= N)
                return "cluster maps";
    }
    if (ix->rec_first[0] != 0 || ix->rec_first[N] != ix->nrecords)
        return "record table";
    uint64_t vector_total = 0;
    for (uint32_t r = 0; r < N; r++) {
        uint64_t a = ix->rec_first[r], b = ix->rec_first[r + 1];
        if (a == b && ix->nevents[r] == 0)
            continue;   /* a rank without events (killed before its first flush) has no records */
        if (b <= a || b > ix->nrecords || ix->rec_start[a] != 0 || ix->nevents[r] >= UINT32_MAX)
            return "record table";
        for (uint64_t x = a; x < b; x++) {
            if ((x > a && ix->rec_start[x] <= ix->rec_start[x - 1]) || ix->rec_start[x] >= ix->nevents[r])
                return "record order";
            uint32_t lv = ix->rec_level[x];
            if (lv > ix->nlevels)
                return "record vectors";
            if (lv == ix->nlevels ? ix->rec_vec[x] >= ix->ntop
                                  : ix->rec_vec[x] > ix->nentries || ix->rec_size[x] > ix->nentries - ix->rec_vec[x])
                return "record vectors";
            if (lv < ix->nlevels && (ix->rec_cluster[x] >= N || ix->rec_size[x] == 0
                                     || ix->rec_size[x] > ix->map_first[lv][ix->rec_cluster[x] + 1]
                                                              - ix->map_first[lv][ix->rec_cluster[x]]))
                return "record clusters";
        }
        /* Every entry counts events of its member rank: a query steps to
         * event (entry - 1) of that rank. Each cluster record owns its
         * vector (the build appends them), so this reads each entry once;
         * full vectors are checked chunk by chunk above. */
        for (uint64_t x = a; x < b; x++) {
            uint32_t lv = ix->rec_level[x];
            if (lv >= ix->nlevels)
                continue;
            uint64_t size = ix->rec_size[x];
            if (size > ix->nentries - vector_total)
                return "record vectors";
            vector_total += size;
            const uint32_t *vec = ix->entries + ix->rec_vec[x];
            const uint32_t *members = ix->map[lv] + ix->map_first[lv][ix->rec_cluster[x]];
            for (uint64_t j = 0; j < size; j++)
                if (vec[j] > ix->nevents[members[j]])
                    return "record vectors";
        }
        /* the full vectors around each record: as the records say */
        uint32_t t = CI_NONE;
        for (uint64_t x = a; x < b; x++) {
            if (ix->rec_level[x] == ix->nlevels)
                t = (uint32_t)ix->rec_vec[x];
            if (ix->rec_bound[2 * x] != t)
                return "record bounds";
        }
        t = CI_NONE;
        for (uint64_t x = b; x-- > a;) {
            if (ix->rec_level[x] == ix->nlevels)
                t = (uint32_t)ix->rec_vec[x];
            if (ix->rec_bound[2 * x + 1] != t)
                return "record bounds";
        }
        /* a cluster receive is a receive stamped above the level */
        for (uint32_t k = 0; k < ix->nlevels; k++)
            for (uint64_t x = a; x < b; x++) {
                uint32_t g = ix->rec_gcr[k][x];
                if (g != CI_NONE && (g > x - a || ix->rec_level[a + g] <= k))
                    return "cluster receives";
            }
    }
    return NULL;
}

int ci_read(const char *path, const char *dir, struct ci_index *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0) {
        if (errno == ENOENT)
            snprintf(err, errlen, "%s: no causal index (synctrace causal builds it; or the trace was not merged by "
                               "synctrace)", path);
        else
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < 16) {
        snprintf(err, errlen, "%s: corrupt causal index (truncated)", path);
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* 2 MB pages where the kernel can (pages it reads in for this mapping:
     * a file just written keeps its 4 KiB ones unless dropped, as
     * ci_write and ci_write_in_place do): random queries over a large
     * index then rarely miss the TLB (measured at 4000 and 10,000 ranks:
     * median query 20-35 % faster). Only a hint: ignored where refused. */
    (void)madvise(map, size, MADV_HUGEPAGE);
    out->mapping = map;
    out->mapping_size = size;
    struct file_header h;
    memset(&h, 0, sizeof h);
    memcpy(&h, map, size < sizeof h ? size : sizeof h);   /* magic, version and byte order first: any size */
    uint64_t want = h.header_checksum;
    h.header_checksum = 0;
    const char *problem = NULL;
    uint64_t codes = 0;
    char version_problem[160];
    if (memcmp(h.magic, CI_MAGIC, 8) != 0)
        problem = "not a synctrace causal index";
    else if (h.endian != CI_ENDIAN)
        problem = "written on a machine of other byte order, or corrupt";
    else if (h.version != CI_VERSION) {
        snprintf(version_problem, sizeof version_problem,
                 "causal index format version %u; this synctrace reads version %u (synctrace causal OUT --force "
                 "rebuilds it)", h.version, CI_VERSION);
        problem = version_problem;
    } else if (size < sizeof h)
        problem = "corrupt causal index (truncated)";
    else if (hash_bytes(0, &h, sizeof h) != want)
        problem = "corrupt causal index (header checksum)";
    else if (h.file_size != size)
        problem = "corrupt causal index (size)";
    else if (h.nranks == 0 || h.nlevels < 1 || h.nlevels > CI_MAX_LEVELS || h.nranks > (1u << 24))
        problem = "corrupt causal index (header)";
    /* Each counted element takes at least a byte of the file: counts above
     * its size are damage, and below it the section sizes (up to 8 bytes
     * per element) cannot wrap. */
    else if (h.nrecords > size || h.nentries > size || h.ntop > size || h.nbytes > size)
        problem = "corrupt causal index (counts)";
    else if (h.chunk_shift < 1 || h.chunk_shift > 12 || h.strip_chunks < 1
             || h.strip_chunks > ((uint64_t)h.nranks + (1u << h.chunk_shift) - 1) >> h.chunk_shift
             || (h.strip_chunks & (h.strip_chunks - 1)
                 && h.strip_chunks != ((uint64_t)h.nranks + (1u << h.chunk_shift) - 1) >> h.chunk_shift))
        problem = "corrupt causal index (header)";
    /* full vectors take 4 bytes of code per chunk: within the file size */
    else if (h.ntop >= CI_NONE
             || __builtin_mul_overflow(h.ntop, ((uint64_t)h.nranks + (1u << h.chunk_shift) - 1) >> h.chunk_shift, &codes)
             || codes > size || h.nlines != (codes + CI_LINE_CODES - 1) / CI_LINE_CODES)
        problem = "corrupt causal index (counts)";
    for (size_t k = 0; !problem && k < sizeof h.reserved / sizeof h.reserved[0]; k++)
        if (h.reserved[k])
            problem = "corrupt causal index (header)";
    for (uint32_t k = 0; !problem && k < CI_MAX_LEVELS; k++)
        if (h.nmap[k] > size)
            problem = "corrupt causal index (counts)";
    if (problem) {
        snprintf(err, errlen, "%s: %s", path, problem);
        ci_free(out);
        return -1;
    }
    out->nranks = h.nranks;
    out->nlevels = h.nlevels;
    memcpy(out->maxsize, h.maxsize, sizeof h.maxsize);
    out->nrecords = h.nrecords;
    out->nentries = h.nentries;
    out->chunk_shift = h.chunk_shift;
    out->nchunks = (uint32_t)(((uint64_t)h.nranks + (1u << h.chunk_shift) - 1) >> h.chunk_shift);
    out->strip_chunks = h.strip_chunks;
    out->strip_low = h.strip_chunks >= out->nchunks ? UINT32_MAX : h.strip_chunks - 1;
    out->ntop = h.ntop;
    out->ntchunks = h.ntop * out->nchunks;
    out->nlines = h.nlines;
    out->nbytes = h.nbytes;
    memcpy(out->nmap, h.nmap, sizeof h.nmap);
    struct section s[MAX_SECTIONS];
    int ns = sections(out, s);
    uint64_t at = sizeof h, sum = CI_SUM_SEED;   /* as make_header */
    for (int k = 0; k < ns && !problem; k++) {
        /* counts are at most the file size (checked above): no overflow in the sizes */
        if (s[k].size > size || at > size || pad8(s[k].size) > size - at) {
            problem = "corrupt causal index (counts)";
            break;
        }
        *s[k].ptr = (char *)map + at;
        /* the padding as read: a flipped padding byte is damage too */
        uint64_t sec = hash_section(CI_SUM_SEED, (char *)map + at, s[k].size);
        sec = hash_bytes(sec, (char *)map + at + s[k].size, (size_t)(pad8(s[k].size) - s[k].size));
        sum = hash_bytes(sum, &sec, sizeof sec);
        at += pad8(s[k].size);
    }
    if (!problem && at != size)
        problem = "corrupt causal index (size)";
    if (!problem && sum != h.body_checksum)
        problem = "corrupt causal index (checksum)";
    if (!problem)
        problem = check_structure(out) ? "corrupt causal index (structure)" : NULL;
    if (problem) {
        snprintf(err, errlen, "%s: %s", path, problem);
        ci_free(out);
        return -1;
    }
    if (dir) {
        uint64_t fp[2];
        char ferr[4400];
        if (ci_fingerprint(dir, fp, ferr, sizeof ferr) != 0) {
            snprintf(err, errlen, "%s: cannot check the merged archive it belongs to: %s", path, ferr);
            ci_free(out);
            return -1;
        }
        if (fp[0] != h.fingerprint[0] || fp[1] != h.fingerprint[1]) {
            snprintf(err, errlen, "%s: stale causal index: the merged archive in %s changed since it was built "
                                  "(synctrace causal rebuilds it)", path, dir);
            ci_free(out);
            return -1;
        }
    }
    if (ci_prepare(out) != 0) {
        snprintf(err, errlen, "%s: out of memory", path);
        ci_free(out);
        return -1;
    }
    return 0;
}

stc_causal *stc_causal_open(const char *dir, char *err, size_t errlen)
{
    stc_causal *c = malloc(sizeof *c);
    char path[4200];
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (snprintf(path, sizeof path, "%s/causal.idx", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "%.200s...: path too long", dir);
        free(c);
        return NULL;
    }
    if (ci_read(path, dir, c, err, errlen) != 0) {
        free(c);
        return NULL;
    }
    return c;
}
