/* merge.h — `synctrace merge RAW -o OUT`: the pipeline of tools/merge/
 * (merge_state.h lists its stages). */
#ifndef SYNCTRACE_MERGE_H
#define SYNCTRACE_MERGE_H

int cmd_merge(int argc, char **argv);
/* The same merge for the foreign path (tools/foreign): OUT gets the
 * events' global times (OUT/times.bin, write_stage.c) and the report, not
 * an archive: the copy of the input is what is written. */
int merge_times_only(int argc, char **argv);

/* OUT/times.bin: MERGE_TIMES_MAGIC, then per location in the merge's
 * order its id (as the archive would name it: rank, or thread << 32 |
 * rank), its number of events n and their n global times in ns, all
 * uint64 in the machine's byte order (it is read on the same machine). */
#define MERGE_TIMES_FILE "times.bin"
#define MERGE_TIMES_MAGIC "STTIMES1"

#endif
