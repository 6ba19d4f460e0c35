/* writer.h — one self-contained OTF2 archive per rank.
 *
 * Events are recorded compactly (records.h) and become OTF2 event chunks
 * (evtchunk.h), bounded by SYNCTRACE_BUFFER_MB; definitions are kept here
 * and written through OTF2 at close.
 * No collective step: each rank opens and closes its own archive, so the
 * death of one rank cannot make another rank's data unreadable. */
#ifndef SYNCTRACE_WRITER_H
#define SYNCTRACE_WRITER_H

#include <otf2/otf2.h>
#include "tracer.h"
#include "rawformat.h"
#include "evtchunk.h"

/* Regions of the tracer's own, after the generated MPI ones. */
#include "regions.h"
enum { ST_REGION_SYNC = ST_REGION_MPI_COUNT, ST_REGION_ALL_COUNT };

#include "location.h"

/* Open DIR/rank-NNNNNN.otf2 for this rank and make the calling thread's
 * location current. Also starts DIR/rank-NNNNNN.journal, from which
 * `synctrace merge` rebuilds the definitions of a rank killed before it
 * could close its archive (SIGKILL); properties, communicators, clock
 * offsets and the resolution are appended to it as they come, and it is
 * removed when the archive is closed. Returns 0, or -1 with a one-line
 * message. */
int st_writer_open(const char *dir, int rank, int size, char *err, size_t errlen);
/* Let threads other than the calling one record, each in a location of its
 * own (st_loc_attach); `concurrent` (MPI_THREAD_MULTIPLE) also makes OTF2
 * and the tracer's shared state lock. Call before recording starts. */
int st_writer_allow_threads(int concurrent);
/* Write all definitions and close the archive. Safe to call twice. */
void st_writer_close(void);
/* What st_writer_close calls first, whoever closes (MPI_Finalize, exit, a
 * fatal signal, MPI_Abort): the polling runs' end, set by MPI_Init. */
void st_writer_before_close(void (*fn)(void));
/* Close the archive and remove its files (the run is not traced after all). */
void st_writer_discard(void);

/* Definitions. A communicator: the key its members agree on (written as the
 * name of its group, "synctrace key HEX"), its name, and its members as
 * world ranks in the order of their rank in it (-1: a process of another
 * world nothing is known of; ST_OUTSIDE_INT: one of a known outside set,
 * written as RF_OUTSIDE_MEMBER); an intercommunicator's are its local group, and `remote` its
 * remote group (written as an OTF2 InterComm, group A local, B remote).
 * MPI_COMM_SELF (`self`) is written with OTF2's COMM_SELF group. */
#define ST_OUTSIDE_SETS 120                       /* sets a rank can name (communicators.c) */
#define ST_OUTSIDE_INDEX_LIMIT (1 << 24)           /* processes per set */
#define ST_OUTSIDE_INT(set, index) (-2 - ((set) << 24 | (index)))
struct st_comm_desc {
    uint64_t key;
    const char *name;         /* "" for none */
    int self;
    int nmembers;
    const int *members;
    int inter;
    int nremote;
    const int *remote;
};
uint32_t st_writer_define_comm(const struct st_comm_desc *desc);
/* A name given with MPI_Comm_set_name (the last one is kept). */
void st_writer_comm_name(uint32_t comm, const char *name);
/* This rank's in-neighbours on a topology communicator (a ref from
 * st_writer_define_comm), as world ranks in MPI's neighbourhood order: whom
 * a neighbourhood collective receives from. Written as the group
 * "synctrace in-neighbours of comm REF". */
void st_writer_comm_neighbours(uint32_t comm, int n, const int *world_ranks);
/* Communicator `comm` was made from `parent` (references): the Comm
 * definition's parent, as Score-P writes it. */
void st_writer_comm_parent(uint32_t comm, uint32_t parent);
/* Communicator `comm` has CommCreate/CommDestroy events on this rank: its
 * definition carries OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS (as Score-P's). */
void st_writer_comm_events(uint32_t comm);
/* A Cartesian topology on communicator `comm`: its dimensions' sizes and
 * periodicity, this rank's coordinates and its rank in the communicator;
 * written as OTF2 CartDimension/CartTopology/CartCoordinate definitions. */
void st_writer_comm_cart(uint32_t comm, int ndims, const int *sizes, const int *periods, const int *coords, int rank);
void st_writer_clock_offset(uint64_t local_time, int64_t offset, double stddev);
void st_writer_property(const char *name, const char *value);
/* Fix the archive's timer resolution (ticks per second, rounded); returns
 * it. Without a call, the clock is calibrated at close. */
