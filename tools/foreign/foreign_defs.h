/* foreign_defs.h — what the merge needs to know of an OTF2 archive our
 * tracer did not write (Score-P's, any producer's): its processes and
 * their locations, MPI ranks, communicators as world-rank lists, regions,
 * RMA windows and the nodes of its system tree, read from its global
 * definitions.
 *
 * Who is MPI rank r: the r-th member of the archive's MPI COMM_LOCATIONS
 * group (OTF2's rule: a COMM_GROUP's members and an MPI event's peer are
 * indices into it), the process being that location's location group.
 * Without such a group (no MPI), each process is a rank, in the order of
 * their definitions. Every location of a process reads its clock: its
 * main location is the rank's (the MPI one), the others its threads. */
#ifndef SYNCTRACE_FOREIGN_DEFS_H
#define SYNCTRACE_FOREIGN_DEFS_H

#include <stddef.h>
#include <stdint.h>

#define FD_NONE UINT32_MAX

struct fd_location {
    uint64_t id;
    uint32_t name;            /* string ref */
    uint32_t type;            /* OTF2_LocationType */
    uint64_t nevents;
    uint32_t group;           /* location group ref */
    uint32_t process;         /* index into processes, FD_NONE: none */
    uint32_t thread;          /* 0: the process's main location; k: its k-th other */
};

struct fd_group {
    int defined;
    uint32_t type, paradigm;
    uint32_t n;
    uint64_t *members;
};

struct fd_comm {
    int defined, inter;
    uint32_t name;
    uint32_t group, group_b;  /* group_b: an InterComm's group B */
    uint32_t parent;          /* comm ref, or FD_NONE */
    uint32_t flags;
};

struct fd_lgroup {
    uint32_t name, type, parent;  /* string, OTF2_LocationGroupType, system tree node */
};

struct fd_node {
    uint32_t name, parent;
};

struct fd_region {
    uint32_t name, role, paradigm;
};

struct fd_process {
    uint32_t lgroup;          /* its location group ref */
    int rank;
    uint32_t node;            /* system tree node ref, or FD_NONE */
    uint32_t *locs;           /* indices into locs: the main one first */
    uint32_t nlocs;
};

struct foreign_defs {
    uint64_t resolution, global_offset, trace_length;
    int have_clock;
    char **strings;           /* by ref (NULL: undefined) */
    uint32_t nstrings;
    struct fd_location *locs;
    uint32_t nlocs;
    struct fd_lgroup *lgroups;    /* by location group ref */
    uint32_t nlgroups;
    struct fd_node *nodes;        /* by system tree node ref */
    uint32_t nnodes;
    struct fd_region *regions;
    uint32_t nregions;
    struct fd_group *groups;
    uint32_t ngroups;
    struct fd_comm *comms;
    uint32_t ncomms;
    uint32_t *win_comm;       /* by RMA window ref (FD_NONE: undefined) */
    uint32_t nwins;
    struct fd_process *processes;   /* by rank */
    uint32_t nprocesses;
    uint32_t mpi_group;       /* the MPI COMM_LOCATIONS group, or FD_NONE */
};

/* Read the global definitions of the archive `reader` (an OTF2_Reader
 * opened on `anchor`, which messages name) and work out its ranks.
 * Returns 0, or -1 with a one-line message. */
int fd_read(void *reader, const char *anchor, struct foreign_defs *d, char *err, size_t errlen);
void fd_free(struct foreign_defs *d);

/* A string by reference ("" when undefined). */
const char *fd_string(const struct foreign_defs *d, uint32_t ref);
/* Whether world rank `rank` belongs to communicator `comm`; for an
 * InterComm, *side says which group (0: A, 1: B). */
int fd_comm_has(const struct foreign_defs *d, uint32_t comm, int rank, int *side);

#endif
