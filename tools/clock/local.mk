# tools/clock/: the clock model from the sync rounds, the difference
# constraints from the matched messages, and their shortest-path solve.
noinst_LTLIBRARIES += libstclock.la
libstclock_la_SOURCES = %D%/clockmodel.c %D%/clockmodel.h %D%/constraints.c %D%/constraints.h \
	%D%/hubstore.c %D%/hubstore.h %D%/pairmin.c %D%/pairmin.h %D%/solve.c %D%/solve.h
libstclock_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
