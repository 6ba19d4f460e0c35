# format/: the raw trace format, written and read in one place.
# libstwrite: its writers (definitions, events, run.meta, checksums), linked
# into the tracer, the generator and the recovery. libstread: its readers,
# for the tools only.
noinst_LTLIBRARIES += libstwrite.la libstread.la
libstwrite_la_SOURCES = %D%/rawformat.h %D%/reckinds.h %D%/recfile.h %D%/location_order.h \
	%D%/defs_write.c %D%/defs_write.h %D%/meta_write.c %D%/meta_write.h %D%/members.c %D%/members.h \
	%D%/evtchunk.c %D%/evtchunk.h %D%/convert.c %D%/convert.h %D%/otf2_memory.c %D%/otf2_memory.h \
	%D%/sumfile.c %D%/sumfile.h %D%/hash64.c %D%/hash64.h
libstwrite_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libstread_la_SOURCES = %D%/defs_read.c %D%/defs_read.h %D%/otf2_quiet.c %D%/otf2_quiet.h \
	%D%/rawtrace.c %D%/rawtrace.h %D%/eventstore.c %D%/eventstore.h %D%/eventspill.c %D%/eventspill.h \
	%D%/rawdir.c %D%/rawdir.h %D%/mtread.c %D%/mtread.h %D%/mtread_events.h %D%/mtorder.c \
	%D%/recover.c %D%/recover.h %D%/recfile.c %D%/recfile_read.h %D%/anchor_check.c %D%/anchor_check.h
libstread_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
