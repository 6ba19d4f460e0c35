/* recover.c — see recover.h.
 *
 * The journal (format 2), as src/writer.c writes it: text, one record per
 * line, each line ending in '\n' and written by a single write(2) on an
 * O_APPEND descriptor, so a kill can cut at most the last line, which is
 * then dropped. Fields are separated by one space; string fields have '%',
 * space, control and non-ASCII bytes encoded as %XX, and the empty string
 * is "%00". The header, written at once when the archive is opened:
 *
 *   synctrace-journal 2          always the first line: the format version (1: an
 *                                older tracer's, whose archive has the world-sized
 *                                attribute layout, rawformat.h; still read)
 *   rank R
 *   world_size N
 *   location L                   the OTF2 location id of the thread that opened the
 *                                archive (its events: rank-NNNNNN/L.evt)
 *   chunk_size BYTES             the OTF2 event chunk size
 *   opened_at TICKS              the archive's global offset
 *   ticks_per_second F           the clock's tick rate estimated at MPI_Init
 *   true_time 0|1                events carry the true_time attribute (SYNCTRACE_SKEW)
 *   host HOST
 *   clock NAME
 *   region REF ROLE PARADIGM NAME    one per region, REF 0 .. COUNT-1 (OTF2 enum values)
 *   header_end COUNT             the header is complete
 *
 * then, as they come:
 *
 *   property NAME VALUE          an OTF2 archive property (SYNCTRACE::RUN_ID, ...)
 *   group G N MEMBERS            a member list communicators name as @G
 *   comm REF NAME N MEMBERS [key HEX] [self] [remote NR RMEMBERS]
 *                                a communicator: N world ranks, comma-separated
 *                                in communicator rank order, -1 for a process
 *                                of another world, "-" when N is 0, or @G for
 *                                those of group record G; the key its
 *                                members agree on (16 hex digits; older tracers
 *                                wrote it as NAME); `self`: MPI_COMM_SELF (N is
 *                                0); `remote`: an intercommunicator, MEMBERS its
 *                                local group and RMEMBERS its remote one
 *   comm_name REF NAME           MPI_Comm_set_name gave communicator REF a name
 *   clock_offset TIME OFFSET STDDEV
 *   neighbours REF N LIST        a topology communicator's in-neighbours of this rank
 *   comm_parent REF PARENT       the communicator REF was made from (an intracommunicator's)
 *   comm_events REF              REF has CommCreate/CommDestroy events (its definition's
 *                                CREATE_DESTROY_EVENTS flag); written before its CommCreate
 *   cart REF RANK NDIMS SIZES PERIODIC COORDS
 *                                a Cartesian topology on REF: each list NDIMS numbers,
 *                                comma-separated (PERIODIC 0|1); RANK, this rank's in REF
 *   window REF COMM              an RMA window on communicator COMM (unnamed)
 *   window_name REF NAME         its name (MPI_Win_set_name)
 *   started_at TICKS             MPI_Init's Enter, stamped before opened_at: the
 *                                archive's global offset
 *   resolution TICKS_PER_SECOND  the final calibrated rate (at MPI_Finalize)
 *   source_word K REF            an event carries the attribute coll_sources_<K>
 *                                (K below the world's number of 64-slot words) as
 *                                attribute REF: the next reference of the dense
 *                                layout (rf_attr_layout), so the records come in
 *                                reference order; written before the first such
 *                                event is recorded. Only these words are defined
 *                                (format 2)
 *   location ID                  the location of another thread of the rank
 *                                (MPI_THREAD_SERIALIZED or MULTIPLE), made on its
 *                                first MPI call: ID = N << 32 | rank for the N-th
 *                                (its events: rank-NNNNNN/ID.evt). A journal
 *                                without any (an older tracer's, or a program
 *                                whose other threads never called MPI) has the
 *                                one location of the header.
 *
 * Records of an unknown keyword are skipped (a later tracer may add some
 * without changing the format version). */
#include <config.h>
#include "rawformat.h"
#include "recover.h"
#include "recfile.h"
#include "recfile_read.h"
#include "defs_write.h"
#include "members.h"
#include "fsutil.h"
#include "table.h"

#include <otf2/otf2.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- paths ---------- */

/* ".../rank-NNNNNN.otf2" -> ".../rank-NNNNNN" + suffix. */
static int sibling(const char *anchor, const char *suffix, char *out, size_t len)
{
    size_t n = strlen(anchor);
    size_t ext = strlen(RF_ANCHOR_SUFFIX);
    if (n < ext || strcmp(anchor + n - ext, RF_ANCHOR_SUFFIX) != 0)
        return -1;
    return snprintf(out, len, "%.*s%s", (int)(n - ext), anchor, suffix) < (int)len ? 0 : -1;
}

