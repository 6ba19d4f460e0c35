/* defs_read.h — the one reader of an OTF2 archive's definitions (a rank's
 * raw archive, or a merged one): global definitions into plain tables, and
 * a location's clock offsets, with one set of limits.
 *
 * A definition table is indexed by reference, so a reference is only
 * accepted when the definition file could hold that many records: it is
 * below the file's size in bytes (each record takes more than one). A
 * corrupt reference (0xFF.. is OTF2's "undefined") is then an error, never
 * an allocation as large as the reference. Names are resolved when the
 * record that uses them is read. A definition file that does not end with
 * OTF2's end-of-file record (cut short) is not given to OTF2, whose reader
 * can then read past its buffer or loop.
 *
 * A raw archive with a membership file (property RF_PROP_MEMBERS;
 * format/members.h) has its communicators' members, keys and
 * in-neighbours read from it, every line checked (sizes against the file,
 * world ranks against the world's size); one without (older tracers, or a
 * merged archive) has them read from its groups. Either way the tables
 * below hold the same. */
#ifndef SYNCTRACE_DEFS_READ_H
#define SYNCTRACE_DEFS_READ_H

#include <stddef.h>
#include <stdint.h>

struct rf_read_group {
    char *name;               /* NULL: not defined */
    uint64_t *members;
    uint32_t n;
    int self;                 /* OTF2's COMM_SELF group: no members, each rank's own */
};

struct rf_read_comm {
    char *name;               /* NULL: not defined */
    int has_group;            /* its group was defined before it: */
    uint64_t *members;        /* the group's members, copied (an InterComm's group A, its local one) */
    uint32_t nmembers;
    int self;                 /* its group is a COMM_SELF group (MPI_COMM_SELF): no members */
    int inter;                /* an InterComm: */
    uint64_t *remote;         /* its group B (the remote one), copied */
    uint32_t nremote;
    int has_key;              /* the key its members agreed on: an empty group named */
    uint64_t key;             /* RF_COMM_KEY_FMT, or (archives recovered before) its own group's name */
    uint32_t parent;          /* the communicator it was made from, or OTF2_UNDEFINED_COMM */
    int has_in;               /* a topology communicator: this rank's in-neighbours (world ranks) */
    uint32_t nin;
    uint64_t *in;
    int events;               /* flagged CREATE_DESTROY_EVENTS: CommCreate/CommDestroy events mark its life */
    uint32_t cart_ndims;      /* a Cartesian topology (0: none): its dimensions' */
    uint32_t *cart_sizes;     /* sizes, */
    uint8_t *cart_periodic;   /* periodicity (0/1), */
    int has_cart_coords;      /* and this rank's place in it (a merged archive: the first member's): */
    uint32_t cart_rank;       /* its rank in the communicator, */
    uint32_t *cart_coords;    /* its coordinates */
};

struct rf_read_win {
    char *name;               /* NULL: not defined */
    uint32_t comm;
};

struct rf_read_cart_dim {
    int set;
    uint32_t size;
    uint8_t periodic;
};

struct rf_read_attr {
    uint32_t ref;
    int type;                 /* OTF2_Type */
    char *name;
};

struct rf_read_location {
    uint64_t id, nevents;
    char *name;
    uint32_t group;           /* its location group (OTF2_LocationGroupRef) */
};

struct rf_read_defs {
    uint32_t limit;           /* references must be below it */
    char **strings;           /* by reference; NULL: not defined */
    uint32_t nstrings, strings_cap;
    int have_clock;
    uint64_t resolution, global_offset, trace_length;
    char **regions;           /* region names by reference; NULL: not defined */
    uint32_t nregions, regions_cap;
    uint8_t *region_roles;    /* OTF2_RegionRole by region reference */
    uint32_t nregion_roles, region_roles_cap;
    struct rf_read_group *groups;
    uint32_t ngroups, groups_cap;
    struct rf_read_comm *comms;
    uint32_t ncomms, comms_cap;
    struct rf_read_win *wins; /* RMA windows by reference */
    uint32_t nwins, wins_cap;
    struct rf_read_cart_dim *cart_dims;   /* by reference; a topology's are defined before it */
    uint32_t ncart_dims, cart_dims_cap;
    uint32_t *topo_comm;      /* Cartesian topology reference -> communicator + 1 (0: not defined) */
    uint32_t ntopos, topos_cap;
    struct rf_read_location *locs;   /* in definition order */
    uint32_t nlocs, locs_cap;
    char **location_groups;   /* location group names by reference; NULL: not defined */
    uint32_t nlocation_groups, location_groups_cap;
    struct rf_read_attr *attrs;   /* every attribute, in definition order */
    uint32_t nattrs, attrs_cap;
    int have_true_time;       /* an attribute RF_ATTR_TRUE_TIME_NAME of type uint64: */
    uint32_t true_time;       /* its reference */
    int have_freed_receive;   /* bit k: freed_receive[k] is defined (7: all three) */
    uint32_t freed_receive[3];   /* RF_ATTR_FREED_RECEIVE_{COMM,SOURCE,TAG}_NAME's references */
    int have_collapsed_calls; /* an attribute RF_ATTR_COLLAPSED_CALLS_NAME of type uint64: */
    uint32_t collapsed_calls; /* its reference */
    char problem[160];        /* what was wrong, when reading failed */
};

/* Read the global definitions of the archive open in `reader` (an
 * OTF2_Reader *) whose anchor file is `anchor` (and its membership file
 * beside it, when it has one). Returns 0, or -1 with a
 * one-line message naming `name` (the anchor, or the original of a
 * rebuilt one). On failure *d is freed. */
int rf_read_global_defs(void *reader, const char *anchor, const char *name, struct rf_read_defs *d, char *err,
                        size_t errlen);
void rf_read_defs_free(struct rf_read_defs *d);
/* A string by reference; "" when not defined. */
const char *rf_read_string(const struct rf_read_defs *d, uint32_t ref);
/* A location group's name by reference; NULL when not defined. */
const char *rf_read_location_group(const struct rf_read_defs *d, uint32_t group);

struct rf_read_offset {
    uint64_t time;
    int64_t offset;
    double stddev;
};

/* Read the clock offsets of `location` (local definitions; the reader's
 * definition files must be open) of the archive of `anchor`. Returns 0
 * with *out (malloc'd, or NULL when there are none) and *n, or -1 with a
 * one-line message naming the local definition file of the archive `name`. */
int rf_read_clock_offsets(void *reader, const char *anchor, uint64_t location, const char *name,
                          struct rf_read_offset **out, uint32_t *n, char *err, size_t errlen);

#endif
