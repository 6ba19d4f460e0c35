/* foreign_merge.h — `synctrace merge` whatever its input: our raw trace
 * goes to the merge (tools/merge), any other OTF2 archive (a Score-P
 * experiment directory, an anchor file) through foreign_merge.c. */
#ifndef SYNCTRACE_FOREIGN_MERGE_H
#define SYNCTRACE_FOREIGN_MERGE_H

#include <stddef.h>

int cmd_merge_any(int argc, char **argv);
/* The anchor file of a foreign archive INPUT names (1), or 0 for our raw
 * trace or no archive at all (the merge says what is wrong). */
int fm_foreign_anchor(const char *input, char *anchor, size_t len);
int fm_merge(int argc, char **argv, const char *anchor, int by_node);

#endif
