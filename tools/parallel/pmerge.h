/* pmerge.h — `mpirun -np K synctrace merge`: the K processes and what they
 * send each other (pmerge.c, the only file of the merge that speaks MPI).
 *
 * Process 0 merges as one process does; processes 1..K-1 ("workers")
 * each read a share of the rank archives, hand process 0 what the match
 * and the clock stages need of them (pmerge_read.c: times, true times,
 * the match's records, not the events), and write those locations'
 * events into the merged archive themselves, through OTF2's MPI
 * collective callbacks, once process 0 has solved the clocks
 * (pmerge_plan.c). Without a launcher, or with K = 1, nothing here is
 * used and no MPI call is made. */
#ifndef SYNCTRACE_PMERGE_H
#define SYNCTRACE_PMERGE_H

#include <stddef.h>
#include <stdint.h>

/* MPI initialised for `processes` > 1 (MPI_THREAD_SERIALIZED: the reading
 * threads send one at a time). 0, or -1 with a one-line message. */
int pm_start(int *argc, char ***argv, uint32_t processes, char *err, size_t errlen);
/* Called again while MPI is up (the foreign path's inner merge), it only
 * counts: each pm_start has its pm_finish, the outermost finalises. */
/* pm_start for `synctrace COMMAND` run by mpirun: a failure said once,
 * by process 0 ("synctrace COMMAND: ..."), and MPI finished. 0, or -1. */
int pm_start_command(uint32_t processes, const char *command);
/* 1 when this process is one of several (pm_start succeeded). */
int pm_active(void);
uint32_t pm_place(void);
uint32_t pm_processes(void);
/* MPI finalised (a no-op unless pm_start succeeded). */
void pm_finish(void);
/* Every process ended at once, with status 1: for what leaves no process
 * a way to tell the others (they may be waiting for it). */
void pm_abort(void);

/* The processes this one shares its node with (itself included). */
uint32_t pm_local_processes(void);

/* Every process says whether it may go on: 1 when all may (collective);
 * *zero_ok (may be NULL) whether process 0 could. */
int pm_agree(int ok);
int pm_agree_zero(int ok, int *zero_ok);
/* Sum of every process's v (collective). */
uint64_t pm_sum_u64(uint64_t v);
/* n bytes from process 0 to every process (collective). */
void pm_bcast(void *buf, size_t n);
/* Largest of every process's v (collective). */
uint64_t pm_max_u64(uint64_t v);

/* A worker's piece of its stream to process 0 (blocking). */
void pm_send_piece(const void *buf, size_t n);
/* Process 0: the next piece of any worker's stream, into *buf (grown as
 * needed; *len bytes). Returns the worker's place. */
uint32_t pm_receive_piece(uint8_t **buf, size_t *cap, size_t *len);

/* The archive's collective operations over the K processes, for
 * otf2out.c (an OTF2_Archive *): 0, or -1. */
int pm_archive_collective(void *archive);

/* The rank archives [first[p], first[p + 1]) are process p's: contiguous
 * shares with about as many declared events each (events[i]: rank
 * archive i's, all its locations). first has processes + 1 entries. */
void pm_share(const uint64_t *events, uint32_t n, uint32_t processes, uint32_t *first);

#endif
