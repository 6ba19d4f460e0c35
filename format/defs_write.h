/* defs_write.h — the definitions of one rank's raw archive, as the tracer
 * (src/writer.c), the generator (tools/gen) and the recovery
 * (format/recover.c) write them: one writer, one order, the names and
 * references of rawformat.h.
 *
 * Communicators (their parents, in-neighbours and Cartesian topologies) and
 * RMA windows are collected as they come (the tracer learns them during the
 * run), everything else is given at close: the string table holds their
 * names first, in the order they came, then the rank's own strings.
 *
 * The OTF2 definitions name this rank's own locations only, whatever the
 * world's size (rawformat.h, "Groups"): strings, system tree, locations,
 * regions, attributes (true_time, the collective source slots and the
 * words of them the events carry, the freed receive's, collapsed_calls), the three groups of this rank (its location, itself, SELF),
 * the communicators (each a Comm on one of them, with its parent), the
 * Cartesian dimensions, topologies and coordinates (as Score-P writes
 * them), and the RMA windows. Who the communicators' members are (world
 * ranks, the interned member lists), their keys and in-neighbours go to
 * the membership file beside the archive (members.h: rf_members_write),
 * which every writer writes with the definitions (and declares with
 * rf_members_declare). */
#ifndef SYNCTRACE_DEFS_WRITE_H
#define SYNCTRACE_DEFS_WRITE_H

#include <otf2/otf2.h>
#include <stdint.h>
#include "strtab.h"

/* A member list, interned: every communicator of one list (each
 * MPI_Comm_dup of a parent) shares it, so that a communicator costs the
 * same whatever its size once its members have been seen. */
struct rf_group_def {
    uint64_t hash;
    uint32_t n;
    int self;                 /* MPI_COMM_SELF's: OTF2's COMM_SELF group, no members */
    uint64_t *members;        /* world ranks; OTF2_UNDEFINED_UINT64: another world's */
};

struct rf_comm_def {
    int set;                  /* refs may have gaps (a journal cut short) */
    uint32_t name;            /* string ref: MPI's name ("" for none) */
    int has_key;              /* the key its members agreed on (written as an empty group */
    uint64_t key;             /* named RF_COMM_KEY_FMT) */
    int inter;                /* an intercommunicator: */
    uint32_t local, remote;   /* interned groups: its members (an intercommunicator's local group), */
                              /* an intercommunicator's remote group */
    int has_in;               /* a topology communicator's in-neighbours of this rank: */
    uint32_t nin;
    uint64_t *in;             /* world ranks, in MPI's neighbourhood order */
    uint32_t parent;          /* the communicator it was made from, or OTF2_UNDEFINED_COMM */
    int events;               /* CommCreate/CommDestroy events mark its life on this rank:
                               * written with OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS */
    uint32_t cart_ndims;      /* a Cartesian topology (0: none): its dimensions' */
    uint32_t *cart_sizes;     /* sizes, */
    uint8_t *cart_periodic;   /* periodicity, */
    uint32_t *cart_coords;    /* this rank's coordinates */
    uint32_t cart_rank;       /* and its rank in the communicator */
};

/* A communicator as rf_defs_set_comm takes it. */
struct rf_comm_desc {
    const char *name;         /* MPI's name; NULL: "" */
    int has_key;
    uint64_t key;
    int inter;
    uint32_t local, remote;   /* groups of rf_defs_group (remote: an intercommunicator's) */
};

struct rf_win_def {
    int set;
    uint32_t comm;            /* a communicator reference */
    uint32_t name;            /* string ref ("" until MPI_Win_set_name) */
};

struct rf_defs {
    struct st_strtab strings; /* strings.failed: out of memory once, the definitions are incomplete */
    struct rf_group_def *groups;
    uint32_t ngroups, groups_cap;
    uint32_t *group_slots;    /* open addressing over groups: index + 1, 0 = empty */
    uint32_t ngroup_slots;
    struct rf_comm_def *comms;
    uint32_t ncomms, comms_cap;
    struct rf_win_def *wins;  /* RMA windows by reference */
    uint32_t nwins, wins_cap;
};

/* The string's reference (added when new), or OTF2_UNDEFINED_STRING. */
uint32_t rf_defs_string(struct rf_defs *d, const char *s);
/* The interned group of a member list (`self`: MPI_COMM_SELF's, n is 0;
 * members copied). *added tells whether it is new. Returns its index
 * (groups are numbered densely from 0), or UINT32_MAX when out of memory. */
uint32_t rf_defs_group(struct rf_defs *d, int self, uint32_t n, const uint64_t *members, int *added);
/* Define communicator `ref` (the next one with rf_defs_add_comm). Returns
 * the reference, or OTF2_UNDEFINED_COMM (a group not defined, out of memory). */
