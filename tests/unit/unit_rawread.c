/* TAP unit test for the one reader of raw definitions
 * (format/defs_read.c, through rt_read_rank and mt_open): archives
 * written with the raw format's writer (format/defs_write.c), then
 * damaged the ways a review found. Each must be one error naming the
 * file, quickly, and never a crash: a string reference of 2^30 (was read
 * as a table of 2^30 entries: 73 s, 9.4 GB), a reference of 0xFFFFFFFF
 * (OTF2's "undefined", what a 0xFF byte decodes to; its index + 1 wrapped
 * to 0, realloc(p, 0) freed the table: a heap-use-after-free), a huge
 * region reference, a definition file cut short, and damaged local
 * definitions (were ignored: the rank then had no clock offsets).
 *
 * Then main's later definitions through the same writer and reader:
 * communicator parents, Cartesian topologies, in-neighbours, RMA windows
 * and region roles, read back from a closed archive and from one rebuilt
 * from its journal (the journal records comm_parent, cart, window,
 * window_name, started_at).
 *
 * Then the collective source words (rawformat.h): an archive of a world of
 * 4000 ranks whose one sparse Alltoallv carries words 40 and 3 defines
 * those two alone, with attribute references dense in definition order
 * (the words in the order of first use), closed or rebuilt from a journal
 * of format 2 ("source_word K REF"); a journal of format 1 (older tracers)
 * rebuilds the world-sized layout its events were written with; damaged
 * source_word records are one error naming the journal. */
#include <config.h>
#include "defs_write.h"
#include "fsutil.h"
#include "members.h"
#include "mtread.h"
#include "rawformat.h"
#include "rawtrace.h"
#include "timing.h"

#include <errno.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

enum damage { GOOD, STRING_HUGE, STRING_UNDEFINED, REGION_HUGE, GROUP_HUGE, DEF_TRUNCATED, LOCAL_DEF_DAMAGED,
              MEMBERS_MISSING, MEMBERS_CUT, MEMBERS_OUTSIDE, MEMBERS_UNLISTED, MEMBERS_HUGE_COUNT, MEMBERS_BAD_KEY,
              MEMBERS_OTHER_RANK, MEMBERS_FORMAT, MEMBERS_UNDECLARED };

/* The membership file's damaged text: what replaces it whole. */
static const char *members_damage(enum damage damage)
{
    switch (damage) {
    case MEMBERS_CUT:         /* cut at a line's end: the end line is gone */
        return "synctrace-members 1\nrank 0 world 1\ngroup 0 1 0\ncomm 0 0\n";
    case MEMBERS_OUTSIDE:     /* world rank 1 in a world of 1 */
        return "synctrace-members 1\nrank 0 world 1\ngroup 0 1 1\ncomm 0 0\nend 1\n";
    case MEMBERS_UNLISTED:    /* the archive's communicator 0 has no line */
        return "synctrace-members 1\nrank 0 world 1\ngroup 0 1 0\nend 0\n";
    case MEMBERS_HUGE_COUNT:  /* 2^32 - 1 members announced: never allocated */
        return "synctrace-members 1\nrank 0 world 1\ngroup 0 4294967295 ?:4294967295\ncomm 0 0\nend 1\n";
    case MEMBERS_BAD_KEY:
        return "synctrace-members 1\nrank 0 world 1\ngroup 0 1 0\ncomm 0 0 key 12zz\nend 1\n";
    case MEMBERS_OTHER_RANK:  /* another rank's file */
        return "synctrace-members 1\nrank 3 world 8\ngroup 0 1 0\ncomm 0 0\nend 1\n";
    default:
        return NULL;
    }
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u; (void)t; (void)l; (void)c; (void)f;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u; (void)t; (void)l;
    return 0;
}
static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };

static int truncate_to_half(const char *path)
{
    FILE *f = fopen(path, "r+");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        if (f)
            fclose(f);
        return -1;
    }
    long size = ftell(f);
    fclose(f);
    return truncate(path, size / 2);
}

/* DIR/rank-000000.otf2 with one location, two clock offsets, one event. */
/* A derived communicator (made from the world, named after it was made)
 * with a 1-D periodic Cartesian topology of 1 and its in-neighbours, and
 * two RMA windows on it, the second named; MPI_COMM_SELF and an
 * intercommunicator with their keys, sharing interned groups. */
