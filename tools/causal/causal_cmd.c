/* causal_cmd.c — `synctrace causal OUT_DIR [--cluster-levels S[,S...]]
 * [--force]`: (re)build the causal index of a merged trace from the merged
 * archive alone (after `merge --no-causal`, or when causal.idx is stale or
 * damaged, or for other cluster sizes).
 *
 * The index needs only each location's event count and the matches, and
 * the matcher (match.c) needs only what the merged archive keeps of the raw
 * trace: every event in its location's order with its kind, communicator,
 * peer, tag and request id, and communicators (told apart by their id in
 * the archive: names are for people) with their members as world ranks. So
 * the archive is read back into struct rt_location (one per location, numbered
 * as location_order.h says, as merge numbers them), matched again, and
 * built as merge builds it.
 * The matcher orders a rank's sends and posted receives by time; global
 * times are a monotonic function of the rank's local clock, so the order is
 * the same (ties, at ns resolution, fall back to the event order). */
#include <config.h>
#include "causal_cmd.h"
#include "causal.h"
#include "causal_report.h"
#include "location_order.h"
#include "match.h"
#include "mtread.h"
#include "rawtrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(FILE *to)
{
    fprintf(to, "usage: synctrace causal OUT_DIR [--cluster-levels S[,S...]] [--force]\n"
                "(Re)build the causal index OUT_DIR/causal.idx of a merged trace from its archive\n"
                "OUT_DIR/traces.otf2 (after merge --no-causal, or when the index is stale or damaged),\n"
                "with the cluster-size sweep (cluster_sizes.csv/.svg) and the causal part of\n"
                "report.json and report.txt. R:I numbering is the one merge's own index uses.\n"
                "  --cluster-levels S[,S...]  maximum cluster sizes per level (default " CAUSAL_DEFAULT_LEVELS ")\n"
                "  --force            replace an index that is valid (a stale or damaged one is\n"
                "                     always replaced)\n"
                "Environment: SYNCTRACE_CAUSAL_MEMORY_MB=M  megabytes of vectors the build keeps at once\n"
                "(default 64): fewer means more passes over the trace, never different answers.\n");
    return to == stdout ? 0 : 2;
}

/* ---------------------------------------------------------------- reading the archive */

/* The events go to the match as they are read, location after location
 * (one OTF2 reader at a time: time order would hold a 256 KiB buffer per
 * location at once, 2.5 GB at 10,000), a chunk at a time, and leave: the
 * index needs only the matches and the counts, so memory follows neither
 * the locations nor the events. */
#define CHUNK_MEMORY ((uint64_t)64 << 20)   /* bytes of a location's events held at once */

struct loader {
    struct rt_location *locs;
    uint32_t nlocs;
    uint64_t *cap;
    uint64_t chunk;           /* events a location holds before they go to the match */
    struct mg_matcher *matcher;
    int match_failed;         /* the matcher stopped the read: its end says why */
    int too_many;             /* a location has more events than its definition says */
};

static int collect(void *user, uint32_t location, const struct rt_event *e)
{
    struct loader *l = user;
    struct rt_location *r = &l->locs[location];
    /* the definition's count is the size; growing past it means the
     * archive disagrees with itself, but take the events and say so */
    if (r->nevents == l->cap[location])
        l->too_many = 1;
    if (rt_store_event(r, e) != 0)
        return -1;
    if (r->nheld < l->chunk)
        return 0;
    if (mg_match_chunk(l->matcher, location, 0) != 0) {
        l->match_failed = 1;   /* the matcher says why at its end */
        return -1;
    }
    rt_store_drop(r);
    return 0;
}

/* A location's last events: to the match, and gone. */
static int location_done(void *user, uint32_t location)
{
    struct loader *l = user;
    if (mg_match_chunk(l->matcher, location, 1) != 0) {
        l->match_failed = 1;
        return -1;
    }
    rt_store_drop(&l->locs[location]);
    return 0;
}

/* A sparse collective member's sources, for the data-flow rule (flow.h). */
static int collect_sources(void *user, uint32_t location, uint32_t nslots, const uint64_t *bits)
{
    struct loader *l = user;
    struct rt_location *r = &l->locs[location];
    return r->nevents ? rt_add_sources(r, r->nevents - 1, nslots, bits) : 0;
}

static void free_locations(struct rt_location *locs, uint32_t n)
{
    if (!locs)
        return;
    for (uint32_t k = 0; k < n; k++) {
        free(locs[k].sources);
        free(locs[k].source_words);
    }
    for (uint32_t k = 0; k < n; k++)
        rt_store_free(&locs[k]);
    free(locs);
}

