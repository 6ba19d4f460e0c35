# tools/util/: what the tools use and the tracer does not: a block cache,
# the external sort, a u64 map, timing and the progress line on stderr.
noinst_LTLIBRARIES += libstutil.la
libstutil_la_SOURCES = %D%/blockcache.c %D%/blockcache.h \
	%D%/extsort.c %D%/extsort.h %D%/u64map.c %D%/u64map.h %D%/timing.c %D%/timing.h \
	%D%/progress.c %D%/progress.h
libstutil_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
