/* fuzz_raw.c — libFuzzer harness of the raw archive reader
 * (format/rawtrace.c, rt_read_rank: what `synctrace merge` and `dump`
 * call for each rank).
 *
 * Input: one selector byte, then the new contents of one file of rank 0's
 * closed archive in a real trace (templates "p2p": tests/mpi_p2p on 2
 * ranks; "threads": tests/mpi_threads, several locations per rank). The
 * selector picks the template (sel % 2) and the file ((sel / 2) % files:
 * the anchor, the global definitions, the membership file, a location's local definitions or
 * event file). The read must give 0 or -1 with a message, never a crash, a
 * hang or an unbounded allocation; what it returns is walked in full.
 *
 * FUZZ_MAKE_CORPUS=DIR: write one input per template file into DIR (the
 * seed corpus) and exit. */
#include "fuzz_common.h"
#include "rawtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 2
static const char *const names[NT] = { "p2p", "threads" };
static struct fz_tree trees[NT];
static volatile uint64_t sink;

static void make_corpus(const char *dir)
{
    for (int t = 0; t < NT; t++)
        for (size_t k = 0; k < trees[t].nfiles && k < 128; k++) {
            const struct fz_file *f = &trees[t].files[k];
            char path[4200];
            snprintf(path, sizeof path, "%s/%s-%zu", dir, names[t], k);
            FILE *o = fopen(path, "wb");
            unsigned char sel = (unsigned char)(k * NT + (size_t)t);
            if (!o || fwrite(&sel, 1, 1, o) != 1 || (f->size && fwrite(f->data, 1, f->size, o) != f->size)
                || fclose(o) != 0) {
                fprintf(stderr, "fuzz_raw: %s: cannot write\n", path);
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
    return 0;
}

/* Touch everything a successful read returned, as the merge would. */
static void walk(const struct rt_location *r)
{
    uint64_t h = r->rank + (uint64_t)r->world_size + r->resolution + r->trace_length;
    for (uint32_t i = 0; i < r->nregions; i++)
        h += r->regions[i] ? strlen(r->regions[i]) : 0;
    for (uint32_t c = 0; c < r->ncomms; c++) {
        h += r->comms[c].name ? strlen(r->comms[c].name) : 0;
        for (uint32_t m = 0; m < r->comms[c].nmembers; m++)
            h += r->comms[c].members[m];
        for (uint32_t m = 0; r->comms[c].has_in && m < r->comms[c].nin; m++)
            h += r->comms[c].in[m];
    }
    for (uint32_t i = 0; i < r->noffsets; i++)
        h += r->offsets[i].time;
    for (uint64_t i = 0; i < r->nevents; i++) {
        const struct rt_event ev = rt_event_at(r, i), *e = &ev;
        h += e->time + e->truth + strlen(rt_kind_name(e->kind));
        if (e->kind == RT_COLL_END || e->kind == RT_NBC_COMPLETE)
            h += strlen(rt_collective_name(e->tag));
        h += (uint64_t)rt_world_rank(r, e->ref, e->peer);
    }
    for (uint32_t k = 0; k < r->nthreads; k++)
        walk(&r->threads[k]);
    sink += h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct fz_tree *t = &trees[data[0] % NT];
    fz_tree_put(t, (size_t)(data[0] / NT) % t->nfiles, data + 1, size - 1);
    char anchor[4200], err[4400] = "";
    struct rt_location r;
    fz_path(t, "rank-000000.otf2", anchor, sizeof anchor);
    int rc = rt_read_rank(anchor, &r, err, sizeof err);
    fz_verbose("fuzz_raw", rc, err);
    fz_mark(2 * (unsigned)(data[0] % NT + NT * ((size_t)(data[0] / NT) % t->nfiles)) + (rc == 0));
    if (rc == 0) {
        walk(&r);
        struct rt_location *threads;
        uint32_t n = rt_take_threads(&r, &threads);
        for (uint32_t k = 0; k < n; k++)
            rt_free_location(&threads[k]);
        free(threads);
    } else if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "fuzz_raw: a failed read must give one line, got \"%s\"\n", err);
        abort();
    }
    rt_free_location(&r);
    return 0;
}