int rc_anchor_complete(const char *anchor)
{
    struct stat st;
    return stat(anchor, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

int rc_has_journal(const char *anchor)
{
    char path[4200];
    struct stat st;
    return sibling(anchor, RF_JOURNAL_SUFFIX, path, sizeof path) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---------- the journal ---------- */

struct jregion {
    int set, role, paradigm;
    char *name;
};

struct jcomm {
    int set;
    char *name;
    int has_key;              /* "key HEX": the key its members agreed on */
    uint64_t key;
    int self, inter;
    uint32_t n;
    uint64_t *members;
    uint32_t nremote;
    uint64_t *remote;         /* an intercommunicator's remote group */
    int has_in;               /* a "neighbours" record: in-neighbours of a topology communicator */
    uint32_t nin;
    uint64_t *in;
    uint32_t parent;          /* a "comm_parent" record: the communicator it was made from, */
                              /* else OTF2_UNDEFINED_COMM */
    int events;               /* a "comm_events" record: it has CommCreate/CommDestroy events */
    uint32_t cart_ndims;      /* a "cart" record: a Cartesian topology (0: none) */
    uint32_t *cart_sizes;
    uint8_t *cart_periodic;
    uint32_t *cart_coords;
    uint32_t cart_rank;
};

struct jwin {
    int set;
    uint32_t comm;
    char *name;               /* NULL: unnamed */
};

struct jgroup {
    int set;
    uint32_t n;
    uint64_t *members;
};

struct jprop {
    char *name, *value;
};

struct journal {
    int rank, world_size, true_time;
    uint64_t location, chunk_size, opened_at, resolution;
    double ticks_per_second;
    char *host, *clock;
    unsigned have;            /* header fields seen, HAVE_* bits */
    int header_end;
    struct jregion *regions;
    uint32_t nregions, regions_cap;
    struct jcomm *comms;
    uint32_t ncomms, comms_cap;
    struct jwin *wins;
    uint32_t nwins, wins_cap;
    struct jgroup *groups;
    uint32_t ngroups, groups_cap;
    struct jprop *props;
    uint32_t nprops;
    struct rf_clock_offset *offsets;
    uint32_t noffsets;
    uint64_t *threads;        /* the other threads' location ids, in journal order */
    uint32_t nthreads;
    int format;               /* RF_JOURNAL_FORMAT, or RF_JOURNAL_FORMAT_WORLD_ATTRS (an older tracer's) */
    uint32_t *source_words;   /* the source_word records' words, in reference order */
    uint32_t nsource_words;
    uint64_t *source_seen;    /* bit k: word k has a record (RF_SOURCE_WORDS(world_size) bits) */
};

enum {
    HAVE_RANK = 1, HAVE_WORLD = 2, HAVE_LOCATION = 4, HAVE_CHUNK = 8, HAVE_OPENED = 16, HAVE_TPS = 32,
    HAVE_TRUE = 64, HAVE_HOST = 128, HAVE_CLOCK = 256, HAVE_ALL = 511
};

static void jcomm_free_cart(struct jcomm *c)
{
    free(c->cart_sizes);
    free(c->cart_periodic);
    free(c->cart_coords);
    c->cart_sizes = c->cart_coords = NULL;
    c->cart_periodic = NULL;
    c->cart_ndims = 0;
}

static void journal_free(struct journal *j)
{
    free(j->host);
    free(j->clock);
    for (uint32_t i = 0; i < j->nregions; i++)
        free(j->regions[i].name);
    free(j->regions);
    for (uint32_t i = 0; i < j->ncomms; i++) {
        free(j->comms[i].name);
        free(j->comms[i].members);
        free(j->comms[i].remote);
        free(j->comms[i].in);
        jcomm_free_cart(&j->comms[i]);
    }
    free(j->comms);
    for (uint32_t i = 0; i < j->nwins; i++)
        free(j->wins[i].name);
    free(j->wins);
    for (uint32_t i = 0; i < j->ngroups; i++)
        free(j->groups[i].members);
    free(j->groups);
    for (uint32_t i = 0; i < j->nprops; i++) {
        free(j->props[i].name);
        free(j->props[i].value);
    }
    free(j->props);
    free(j->offsets);
    free(j->threads);
    free(j->source_words);
    free(j->source_seen);
    memset(j, 0, sizeof *j);
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode a string field into a new string, or NULL. */
static char *decode(const char *s)
{
    char *out = malloc(strlen(s) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (; *s; s++) {
        if (*s != '%') {
            out[n++] = *s;
            continue;
        }
        int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);
        if (lo < 0) {
            free(out);
            return NULL;
        }
        out[n++] = (char)(hi * 16 + lo);
        s += 2;
    }
    out[n] = '\0';
    return out;   /* "%00" decodes to "" */
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = x;
    return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (*end || errno)
        return -1;
    *out = x;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    int64_t x;
    if (parse_i64(s, &x) != 0 || x < lo || x > hi)
        return -1;
    *out = (int)x;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    *out = strtod(s, &end);
    return *end ? -1 : 0;
}

/* A comm record's members: "-" or N comma-separated world ranks. */
static int parse_members(const char *s, uint32_t n, uint64_t **out)
{
    *out = malloc(sizeof **out * (n ? n : 1));
    if (!*out)
        return -1;
    if (n == 0)
        return strcmp(s, "-") == 0 ? 0 : -1;
    const char *p = s;
    for (uint32_t i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno || (x < -1 && !RF_MEMBER_IS_OUTSIDE((uint64_t)x)) || x > INT_MAX
            || *end != (i + 1 < n ? ',' : '\0'))
            return -1;
        (*out)[i] = x == -1 ? OTF2_UNDEFINED_UINT64 : (uint64_t)x;   /* a process outside the world: as written */
        p = end + 1;
    }
    return 0;
}

/* N unsigned 32-bit numbers, comma-separated, into out[]. */
static int parse_u32_list(const char *s, uint32_t n, uint32_t *out)
{
    const char *p = s;
    for (uint32_t i = 0; i < n; i++) {
        char *end;
        errno = 0;
        if (*p < '0' || *p > '9')
            return -1;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p || errno || x > UINT32_MAX || *end != (i + 1 < n ? ',' : '\0'))
            return -1;
        out[i] = (uint32_t)x;
        p = end + 1;
    }
    return 0;
}

/* cart REF RANK NDIMS SIZES PERIODIC COORDS */
static int parse_cart(struct journal *j, char **f)
{
    uint64_t u, rank, nd;
    if (parse_u64(f[1], &u) != 0 || parse_u64(f[2], &rank) != 0 || parse_u64(f[3], &nd) != 0 || u >= j->ncomms
        || !j->comms[u].set || rank > UINT32_MAX || nd == 0 || nd > RF_CART_MAX_DIMS)
        return -1;
    struct jcomm *c = &j->comms[u];
    jcomm_free_cart(c);
    uint32_t per[RF_CART_MAX_DIMS];
    c->cart_sizes = malloc(sizeof *c->cart_sizes * nd);
    c->cart_periodic = malloc(nd);
    c->cart_coords = malloc(sizeof *c->cart_coords * nd);
    if (!c->cart_sizes || !c->cart_periodic || !c->cart_coords || parse_u32_list(f[4], (uint32_t)nd, c->cart_sizes) != 0
        || parse_u32_list(f[5], (uint32_t)nd, per) != 0 || parse_u32_list(f[6], (uint32_t)nd, c->cart_coords) != 0) {
        jcomm_free_cart(c);
        return -1;
    }
    for (uint64_t q = 0; q < nd; q++) {
        if (per[q] > 1) {
            jcomm_free_cart(c);
            return -1;
        }
        c->cart_periodic[q] = (uint8_t)per[q];
    }
    c->cart_ndims = (uint32_t)nd;
    c->cart_rank = (uint32_t)rank;
    return 0;
}

/* MEMBERS of a comm record: a list, or @G for group record G's. */
static int comm_members(const struct journal *j, const char *s, uint32_t n, uint64_t **out)
{
    if (*s != '@')
        return parse_members(s, n, out);
    uint64_t g;
    if (parse_u64(s + 1, &g) != 0 || g >= j->ngroups || !j->groups[g].set || j->groups[g].n != n)
        return -1;
    *out = malloc(sizeof **out * (n ? n : 1));
    if (!*out)
        return -1;
    if (n)
        memcpy(*out, j->groups[g].members, sizeof **out * n);
    return 0;
}

#define MAX_FIELDS 12

/* "source_word K REF": a word within the world, each once, with the next
 * reference of the dense layout (the tracer gives them in that order). */
static int parse_source_word(struct journal *j, const char *word, const char *ref)
{
    uint32_t words = RF_SOURCE_WORDS(j->world_size);
    uint64_t k, r;
    struct rf_attr_layout l;
    rf_attr_layout(&l, j->true_time);
    if (j->format != RF_JOURNAL_FORMAT || parse_u64(word, &k) != 0 || k >= words || parse_u64(ref, &r) != 0
        || r != (uint64_t)l.sources + j->nsource_words)
        return -1;
    if (!j->source_seen && !(j->source_seen = calloc((words + 63) / 64, sizeof *j->source_seen)))
        return -1;
    if (j->source_seen[k / 64] >> (k % 64) & 1)
        return -1;
    uint32_t *nv = realloc(j->source_words, sizeof *nv * (j->nsource_words + 1));
    if (!nv)
        return -1;
    j->source_words = nv;
    nv[j->nsource_words++] = (uint32_t)k;
    j->source_seen[k / 64] |= (uint64_t)1 << (k % 64);
    return 0;
}

/* The journal's records, one parser each, by phase: the header's
 * (before header_end) and the body's. A parser gets the line's fields
 * f[0..nf) (f[0] the key) and returns 0, or -1 for a malformed record. */
typedef int (*record_parser)(struct journal *j, char **f, int nf);

struct record_kind {
    const char *key;
    int nfields;        /* fields with the key; with at_least, the least */
    int at_least;
    int strict;         /* body records: the wrong number of fields is an error (else skipped) */
    record_parser parse;
};

static int hdr_rank(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_RANK;
    return parse_int(f[1], 0, RF_MAX_RANK, &j->rank);
}

static int hdr_world_size(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_WORLD;
    return parse_int(f[1], 1, RF_MAX_WORLD_SIZE, &j->world_size);
}

static int hdr_location(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_LOCATION;
    return parse_u64(f[1], &j->location);
}

static int hdr_chunk_size(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_CHUNK;
    /* OTF2 accepts 256 KiB .. 16 MiB; the tracer may go lower for small buffers. */
    return parse_u64(f[1], &j->chunk_size) != 0 || j->chunk_size < RF_CHUNK_SIZE_MIN
           || j->chunk_size > RF_CHUNK_SIZE_MAX ? -1 : 0;
}

static int hdr_opened_at(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_OPENED;
    return parse_u64(f[1], &j->opened_at);
}

static int hdr_ticks_per_second(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_TPS;
    return parse_double(f[1], &j->ticks_per_second) != 0 || !(j->ticks_per_second >= 1) ? -1 : 0;
}

static int hdr_true_time(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_TRUE;
    return parse_int(f[1], 0, 1, &j->true_time);
}

static int hdr_host(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_HOST;
    free(j->host);
    return (j->host = decode(f[1])) ? 0 : -1;
}

static int hdr_clock(struct journal *j, char **f, int nf)
{
    (void)nf;
    j->have |= HAVE_CLOCK;
    free(j->clock);
    return (j->clock = decode(f[1])) ? 0 : -1;
}

static int hdr_region(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u;
    int role, paradigm;
    if (parse_u64(f[1], &u) != 0 || parse_int(f[2], 0, 255, &role) != 0 || parse_int(f[3], 0, 255, &paradigm) != 0
        || st_table_ensure((void **)&j->regions, &j->nregions, &j->regions_cap, u, RF_JOURNAL_MAX_REF,
                           sizeof *j->regions) != 0)
        return -1;
    struct jregion *r = &j->regions[u];
    free(r->name);
    r->set = 1;
    r->role = role;
    r->paradigm = paradigm;
    return (r->name = decode(f[4])) ? 0 : -1;
}

static int hdr_end(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u;
    if (parse_u64(f[1], &u) != 0 || u != j->nregions || (j->have & HAVE_ALL) != HAVE_ALL)
        return -1;
    for (uint32_t r = 0; r < j->nregions; r++)
        if (!j->regions[r].set)
            return -1;
    j->header_end = 1;
    return 0;
}

static int rec_property(struct journal *j, char **f, int nf)
{
    (void)nf;
    char *name = decode(f[1]), *value = decode(f[2]);
    struct jprop *nv = name && value ? realloc(j->props, sizeof *nv * (j->nprops + 1)) : NULL;
    if (!nv) {
        free(name);
        free(value);
        return -1;
    }
    j->props = nv;
    nv[j->nprops++] = (struct jprop){ name, value };
    return 0;
}

static int rec_comm(struct journal *j, char **f, int nf)
{
    uint64_t u, n;
    if (parse_u64(f[1], &u) != 0 || parse_u64(f[3], &n) != 0 || n > RF_JOURNAL_MAX_MEMBERS
        || st_table_ensure((void **)&j->comms, &j->ncomms, &j->comms_cap, u, RF_JOURNAL_MAX_REF,
                           sizeof *j->comms) != 0)
        return -1;
    struct jcomm *c = &j->comms[u];
    free(c->name);
    free(c->members);
    free(c->remote);
    c->members = c->remote = NULL;
    jcomm_free_cart(c);
    c->parent = OTF2_UNDEFINED_COMM;
    c->events = 0;
    c->has_key = 0;
    c->key = 0;
    c->self = c->inter = 0;
    c->nremote = 0;
    c->set = 1;
    c->n = (uint32_t)n;
    if (!(c->name = decode(f[2])) || comm_members(j, f[4], c->n, &c->members) != 0)
        return -1;
    for (int i = 5; i < nf;) {   /* optional fields */
        if (strcmp(f[i], RF_JR_COMM_KEY) == 0 && i + 1 < nf && strlen(f[i + 1]) == 16
            && strspn(f[i + 1], "0123456789abcdef") == 16) {
            c->key = strtoull(f[i + 1], NULL, 16);
            c->has_key = 1;
            i += 2;
        } else if (strcmp(f[i], RF_JR_COMM_SELF) == 0 && c->n == 0) {
            c->self = 1;
            i++;
        } else if (strcmp(f[i], RF_JR_COMM_REMOTE) == 0 && i + 2 < nf && !c->inter) {
            if (parse_u64(f[i + 1], &n) != 0 || n > RF_JOURNAL_MAX_MEMBERS)
                return -1;
            c->inter = 1;
            c->nremote = (uint32_t)n;
            if (comm_members(j, f[i + 2], c->nremote, &c->remote) != 0)
                return -1;
            i += 3;
        } else {
            return -1;
        }
    }
    return 0;
}

static int rec_group(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u, n;
    if (parse_u64(f[1], &u) != 0 || parse_u64(f[2], &n) != 0 || n > RF_JOURNAL_MAX_MEMBERS
        || st_table_ensure((void **)&j->groups, &j->ngroups, &j->groups_cap, u, RF_JOURNAL_MAX_REF,
                           sizeof *j->groups) != 0
        || j->groups[u].set)
        return -1;
    j->groups[u].set = 1;
    j->groups[u].n = (uint32_t)n;
    return parse_members(f[3], j->groups[u].n, &j->groups[u].members);
}

/* The communicator a record names: one defined before it, else NULL. */
static struct jcomm *defined_comm(struct journal *j, const char *field)
{
    uint64_t u;
    return parse_u64(field, &u) == 0 && u < j->ncomms && j->comms[u].set ? &j->comms[u] : NULL;
}

static int rec_comm_name(struct journal *j, char **f, int nf)
{
    (void)nf;
    struct jcomm *c = defined_comm(j, f[1]);
    char *name = c ? decode(f[2]) : NULL;
    if (!name)
        return -1;
    free(c->name);
    c->name = name;
    return 0;
}

static int rec_neighbours(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t n;
    struct jcomm *c = defined_comm(j, f[1]);
    if (!c || parse_u64(f[2], &n) != 0 || n > RF_JOURNAL_MAX_MEMBERS || c->has_in)
        return -1;
    c->has_in = 1;
    c->nin = (uint32_t)n;
    return parse_members(f[3], c->nin, &c->in);
}

static int rec_clock_offset(struct journal *j, char **f, int nf)
{
    (void)nf;
    struct rf_clock_offset o;
    if (parse_u64(f[1], &o.time) != 0 || parse_i64(f[2], &o.offset) != 0 || parse_double(f[3], &o.stddev) != 0)
        return -1;
    struct rf_clock_offset *nv = realloc(j->offsets, sizeof *nv * (j->noffsets + 1));
    if (!nv)
        return -1;
    j->offsets = nv;
    nv[j->noffsets++] = o;
    return 0;
}

static int rec_comm_parent(struct journal *j, char **f, int nf)
{
    (void)nf;
    struct jcomm *c = defined_comm(j, f[1]), *p = defined_comm(j, f[2]);
    if (!c || !p || p == c)
        return -1;
    c->parent = (uint32_t)(p - j->comms);
    return 0;
}

static int rec_comm_events(struct journal *j, char **f, int nf)
{
    (void)nf;
    struct jcomm *c = defined_comm(j, f[1]);
    if (!c)
        return -1;
    c->events = 1;
    return 0;
}

static int rec_cart(struct journal *j, char **f, int nf)
{
    (void)nf;
    return parse_cart(j, f);
}

static int rec_window(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u, comm;
    if (parse_u64(f[1], &u) != 0 || parse_u64(f[2], &comm) != 0 || comm > UINT32_MAX
        || st_table_ensure((void **)&j->wins, &j->nwins, &j->wins_cap, u, RF_JOURNAL_MAX_REF, sizeof *j->wins) != 0)
        return -1;
    struct jwin *w = &j->wins[u];
    free(w->name);
    *w = (struct jwin){ 1, (uint32_t)comm, NULL };
    return 0;
}

static int rec_window_name(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u;
    if (parse_u64(f[1], &u) != 0 || u >= j->nwins || !j->wins[u].set)
        return -1;
    free(j->wins[u].name);
    return (j->wins[u].name = decode(f[2])) ? 0 : -1;
}

static int rec_started_at(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u;
    if (parse_u64(f[1], &u) != 0)
        return -1;
    if (u < j->opened_at)
        j->opened_at = u;
    return 0;
}

static int rec_resolution(struct journal *j, char **f, int nf)
{
    (void)nf;
    return parse_u64(f[1], &j->resolution) != 0 || j->resolution == 0 ? -1 : 0;
}

static int rec_source_word(struct journal *j, char **f, int nf)
{
    (void)nf;
    return parse_source_word(j, f[1], f[2]);
}

/* Another thread's location: the rank in the low 32 bits, N >= 1 above, once. */
static int rec_location(struct journal *j, char **f, int nf)
{
    (void)nf;
    uint64_t u;
    if (parse_u64(f[1], &u) != 0 || (u & 0xffffffffu) != (uint64_t)j->rank || (u >> 32) == 0
        || (u >> 32) == 0xffffffffu)
        return -1;
    for (uint32_t i = 0; i < j->nthreads; i++)
        if (j->threads[i] == u)
            return -1;
    uint64_t *nv = j->nthreads < RF_JOURNAL_MAX_THREADS ? realloc(j->threads, sizeof *nv * (j->nthreads + 1)) : NULL;
    if (!nv)
        return -1;
    j->threads = nv;
    nv[j->nthreads++] = u;
    return 0;
}

/* The header's records: any other line (or one with other fields) is
 * skipped, as a later tracer may write more. */
static const struct record_kind header_records[] = {
    { RF_JR_RANK, 2, 0, 0, hdr_rank },
    { RF_JR_WORLD_SIZE, 2, 0, 0, hdr_world_size },
    { RF_JR_LOCATION, 2, 0, 0, hdr_location },
    { RF_JR_CHUNK_SIZE, 2, 0, 0, hdr_chunk_size },
    { RF_JR_OPENED_AT, 2, 0, 0, hdr_opened_at },
    { RF_JR_TICKS_PER_SECOND, 2, 0, 0, hdr_ticks_per_second },
    { RF_JR_TRUE_TIME, 2, 0, 0, hdr_true_time },
    { RF_JR_HOST, 2, 0, 0, hdr_host },
    { RF_JR_CLOCK, 2, 0, 0, hdr_clock },
    { RF_JR_REGION, 5, 0, 0, hdr_region },
    { RF_JR_HEADER_END, 2, 0, 0, hdr_end },
};

/* The body's records: an unknown one is skipped; a strict one with the
 * wrong number of fields is damage. */
static const struct record_kind body_records[] = {
    { RF_JR_PROPERTY, 3, 0, 1, rec_property },
    { RF_JR_COMM, 5, 1, 1, rec_comm },
    { RF_JR_GROUP, 4, 0, 0, rec_group },
    { RF_JR_COMM_NAME, 3, 0, 0, rec_comm_name },
    { RF_JR_NEIGHBOURS, 4, 0, 1, rec_neighbours },
    { RF_JR_CLOCK_OFFSET, 4, 0, 1, rec_clock_offset },
    { RF_JR_COMM_PARENT, 3, 0, 1, rec_comm_parent },
    { RF_JR_COMM_EVENTS, 2, 0, 1, rec_comm_events },
    { RF_JR_CART, 7, 0, 1, rec_cart },
    { RF_JR_WINDOW, 3, 0, 1, rec_window },
    { RF_JR_WINDOW_NAME, 3, 0, 1, rec_window_name },
    { RF_JR_STARTED_AT, 2, 0, 1, rec_started_at },
    { RF_JR_RESOLUTION, 2, 0, 0, rec_resolution },
    { RF_JR_SOURCE_WORD, 3, 0, 1, rec_source_word },
    { RF_JR_LOCATION, 2, 0, 1, rec_location },
};

/* One complete line (without its '\n'). Returns 0, or -1 for a malformed record. */
static int parse_record(struct journal *j, char *line)
{
    char *f[MAX_FIELDS];
    int nf = 0;
    for (char *p = line; nf < MAX_FIELDS;) {
        f[nf++] = p;
        p = strchr(p, ' ');
        if (!p)
            break;
        *p++ = '\0';
    }
    for (int i = nf; i < MAX_FIELDS; i++)
        f[i] = NULL;
    const struct record_kind *kinds = j->header_end ? body_records : header_records;
    size_t nkinds = j->header_end ? sizeof body_records / sizeof body_records[0]
                                  : sizeof header_records / sizeof header_records[0];
    for (size_t k = 0; k < nkinds; k++) {
        if (strcmp(f[0], kinds[k].key) != 0)
            continue;
        if (kinds[k].at_least ? nf >= kinds[k].nfields : nf == kinds[k].nfields)
            return kinds[k].parse(j, f, nf);
        return kinds[k].strict ? -1 : 0;
    }
    return 0;   /* unknown: skipped */
}

static int journal_read(const char *path, struct journal *j, char *err, size_t errlen)
{
    memset(j, 0, sizeof *j);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    for (unsigned long lineno = 1; (len = getline(&line, &cap, f)) > 0; lineno++) {
        if (line[len - 1] != '\n')
            break;   /* the last line, cut short by the kill: dropped */
        line[len - 1] = '\0';
        if (lineno == 1) {
            int format;
            size_t magic = strlen(RF_JOURNAL_MAGIC " ");
            if (strncmp(line, RF_JOURNAL_MAGIC " ", magic) != 0 || parse_int(line + magic, 1, 1000, &format) != 0) {
                snprintf(err, errlen, "%s: not a synctrace recovery journal", path);
                rc = -1;
                break;
            }
            if (format != RF_JOURNAL_FORMAT && format != RF_JOURNAL_FORMAT_WORLD_ATTRS) {
                snprintf(err, errlen, "%s: journal format %d, but this synctrace reads formats %d and %d", path,
                         format, RF_JOURNAL_FORMAT_WORLD_ATTRS, RF_JOURNAL_FORMAT);
                rc = -1;
                break;
            }
            j->format = format;
            continue;
        }
        char *copy = strdup(line);
        if (!copy || parse_record(j, line) != 0) {
            snprintf(err, errlen, "%s: line %lu: malformed record '%.60s'", path, lineno, copy ? copy : "");
            free(copy);
            rc = -1;
            break;
        }
        free(copy);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && !j->header_end) {
        snprintf(err, errlen, "%s: incomplete journal header (the rank was killed while opening its archive)",
                 path);
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc)
        journal_free(j);
    return rc;
}

static const char *journal_property(const struct journal *j, const char *name)
{
    const char *v = NULL;
    for (uint32_t i = 0; i < j->nprops; i++)
        if (strcmp(j->props[i].name, name) == 0)
            v = j->props[i].value;   /* the last one set wins, as in OTF2 */
    return v;
}

/* The run id from DIR/run.meta, for a rank killed before it set its
 * properties; NULL when there is none. */
static char *run_id_from_meta(const char *anchor)
{
    char path[4200];
    snprintf(path, sizeof path, "%s", anchor);
    char *slash = strrchr(path, '/');
    if (slash)
        snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), RF_META_FILE);
    else
        snprintf(path, sizeof path, RF_META_FILE);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char buf[512];
    char *id = NULL;
    while (!id && fgets(buf, sizeof buf, f))
        if (strncmp(buf, RF_META_KEY_RUN_ID " ", strlen(RF_META_KEY_RUN_ID " ")) == 0) {
            buf[strcspn(buf, "\n")] = '\0';
            id = strdup(buf + strlen(RF_META_KEY_RUN_ID " "));
        }
    fclose(f);
    return id;
}

