/* waits.h — `synctrace waits`: Scalasca's MPI wait-state patterns on a
 * merged archive, every figure with the interval the clock bounds leave
 * for it. The stages, one file each: waits_bounds (the clocks' bounds from
 * OUT/report.json), waits_read (the events, location by location by
 * --jobs threads, into compact records, sorted in bounded memory by
 * waits_sorted, or kept: waits_epochs the MPI_Win_post/start/complete/wait
 * epochs among them), waits_p2p, waits_coll and waits_pscw (the pattern
 * rules, on the sorted streams; waits_spool holds what p2p counts later),
 * waits_out (the totals, waits.json and the table), waits_cmd (the
 * command line). */
#ifndef SYNCTRACE_WAITS_H
#define SYNCTRACE_WAITS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mt_comm;

/* One moment on three time bases: merged (ns), true (the true_time
 * attribute; NAN without) and raw (rawview.map: as today's tools show it;
 * NAN without the map). */
struct wt_moment {
    double g, t, r;
};

/* A difference of two moments (later - earlier) on each base, with the
 * interval [lo, hi] the clock bounds leave for its true value. */
struct wt_diff {
    double w, lo, hi, t, r;
};

/* Per world rank: the true time of an event at merged time g lies in
 * [g + clo, g + chi]; ranks on one known clock (domain >= 0) share their
 * error exactly. */
struct wt_clock {
    double clo, chi;
    int64_t domain;           /* -1: not known which of several clocks */
};

/* Where the latest wt_diff_of's earlier moment was: in every rule the
 * waiting rank's entry, the same for all the differences a rule combines
 * before its wt_add, so the wait spans [from, from + w] there. */
struct wt_probe {
    double from;              /* merged ns */
    uint32_t rank;
};

struct wt_bounds {
    uint32_t nranks;
    struct wt_probe *probe;   /* NULL, or filled by every wt_diff_of (waits_instances.c reads it) */
    struct wt_clock *rank;
    double widest_ns;         /* the widest rank interval chi - clo */
    double repair_ns;         /* widened by the repair's largest move */
    double rate;              /* merged time runs at the reference clock's rate, which may be this far
                               * (a fraction) from true time's: every interval's bounds widen by it */
    int have;                 /* 0: no report.json: every wait unbounded */
};

int wt_bounds_read(const char *outdir, uint32_t nranks, struct wt_bounds *b, char *err, size_t errlen);
void wt_bounds_free(struct wt_bounds *b);
/* later (on rank b) - earlier (on rank a) */
struct wt_diff wt_diff_of(const struct wt_bounds *bd, const struct wt_moment *earlier, uint32_t a,
                          const struct wt_moment *later, uint32_t b);
void wt_diff_max(struct wt_diff *acc, const struct wt_diff *d);   /* elementwise */
void wt_diff_min(struct wt_diff *acc, const struct wt_diff *d);

enum wt_pattern {
    WT_LATE_SENDER, WT_LATE_SENDER_WRONG_ORDER, WT_LATE_RECEIVER, WT_WAIT_BARRIER, WT_WAIT_NXN,
    WT_LATE_BROADCAST, WT_LATE_SCATTER, WT_EARLY_REDUCE, WT_EARLY_GATHER, WT_EARLY_SCAN, WT_WAIT_FENCE,
    WT_LATE_POST, WT_EARLY_WAIT, WT_LATE_COMPLETE, WT_PATTERNS
};
const char *wt_pattern_name(enum wt_pattern p);

/* The records the rules need, read from the archive. */
/* Sends and receives as sorted: a moment's raw time (r) is at the end of
 * the record, which stops before it without --raw (WT_SEND_BYTES,
 * WT_RECV_BYTES): a sixth less to sort and spill. Read r only with --raw. */
struct wt_send {
    uint32_t comm, src, dst, tag;
    uint64_t seq;             /* the sender's event index: its order */
    double enter_g, enter_t;  /* of the region that sent */
    uint32_t region;
    uint32_t loc;             /* the sender's location: the order of a rank's threads' equal indices */
    uint8_t sync;             /* MPI_Ssend: waits for its receive */
    uint8_t kind;             /* WT_SEND_*: which Late Receiver rule applies */
    uint8_t done_blocking;    /* the completing call blocks (not MPI_Test*) */
    uint32_t done_region;     /* the call the send completed in (the send's own when blocking) */
    uint64_t done_frame;      /* its instance: sends completed in one call wait once */
    double done_g, done_t;    /* its entry */
    double leave_g, leave_t;  /* its exit (NAN when not seen) */
    double enter_r, done_r, leave_r;
};
/* Which sends may wait for their receive (classify_regions, by the
 * sending call's name): MPI_Ssend; MPI_Issend, in the call completing it;
 * the standard MPI_Send and MPI_Isend where they show rendezvous (in the
 * call when the receive was posted); the others (Bsend, Rsend, Sendrecv,
 * ...) never. */
