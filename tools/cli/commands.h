/* commands.h — the subcommands of the synctrace tool. */
#ifndef SYNCTRACE_COMMANDS_H
#define SYNCTRACE_COMMANDS_H

int cmd_causal(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_query(int argc, char **argv);

#endif
