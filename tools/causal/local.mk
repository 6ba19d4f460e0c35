# tools/causal/: the causal index. libsynctrace-causal opens one and asks
# happened-before (include/synctrace/causal.h, pkg-config
# synctrace-causal; only the stc_* calls are exported), and reads
# waits.json (include/synctrace/waits.h, from tools/waits/); libstcausal builds
# one (the merge and `synctrace causal`); the commands query and causal.
CAUSAL_QUERY_SOURCES = %D%/causal.h %D%/causal_query.c %D%/causal_file.c include/synctrace/causal.h
noinst_LTLIBRARIES += libstcausalq.la libstcausal.la
libstcausalq_la_SOURCES = $(CAUSAL_QUERY_SOURCES)
libstcausalq_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
libstcausal_la_SOURCES = %D%/causal_build.c %D%/causal_builder.h %D%/causal_vectors.c %D%/causal_instances.c \
	%D%/causal_roles.c %D%/causal_encode.c %D%/causal_clusters.c %D%/causal_finish.c %D%/causal_passes.c \
	%D%/causal_aside.c %D%/causal_aside.h %D%/causal_sweep.c %D%/blockqueue.c %D%/blockqueue.h \
	%D%/causal_report.c %D%/causal_report.h
libstcausal_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
CAUSAL_COMMANDS = %D%/causal_cmd.c %D%/causal_cmd.h %D%/query.c

lib_LTLIBRARIES += libsynctrace-causal.la
libsynctrace_causal_la_SOURCES =
libsynctrace_causal_la_LIBADD = libstcausalq.la libstwaitsq.la -lm
libsynctrace_causal_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -no-undefined -export-symbols-regex '^stc_'
synctraceincludedir = $(includedir)/synctrace
synctraceinclude_HEADERS = include/synctrace/causal.h include/synctrace/waits.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = synctrace-causal.pc
synctrace-causal.pc: $(srcdir)/synctrace-causal.pc.in Makefile
	$(AM_V_GEN)sed -e 's|@prefix[@]|$(prefix)|g' -e 's|@exec_prefix[@]|$(exec_prefix)|g' \
	    -e 's|@libdir[@]|$(libdir)|g' -e 's|@includedir[@]|$(includedir)|g' \
	    -e 's|@VERSION[@]|$(VERSION)|g' $(srcdir)/synctrace-causal.pc.in >$@
EXTRA_DIST += synctrace-causal.pc.in
CLEANFILES += synctrace-causal.pc