/* One rt_location per location of the archive t, its events read into the
 * match (mg_match_begin .. mg_match_end into *match) and let go; their
 * regions and communicators point into t and comms. Returns 0, or -1 with
 * a one-line message. */
static int load_locations(struct mt_trace *t, struct rt_comm *comms, const struct mg_sort_config *sort,
                          struct mg_result *match, struct rt_location **out, char *err, size_t errlen)
{
    uint32_t n = t->nlocations, nmain = 0;
    if (n == 0) {
        snprintf(err, errlen, "%s: the archive has no locations", t->path);
        return -1;
    }
    /* mt_open lists the locations in numbering order (by id) */
    int64_t bad = loc_layout_mismatch(t->locations, n, &nmain);
    if (bad >= 0) {
        snprintf(err, errlen, "%s: location %llu: not the location layout synctrace merge writes "
                              "(ranks 0 to P-1, then their threads)", t->path, (unsigned long long)t->locations[bad]);
        return -1;
    }
    uint64_t chunk = CHUNK_MEMORY / sizeof(struct rt_slot);
    struct loader l = { calloc(n, sizeof *l.locs), n, calloc(n, sizeof *l.cap), chunk > 256 ? chunk : 256, NULL, 0,
                        0 };
    if (!l.locs || !l.cap) {
        free(l.locs);
        free(l.cap);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < n; k++) {
        struct rt_location *r = &l.locs[k];
        r->path = t->path;
        r->rank = (int)loc_id_rank(t->locations[k]);
        r->world_size = (int)nmain;
        r->thread = loc_id_thread(t->locations[k]);
        r->location = t->locations[k];
        r->borrowed = 1;
        r->resolution = t->resolution;
        r->regions = t->regions;
        r->nregions = t->nregions;
        r->comms = comms;
        r->ncomms = t->ncomms;
        r->declared_events = t->location_events[k];
        l.cap[k] = t->location_events[k];
    }
    if (!(l.matcher = mg_match_begin(l.locs, n, sort, match, err, errlen)))
        goto fail;
    t->on_sources = collect_sources;
    if (mt_read_location_events(t, collect, location_done, &l, err, errlen) != 0) {
        if (l.match_failed) {   /* the matcher's reason (its end frees the result) */
            mg_match_end(l.matcher, err, errlen);
            l.matcher = NULL;
        } else if (!err[0]) {
            snprintf(err, errlen, "out of memory");
        }
        goto fail;
    }
    for (uint32_t k = 0; k < n; k++)
        if (l.too_many || l.locs[k].nevents + t->location_skipped[k] != t->location_events[k]) {
            snprintf(err, errlen, "%s: corrupt archive: location %llu has %llu events, its definition says %llu",
                     t->path, (unsigned long long)t->locations[k],
                     (unsigned long long)(l.locs[k].nevents + t->location_skipped[k]),
                     (unsigned long long)t->location_events[k]);
            goto fail;
        }
    int rc = mg_match_end(l.matcher, err, errlen);
    l.matcher = NULL;
    if (rc != 0)
        goto fail;
    free(l.cap);
    *out = l.locs;
    return 0;
fail:
    mg_match_abandon(l.matcher);
    free_locations(l.locs, n);
    free(l.cap);
    return -1;
}

/* ---------------------------------------------------------------- the report */

