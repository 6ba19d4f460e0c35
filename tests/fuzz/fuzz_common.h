/* fuzz_common.h — what the harnesses of tests/fuzz/ share: a template
 * directory (a real trace made by tests/fuzz/make-seeds.sh) held in memory
 * and laid out once in a private scratch directory, where each input then
 * replaces one file (and the file of the previous input is put back). */
#ifndef SYNCTRACE_FUZZ_COMMON_H
#define SYNCTRACE_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

struct fz_file {
    char *rel;                /* path relative to the template's root */
    unsigned char *data;
    size_t size;
};

struct fz_tree {
    char *root;               /* the scratch copy */
    struct fz_file *files;    /* sorted by rel */
    size_t nfiles;
    size_t dirty;             /* the file an input replaced, or nfiles */
};

/* $FUZZ_SEEDS/templates/NAME (FUZZ_SEEDS: make-seeds.sh's output
 * directory), read into memory and copied into a fresh directory under
 * TMPDIR. Exits with a message when it cannot. */
void fz_tree_open(struct fz_tree *t, const char *name);
/* The index of the file REL, or exits. */
size_t fz_tree_find(const struct fz_tree *t, const char *rel);
/* Give file INDEX of the copy the contents DATA (restoring the file an
 * earlier call replaced). Exits when it cannot write. */
void fz_tree_put(struct fz_tree *t, size_t index, const uint8_t *data, size_t size);
/* "ROOT/REL" of the copy into buf. */
const char *fz_path(const struct fz_tree *t, const char *rel, char *buf, size_t len);

/* Give each value of K below 256 code of its own to run: coverage that
 * tells libFuzzer which file an input replaced and whether the read then
 * succeeded (the harnesses call it with 2 * selector + ok). Without it every
 * seed (each a real file, read without error) covers the same code, and
 * libFuzzer keeps only the smallest one, or reduces a whole file to a few
 * garbage bytes: the other files would never be mutated from their real
 * contents. */
void fz_mark(unsigned k);

/* With FUZZ_VERBOSE set, print what the reader said about an input (to
 * see why a reproduced input is rejected). */
void fz_verbose(const char *harness, int rc, const char *err);

#endif
