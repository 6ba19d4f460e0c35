/* merge.h — `synctrace merge RAW -o OUT`: the pipeline of tools/merge/
 * (merge_state.h lists its stages). */
#ifndef SYNCTRACE_MERGE_H
#define SYNCTRACE_MERGE_H

int cmd_merge(int argc, char **argv);

#endif
