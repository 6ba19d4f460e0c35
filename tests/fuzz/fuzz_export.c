/* fuzz_export.c — libFuzzer harness of the exporters' input: the merged
 * archive as format/mtread.c streams it, OUT/rawview.map
 * (tools/output/rawview.c rv_open), OUT/report.json and
 * OUT/cluster_sizes.csv, as `synctrace export --format chrome|html` reads
 * them (tools/export).
 *
 * Input: one selector byte, then the new contents of one file of a real
 * merged trace (templates "merged": tests/mpi_p2p; "merged-threads":
 * tests/mpi_threads). The selector picks the template (sel % 2), the format
 * ((sel / 2) % 2: chrome or html) and the file ((sel / 4) % files). The
 * export must return 0 or -1 with one line, never crash, hang or allocate
 * without bound. The page or JSON goes to /dev/null.
 *
 * FUZZ_MAKE_CORPUS=DIR: write one input per template file and format into
 * DIR (the seed corpus) and exit. */
#include "export.h"
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 2
static const char *const names[NT] = { "merged", "merged-threads" };
static struct fz_tree trees[NT];
static FILE *devnull;

static void make_corpus(const char *dir)
{
    for (int t = 0; t < NT; t++)
        for (size_t k = 0; k < trees[t].nfiles && k < 64; k++)
            for (int html = 0; html < 2; html++) {
                const struct fz_file *f = &trees[t].files[k];
                char path[4200];
                snprintf(path, sizeof path, "%s/%s-%zu-%s", dir, names[t], k, html ? "html" : "chrome");
                FILE *o = fopen(path, "wb");
                unsigned char sel = (unsigned char)(k * 4 + (size_t)html * 2 + (size_t)t);
                if (!o || fwrite(&sel, 1, 1, o) != 1 || (f->size && fwrite(f->data, 1, f->size, o) != f->size)
                    || fclose(o) != 0) {
                    fprintf(stderr, "fuzz_export: %s: cannot write\n", path);
                    exit(1);
                }
            }
    exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    for (int t = 0; t < NT; t++)
        fz_tree_open(&trees[t], names[t]);
    const char *corpus = getenv("FUZZ_MAKE_CORPUS");
    if (corpus && *corpus)
        make_corpus(corpus);
    if (!(devnull = fopen("/dev/null", "w"))) {
        fprintf(stderr, "fuzz_export: cannot open /dev/null\n");
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct fz_tree *t = &trees[data[0] % 2];
    int html = data[0] / 2 % 2;
    fz_tree_put(t, (size_t)(data[0] / 4) % t->nfiles, data + 1, size - 1);
    char err[4400] = "";
    /* an odd length reads one location at a time, through a file (mtorder.c) */
    struct export_reading rd = { size % 2 ? 1 : 0, NULL };
    int rc = html ? export_html(t->root, devnull, &rd, err, sizeof err)
                  : export_chrome(t->root, devnull, &rd, err, sizeof err);
    fz_verbose("fuzz_export", rc, err);
    fz_mark(2 * (unsigned)(data[0] % 4 + 4 * ((size_t)(data[0] / 4) % t->nfiles)) + (rc == 0));
    if (rc != 0 && (!err[0] || strchr(err, '\n'))) {
        fprintf(stderr, "fuzz_export: a failed export must give one line, got \"%s\"\n", err);
        abort();
    }
    return 0;
}
