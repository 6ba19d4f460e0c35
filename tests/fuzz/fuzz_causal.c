/* fuzz_causal.c — libFuzzer harness of the causal index reader
 * (tools/causal/causal_file.c: stc_causal_open, a public API) and of the
 * queries on what it accepts (tools/causal/causal_query.c).
 *
 * Input: one byte of flags, then the contents of OUT/causal.idx in a real
 * merged trace (templates "merged": tests/mpi_p2p merged; "merged-threads":
 * tests/mpi_threads merged, one track per thread). The file carries
 * checksums and the archive's fingerprint, which a mutation nearly always
 * breaks: the flags say which of them this harness recomputes for the
 * mutated bytes, so that the structural checks behind them are reached too
 * (bit 0: fingerprint, 1: file size, 2: body checksum, 3: header checksum;
 * bit 4: the template). The open must give a handle or NULL with one line;
 * every query on a handle must stay in bounds.
 *
 * causal_file.c is included, for its checksum and layout functions.
 *
 * FUZZ_MAKE_CORPUS=DIR: write each template's index as a seed and exit. */
#include "../../tools/causal/causal_file.c"
#include "fuzz_common.h"

#define NT 2
static const char *const names[NT] = { "merged", "merged-threads" };
static struct fz_tree trees[NT];
static size_t index_file[NT];
static uint64_t fingerprint[NT][2];
static volatile uint64_t sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    const char *corpus = getenv("FUZZ_MAKE_CORPUS");
    for (int t = 0; t < NT; t++) {
        char err[4400];
        fz_tree_open(&trees[t], names[t]);
        index_file[t] = fz_tree_find(&trees[t], "causal.idx");
        if (ci_fingerprint(trees[t].root, fingerprint[t], err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_causal: %s\n", err);
            exit(1);
        }
        if (corpus && *corpus) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", corpus, names[t]);
            FILE *o = fopen(path, "wb");
            const struct fz_file *f = &trees[t].files[index_file[t]];
            unsigned char flags = (unsigned char)(0x0f | t << 4);
            if (!o || fwrite(&flags, 1, 1, o) != 1 || fwrite(f->data, 1, f->size, o) != f->size || fclose(o) != 0) {
                fprintf(stderr, "fuzz_causal: %s: cannot write\n", path);
                exit(1);
            }
        }
    }
    if (corpus && *corpus)
        exit(0);
    return 0;
}

/* Make the checksums (as flags ask) agree with the mutated bytes, exactly as
 * make_header computes them, reading the sections as ci_read lays them out. */
static void fix_up(unsigned flags, int t, uint8_t *buf, size_t size)
{
    struct file_header h;
    if (size < sizeof h)
        return;
    memcpy(&h, buf, sizeof h);
    if (flags & 1) {
        h.fingerprint[0] = fingerprint[t][0];
        h.fingerprint[1] = fingerprint[t][1];
    }
    if (flags & 2)
        h.file_size = size;
    if ((flags & 4) && h.nlevels <= CI_MAX_LEVELS) {
        struct ci_index ix;
        memset(&ix, 0, sizeof ix);
        ix.nranks = h.nranks;
        ix.nlevels = h.nlevels;
        ix.nrecords = h.nrecords;
        ix.nentries = h.nentries;
        ix.chunk_shift = h.chunk_shift;
        ix.ntop = h.ntop;
        ix.nlines = h.nlines;
        ix.nbytes = h.nbytes;
        if (h.chunk_shift <= 12)
            ix.ntchunks = h.ntop * (((uint64_t)h.nranks + (1u << h.chunk_shift) - 1) >> h.chunk_shift);
        memcpy(ix.nmap, h.nmap, sizeof h.nmap);
        struct section s[MAX_SECTIONS];
        int ns = sections(&ix, s);
        uint64_t at = sizeof h, sum = CI_SUM_SEED;
        int fits = 1;
        for (int k = 0; k < ns && fits; k++) {
            if (s[k].size > size || at > size || pad8(s[k].size) > size - at) {
                fits = 0;
                break;
            }
            uint64_t sec = hash_section(CI_SUM_SEED, buf + at, s[k].size);
            sec = hash_bytes(sec, buf + at + s[k].size, (size_t)(pad8(s[k].size) - s[k].size));
            sum = hash_bytes(sum, &sec, sizeof sec);
            at += pad8(s[k].size);
        }
        if (fits)
            h.body_checksum = sum;
    }
    if (flags & 8) {
        h.header_checksum = 0;
        h.header_checksum = hash_bytes(0, &h, sizeof h);
    }
    memcpy(buf, &h, sizeof h);
}

/* Queries at the edges of every rank (at most 6 ranks) and out of range. */
static void query(const stc_causal *c)
{
    uint32_t n = stc_causal_ranks(c), nr = n < 6 ? n : 6;
    uint64_t h = stc_causal_events(c, n) + stc_causal_events(c, UINT32_MAX);
    for (uint32_t ra = 0; ra <= nr; ra++) {
        uint32_t a = ra == nr ? n : ra;
        uint64_t na = stc_causal_events(c, a);
        uint64_t ias[5] = { 0, 1, na / 2, na ? na - 1 : 0, na };
        for (uint32_t rb = 0; rb <= nr; rb++) {
            uint32_t b = rb == nr ? n - 1 : rb;
            uint64_t nb = stc_causal_events(c, b);
            uint64_t ibs[5] = { 0, 1, nb / 3, nb ? nb - 1 : 0, nb };
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) {
                    int rel = stc_causal_relation(c, a, ias[i], b, ibs[j]);
                    h += (uint64_t)rel + (uint64_t)stc_causal_precedes(c, a, ias[i], b, ibs[j])
                         + strlen(stc_relation_name(rel));
                    if (ci_valid(c, a, ias[i]) && ci_valid(c, b, ibs[j]))
                        h += (uint64_t)ci_precedes_clusters(c, a, ias[i], b, ibs[j]) + ci_value(c, a, ias[i], b);
                }
        }
    }
    sink += h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int t = (data[0] >> 4) % NT;
    uint8_t *buf = malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    fix_up(data[0], t, buf, size - 1);
    fz_tree_put(&trees[t], index_file[t], buf, size - 1);
    free(buf);
    char err[4400] = "";
    stc_causal *c = stc_causal_open(trees[t].root, err, sizeof err);
    fz_verbose("fuzz_causal", c ? 0 : -1, err);
    fz_mark(2 * (unsigned)(t << 4 | (data[0] & 15)) + (c != NULL));
    if (c) {
        query(c);
        stc_causal_close(c);
    } else if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "fuzz_causal: a failed open must give one line, got \"%s\"\n", err);
        abort();
    }
    return 0;
}