uint64_t st_writer_set_resolution(double ticks_per_second);

/* Event records, stamped with the given time. Each appends one compact
 * record; adding one: a line in writer.c's ST_RECORDS, its converter
 * (CONVERTER) and its st_write_* function. */
/* The Enter of `calls` polling calls written as one region (polling.c):
 * with the collapsed_calls attribute when calls > 1. */
void st_write_enter_calls(struct st_loc *loc, struct st_time t, uint32_t region, uint64_t calls);
/* The trace began at t (before the archive was opened): the clock
 * properties' global offset moves back to it. */
void st_writer_started_at(uint64_t t);
/* A flush the program waited for, from t (the time of the record that
 * needed room) to `stop`: an OTF2 BufferFlush. */
void st_write_flush(struct st_loc *loc, struct st_time t, uint64_t stop);
void st_write_send(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes);
void st_write_isend(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req);
void st_write_isend_complete(struct st_loc *loc, struct st_time t, uint64_t req);
void st_write_irecv_request(struct st_loc *loc, struct st_time t, uint64_t req);
void st_write_recv(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes);
void st_write_irecv(struct st_loc *loc, struct st_time t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req);
void st_write_request_cancelled(struct st_loc *loc, struct st_time t, uint64_t req);
/* MPI_Request_free released the active receive request `req`, posted on
 * comm for source and tag (MPI_ANY_SOURCE/MPI_ANY_TAG as given), before any
 * call completed it: an OTF2 MpiRequestTest carrying the freed_receive_*
 * attributes (comm, source, tag). */
void st_write_irecv_freed(struct st_loc *loc, struct st_time t, uint32_t comm, int source, int tag, uint64_t req);
void st_write_coll_begin(struct st_loc *loc, struct st_time t);
#define ST_COLL_SOURCES_UNKNOWN RF_SOURCES_UNKNOWN   /* sparse, but the slots could not be kept */
/* nslots, sources: a sparse member's non-empty source slots (struct st_coll), or 0, NULL */
void st_write_coll_end(struct st_loc *loc, struct st_time t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                       uint64_t sent, uint64_t received, uint32_t nslots, const uint64_t *sources);
void st_write_nbc_request(struct st_loc *loc, struct st_time t, uint64_t req);
void st_write_nbc_complete(struct st_loc *loc, struct st_time t, OTF2_CollectiveOp op, uint32_t comm, uint32_t root,
                           uint64_t sent, uint64_t received, uint32_t nslots, const uint64_t *sources, uint64_t req);

/* A communicator came into being on this rank (the creating call returned
 * it, MPI_Comm_idup's request completed, MPI_Init made MPI_COMM_WORLD and
 * MPI_COMM_SELF), or MPI_Comm_free / MPI_Comm_disconnect / MPI_Finalize
 * ended it: OTF2 CommCreate / CommDestroy. */
void st_write_comm_create(struct st_loc *loc, struct st_time t, uint32_t comm);
void st_write_comm_destroy(struct st_loc *loc, struct st_time t, uint32_t comm);

/* RMA windows (a reference per window, on communicator `comm`), their
 * names, and the one-sided events (rma.c). */
uint32_t st_writer_define_window(uint32_t comm);
void st_writer_window_name(uint32_t win, const char *name);
void st_write_rma_win_create(struct st_loc *loc, struct st_time t, uint32_t win);
void st_write_rma_win_destroy(struct st_loc *loc, struct st_time t, uint32_t win);
void st_write_rma_collective_begin(struct st_loc *loc, struct st_time t);
void st_write_rma_collective_end(struct st_loc *loc, struct st_time t, OTF2_CollectiveOp op, OTF2_RmaSyncLevel level,
                                 uint32_t win);
void st_write_rma_put(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id);
void st_write_rma_get(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, uint64_t bytes, uint64_t id);
void st_write_rma_atomic(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, OTF2_RmaAtomicType type,
                         uint64_t sent, uint64_t received, uint64_t id);
void st_write_rma_op_complete_remote(struct st_loc *loc, struct st_time t, uint32_t win, uint64_t id);
void st_write_rma_op_complete_non_blocking(struct st_loc *loc, struct st_time t, uint32_t win, uint64_t id);
void st_write_rma_request_lock(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, OTF2_LockType type);
void st_write_rma_release_lock(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote);
void st_write_rma_sync(struct st_loc *loc, struct st_time t, uint32_t win, uint32_t remote, OTF2_RmaSyncType type);

#endif