uint32_t rf_defs_set_comm(struct rf_defs *d, uint32_t ref, const struct rf_comm_desc *desc);
uint32_t rf_defs_add_comm(struct rf_defs *d, const struct rf_comm_desc *desc);
/* An intracommunicator of `n` members (world ranks), no key: its group
 * interned. Returns the reference, or OTF2_UNDEFINED_COMM. */
uint32_t rf_defs_add_plain_comm(struct rf_defs *d, const char *name, uint32_t n, const uint64_t *members);
/* Name communicator `comm` (MPI_Comm_set_name). Returns 0, or -1. */
int rf_defs_comm_name(struct rf_defs *d, uint32_t comm, const char *name);
/* This rank's in-neighbours on topology communicator `comm` (replacing any
 * before). Takes `in` (malloc'd). Returns 0, or -1 (in freed). */
int rf_defs_comm_neighbours(struct rf_defs *d, uint32_t comm, uint32_t n, uint64_t *in);
/* Communicator `comm` was made from `parent` (both defined, different).
 * Returns 0, or -1 (nothing changed). */
int rf_defs_comm_parent(struct rf_defs *d, uint32_t comm, uint32_t parent);
/* Communicator `comm` (defined) has CommCreate/CommDestroy events: its
 * definition carries OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS. Returns 0, or -1. */
int rf_defs_comm_events(struct rf_defs *d, uint32_t comm);
/* A Cartesian topology on communicator `comm`: `ndims` (1 .. 255)
 * dimensions' sizes and periodicity, this rank's coordinates and rank in
 * it (all copied; replacing any before). Returns 0, or -1 (nothing changed). */
int rf_defs_comm_cart(struct rf_defs *d, uint32_t comm, uint32_t ndims, const uint32_t *sizes,
                      const uint8_t *periodic, const uint32_t *coords, uint32_t rank);
/* Define RMA window `ref` (the next one with rf_defs_add_window) on
 * communicator `comm`, unnamed. Returns the reference, or
 * OTF2_UNDEFINED_RMA_WIN. */
uint32_t rf_defs_set_window(struct rf_defs *d, uint32_t ref, uint32_t comm);
uint32_t rf_defs_add_window(struct rf_defs *d, uint32_t comm);
/* Name window `win` (MPI_Win_set_name). Returns 0, or -1. */
int rf_defs_window_name(struct rf_defs *d, uint32_t win, const char *name);
void rf_defs_free(struct rf_defs *d);

/* A region: the tracer's (its generated MPI table and its own), or a subset
 * of them (the generator's), each with its reference = its index. */
struct rf_region {
    const char *name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
};

/* A location of the archive: thread 0 is the main one (RF_MAIN_THREAD_NAME),
 * N > 0 the N-th other thread ("Thread N"). */
struct rf_location {
    uint64_t id;
    uint32_t thread;
    uint64_t nevents;
};

struct rf_clock_offset {
    uint64_t time;
    int64_t offset;
    double stddev;
};

/* What the global definitions say besides the communicators. */
struct rf_rank_defs {
    uint64_t resolution, global_offset, trace_length;
    int rank, world_size;
    const char *host;
    const struct rf_location *locs;   /* in the order written: the main one last (readers */
    uint32_t nlocs;                   /* that take the last location per rank read it) */
    const struct rf_region *regions;
    uint32_t nregions;
    int true_time;                    /* events carry the true_time attribute */
    /* The coll_sources_<k> words the events carry, in the order of their
     * references (rf_attr_layout: the j-th has sources + j). */
    const uint32_t *source_words;
    uint32_t nsource_words;
    /* The world-sized attribute layout of older tracers instead (rebuilt
     * from a journal of format 1): every word of the world, source_words
     * ignored. */
    int world_attrs;
};

/* A raw archive's attribute references (rawformat.h): dense, in the order
 * they are defined; true_time is OTF2_UNDEFINED_ATTRIBUTE without it. The
 * j-th coll_sources_<k> word has reference sources + j. */
struct rf_attr_layout {
    uint32_t true_time, slots, freed_receive[3], collapsed_calls, sources;
};
void rf_attr_layout(struct rf_attr_layout *l, int true_time);

/* Write the global definitions. Returns 0, or -1 when a record could not
 * be written or memory ran out (every record that could be is written). */
int rf_defs_write(OTF2_GlobalDefWriter *gd, struct rf_defs *d, const struct rf_rank_defs *r);
/* Write the clock offsets as local definitions of each location (all of a
 * rank's threads read its clock): opens and closes the archive's
 * definition files. Returns 0, or -1 when one could not be written. */
int rf_defs_write_clock_offsets(OTF2_Archive *ar, const struct rf_location *locs, uint32_t nlocs,
                                const struct rf_clock_offset *offsets, uint32_t noffsets);

#endif
