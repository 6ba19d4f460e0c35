# tools/output/: what the merge writes: the OTF2 archive, rawview.map, the
# true times' store, report.json and report.txt.
noinst_LTLIBRARIES += libstoutput.la
libstoutput_la_SOURCES = %D%/otf2out.c %D%/otf2out.h %D%/otf2out_defs.c %D%/neighbours_out.c %D%/otf2out_writing.h %D%/rawview.c %D%/rawview_simplify.c %D%/rawview_write.c \
	%D%/rawview.h %D%/truthstore.c %D%/truthstore.h %D%/multiselect.c %D%/multiselect.h \
	%D%/report.c %D%/report.h %D%/losses.c %D%/losses.h
libstoutput_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
