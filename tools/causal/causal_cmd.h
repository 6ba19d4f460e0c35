/* causal_cmd.h — the commands on a merged trace's causal index:
 * `synctrace causal OUT` (re)builds it, `synctrace query OUT A B` asks it. */
#ifndef SYNCTRACE_CAUSAL_CMD_H
#define SYNCTRACE_CAUSAL_CMD_H

int cmd_causal(int argc, char **argv);
int cmd_query(int argc, char **argv);

#endif