/* ---------- writing the rebuilt archive ---------- */

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    (void)user; (void)type; (void)loc; (void)caller; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user; (void)type; (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = { pre_flush, post_flush };

#define CHECK(call) do { if ((call) != OTF2_SUCCESS) ok = 0; } while (0)

/* The global definitions as the tracer writes them (format/defs_write.h),
 * with each location's number of events counted in its chunk headers
 * (locs[0] is the main one) and the trace length 0 (not known before the
 * events are read), and the membership file DIR/NAME.members beside them.
 * Takes the journal's communicators. Returns 1 when every record was
 * written. */
static int write_global_defs(OTF2_GlobalDefWriter *gd, const char *dir, const char *name, struct journal *j,
                             uint64_t resolution, const struct rf_location *order, uint32_t nlocs)
{
    struct rf_defs defs = { 0 };
    struct rf_region *regions = malloc(sizeof *regions * (j->nregions ? j->nregions : 1));
    int ok = regions != NULL;
    for (uint32_t c = 0; ok && c < j->ncomms; c++) {
        struct jcomm *d = &j->comms[c];
        if (!d->set)
            continue;
        /* member lists interned as the tracer interns them; an older
         * tracer's journal has no key (its name was the key) */
        int added;
        struct rf_comm_desc desc = {
            .name = d->name, .has_key = d->has_key, .key = d->key, .inter = d->inter,
            .local = rf_defs_group(&defs, d->self, d->n, d->members, &added),
        };
        desc.remote = d->inter ? rf_defs_group(&defs, 0, d->nremote, d->remote, &added) : 0;
        ok = desc.local != UINT32_MAX && desc.remote != UINT32_MAX && rf_defs_set_comm(&defs, c, &desc) == c;
        if (ok && d->has_in) {
            ok = rf_defs_comm_neighbours(&defs, c, d->nin, d->in) == 0;
            d->in = NULL;
        }
    }
    for (uint32_t c = 0; ok && c < j->ncomms; c++) {
        const struct jcomm *d = &j->comms[c];
        if (!d->set)
            continue;
        /* a parent or topology the definitions refuse (e.g. of an undefined
         * communicator) was refused by the tracer too: left out */
        if (d->parent != OTF2_UNDEFINED_COMM)
            rf_defs_comm_parent(&defs, c, d->parent);
        if (d->events)
            rf_defs_comm_events(&defs, c);
        if (d->cart_ndims)
            rf_defs_comm_cart(&defs, c, d->cart_ndims, d->cart_sizes, d->cart_periodic, d->cart_coords, d->cart_rank);
    }
    for (uint32_t w = 0; ok && w < j->nwins; w++) {
        if (!j->wins[w].set)
            continue;
        ok = rf_defs_set_window(&defs, w, j->wins[w].comm) == w
             && (!j->wins[w].name || rf_defs_window_name(&defs, w, j->wins[w].name) == 0);
    }
    for (uint32_t r = 0; ok && r < j->nregions; r++)
        regions[r] = (struct rf_region){ j->regions[r].name, (OTF2_RegionRole)j->regions[r].role,
                                         (OTF2_Paradigm)j->regions[r].paradigm };
    struct rf_rank_defs rd = {
        .resolution = resolution, .global_offset = j->opened_at, .trace_length = 0,
        .rank = j->rank, .world_size = j->world_size, .host = j->host,
        .locs = order, .nlocs = nlocs, .regions = regions, .nregions = j->nregions, .true_time = j->true_time,
        /* an older tracer's events carry the world-sized layout's references */
        .source_words = j->source_words, .nsource_words = j->nsource_words,
        .world_attrs = j->format == RF_JOURNAL_FORMAT_WORLD_ATTRS,
    };
    char err[4600];
    ok = ok && rf_defs_write(gd, &defs, &rd) == 0
         && rf_members_write(dir, name, &defs, j->rank, j->world_size, err, sizeof err) == 0;
    rf_defs_free(&defs);
    free(regions);
    return ok;
}

static int write_archive(const char *dir, const char *name, struct journal *j, const char *run_id,
                         const struct rc_location *locs, uint32_t nlocs)
{
    OTF2_Archive *ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, j->chunk_size, RF_DEF_CHUNK_SIZE,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return 0;
    int ok = 1;
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CHECK(OTF2_Archive_SetCreator(ar, "synctrace " PACKAGE_VERSION " (recovered from the journal)"));
    /* The tracer's properties; those it had no time to set, from the header. */
    char v[64];
    const char *fallback[][2] = { { RF_PROP_RANK, NULL }, { RF_PROP_WORLD_SIZE, NULL },
                                  { RF_PROP_HOST, j->host }, { RF_PROP_CLOCK, j->clock },
                                  { RF_PROP_RUN_ID, run_id } };
    for (size_t i = 0; i < sizeof fallback / sizeof fallback[0]; i++) {
        const char *value = fallback[i][1];
        if (journal_property(j, fallback[i][0]))
            continue;
        if (i < 2) {
            snprintf(v, sizeof v, "%d", i == 0 ? j->rank : j->world_size);
            value = v;
        }
        if (value)
            CHECK(OTF2_Archive_SetProperty(ar, fallback[i][0], value, true));
    }
    for (uint32_t i = 0; i < j->nprops; i++)
        CHECK(OTF2_Archive_SetProperty(ar, j->props[i].name, j->props[i].value, true));
    CHECK(OTF2_Archive_SetProperty(ar, RF_PROP_RECOVERED, "true", true));
    if (rf_members_declare(ar) != 0)
        ok = 0;

    /* The locations as the tracer orders them, the main one (locs[0]) last;
     * the N-th other thread has id N << 32 | rank. */
    struct rf_location *order = malloc(sizeof *order * nlocs);
    if (!order) {
        OTF2_Archive_Close(ar);
        return 0;
    }
    for (uint32_t k = 1; k < nlocs; k++)
        order[k - 1] = (struct rf_location){ locs[k].id, (uint32_t)(locs[k].id >> 32), locs[k].events };
    order[nlocs - 1] = (struct rf_location){ locs[0].id, 0, locs[0].events };
    /* Clock offsets are local definitions of each location, as at close:
     * all threads read the rank's clock. */
    if (rf_defs_write_clock_offsets(ar, order, nlocs, j->offsets, j->noffsets) != 0)
        ok = 0;
    uint64_t resolution = j->resolution ? j->resolution : (uint64_t)(j->ticks_per_second + 0.5);
    OTF2_GlobalDefWriter *gd = OTF2_Archive_GetGlobalDefWriter(ar);
    if (gd) {
        if (!write_global_defs(gd, dir, name, j, resolution, order, nlocs))
            ok = 0;
        CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, gd));
    } else {
        ok = 0;
    }
    CHECK(OTF2_Archive_Close(ar));
    free(order);
    return ok;
}

