# tools/clc/: the controlled-logical-clock repair where the line model is
# contradicted, and gtime, every event's global time from both.
noinst_LTLIBRARIES += libstclc.la
libstclc_la_SOURCES = %D%/clc.c %D%/clc.h %D%/clc_coll.c %D%/clc_coll.h %D%/clc_stream.c %D%/clc_stream.h \
	%D%/clc_roles.c %D%/clc_roles.h %D%/gtime.c %D%/gtime.h
libstclc_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
