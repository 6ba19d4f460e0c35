/* foreign_raw.h — a foreign OTF2 archive (foreign_defs.h) as a raw trace
 * directory our merge reads: one rank archive per process, written with
 * the tracer's own writers (format/), holding the records the merge
 * models — Enter/Leave, every MPI point-to-point, collective, request,
 * communicator and one-sided record our reader takes (windows, RMA
 * collectives, operations, completions, locks, RmaSync; Score-P's
 * RmaGroupSync of PSCW as our tracer's RmaSync notifications,
 * foreign_pscw.h) — with the archive's raw timestamps, and the
 * ClockOffsets the producer measured as the rank's sync measurements.
 *
 * Everything else (ProgramBegin, OpenMP and thread records, metrics,
 * I/O, ...) stays out: the copy of the archive (otf2copy.h) places those
 * between the merged times of their location's modelled neighbours
 * (foreign_merge.c). Which input event each raw event is, is kept per
 * location (`kept`: input event positions, ascending). A notification
 * has the position of the input event it came from (complete's Enter,
 * wait's RmaGroupSync), after that event's own when it has one: the
 * copy gives an input event the time of the first raw event at its
 * position. */
#ifndef SYNCTRACE_FOREIGN_RAW_H
#define SYNCTRACE_FOREIGN_RAW_H

#include <stddef.h>
#include <stdint.h>
#include "foreign_defs.h"

/* Which input events a location's raw events are: (position, raw time)
 * pairs in work file `file` (fr->kept_fds: one per converting thread), n
 * of them in `bytes` bytes from byte `at`. */
struct fr_kept {
    uint64_t at, n, bytes;
    uint32_t file;
};

/* One location's pairs are read back in order (fr_kept_read): OTF2 event
 * positions (from 1) of its modelled events, ascending (equal for the
 * notifications of one input event), and their raw times. A mark is a
 * place to start from: its byte in the location's pairs and the pair
 * before it (0, 0 before the first). */
struct fr_kept_mark {
    uint64_t at, pos, raw;
};

struct fr_offsets {           /* a process's ClockOffsets, as read */
    uint64_t *time;
    int64_t *offset;
    double *stddev;
    uint32_t n;
};

struct foreign_raw {
    struct foreign_defs defs;
    struct fr_kept *kept;     /* by location index (defs.locs) */
    int *kept_fds;            /* their pairs: nameless files in the work directory, one per thread */
    uint32_t nkept_fds;
    struct fr_offsets *offsets;   /* by rank */
    uint64_t events_in, events_kept;   /* input events read, and of them modelled */
    uint64_t events_added;    /* raw events of no input event of their own: PSCW's RmaSyncs (foreign_pscw.h) */
    uint64_t pscw_unordered;  /* MPI_Win_complete calls not matched to one open access epoch: no NOTIFY_OUT */
    uint8_t *region_calls;    /* by region ref: enum fp_call */
    uint32_t ndomains;        /* clock domains */
    uint32_t *first;          /* a shared conversion's: process p's share begins at processes first[p] */
    uint32_t nplaces;         /* its processes (0: not shared) */
    char kind[32];            /* "Score-P 8.4" or "OTF2 (CREATOR)" */
    char trace_id[40];
};

/* The conversion shared among `processes` processes (mpirun -np K): this
 * one (`place`) converts its share of the archive's processes (contiguous,
 * by declared events: split(), pmerge.h's pm_share), into the same raw
 * trace directory, and leaves in `work` (a directory every process sees)
 * what the others need of it; once every process has converted,
 * fr_gather gives each the whole. */
struct fr_share {
    uint32_t place, processes;
    const char *work;
    void (*split)(const uint64_t *events, uint32_t n, uint32_t processes, uint32_t *first);
};

/* Write the raw trace of the archive of anchor file `anchor` into the
 * (existing, empty) directory `dir`; by_node: one clock domain per node
 * of the system tree (the lowest rank of each), else one per process.
 * `jobs` threads convert processes at once, each with its own reader of
 * the archive; share NULL: every process, else share's. Returns 0, or -1 with a one-line message naming the file
 * (the first failing process's). */
int fr_convert(const char *anchor, const char *dir, int by_node, int jobs, const struct fr_share *share,
               struct foreign_raw *fr, char *err, size_t errlen);
/* With a share, after every process's fr_convert succeeded: fr as one
 * process's conversion has it (every location's pairs, every rank's
 * ClockOffsets, the counts), and (process 0) the raw trace's meta file.
 * 0, or -1 with a one-line message. */
int fr_gather(struct foreign_raw *fr, const char *dir, int by_node, const struct fr_share *share, char *err,
              size_t errlen);
void fr_free(struct foreign_raw *fr);
/* Which of the sharing processes converted input location k (0 when not
 * shared, or k is of no process): the one to copy it. */
uint32_t fr_place_of(const struct foreign_raw *fr, uint32_t k);
/* Location k's marks, one every `every` pairs from its first (malloc'd:
 * ceil(n / every)), its pairs checked to fill exactly its bytes; count
 * pairs from a mark into pos[] and raw[]. 0, or -1 with a one-line
 * message. */
int fr_kept_marks(const struct foreign_raw *fr, uint32_t k, uint64_t every, struct fr_kept_mark **marks,
                  char *err, size_t errlen);
int fr_kept_read(const struct foreign_raw *fr, uint32_t k, const struct fr_kept_mark *mark, uint64_t count,
                 uint64_t *pos, uint64_t *raw, char *err, size_t errlen);

#endif