enum { WT_SEND_OTHER, WT_SEND_SSEND, WT_SEND_ISSEND, WT_SEND_STD, WT_SEND_ISTD };
#define WT_SEND_BYTES(raw) ((raw) ? sizeof(struct wt_send) : offsetof(struct wt_send, enter_r))

struct wt_recv {
    uint32_t comm, src, dst, tag;
    uint64_t seq;             /* the receiver's event index */
    uint64_t frame;           /* the completing region's instance: receives completed in one call wait once
                               * (the location << 40, then its count: ordered as the locations) */
    double enter_g, enter_t;  /* of the region the receive completed in */
    double post_g, post_t;    /* of the region that posted it (MPI_Irecv), else enter */
    uint32_t region;
    uint8_t blocking;         /* the completing region blocks (not MPI_Test*) */
    double enter_r, post_r;
};
#define WT_RECV_BYTES(raw) ((raw) ? sizeof(struct wt_recv) : offsetof(struct wt_recv, enter_r))

/* A moment of a record: r only with raw, else NAN (as without the map). */
#define WT_MOMENT(g_, t_, r_, raw) ((struct wt_moment){ (g_), (t_), (raw) ? (r_) : NAN })

/* A collective's member. A blocking call's post is its enter; a
 * non-blocking one's post is the entry of the MPI_I... call, its enter and
 * region those of the call that completed it (MPI_Wait*, MPI_Test*). */
struct wt_member {
    uint32_t kind;            /* WT_MEMBER_COLL, or WT_MEMBER_FENCE (comm is then the window) */
    uint32_t comm, rank, op, root;   /* root: world rank, UINT32_MAX for none */
    uint32_t loc;             /* the location: the order of a rank's threads' members */
    uint64_t seq;             /* the k-th collective of this rank on comm, blocking or not, in the
                               * order they were called (posted), as the merge numbers them */
    struct wt_moment post;    /* when the others can first see it: what they wait for */
    struct wt_moment enter;   /* where this member may wait: from here */
    struct wt_moment leave;   /* the exit of that call (g NAN: not seen) */
    uint32_t region;
    uint8_t blocking;         /* the completing call blocks (not MPI_Test*): only then a wait */
    uint8_t neighbor;         /* MPI_(I)neighbor_*: waits for its in-neighbours only */
    uint8_t receives_nothing; /* no byte comes to it (a zero-count MPI_Bcast; not a barrier, which
                               * orders by itself): MPI lets it leave before those it would wait
                               * for enter, so its wait ends at its leave at the latest */
};
enum { WT_MEMBER_COLL, WT_MEMBER_FENCE };

/* Records sorted in bounded memory: one external sorter per reading
 * thread (tools/util/extsort.h), their sorted outputs merged; the order is
 * the comparison's (a total order), whatever the number of threads or the
 * budget (waits_sorted.c). */
struct wt_sorted;
struct wt_sorted *wt_sorted_new(uint32_t nputters, size_t record_bytes, int (*cmp)(const void *, const void *),
                                size_t budget_bytes, const char *spill_dir, char *err, size_t errlen);
/* A sink in a sorter's place: every put hands the record (tag, its bytes)
 * to fn instead, and a putter's finish calls fn with rec NULL, for the
 * K-process waits' workers (waits_share.c), whose records process 0 sorts.
 * fn returns 0, or -1. */
typedef int (*wt_sink_fn)(void *ctx, uint32_t putter, uint32_t tag, const void *rec, size_t bytes);
struct wt_sorted *wt_sorted_new_sink(size_t record_bytes, wt_sink_fn fn, void *ctx, uint32_t tag, char *err,
                                     size_t errlen);
/* From putter k (one thread each): 0, or -1 (wt_sorted_error). */
int wt_sorted_put(struct wt_sorted *s, uint32_t k, const void *rec);
/* Putter k's records all put: its sorter sorts what it holds (in the
 * putter's thread: the threads sort at once). 0, or -1. */
int wt_sorted_finish_part(struct wt_sorted *s, uint32_t k);
/* All put (the parts not finished are finished here): 0, or -1. */
int wt_sorted_finish(struct wt_sorted *s);
/* The next record in order without taking it / taking it: valid until the
 * next call on s; NULL at the end or on an error (wt_sorted_error not ""). */