static int add_later_definitions(struct rf_defs *d)
{
    uint64_t sub[1] = { 0 }, remote[2] = { OTF2_UNDEFINED_UINT64, 0 };
    uint64_t *in = malloc(sizeof *in);
    if (!in)
        return -1;
    in[0] = 0;
    uint32_t size = 1, coord = 0;
    uint8_t periodic = 1;
    int added_sub, added_self, added_remote, added_again;
    uint32_t g_sub = rf_defs_group(d, 0, 1, sub, &added_sub);
    uint32_t g_self = rf_defs_group(d, 1, 0, NULL, &added_self);
    uint32_t g_remote = rf_defs_group(d, 0, 2, remote, &added_remote);
    uint32_t g_again = rf_defs_group(d, 0, 1, sub, &added_again);
    struct rf_comm_desc self = { .name = "MPI_COMM_SELF", .has_key = 1, .key = 0x1234, .local = g_self };
    struct rf_comm_desc inter = { .name = "", .has_key = 1, .key = 0xfedcba9876543210ULL, .inter = 1,
                                  .local = g_sub, .remote = g_remote };
    return rf_defs_add_plain_comm(d, "", 1, sub) == 1 && rf_defs_comm_name(d, 1, "sub") == 0
           && rf_defs_comm_parent(d, 1, 0) == 0
           && rf_defs_comm_neighbours(d, 1, 1, in) == 0 && rf_defs_comm_cart(d, 1, 1, &size, &periodic, &coord, 0) == 0
           && rf_defs_add_window(d, 1) == 0 && rf_defs_add_window(d, 1) == 1 && rf_defs_window_name(d, 1, "my win") == 0
           && g_sub == 0 && !added_sub && added_self && added_remote && g_again == g_sub && !added_again
           && rf_defs_add_comm(d, &self) == 2 && rf_defs_add_comm(d, &inter) == 3
           && rf_defs_comm_parent(d, 3, 0) != 0   /* an intercommunicator has no parent */
           ? 0 : -1;
}

/* What add_later_definitions defined, as the raw reader gives it. */
static int later_definitions_read(const struct rt_location *r)
{
    return r->ncomms == 4 && r->comms[0].parent == UINT32_MAX && r->comms[1].parent == 0
           && strcmp(r->comms[1].name, "sub") == 0 && r->comms[1].has_in && r->comms[1].nin == 1
           && r->comms[1].cart_ndims == 1 && r->comms[1].cart_sizes[0] == 1 && r->comms[1].cart_periodic[0] == 1
           && r->comms[1].has_cart_coords && r->comms[1].cart_rank == 0 && r->comms[1].cart_coords[0] == 0
           && !r->comms[0].cart_ndims && r->nwins == 2 && r->wins[0].comm == 1 && strcmp(r->wins[0].name, "") == 0
           && r->wins[1].comm == 1 && strcmp(r->wins[1].name, "my win") == 0 && r->nregion_roles == 1
           && r->region_roles[0] == OTF2_REGION_ROLE_POINT2POINT
           && !r->comms[0].has_key && !r->comms[1].has_key
           && r->comms[2].self && r->comms[2].has_key && r->comms[2].key == 0x1234 && r->comms[2].nmembers == 1
           && r->comms[2].members[0] == 0 && strcmp(r->comms[2].name, "MPI_COMM_SELF") == 0
           && r->comms[3].inter && r->comms[3].has_key && r->comms[3].key == 0xfedcba9876543210ULL
           && r->comms[3].parent == UINT32_MAX && r->comms[3].nlocal == 1 && r->comms[3].local[0] == 0
           && r->comms[3].nmembers == 2 && r->comms[3].members[0] == OTF2_UNDEFINED_UINT64
           && r->comms[3].members[1] == 0;
}

