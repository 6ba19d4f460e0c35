/* commands.h — the subcommands of the synctrace tool. */
#ifndef SYNCTRACE_COMMANDS_H
#define SYNCTRACE_COMMANDS_H

int cmd_causal(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_query(int argc, char **argv);

#include <stdint.h>
/* tools/merge/launcher.c: this process's place among those an MPI
 * launcher started with this command (0 of 1 when none did). */
void merge_launch_place(uint32_t *rank, uint32_t *size);

#endif
