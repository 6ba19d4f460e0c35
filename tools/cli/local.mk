# tools/cli/: the `synctrace` program: the dispatcher, and the commands
# too small for a folder of their own (dump, report).
bin_PROGRAMS += synctrace
synctrace_SOURCES = %D%/synctrace.c %D%/commands.h %D%/dump.c %D%/report_cmd.c \
	$(MERGE_STAGES) $(EXPORT_SOURCES) $(WAITS_SOURCES) $(CAUSAL_COMMANDS) $(FOREIGN_COMMANDS)
nodist_synctrace_SOURCES = tools/export/export_html_page.h
synctrace_CPPFLAGS = $(TOOLS_CPPFLAGS) -Itools/export
synctrace_LDADD = libstforeign.la $(TOOLS_LIBS) -lpthread