static int make_archive(const char *dir, enum damage damage)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "rank-000000", OTF2_FILEMODE_WRITE, 1 << 20, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    int ok = OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL) == OTF2_SUCCESS
             && OTF2_Archive_SetSerialCollectiveCallbacks(ar) == OTF2_SUCCESS
             && OTF2_Archive_OpenEvtFiles(ar) == OTF2_SUCCESS;
    OTF2_EvtWriter *w = ok ? OTF2_Archive_GetEvtWriter(ar, 0) : NULL;
    ok = w && OTF2_EvtWriter_Enter(w, NULL, 1000, 0) == OTF2_SUCCESS && OTF2_EvtWriter_Leave(w, NULL, 2000, 0) == OTF2_SUCCESS
         && OTF2_Archive_CloseEvtWriter(ar, w) == OTF2_SUCCESS && OTF2_Archive_CloseEvtFiles(ar) == OTF2_SUCCESS;
    ok = ok && OTF2_Archive_SetProperty(ar, RF_PROP_RANK, "0", true) == OTF2_SUCCESS
         && OTF2_Archive_SetProperty(ar, RF_PROP_WORLD_SIZE, "1", true) == OTF2_SUCCESS;
    struct rf_location loc = { 0, 0, 2 };
    struct rf_clock_offset offsets[2] = { { 500, 7, 1.0 }, { 5000, 9, 1.0 } };
    ok = ok && rf_defs_write_clock_offsets(ar, &loc, 1, offsets, 2) == 0;
    OTF2_GlobalDefWriter *gd = ok ? OTF2_Archive_GetGlobalDefWriter(ar) : NULL;
    struct rf_defs defs = { 0 };
    uint64_t members[1] = { 0 };
    struct rf_region region = { "MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI };
    struct rf_rank_defs rd = { .resolution = 1000000000, .global_offset = 0, .trace_length = 3000, .rank = 0,
                               .world_size = 1, .host = "host", .locs = &loc, .nlocs = 1, .regions = &region,
                               .nregions = 1 };
    ok = gd && rf_defs_add_plain_comm(&defs, RF_COMM_WORLD_NAME, 1, members) == 0;
    if (ok && damage == GOOD)
        ok = add_later_definitions(&defs) == 0;
    ok = ok && rf_defs_write(gd, &defs, &rd) == 0;
    char err[4600];
    ok = ok && rf_members_write(dir, "rank-000000", &defs, 0, 1, err, sizeof err) == 0;
    if (damage == MEMBERS_FORMAT)
        ok = ok && OTF2_Archive_SetProperty(ar, RF_PROP_MEMBERS, "7", true) == OTF2_SUCCESS;
    else if (damage != MEMBERS_UNDECLARED)
        ok = ok && rf_members_declare(ar) == 0;
    rf_defs_free(&defs);
    if (ok && damage == STRING_HUGE)
        ok = OTF2_GlobalDefWriter_WriteString(gd, 1u << 30, "far away") == OTF2_SUCCESS;
    if (ok && damage == STRING_UNDEFINED)
        ok = OTF2_GlobalDefWriter_WriteString(gd, OTF2_UNDEFINED_STRING, "undefined") == OTF2_SUCCESS;
    if (ok && damage == REGION_HUGE)
        ok = OTF2_GlobalDefWriter_WriteRegion(gd, 1u << 30, 0, 0, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                              OTF2_REGION_FLAG_NONE, 0, 0, 0) == OTF2_SUCCESS;
    if (ok && damage == GROUP_HUGE) {
        uint64_t m = 0;
        ok = OTF2_GlobalDefWriter_WriteGroup(gd, 0xFFFFFFF0u, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                             OTF2_GROUP_FLAG_NONE, 1, &m) == OTF2_SUCCESS;
    }
    if (gd)
        ok = OTF2_Archive_CloseGlobalDefWriter(ar, gd) == OTF2_SUCCESS && ok;
    ok = OTF2_Archive_Close(ar) == OTF2_SUCCESS && ok;
    char path[4200];
    if (ok && damage == DEF_TRUNCATED) {
        snprintf(path, sizeof path, "%s/rank-000000.def", dir);
        ok = truncate_to_half(path) == 0;
    }
    if (ok && damage == LOCAL_DEF_DAMAGED) {
        snprintf(path, sizeof path, "%s/rank-000000/0.def", dir);
        ok = truncate_to_half(path) == 0;
    }
    snprintf(path, sizeof path, "%s/rank-000000" RF_MEMBERS_SUFFIX, dir);
    if (ok && damage == MEMBERS_MISSING)
        ok = unlink(path) == 0;
    if (ok && members_damage(damage)) {
        FILE *f = fopen(path, "w");
        ok = f && fputs(members_damage(damage), f) >= 0;
        ok = f && fclose(f) == 0 && ok;
    }
    return ok ? 0 : -1;
}

/* Write the damaged archive and read it both ways: the raw reader must
 * fail with a message containing `want`, within a second. */
static void damaged(enum damage damage, const char *what, const char *want, int merged_reader_too)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/unit_rawread.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || make_archive(dir, damage) != 0) {
        ok(0, "%s: cannot write the archive", what);
        return;
    }
    char anchor[4200], err[1024] = "";
    snprintf(anchor, sizeof anchor, "%s/rank-000000.otf2", dir);
    struct rt_location r;
    double t0 = st_now_s();
    int rc = rt_read_rank(anchor, &r, err, sizeof err);
    double dt = st_now_s() - t0;
    if (damage == GOOD) {
        ok(rc == 0 && r.noffsets == 2 && r.offsets[1].offset == 9 && r.nevents == 2
               && strcmp(r.comms[0].name, RF_COMM_WORLD_NAME) == 0 && r.nregions == 1,
           "%s: read, with its 2 clock offsets, 2 events, the world (%s)", what, rc ? err : "ok");
        ok(rc == 0 && later_definitions_read(&r),
           "%s: a communicator's parent, Cartesian topology, in-neighbours, 2 RMA windows (one named), "
           "the region's role read back", what);
    } else {
        ok(rc == -1 && strstr(err, want) && strstr(err, dir) && dt < 1.0,
           "%s: one error naming the file, in %.3f s (%s)", what, dt, err);
    }
    rt_free_location(&r);
    if (merged_reader_too) {
        struct mt_trace t;
        err[0] = '\0';
        rc = mt_open(anchor, &t, err, sizeof err);
        if (damage == GOOD)
            ok(rc == 0 && t.nlocations == 1 && t.nregions == 1, "%s: mt_open reads it (%s)", what, rc ? err : "ok");
        else
            ok(rc == -1 && strstr(err, want) && strstr(err, dir), "%s: mt_open, the same error (%s)", what, err);
        if (rc == 0)
            mt_close(&t);
    }
    st_remove_tree(dir);
}