/* ---------- the event file ---------- */

/* OTF2 writes event chunks whole, each starting with an 18-byte header:
 * OTF2_BUFFER_CHUNK_HEADER (3), the endianness (0x23 big, 0x42 little),
 * then the numbers of its first and last event as full uint64 (the last
 * one filled in when the chunk is complete). Count the chunks that are
 * whole and consistent (each one continues the numbering of the one
 * before) and the events in them. */
#define CHUNK_HEADER_SIZE 18

static int scan_chunks(const char *evt, uint64_t chunk_size, uint64_t size, uint64_t *chunks, uint64_t *events)
{
    *chunks = *events = 0;
    int fd = open(evt, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (uint64_t k = 0; (k + 1) * chunk_size <= size; k++) {
        unsigned char h[CHUNK_HEADER_SIZE];
        if (pread(fd, h, sizeof h, (off_t)(k * chunk_size)) != (ssize_t)sizeof h || h[0] != 3
            || (h[1] != 0x23 && h[1] != 0x42))
            break;
        uint64_t first = 0, last = 0;
        for (int i = 0; i < 8; i++) {
            int b = h[1] == 0x42 ? 7 - i : i;   /* most significant byte first */
            first = first << 8 | h[2 + b];
            last = last << 8 | h[10 + b];
        }
        if (first != *events + 1 || last + 1 < first)
            break;
        *events = last;
        *chunks = k + 1;
    }
    close(fd);
    return 0;
}

/* Copy the first `bytes` of src to dst (a new file). */
static int copy_prefix(const char *src, const char *dst, uint64_t bytes)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return -1;
    }
    /* In the kernel first (a reflink where the file system has them: a
     * killed rank's event file may be gigabytes), else through a buffer. */
    while (bytes > 0) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, bytes < ((uint64_t)1 << 30) ? (size_t)bytes : (size_t)1 << 30, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        bytes -= (uint64_t)n;
    }
    static char buf[1 << 16];
    int rc = 0;
    while (bytes > 0) {
        ssize_t n = read(in, buf, bytes < sizeof buf ? (size_t)bytes : sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = -1;
                break;
            }
            done += w;
        }
        if (rc)
            break;
        bytes -= (uint64_t)n;
    }
    close(in);
    if (close(out) != 0)
        rc = -1;
    return rc;
}

