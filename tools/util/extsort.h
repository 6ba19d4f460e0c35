/* extsort.h — an external merge sort of fixed-size records in bounded
 * memory: the merge's joins (sends with receives, ...) sort more records
 * than fit in RAM.
 *
 * Records are buffered up to half the budget; a full buffer is sorted and
 * written to a spill file as a sorted run. When everything fits, no file is
 * made and the records are read back from memory. Otherwise the runs are
 * merged k ways (a heap of run cursors, each reading through an equal
 * share of the budget, from 64 KiB to 4 MiB); when there are too many runs
 * for that, groups of runs are first merged into longer ones. Spill files have
 * no name (O_TMPFILE, or unlinked at once): nothing is left behind, even
 * when the process is killed.
 *
 *     s = st_extsort_new(sizeof rec, cmp, 256 << 20, dir, err, sizeof err);
 *     while (...) st_extsort_put(s, &rec);
 *     st_extsort_finish(s);
 *     for (const struct rec *r; (r = st_extsort_next(s)); ) ...
 *     if (st_extsort_failed(s)) ... st_extsort_error(s) ...
 *     st_extsort_free(s);
 *
 * Not thread-safe: one sorter per thread. */
#ifndef SYNCTRACE_EXTSORT_H
#define SYNCTRACE_EXTSORT_H

#include <stddef.h>
#include <stdint.h>

struct st_extsort;

/* A sorter of records of record_bytes (1 to 1 MiB) bytes. cmp must be a
 * TOTAL order (callers break ties on a unique field): then the output is
 * the same whatever the budget. budget_bytes bounds the memory the records
 * take, qsort's scratch included (raised to 3 read buffers, 192 KiB for
 * small records, when lower): runs hold half of it, and all records stay
 * in memory when they fit in that half. Spill files go to spill_dir
 * ($TMPDIR or /tmp when NULL), which must be a directory we may write to.
 * NULL with a one-line message in err (may be NULL) on bad arguments, a
 * missing spill directory or no memory. */
struct st_extsort *st_extsort_new(size_t record_bytes, int (*cmp)(const void *, const void *),
                                  size_t budget_bytes, const char *spill_dir, char *err, size_t errlen);
/* Records over 32 bytes: let them take budget * record_bytes /
 * (record_bytes + 16) of the budget instead of half. glibc's qsort sorts
 * such records through pointers (an array of them and its scratch: 16
 * bytes a record), so the budget still bounds the sort; with half, a
 * third or more of it stays unused. Before the first put: 0, or -1
 * (nothing changed) for smaller records or after a put. */
int st_extsort_pointer_scratch(struct st_extsort *s);
/* Copy one record in. 0, or -1 (st_extsort_error says why). */
int st_extsort_put(struct st_extsort *s, const void *rec);
/* No more records: sort what is buffered, merge runs down to what the
 * budget can read at once. No put afterwards. 0, or -1. */
int st_extsort_finish(struct st_extsort *s);
/* The records in order, each valid until the next call on s (other
 * sorters' records stay valid) and aligned as malloc aligns a struct of
 * record_bytes; NULL at the end or on an error (st_extsort_failed tells
 * which). */
const void *st_extsort_next(struct st_extsort *s);
/* Read again from the first record (callers make several passes). 0, or -1. */
int st_extsort_rewind(struct st_extsort *s);

int st_extsort_failed(const struct st_extsort *s);
/* One line naming the spill directory and the problem ("spill file in /x:
 * write: No space left on device"); "" when nothing failed. */
const char *st_extsort_error(const struct st_extsort *s);
/* Records put. */
uint64_t st_extsort_count(const struct st_extsort *s);
/* Sorted runs written to disk by put and finish: 0 when all fit. */
uint32_t st_extsort_runs(const struct st_extsort *s);
/* Intermediate merges (a group of runs merged into one longer run before
 * the final merge): 0 when the final merge could read all runs at once. */
uint32_t st_extsort_merges(const struct st_extsort *s);
/* Bytes written to spill files, intermediate merges included. */
uint64_t st_extsort_spilled_bytes(const struct st_extsort *s);
/* Free everything; closing the spill files removes them. NULL is allowed. */
void st_extsort_free(struct st_extsort *s);

#endif