/* The same definitions rebuilt from a journal: the archive above with its
 * anchor and definitions gone (a rank killed), its journal beside it. */
static void recovered(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/unit_rawread.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || make_archive(dir, GOOD) != 0) {
        ok(0, "recovery: cannot write the archive");
        return;
    }
    char anchor[4200], path[4200], err[1024] = "";
    snprintf(anchor, sizeof anchor, "%s/rank-000000.otf2", dir);
    unlink(anchor);
    snprintf(path, sizeof path, "%s/rank-000000.def", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/rank-000000/0.def", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/rank-000000" RF_MEMBERS_SUFFIX, dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/rank-000000" RF_JOURNAL_SUFFIX, dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, RF_JOURNAL_MAGIC " %d\n" RF_JR_RANK " 0\n" RF_JR_WORLD_SIZE " 1\n" RF_JR_LOCATION " 0\n"
                RF_JR_CHUNK_SIZE " %d\n" RF_JR_OPENED_AT " 1500\n" RF_JR_TICKS_PER_SECOND " 1e9\n"
                RF_JR_TRUE_TIME " 0\n" RF_JR_HOST " host\n" RF_JR_CLOCK " monotonic\n"
                RF_JR_REGION " 0 %d %d MPI_Send\n" RF_JR_HEADER_END " 1\n",
                RF_JOURNAL_FORMAT, 1 << 20, (int)OTF2_REGION_ROLE_POINT2POINT, (int)OTF2_PARADIGM_MPI);
        fprintf(f, RF_JR_PROPERTY " " RF_PROP_RANK " 0\n" RF_JR_PROPERTY " " RF_PROP_WORLD_SIZE " 1\n"
                RF_JR_COMM " 0 " RF_COMM_WORLD_NAME " 1 0\n" RF_JR_GROUP " 0 1 0\n" RF_JR_COMM " 1 x 1 @0\n"
                RF_JR_COMM_NAME " 1 sub\n" RF_JR_COMM_PARENT " 1 0\n"
                RF_JR_GROUP " 1 0 -\n" RF_JR_COMM " 2 MPI_COMM_SELF 0 @1 " RF_JR_COMM_KEY " 0000000000001234 "
                RF_JR_COMM_SELF "\n" RF_JR_GROUP " 2 2 -1,0\n" RF_JR_COMM " 3 %%00 1 @0 " RF_JR_COMM_KEY
                " fedcba9876543210 " RF_JR_COMM_REMOTE " 2 @2\n"
                RF_JR_NEIGHBOURS " 1 1 0\n" RF_JR_CART " 1 0 1 1 1 0\n" RF_JR_WINDOW " 0 1\n" RF_JR_WINDOW " 1 1\n"
                RF_JR_WINDOW_NAME " 1 my%%20win\n" RF_JR_STARTED_AT " 900\n" RF_JR_CLOCK_OFFSET " 500 7 1\n"
                RF_JR_CLOCK_OFFSET " 5000 9 1\n" RF_JR_RESOLUTION " 1000000000\n");
    }
    if (!f || fclose(f) != 0) {
        ok(0, "recovery: cannot write the journal");
        st_remove_tree(dir);
        return;
    }
    struct rt_location r;
    int rc = rt_read_rank(anchor, &r, err, sizeof err);
    ok(rc == 0 && r.recovered && later_definitions_read(&r) && r.global_offset == 900 && r.noffsets == 2,
       "recovery: the journal's groups, keys, SELF, intercommunicator, name, parent, Cartesian topology, "
       "in-neighbours, windows and MPI_Init's early start rebuilt (%s)", rc ? err : "ok");
    rt_free_location(&r);
    st_remove_tree(dir);
}

/* An archive as tracers before the membership file wrote it (rawformat.h,
 * "Archives without a membership file"): the world's locations, member
 * groups, keys and in-neighbours in groups of their own, an InterComm.
 * The readers must keep reading it, the same as before. */