const void *wt_sorted_peek(struct wt_sorted *s);
const void *wt_sorted_next(struct wt_sorted *s);
const char *wt_sorted_error(const struct wt_sorted *s);
/* Putter k's sorter's error alone ("" when none): for its own thread,
 * while the others still put. */
const char *wt_sorted_part_error(const struct wt_sorted *s, uint32_t k);
uint64_t wt_sorted_count(const struct wt_sorted *s);
uint64_t wt_sorted_spilled(const struct wt_sorted *s);
/* The memory s holds at most from now on (records in memory, or the
 * spilled runs' read buffers): what the later sorts may take. */
uint64_t wt_sorted_held(const struct wt_sorted *s);
void wt_sorted_free(struct wt_sorted *s);

/* Records kept in memory up to a budget, beyond it in a nameless file,
 * and read back last first (waits_spool.c): the p2p rules walk each
 * receiver's messages backwards and count the instances forwards. */
struct wt_spool;
struct wt_spool *wt_spool_new(size_t record_bytes, size_t budget_bytes, const char *spill_dir, char *err,
                              size_t errlen);
int wt_spool_put(struct wt_spool *s, const void *rec);   /* 0, or -1 (wt_spool_error) */
/* The last record not yet read back, NULL when none is left or on an error. */
const void *wt_spool_pop(struct wt_spool *s);
const char *wt_spool_error(const struct wt_spool *s);
uint64_t wt_spool_spilled(const struct wt_spool *s);
void wt_spool_free(struct wt_spool *s);

/* A general-active-target epoch (MPI_Win_post ... MPI_Win_wait/test on
 * the target, MPI_Win_start ... MPI_Win_complete on the origin), one
 * record per partner it names. */
struct wt_epoch {
    uint32_t win, rank, peer; /* world ranks: rank's epoch, peer the partner named */
    uint32_t comm;            /* the window's communicator */
    uint64_t frame;           /* the closing call's instance (one per epoch), in rank's order */
    struct wt_moment open, open_leave;    /* start / post */
    struct wt_moment close, close_leave;  /* complete / wait (or the MPI_Win_test that ended it) */
    struct wt_moment last_op; /* access: the leave of the last operation to peer (has_op) */
    uint32_t open_region, close_region;
    size_t op_first, nops;    /* access: the epoch's operations, in order, in wt_records.ops */
    uint8_t access, blocking, has_op;   /* blocking: closed by MPI_Win_wait, not MPI_Win_test */
};

/* An RMA operation of an access epoch: the call it was issued in. */
struct wt_rma_op {
    struct wt_moment enter, leave;
    uint32_t region;
};

/* A rank's in-neighbours on a graph communicator (OUT/neighbours.txt):
 * wt_records.nbr_list[first .. first + n). */
struct wt_nbr {
    uint32_t comm, rank;
    size_t first, n;
};

struct wt_records {
    /* sorted as the rules join them (waits_read.c says how): */
    struct wt_sorted *sends;  /* struct wt_send, by channel then the sender's order */
    struct wt_sorted *recvs;  /* struct wt_recv, likewise */
    struct wt_sorted *members;/* struct wt_member, by instance: (kind, comm, seq), then rank */
    size_t budget;            /* bytes of memory the sorters may take (--memory) */
    const char *spill_dir;    /* where they spill */
    uint64_t spilled_bytes;   /* written to spill files so far */
    struct wt_epoch *epochs;  /* PSCW epochs (waits_epochs.c) */
    size_t nepochs, capepochs;
    struct wt_rma_op *ops;
    size_t nops, capops;
    uint64_t epochs_unpaired; /* epochs without their partner's, or not attributable */
    uint32_t *win_size;       /* per window: the ranks that created it */
    uint32_t nwins;
    uint64_t events, unmatched, incomplete_collectives;
    uint64_t unknown_neighbours;  /* neighbourhood collectives' instances whose neighbours are known
                                   * neither from a Cartesian topology nor OUT/neighbours.txt: left out */
    struct wt_nbr *nbrs;      /* sorted by (comm, rank) */
    size_t nnbrs;
    uint32_t *nbr_list;       /* world ranks */
    size_t nnbr_list;
    uint32_t nranks;
    char **regions;           /* names, owned by the trace */
    uint32_t nregions;
    char **comms;
    uint32_t ncomms;
    uint32_t *comm_size;      /* members of each communicator */
    const uint64_t **comm_members;   /* their world ranks, in communicator order (the trace's) */
    const struct mt_comm *comm_defs; /* the trace's communicators (Cartesian topologies) */
    int have_truth, have_raw;
};

