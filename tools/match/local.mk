# tools/match/: every message and collective matched across ranks, and
# the data flow of collectives and one-sided operations.
noinst_LTLIBRARIES += libstmatch.la
libstmatch_la_SOURCES = %D%/match.c %D%/match.h %D%/match_private.h %D%/match_requests.c \
	%D%/msgstream.c %D%/msgstream.h %D%/collstream.c %D%/collstream.h %D%/flow.c %D%/flow.h \
	%D%/rma_flow.c %D%/rma_flow.h %D%/member_pool.c %D%/member_pool.h
libstmatch_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