static void legacy(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], anchor[4200], err[1024] = "";
    snprintf(dir, sizeof dir, "%s/unit_rawread.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    OTF2_Archive *ar = mkdtemp(dir) ? OTF2_Archive_Open(dir, "rank-000000", OTF2_FILEMODE_WRITE, 1 << 20,
                                                        OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX,
                                                        OTF2_COMPRESSION_NONE)
                                    : NULL;
    int good = ar && OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL) == OTF2_SUCCESS
               && OTF2_Archive_SetSerialCollectiveCallbacks(ar) == OTF2_SUCCESS
               && OTF2_Archive_OpenEvtFiles(ar) == OTF2_SUCCESS;
    OTF2_EvtWriter *w = good ? OTF2_Archive_GetEvtWriter(ar, 0) : NULL;
    good = w && OTF2_EvtWriter_Enter(w, NULL, 1000, 0) == OTF2_SUCCESS
           && OTF2_EvtWriter_Leave(w, NULL, 2000, 0) == OTF2_SUCCESS && OTF2_Archive_CloseEvtWriter(ar, w) == OTF2_SUCCESS
           && OTF2_Archive_CloseEvtFiles(ar) == OTF2_SUCCESS
           && OTF2_Archive_SetProperty(ar, RF_PROP_RANK, "0", true) == OTF2_SUCCESS
           && OTF2_Archive_SetProperty(ar, RF_PROP_WORLD_SIZE, "1", true) == OTF2_SUCCESS;
    struct rf_location loc = { 0, 0, 2 };
    struct rf_clock_offset offset = { 500, 7, 1.0 };
    good = good && rf_defs_write_clock_offsets(ar, &loc, 1, &offset, 1) == 0;
    OTF2_GlobalDefWriter *gd = good ? OTF2_Archive_GetGlobalDefWriter(ar) : NULL;
    const char *strings[] = { "", RF_COMM_WORLD_NAME, RF_GROUP_WORLD_NAME, "synctrace key of comm 1: fedcba9876543210",
                              "synctrace key of comm 2: 0000000000001234", "synctrace in-neighbours of comm 0",
                              "Master thread", "MPI_COMM_SELF", "MPI_Send" };
    for (uint32_t k = 0; gd && k < sizeof strings / sizeof *strings; k++)
        good = good && OTF2_GlobalDefWriter_WriteString(gd, k, strings[k]) == OTF2_SUCCESS;
    uint64_t zero = 0, remote[2] = { OTF2_UNDEFINED_UINT64, 0 };
#define GROUP(ref, name, type, n, m) \
    (OTF2_GlobalDefWriter_WriteGroup(gd, ref, name, type, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, n, m) == OTF2_SUCCESS)
    good = gd && good
           && OTF2_GlobalDefWriter_WriteClockProperties(gd, 1000000000, 0, 3000, OTF2_UNDEFINED_TIMESTAMP) == OTF2_SUCCESS
           && OTF2_GlobalDefWriter_WriteLocation(gd, 0, 6, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0) == OTF2_SUCCESS
           && OTF2_GlobalDefWriter_WriteRegion(gd, 0, 8, 8, 0, OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
                                               OTF2_REGION_FLAG_NONE, 0, 0, 0) == OTF2_SUCCESS
           && GROUP(0, 2, OTF2_GROUP_TYPE_COMM_LOCATIONS, 1, &zero) && GROUP(1, 0, OTF2_GROUP_TYPE_COMM_GROUP, 1, &zero)
           && GROUP(2, 0, OTF2_GROUP_TYPE_COMM_GROUP, 2, remote) && GROUP(3, 0, OTF2_GROUP_TYPE_COMM_SELF, 0, NULL)
           && GROUP(4, 3, OTF2_GROUP_TYPE_UNKNOWN, 0, NULL) && GROUP(5, 4, OTF2_GROUP_TYPE_UNKNOWN, 0, NULL)
           && GROUP(6, 5, OTF2_GROUP_TYPE_LOCATIONS, 1, &zero)
           && OTF2_GlobalDefWriter_WriteComm(gd, 0, 1, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE) == OTF2_SUCCESS
           && OTF2_GlobalDefWriter_WriteInterComm(gd, 1, 0, 1, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE) == OTF2_SUCCESS
           && OTF2_GlobalDefWriter_WriteComm(gd, 2, 7, 3, 0, OTF2_COMM_FLAG_NONE) == OTF2_SUCCESS;
#undef GROUP
    if (gd)
        good = OTF2_Archive_CloseGlobalDefWriter(ar, gd) == OTF2_SUCCESS && good;
    if (ar)
        good = OTF2_Archive_Close(ar) == OTF2_SUCCESS && good;
    snprintf(anchor, sizeof anchor, "%s/rank-000000.otf2", dir);
    struct rt_location r;
    int rc = good ? rt_read_rank(anchor, &r, err, sizeof err) : -1;
    ok(good && rc == 0 && r.ncomms == 3 && r.comms[0].nmembers == 1 && r.comms[0].members[0] == 0 && !r.comms[0].inter
           && !r.comms[0].has_key && r.comms[0].has_in && r.comms[0].nin == 1 && r.comms[0].in[0] == 0
           && r.comms[1].inter && r.comms[1].has_key && r.comms[1].key == 0xfedcba9876543210ULL
           && r.comms[1].nlocal == 1 && r.comms[1].local[0] == 0 && r.comms[1].nmembers == 2
           && r.comms[1].members[0] == OTF2_UNDEFINED_UINT64 && r.comms[1].members[1] == 0
           && r.comms[2].self && r.comms[2].has_key && r.comms[2].key == 0x1234 && r.comms[2].parent == 0
           && r.comms[2].nmembers == 1 && r.comms[2].members[0] == 0,
       "an archive without a membership file (older tracers): members, keys, in-neighbours, the intercommunicator "
       "read from its groups (%s)", good ? (rc ? err : "ok") : "cannot write it");
    if (rc == 0)
        rt_free_location(&r);
    st_remove_tree(dir);
}

/* ---------- collective source words ---------- */