static int read_all(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* Write head, then what fn writes, then tail, into path through a
 * temporary file and a rename. */
static int rewrite(const char *path, const char *head, size_t nhead, void (*fn)(FILE *, const struct causal_summary *),
                   const struct causal_summary *s, const char *tail, char *err, size_t errlen)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    fwrite(head, 1, nhead, f);
    fn(f, s);
    fputs(tail, f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

/* report.json: its "causal_index" member (merge writes it just before
 * "seconds", the last member) replaced or, after merge --no-causal, added
 * there. report.txt: the causal lines are its last ones. Returns 0, 1 when
 * a report is missing or not as merge writes it (left alone), -1 when a
 * file cannot be written. */
static int update_reports(const char *dir, const struct causal_summary *s, char *note, size_t notelen, char *err,
                          size_t errlen)
{
    char path[4300];
    char *text;
    size_t len;
    int left_alone = 0;
    snprintf(path, sizeof path, "%s/report.json", dir);
    if (read_all(path, &text, &len) != 0) {
        snprintf(note, notelen, "%s: cannot read it, left alone", path);
        left_alone = 1;
    } else {
        char *seconds = strstr(text, "\n  \"seconds\": {");
        char *old = strstr(text, "\n  \"causal_index\": {");
        if (!seconds || (old && old > seconds)) {
            snprintf(note, notelen, "%s: not as synctrace merge writes it, left alone", path);
            left_alone = 1;
        } else {
            char *cut = old ? old : seconds;
            int rc = rewrite(path, text, (size_t)(cut - text) + 1, causal_report_json, s, seconds + 1, err, errlen);
            if (rc != 0) {
                free(text);
                return -1;
            }
        }
        free(text);
    }
    snprintf(path, sizeof path, "%s/report.txt", dir);
    if (read_all(path, &text, &len) != 0) {
        if (!left_alone)
            snprintf(note, notelen, "%s: cannot read it, left alone", path);
        return 1;
    }
    char *old = strstr(text, "\n  causal index  ");
    size_t keep = old ? (size_t)(old - text) + 1 : len;
    int rc = rewrite(path, text, keep, causal_report_text, s, "", err, errlen);
    free(text);
    return rc != 0 ? -1 : left_alone;
}

/* ---------------------------------------------------------------- the command */

struct causal_args {
    const char *dir, *levels;
    int force;
};

/* 0 to go on, else the exit status (usage() for --help). */
static int parse_args(int argc, char **argv, struct causal_args *a, struct ci_config *cfg)
{
    *a = (struct causal_args){ NULL, CAUSAL_DEFAULT_LEVELS, 0 };
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
            usage(stdout);
            return -1;
        }
        if (!strcmp(argv[k], "--force")) {
            a->force = 1;
        } else if (!strcmp(argv[k], "--cluster-levels")) {
            if (k + 1 >= argc) {
                fprintf(stderr, "synctrace causal: --cluster-levels needs sizes, e.g. 8 or 8,64\n");
                return 2;
            }
            a->levels = argv[++k];
        } else if (argv[k][0] == '-' || a->dir) {
            fprintf(stderr, "synctrace causal: unexpected argument '%s' (see --help)\n", argv[k]);
            return 2;
        } else {
            a->dir = argv[k];
        }
    }
    if (!a->dir) {
        fprintf(stderr, "synctrace causal: no OUT_DIR given (see --help)\n");
        return 2;
    }
    char err[600];
    if (ci_parse_levels(a->levels, cfg, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace causal: --cluster-levels %s: %s\n", a->levels, err);
        return 2;
    }
    return 0;
}

/* Whether a->dir holds a merged archive whose index may be (re)built: 0,
 * else the exit status (said). A valid index is the user's; a stale or
 * damaged one is replaced (*replaced says which, once the new one is
 * written: an error stays one line). With --force it is replaced either
 * way, so it is not read: checking one reads all of it (4 GB at 10,000
 * ranks). */
static int check_dir(const struct causal_args *a, const char *anchor, const char *index, char *replaced,
                     size_t replaced_len)
{
    struct stat st;
    if (stat(a->dir, &st) != 0) {
        fprintf(stderr, "synctrace causal: %s: %s\n", a->dir, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "synctrace causal: %s: not a directory (the output of synctrace merge is one)\n", a->dir);
        return 1;
    }
    if (access(anchor, R_OK) != 0) {
        fprintf(stderr, "synctrace causal: %s: %s (is %s the output of synctrace merge?)\n", anchor, strerror(errno),
                a->dir);
        return 1;
    }
    if (!a->force && access(index, F_OK) == 0) {
        struct ci_index old;
        if (ci_read(index, a->dir, &old, replaced, replaced_len) == 0) {
            ci_free(&old);
            fprintf(stderr, "synctrace causal: %s: a valid causal index exists (--force replaces it)\n", index);
            return 1;
        }
    }
    return 0;
}

static void free_comms(struct rt_comm *comms, uint32_t n)
{
    for (uint32_t c = 0; comms && c < n; c++)
        free(comms[c].name);
    free(comms);
}

/* The archive's communicators as the matcher takes them: every location
 * sees every one, in the archive's order, so that the matcher gives
 * communicator c the global id c, as merge's did. NULL (said) when one is
 * referenced but not defined, or out of memory. */
static struct rt_comm *archive_comms(const struct mt_trace *t, const char *anchor)
{
    struct rt_comm *comms = calloc(t->ncomms ? t->ncomms : 1, sizeof *comms);
    if (!comms)
        goto oom;
    for (uint32_t c = 0; c < t->ncomms; c++) {
        if (!t->comms[c].name) {
            fprintf(stderr, "synctrace causal: %s: communicator %u is referenced but not defined\n", anchor, c);
            free_comms(comms, t->ncomms);
            return NULL;
        }
        /* the archive's names are for people (unnamed ones are all ""): its id is the key */
        if (!(comms[c].name = strdup(t->comms[c].name))) {
            free_comms(comms, t->ncomms);
            goto oom;
        }
        comms[c].key = c;
        comms[c].has_key = 1;
        comms[c].self = t->comms[c].self;
        if (t->comms[c].inter) {   /* group A as local, B as members: rt_world_rank picks the other side */
            comms[c].inter = comms[c].both_groups = 1;
            comms[c].nlocal = t->comms[c].nmembers;
            comms[c].local = t->comms[c].members;
            comms[c].nmembers = t->comms[c].nmembers_b;
            comms[c].members = t->comms[c].members_b;
        } else {
            comms[c].nmembers = t->comms[c].nmembers;
            comms[c].members = t->comms[c].members;
        }
    }
    return comms;
oom:
    fprintf(stderr, "synctrace causal: out of memory\n");
    return NULL;
}

/* The index built from the archive's matches, the reports updated and the
 * summary printed: 0, or -1 (said). */
static int build_index(const struct causal_args *a, struct mt_trace *t, struct rt_comm *comms, const char *index,
                       const char *replaced)
{
    char err[4600] = "";
    int rc = -1;
    struct rt_location *locs = NULL;
    struct mg_result match;
    int matched = 0;
    uint64_t *nevents = NULL;
    /* the match's sorts and messages spill into OUT_DIR, on the disk that
     * holds the trace; the messages beyond 64 MB */
    struct mg_sort_config sort = { a->dir, MG_SORT_MEMORY_DEFAULT, (size_t)64 << 20 };
    if (load_locations(t, comms, &sort, &match, &locs, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace causal: %s\n", err);
        goto done;
    }
    matched = 1;
    if (!(nevents = malloc(sizeof *nevents * t->nlocations))) {
        fprintf(stderr, "synctrace causal: out of memory\n");
        goto done;
    }
    for (uint32_t k = 0; k < t->nlocations; k++)
        nevents[k] = locs[k].nevents;
    /* The events are no longer needed: the build uses the matches only. */
    for (uint32_t k = 0; k < t->nlocations; k++)
        rt_store_free(&locs[k]);

    struct causal_summary s;
    memset(&s, 0, sizeof s);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);   /* the window passes, one a core */
    if (causal_for_merge(a->dir, nevents, t->nlocations, &match, a->levels, cores > 0 ? (uint32_t)cores : 1, &s, err,
                         sizeof err) != 0) {
        fprintf(stderr, "synctrace causal: %s\n", err);
        goto done;
    }
    if (!s.built) {
        fprintf(stderr, "synctrace causal: %s: %s\n", a->dir, s.error);
        goto done;
    }
    s.seconds_wait = 0;   /* no merge waited for it */
    char note[4600] = "";
    int urc = update_reports(a->dir, &s, note, sizeof note, err, sizeof err);
    if (urc < 0) {
        fprintf(stderr, "synctrace causal: %s\n", err);
        goto done;
    }
    if (replaced[0])
        fprintf(stderr, "synctrace causal: replaced %s\n", replaced);
    if (urc > 0)
        fprintf(stderr, "synctrace causal: warning: %s\n", note);
    printf("%s: %u locations, %llu events, %zu messages, %zu collectives\n", index, t->nlocations,
           (unsigned long long)s.events, match.nmessages, match.ncollectives);
    causal_report_text(stdout, &s);
    rc = 0;
done:
    if (matched)
        mg_free(&match);
    free(nevents);
    free_locations(locs, t->nlocations);
    return rc;
}

int cmd_causal(int argc, char **argv)
{
    struct causal_args a;
    struct ci_config cfg;
    int rc = parse_args(argc, argv, &a, &cfg);
    if (rc)
        return rc < 0 ? 0 : rc;
    char anchor[4300], index[4300], replaced[4600] = "";
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", a.dir);
    snprintf(index, sizeof index, "%s/causal.idx", a.dir);
    if ((rc = check_dir(&a, anchor, index, replaced, sizeof replaced)) != 0)
        return rc;
    struct mt_trace t;
    char err[4600];
    if (mt_open(anchor, &t, err, sizeof err) != 0) {
        fprintf(stderr, "synctrace causal: %s\n", err);
        return 1;
    }
    struct rt_comm *comms = archive_comms(&t, anchor);
    rc = comms && build_index(&a, &t, comms, index, replaced) == 0 ? 0 : 1;
    free_comms(comms, t.ncomms);
    mt_close(&t);
    return rc;
}
