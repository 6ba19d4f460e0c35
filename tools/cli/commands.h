/* commands.h — the subcommands of the synctrace tool that live here, beside
 * the dispatcher; the others are declared by their own folders (merge.h,
 * export.h, causal_cmd.h), which the dispatcher includes. */
#ifndef SYNCTRACE_COMMANDS_H
#define SYNCTRACE_COMMANDS_H

int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