#define SW_WORLD 4000
#define SW_CHUNK (256 * 1024)   /* OTF2's smallest event chunk */
#define SW_EVENTS 100000        /* events enough to fill it */
enum sw_kind { SW_CLOSED, SW_JOURNAL, SW_JOURNAL_OLD, SW_JOURNAL_BAD_REF, SW_JOURNAL_TWICE, SW_JOURNAL_OUTSIDE };

/* The attributes an archive defines, in definition order. */
struct sw_attrs {
    uint32_t n, refs[128];
    char names[128][32];
};

static OTF2_CallbackCode sw_def_string(void *ud, OTF2_StringRef self, const char *string)
{
    char (*strings)[32] = ((char (**)[32])ud)[1];
    if (self < 256)
        snprintf(strings[self], 32, "%s", string);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode sw_def_attr(void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef desc,
                                     OTF2_Type type)
{
    (void)desc; (void)type;
    struct sw_attrs *a = ((void **)ud)[0];
    char (*strings)[32] = ((char (**)[32])ud)[1];
    if (a->n < 128) {
        a->refs[a->n] = self;
        snprintf(a->names[a->n], 32, "%s", name < 256 ? strings[name] : "?");
        a->n++;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static int sw_read_attrs(const char *anchor, struct sw_attrs *a)
{
    static char strings[256][32];
    void *ud[2] = { a, strings };
    memset(a, 0, sizeof *a);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    uint64_t n = 0;
    int ok = gr && cb && OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, sw_def_string) == OTF2_SUCCESS
             && OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, sw_def_attr) == OTF2_SUCCESS
             && OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, cb, ud) == OTF2_SUCCESS
             && OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n) == OTF2_SUCCESS;
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(rd);
    return ok ? 0 : -1;
}

/* A rank of a world of SW_WORLD whose one sparse Alltoallv received from
 * slots 200 (word 3) and 2600 (word 40), its words first used in the order
 * 40, 3; closed, or killed with the journal `kind` describes. */