/* ---------- rebuilding ---------- */

/* What one location's event file BASE/ID.evt holds: 0, or -1 with a
 * message when it cannot be read. No file, or an empty one (killed before
 * that location's first flush), is no chunk. */
static int scan_location(const char *anchor, const char *base, uint64_t chunk_size, struct rc_location *l, char *err,
                         size_t errlen)
{
    char evt[4400];
    snprintf(evt, sizeof evt, "%s/%llu" RF_EVT_SUFFIX, base, (unsigned long long)l->id);
    struct stat st;
    if (stat(evt, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 0;
    l->evt_bytes = (uint64_t)st.st_size;
    if (scan_chunks(evt, chunk_size, l->evt_bytes, &l->chunks, &l->events) != 0) {
        snprintf(err, errlen, "%s: %s: %s", anchor, evt, strerror(errno));
        return -1;
    }
    l->evt_used = l->chunks * chunk_size;
    return 0;
}

/* Put BASE/ID.evt into the rebuilt archive's directory SUB. A symbolic
 * link to the original leaves even its metadata alone (a hard link would
 * change its link count and ctime); a copy of the whole chunks when a link
 * is not possible. */
static int place_events(const char *base, const char *sub, const struct rc_location *l)
{
    char evt[4400], copy[4400];
    snprintf(evt, sizeof evt, "%s/%llu" RF_EVT_SUFFIX, base, (unsigned long long)l->id);
    snprintf(copy, sizeof copy, "%s/%llu" RF_EVT_SUFFIX, sub, (unsigned long long)l->id);
    char *abs = realpath(evt, NULL);
    int ok = abs && symlink(abs, copy) == 0;
    free(abs);
    return ok || copy_prefix(evt, copy, l->evt_used) == 0 ? 0 : -1;
}

/* The attribute references of the rank's events, as its tracer had them:
 * the fixed layout, and each collective source word's from the journal. */
static _Atomic uint32_t *source_refs(const struct journal *j, struct rf_attr_layout *l)
{
    rf_attr_layout(l, j->true_time);
    _Atomic uint32_t *ref = calloc(ST_REC_MAX_WORDS, sizeof *ref);
    for (uint32_t i = 0; ref && i < j->nsource_words; i++)
        if (j->source_words[i] < ST_REC_MAX_WORDS)
            atomic_store(&ref[j->source_words[i]], l->sources + i);
    return ref;
}

/* How many events l's records add to its event file (l->from_records),
 * and, the first time some cannot be used, why (out->records_note). */
static void count_pending(const struct rf_records *rec, const struct journal *j, const char *records_path,
                          struct rc_location *l, struct rc_archive *out)
{
    const char *why = NULL;
    l->from_records = rf_records_replay(rec, l->id, l->events, j->true_time, NULL, NULL, &why);
    if (why && !out->records_note[0])
        snprintf(out->records_note, sizeof out->records_note, "%s: location %llu: %s", records_path,
                 (unsigned long long)l->id, why);
}

/* The event file of l in DIR (DIR/ID.evt.records): the whole chunks of
 * BASE/ID.evt, then the events of its records that continue them. 0, or
 * -1 (errno set). */
static int replay_location(const char *base, const char *dir, const struct journal *j, const struct rf_records *rec,
                           const struct st_convert_refs *refs, struct rc_location *l)
{
    char evt[4400], out[4400];
    snprintf(evt, sizeof evt, "%s/%llu" RF_EVT_SUFFIX, base, (unsigned long long)l->id);
    snprintf(out, sizeof out, "%s/%llu" RF_EVT_SUFFIX RF_RECORDS_SUFFIX, dir, (unsigned long long)l->id);
    int fd;
    if (l->chunks ? copy_prefix(evt, out, l->evt_used) != 0
                  : (fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0 || close(fd) != 0)
        return -1;
    struct st_evtfile f;
    if (st_evt_resume(&f, out, j->chunk_size, l->chunks, l->events) != 0)
        return -1;
    uint64_t added = rf_records_replay(rec, l->id, l->events, j->true_time, &f, refs, NULL);
    int rc = st_evt_close(&f);
    if (rc != 0) {
        errno = f.error ? f.error : EIO;
        return -1;
    }
    l->from_records = added;
    l->events = f.nwritten;
    l->chunks = f.offset / j->chunk_size + (f.offset % j->chunk_size != 0);
    l->evt_used = f.offset;
    l->replayed = 1;
    return 0;
}

/* Put l's event file into SUB: the replayed one from DIR, or the original. */
static int place_location(const char *base, const char *dir, const char *sub, const struct rc_location *l)
{
    if (!l->replayed)
        return place_events(base, sub, l);
    char from[4400], to[4400];
    snprintf(from, sizeof from, "%s/%llu" RF_EVT_SUFFIX RF_RECORDS_SUFFIX, dir, (unsigned long long)l->id);
    snprintf(to, sizeof to, "%s/%llu" RF_EVT_SUFFIX, sub, (unsigned long long)l->id);
    return rename(from, to);
}

int rc_rebuild(const char *anchor, struct rc_archive *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char journal_path[4200], records_path[4200], base[4200];
    char name[32];   /* "rank-NNNNNN", the archive's name */
    const char *slash = NULL;
    if (sibling(anchor, RF_JOURNAL_SUFFIX, journal_path, sizeof journal_path) != 0
        || sibling(anchor, RF_RECORDS_SUFFIX, records_path, sizeof records_path) != 0
        || sibling(anchor, "", base, sizeof base) != 0
        || strlen((slash = strrchr(base, '/')) ? slash + 1 : base) >= sizeof name) {
        snprintf(err, errlen, "%s: not a rank archive name (rank-NNNNNN.otf2)", anchor);
        return -1;
    }
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : base);
    struct journal j;
    if (journal_read(journal_path, &j, err, errlen) != 0)
        return -1;
    struct rf_records rec;
    _Atomic uint32_t *refs_of_words = NULL;
    struct rf_attr_layout layout;
    out->chunk_size = j.chunk_size;
    if (!(out->locs = calloc((size_t)j.nthreads + 1, sizeof *out->locs))) {
        snprintf(err, errlen, "%s: out of memory", anchor);
        memset(&rec, 0, sizeof rec);
        goto fail;
    }
    /* The records its tracer had not yet written out as events (a tracer
     * with SYNCTRACE_KILL_SAFE=1, the default). A damaged file costs those
     * records, not the rank. */
    char rec_err[4600];
    int records = rf_records_open(records_path, &rec, rec_err, sizeof rec_err);
    out->records_file = records != 1;
    if (records < 0)
        snprintf(out->records_note, sizeof out->records_note, "%s", rec_err);

    /* The main location, then each thread's that has events: a thread
     * killed before its first record left nothing to read. */
    out->locs[0].id = j.location;
    out->nlocs = 1;
    int failed = scan_location(anchor, base, j.chunk_size, &out->locs[0], err, errlen);
    if (!failed && records == 0)
        count_pending(&rec, &j, records_path, &out->locs[0], out);
    for (uint32_t i = 0; !failed && i < j.nthreads; i++) {
        struct rc_location *l = &out->locs[out->nlocs];
        l->id = j.threads[i];
        failed = scan_location(anchor, base, j.chunk_size, l, err, errlen);
        if (!failed && records == 0)
            count_pending(&rec, &j, records_path, l, out);
        if (!failed && (l->events > 0 || l->from_records > 0))
            out->nlocs++;
        else
            memset(l, 0, sizeof *l);
    }
    /* No whole chunk anywhere (killed before its first buffer flush): the
     * archive is rebuilt all the same, a rank without events, so that the
     * merge keeps the other ranks. */
    if (failed)
        goto fail;

    if (snprintf(out->dir, sizeof out->dir, "%s/synctrace-recover.XXXXXX", st_temp_dir())
            >= (int)sizeof out->dir) {
        errno = ENAMETOOLONG;
        snprintf(err, errlen, "%s: cannot make a temporary directory for the recovered archive: TMPDIR: %s", anchor,
                 strerror(errno));
        out->dir[0] = '\0';
        goto fail;
    }
    if (!mkdtemp(out->dir)) {
        snprintf(err, errlen, "%s: cannot make a temporary directory for the recovered archive: %s", out->dir,
                 strerror(errno));
        out->dir[0] = '\0';
        goto fail;
    }
    /* Each location's records continue its event file: replayed into a
     * new one here, before the definitions, which declare its events. */
    if (records == 0) {
        if (!(refs_of_words = source_refs(&j, &layout))) {
            snprintf(err, errlen, "%s: out of memory", anchor);
            st_remove_tree(out->dir);
            out->dir[0] = '\0';
            goto fail;
        }
        const struct st_convert_refs refs = { &layout, refs_of_words };
        for (uint32_t k = 0; k < out->nlocs; k++) {
            struct rc_location *l = &out->locs[k];
            if (!l->from_records)
                continue;
            if (replay_location(base, out->dir, &j, &rec, &refs, l) != 0) {
                snprintf(err, errlen, "%s: cannot write the recovered events of location %llu in %s: %s", anchor,
                         (unsigned long long)l->id, out->dir, strerror(errno));
                st_remove_tree(out->dir);
                out->dir[0] = '\0';
                goto fail;
            }
            out->from_records += l->from_records;
        }
    }
    for (uint32_t k = 0; k < out->nlocs; k++)
        out->events += out->locs[k].events;
    snprintf(out->anchor, sizeof out->anchor, "%s/%s" RF_ANCHOR_SUFFIX, out->dir, name);
    char *meta_id = journal_property(&j, RF_PROP_RUN_ID) ? NULL : run_id_from_meta(anchor);
    int ok = write_archive(out->dir, name, &j, meta_id, out->locs, out->nlocs);
    free(meta_id);
    char sub[4300];
    snprintf(sub, sizeof sub, "%s/%s", out->dir, name);
    if (ok && mkdir(sub, 0755) != 0 && errno != EEXIST)
        ok = 0;
    for (uint32_t k = 0; ok && k < out->nlocs; k++)
        if (out->locs[k].events > 0)   /* the main one may have none */
            ok = place_location(base, out->dir, sub, &out->locs[k]) == 0;
    if (!ok) {
        snprintf(err, errlen, "%s: cannot write the recovered archive in %s", anchor, out->dir);
        st_remove_tree(out->dir);   /* made by mkdtemp: all ours */
        out->dir[0] = '\0';
        goto fail;
    }
    free(refs_of_words);
    rf_records_close(&rec);
    journal_free(&j);
    return 0;
fail:
    free(refs_of_words);
    rf_records_close(&rec);
    free(out->locs);
    out->locs = NULL;
    out->nlocs = 0;
    journal_free(&j);
    return -1;
}

void rc_remove(struct rc_archive *a)
{
    if (a->dir[0]) {
        st_remove_tree(a->dir);   /* made by mkdtemp: all ours (event files are links: not followed) */
        a->dir[0] = '\0';
    }
    free(a->locs);
    a->locs = NULL;
    a->nlocs = 0;
}
