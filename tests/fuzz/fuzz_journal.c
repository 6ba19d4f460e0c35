/* fuzz_journal.c — libFuzzer harness of the recovery journal's parser and
 * the rebuild of a killed rank's archive (format/recover.c, reached as
 * the merge reaches it: rt_read_rank on a rank with a journal and no anchor).
 *
 * Input: one selector byte, then the new contents of one file of a killed
 * rank in a real trace: the journal of templates "killed"
 * (tests/mpi_kill9, rank 2 killed after flushing) and "killed-threads"
 * (tests/mpi_kill9_threads, rank 1 and its threads), the records file
 * (format/recfile.h) of "killed-records" (tests/mpi_kill9, rank 2
 * killed before its first flush: all its events are replayed from it). The
 * selector picks the template (sel % 3). The other files stay as the kill
 * left them. The read must give 0 or -1 with one
 * line, never a crash, a hang or an unbounded allocation, and must leave
 * nothing behind in TMPDIR (rc_rebuild's scratch archive).
 *
 * FUZZ_MAKE_CORPUS=DIR: write each template's journal as a seed and exit. */
#include "fuzz_common.h"
#include "rawtrace.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NT 3
static const char *const names[NT] = { "killed", "killed-threads", "killed-records" };
static const char *const fuzzed[NT] = { ".journal", ".journal", ".records" };
static struct fz_tree trees[NT];
static size_t journal[NT];   /* the file each template's inputs replace */
static char anchor[NT][4200];
static char scratch[4200];    /* TMPDIR of rc_rebuild: must stay empty */
static volatile uint64_t sink;

static int empty_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
    if (d)
        closedir(d);
    return d && n == 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc; (void)argv;
    const char *corpus = getenv("FUZZ_MAKE_CORPUS");
    for (int t = 0; t < NT; t++) {
        fz_tree_open(&trees[t], names[t]);
        journal[t] = trees[t].nfiles;
        for (size_t k = 0; k < trees[t].nfiles; k++) {
            const char *rel = trees[t].files[k].rel;
            size_t n = strlen(rel);
            if (n > 8 && strcmp(rel + n - 8, fuzzed[t]) == 0 && !strchr(rel, '/'))
                journal[t] = k;
        }
        if (journal[t] == trees[t].nfiles) {
            fprintf(stderr, "fuzz_journal: template %s has no %s file\n", names[t], fuzzed[t]);
            exit(1);
        }
        /* rank-NNNNNN.journal (.records) -> rank-NNNNNN.otf2 (absent: the rank was killed) */
        char rel[4096];
        snprintf(rel, sizeof rel, "%.*s.otf2", (int)strlen(trees[t].files[journal[t]].rel) - 8,
                 trees[t].files[journal[t]].rel);
        fz_path(&trees[t], rel, anchor[t], sizeof anchor[t]);
        if (corpus && *corpus) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", corpus, names[t]);
            FILE *o = fopen(path, "wb");
            const struct fz_file *f = &trees[t].files[journal[t]];
            unsigned char sel = (unsigned char)t;
            if (!o || fwrite(&sel, 1, 1, o) != 1 || fwrite(f->data, 1, f->size, o) != f->size || fclose(o) != 0) {
                fprintf(stderr, "fuzz_journal: %s: cannot write\n", path);
                exit(1);
            }
        }
    }
    if (corpus && *corpus)
        exit(0);
    fz_path(&trees[0], "rebuilt", scratch, sizeof scratch);
    if (mkdir(scratch, 0700) != 0 || setenv("TMPDIR", scratch, 1) != 0) {
        fprintf(stderr, "fuzz_journal: %s: cannot create\n", scratch);
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int t = data[0] % NT;
    fz_tree_put(&trees[t], journal[t], data + 1, size - 1);
    char err[4400] = "";
    struct rt_location r;
    int rc = rt_read_rank(anchor[t], &r, err, sizeof err);
    fz_verbose("fuzz_journal", rc, err);
    fz_mark(2 * (unsigned)t + (rc == 0));
    if (rc == 0) {
        uint64_t n = r.nevents;
        for (uint32_t k = 0; k < r.nthreads; k++)
            n += r.threads[k].nevents;
        if (!r.recovered) {
            fprintf(stderr, "fuzz_journal: a rank read from its journal is not marked recovered\n");
            abort();
        }
        for (uint64_t i = 0; i < r.nevents; i++)
            n += r.events[i].time + (uint64_t)rt_world_rank(&r, r.events[i].ref, r.events[i].peer);
        for (uint32_t i = 0; i < r.nregions; i++)
            n += r.regions[i] ? strlen(r.regions[i]) : 0;
        for (uint32_t c = 0; c < r.ncomms; c++)
            n += (r.comms[c].name ? strlen(r.comms[c].name) : 0) + (r.comms[c].nmembers ? r.comms[c].members[0] : 0);
        sink += n;
    } else if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "fuzz_journal: a failed read must give one line, got \"%s\"\n", err);
        abort();
    }
    rt_free_location(&r);
    if (!empty_dir(scratch)) {
        fprintf(stderr, "fuzz_journal: the rebuilt archive was left behind in %s\n", scratch);
        abort();
    }
    return 0;
}