static int sw_archive(const char *dir, enum sw_kind kind)
{
    int world = kind == SW_JOURNAL_OLD;
    struct rf_attr_layout l;
    rf_attr_layout(&l, 0);
    uint32_t slots = world ? RF_ATTR_SOURCES_SLOTS : l.slots;
    uint32_t ref40 = world ? RF_ATTR_SOURCES_BITS + 40 : l.sources, ref3 = world ? RF_ATTR_SOURCES_BITS + 3 : l.sources + 1;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "rank-000000", OTF2_FILEMODE_WRITE, SW_CHUNK, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    int ok = OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL) == OTF2_SUCCESS
             && OTF2_Archive_SetSerialCollectiveCallbacks(ar) == OTF2_SUCCESS
             && OTF2_Archive_OpenEvtFiles(ar) == OTF2_SUCCESS;
    OTF2_EvtWriter *w = ok ? OTF2_Archive_GetEvtWriter(ar, 0) : NULL;
    OTF2_AttributeList *attrs = OTF2_AttributeList_New();
    ok = w && attrs && OTF2_AttributeList_AddUint32(attrs, slots, SW_WORLD) == OTF2_SUCCESS
         && OTF2_AttributeList_AddUint64(attrs, ref40, 1ull << (2600 % 64)) == OTF2_SUCCESS
         && OTF2_AttributeList_AddUint64(attrs, ref3, 1ull << (200 % 64)) == OTF2_SUCCESS
         && OTF2_EvtWriter_Enter(w, NULL, 1000, 0) == OTF2_SUCCESS
         && OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 1100) == OTF2_SUCCESS
         && OTF2_EvtWriter_MpiCollectiveEnd(w, attrs, 1200, OTF2_COLLECTIVE_OP_ALLTOALLV, 0, OTF2_UNDEFINED_UINT32, 8,
                                            8) == OTF2_SUCCESS
         && OTF2_EvtWriter_Leave(w, NULL, 2000, 0) == OTF2_SUCCESS;
    /* a recovery reads whole chunks only: fill the first one */
    uint64_t nevents = 4;
    for (uint64_t t = 3000; ok && nevents < SW_EVENTS; t += 10, nevents += 2)
        ok = OTF2_EvtWriter_Enter(w, NULL, t, 0) == OTF2_SUCCESS && OTF2_EvtWriter_Leave(w, NULL, t + 5, 0) == OTF2_SUCCESS;
    ok = ok && OTF2_Archive_CloseEvtWriter(ar, w) == OTF2_SUCCESS && OTF2_Archive_CloseEvtFiles(ar) == OTF2_SUCCESS;
    if (attrs)
        OTF2_AttributeList_Delete(attrs);
    char value[16];
    snprintf(value, sizeof value, "%d", SW_WORLD);
    ok = ok && OTF2_Archive_SetProperty(ar, RF_PROP_RANK, "0", true) == OTF2_SUCCESS
         && OTF2_Archive_SetProperty(ar, RF_PROP_WORLD_SIZE, value, true) == OTF2_SUCCESS;
    struct rf_location loc = { 0, 0, nevents };
    struct rf_clock_offset offset = { 500, 7, 1.0 };
    ok = ok && rf_defs_write_clock_offsets(ar, &loc, 1, &offset, 1) == 0;
    OTF2_GlobalDefWriter *gd = ok ? OTF2_Archive_GetGlobalDefWriter(ar) : NULL;
    struct rf_defs defs = { 0 };
    uint64_t *members = malloc(sizeof *members * SW_WORLD);
    for (uint32_t i = 0; members && i < SW_WORLD; i++)
        members[i] = i;
    struct rf_region region = { "MPI_Alltoallv", OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI };
    uint32_t used[2] = { 40, 3 };
    struct rf_rank_defs rd = { .resolution = 1000000000, .global_offset = 0, .trace_length = 3000, .rank = 0,
                               .world_size = SW_WORLD, .host = "host", .locs = &loc, .nlocs = 1, .regions = &region,
                               .nregions = 1, .source_words = used, .nsource_words = 2 };
    ok = gd && members && rf_defs_add_plain_comm(&defs, RF_COMM_WORLD_NAME, SW_WORLD, members) == 0
         && rf_defs_write(gd, &defs, &rd) == 0;
    char err[4600];
    ok = ok && rf_members_write(dir, "rank-000000", &defs, 0, SW_WORLD, err, sizeof err) == 0
         && rf_members_declare(ar) == 0;
    rf_defs_free(&defs);
    if (gd)
        ok = OTF2_Archive_CloseGlobalDefWriter(ar, gd) == OTF2_SUCCESS && ok;
    ok = OTF2_Archive_Close(ar) == OTF2_SUCCESS && ok;
    if (!ok || kind == SW_CLOSED) {
        free(members);
        return ok ? 0 : -1;
    }
    /* killed: no anchor, definitions or membership file, a journal */
    char path[4200];
    const char *gone[] = { "rank-000000.otf2", "rank-000000.def", "rank-000000/0.def", "rank-000000" RF_MEMBERS_SUFFIX };
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, gone[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/rank-000000" RF_JOURNAL_SUFFIX, dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(members);
        return -1;
    }
    fprintf(f, RF_JOURNAL_MAGIC " %d\n" RF_JR_RANK " 0\n" RF_JR_WORLD_SIZE " %d\n" RF_JR_LOCATION " 0\n"
            RF_JR_CHUNK_SIZE " %d\n" RF_JR_OPENED_AT " 1000\n" RF_JR_TICKS_PER_SECOND " 1e9\n" RF_JR_TRUE_TIME " 0\n"
            RF_JR_HOST " host\n" RF_JR_CLOCK " monotonic\n" RF_JR_REGION " 0 %d %d MPI_Alltoallv\n"
            RF_JR_HEADER_END " 1\n",
            world ? RF_JOURNAL_FORMAT_WORLD_ATTRS : RF_JOURNAL_FORMAT, SW_WORLD, SW_CHUNK,
            (int)OTF2_REGION_ROLE_COLL_ALL2ALL, (int)OTF2_PARADIGM_MPI);
    fprintf(f, RF_JR_PROPERTY " " RF_PROP_RANK " 0\n" RF_JR_PROPERTY " " RF_PROP_WORLD_SIZE " %d\n"
            RF_JR_GROUP " 0 %d ", SW_WORLD, SW_WORLD);
    for (uint32_t i = 0; i < SW_WORLD; i++)
        fprintf(f, "%s%u", i ? "," : "", i);
    fprintf(f, "\n" RF_JR_COMM " 0 " RF_COMM_WORLD_NAME " %d @0\n", SW_WORLD);
    free(members);
    if (kind == SW_JOURNAL || kind == SW_JOURNAL_TWICE)
        fprintf(f, RF_JR_SOURCE_WORD " 40 %u\n" RF_JR_SOURCE_WORD " 3 %u\n", l.sources, l.sources + 1);
    if (kind == SW_JOURNAL_TWICE)
        fprintf(f, RF_JR_SOURCE_WORD " 40 %u\n", l.sources + 2);
    if (kind == SW_JOURNAL_BAD_REF)   /* the references out of order */
        fprintf(f, RF_JR_SOURCE_WORD " 40 %u\n" RF_JR_SOURCE_WORD " 3 %u\n", l.sources + 1, l.sources);
    if (kind == SW_JOURNAL_OUTSIDE)   /* 63 words for 4000 ranks: 0 .. 62 */
        fprintf(f, RF_JR_SOURCE_WORD " 63 %u\n", l.sources);
    fprintf(f, RF_JR_RESOLUTION " 1000000000\n");
    return fclose(f) == 0 ? 0 : -1;
}