struct wt_trace;
struct wt_share;              /* waits_share.h: the K processes of `mpirun -np K synctrace waits` */
struct wt_read_opts {
    int raw;                  /* also the raw view (rawview.map) */
    struct wt_share *share;   /* NULL: one process reads every location */
    uint32_t jobs;            /* threads reading locations, each with its own reader */
    size_t budget;            /* bytes for all the sorters */
    const char *spill_dir;
};
int wt_read(const char *outdir, const struct wt_read_opts *o, struct wt_records *rec, struct wt_trace **keep,
            char *err, size_t errlen);
void wt_records_free(struct wt_records *rec, struct wt_trace *keep);
/* OUT/neighbours.txt into rec (none without the file): 0, or -1 with err
 * naming the file (waits_nbrs.c). */
int wt_nbrs_read(const char *outdir, struct wt_records *rec, char *err, size_t errlen);
const struct wt_nbr *wt_nbrs_of(const struct wt_records *rec, uint32_t comm, uint32_t rank);

/* The totals: one row per (pattern, rank, region, communicator). */
struct wt_row {
    uint32_t pattern, rank, region, comm;
    uint64_t count;           /* instances with a wait on the merged times */
    uint64_t count_sure;      /* ... whose interval excludes 0 */
    uint64_t count_possible;  /* ... whose interval reaches above 0 */
    double seconds, lo, hi, t, r;   /* ns while summing */
};

/* Told of every instance wt_add counts (non-zero: wt_add fails): how
 * --json writes OUT/waits-instances.bin (waits_instances.c). */
typedef int (*wt_instance_fn)(void *ctx, enum wt_pattern p, uint32_t rank, uint32_t region, uint32_t comm,
                              const struct wt_diff *d);

struct wt_table {
    struct wt_row *rows;
    size_t n, cap;
    size_t *slot;             /* open addressing over rows */
    size_t nslots;
    wt_instance_fn on_instance;   /* NULL: totals only */
    void *on_instance_ctx;
};

/* Add one instance (its difference clamped at 0 here). */
int wt_add(struct wt_table *tb, enum wt_pattern p, uint32_t rank, uint32_t region, uint32_t comm,
           const struct wt_diff *d);
void wt_table_free(struct wt_table *tb);

/* The rules: 0, or -1 with a message in err. wt_p2p consumes rec->sends
 * and rec->recvs; wt_coll the collectives of rec->members, then wt_rma its
 * fences (in this order). */
int wt_p2p(struct wt_records *rec, struct wt_bounds *bd, struct wt_table *tb, char *err, size_t errlen);
int wt_coll(struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb, char *err, size_t errlen);
int wt_rma(struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb, char *err, size_t errlen);
int wt_pscw(const struct wt_records *rec, const struct wt_bounds *bd, struct wt_table *tb);

/* waits_epochs.c: one location's PSCW calls into epochs (the reader's
 * frames: `frame` identifies a call's instance). Calls by kind: */
enum wt_pscw_call { WT_CALL_NONE, WT_CALL_START, WT_CALL_COMPLETE, WT_CALL_POST, WT_CALL_WAIT, WT_CALL_TEST };
struct wt_epochs;
struct wt_epochs *wt_epochs_new(void);
void wt_epochs_reset(struct wt_epochs *s, uint32_t rank);   /* a location's start */
void wt_epochs_free(struct wt_epochs *s);
/* 0, or -1 when memory failed */
int wt_epochs_enter(struct wt_epochs *s, int call, uint64_t frame, uint32_t region, const struct wt_moment *at);
int wt_epochs_leave(struct wt_epochs *s, struct wt_records *rec, int call, uint64_t frame,
                    const struct wt_moment *at);
int wt_epochs_op(struct wt_epochs *s, uint32_t win, uint32_t target, uint64_t frame, uint32_t region,
                 const struct wt_moment *enter);
int wt_epochs_sync(struct wt_epochs *s, uint32_t win, uint32_t comm, uint32_t remote, uint64_t frame, int out);

int wt_write_json(const char *outdir, const struct wt_records *rec, const struct wt_bounds *bd,
                  const struct wt_table *tb, double seconds, char *err, size_t errlen);
void wt_print_table(FILE *to, const struct wt_records *rec, const struct wt_bounds *bd, const struct wt_table *tb,
                    size_t top);

int cmd_waits(int argc, char **argv);
/* The top waits of OUT/waits.json, for `synctrace report`: 0, 1 when there
 * is no waits.json, -1 (said on `to`) when it is not readable. */
int wt_summary(FILE *to, const char *outdir, size_t top);

#endif
