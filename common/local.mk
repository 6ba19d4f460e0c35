# common/: what the tracer and the tools both link, beside the format:
# atomic files, nameless spill files, growing tables, string tables, the
# injected skew model and one sync round's offset estimate. Hidden
# symbols: the tracer exports MPI_* only.
noinst_LTLIBRARIES += libstcommon.la
libstcommon_la_SOURCES = %D%/fsutil.c %D%/fsutil.h %D%/asidefile.c %D%/asidefile.h %D%/table.c %D%/table.h %D%/strtab.c %D%/strtab.h \
	%D%/offset_estimate.c %D%/offset_estimate.h %D%/skew.h %D%/sync_tree.h
libstcommon_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