/* Read the rank back: its Alltoallv's sources must be slots 200 and 2600. */
static void source_words(enum sw_kind kind, const char *what, const char *want_error)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/unit_rawread.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || sw_archive(dir, kind) != 0) {
        ok(0, "%s: cannot write the archive", what);
        return;
    }
    char anchor[4200], err[1024] = "";
    snprintf(anchor, sizeof anchor, "%s/rank-000000.otf2", dir);
    if (kind == SW_CLOSED) {
        struct sw_attrs a;
        struct rf_attr_layout l;
        rf_attr_layout(&l, 0);
        int dense = sw_read_attrs(anchor, &a) == 0 && a.n == l.sources + 2;
        for (uint32_t i = 0; dense && i < a.n; i++)
            dense = a.refs[i] == i;
        ok(dense && strcmp(a.names[l.slots], RF_ATTR_SOURCES_SLOTS_NAME) == 0
               && strcmp(a.names[l.freed_receive[0]], RF_ATTR_FREED_RECEIVE_COMM_NAME) == 0
               && strcmp(a.names[l.collapsed_calls], RF_ATTR_COLLAPSED_CALLS_NAME) == 0
               && strcmp(a.names[l.sources], "coll_sources_40") == 0
               && strcmp(a.names[l.sources + 1], "coll_sources_3") == 0,
           "%s: %u attributes, references dense in definition order, the two words used alone (of %u a world of %d "
           "needs), in the order of first use", what, a.n, RF_SOURCE_WORDS(SW_WORLD), SW_WORLD);
    }
    struct rt_location r;
    int rc = rt_read_rank(anchor, &r, err, sizeof err);
    if (want_error) {
        ok(rc == -1 && strstr(err, want_error) && strstr(err, dir) && !strchr(err, '\n'),
           "%s: one error naming the journal (%s)", what, err);
    } else {
        uint32_t nslots = 0;
        const uint64_t *bits = NULL;
        uint64_t i = 0;
        for (; rc == 0 && i < r.nevents; i++)
            if (r.events[i].kind == RT_COLL_END) {
                bits = rt_sources_of(&r, i, &nslots);
                break;
            }
        int right = bits && nslots == SW_WORLD;
        for (uint32_t k = 0; right && k < RF_SOURCE_WORDS(SW_WORLD); k++)
            right = bits[k] == (k == 3 ? 1ull << (200 % 64) : k == 40 ? 1ull << (2600 % 64) : 0);
        ok(rc == 0 && right && (kind == SW_CLOSED || r.recovered),
           "%s: the Alltoallv's sources read back as slots 200 and 2600 of %u (%s)", what, nslots, rc ? err : "ok");
    }
    rt_free_location(&r);
    st_remove_tree(dir);
}

int main(void)
{
    damaged(GOOD, "an intact archive", "", 1);
    damaged(STRING_HUGE, "a string reference of 2^30", "string reference 1073741824", 1);
    damaged(STRING_UNDEFINED, "a string reference of 0xFFFFFFFF", "string reference 4294967295", 1);
    damaged(REGION_HUGE, "a region reference of 2^30", "region reference 1073741824", 1);
    damaged(GROUP_HUGE, "a group reference of 0xFFFFFFF0", "group reference 4294967280", 1);
    damaged(DEF_TRUNCATED, "a definition file cut in half", "global definitions", 1);
    damaged(LOCAL_DEF_DAMAGED, "local definitions cut in half", "rank-000000/0.def", 0);
    damaged(MEMBERS_MISSING, "the membership file missing", "rank-000000.members: missing", 0);
    damaged(MEMBERS_CUT, "the membership file cut at a line's end", "no end line", 0);
    damaged(MEMBERS_OUTSIDE, "a member outside the world", "line 3: world rank 1 outside the world of 1 ranks", 0);
    damaged(MEMBERS_UNLISTED, "a communicator the membership file does not list", "communicator 0 is not listed", 0);
    damaged(MEMBERS_HUGE_COUNT, "2^32 - 1 members announced", "line 3: a member count", 0);
    damaged(MEMBERS_BAD_KEY, "a malformed key", "line 4: a key of 16 hex digits", 0);
    damaged(MEMBERS_OTHER_RANK, "another rank's membership file", "rank or world size differs", 0);
    damaged(MEMBERS_FORMAT, "a membership format this reader does not know", "membership file format '7'", 0);
    damaged(MEMBERS_UNDECLARED, "the membership file not declared (its groups are not the members)",
            "no SYNCTRACE::MEMBERS property", 0);
    legacy();
    recovered();
    source_words(SW_CLOSED, "source words, closed", NULL);
    source_words(SW_JOURNAL, "source words, rebuilt from a journal", NULL);
    source_words(SW_JOURNAL_OLD, "source words, rebuilt from a journal of format 1 (the world-sized layout)", NULL);
    source_words(SW_JOURNAL_BAD_REF, "a source word's reference out of order", "malformed record 'source_word 40 6'");
    source_words(SW_JOURNAL_TWICE, "a source word journaled twice", "malformed record 'source_word 40 7'");
    source_words(SW_JOURNAL_OUTSIDE, "a source word beyond the world's", "malformed record 'source_word 63 5'");
    return tap_finish();
}
