# tools/parallel/: the merge and waits shared among processes (`mpirun -np K
# synctrace merge`, `... waits`): who is who, what they hand each other, and the
# within-process jobs.
noinst_LTLIBRARIES += libstparallel.la
libstparallel_la_SOURCES = %D%/pmerge.c %D%/pmerge.h %D%/locstream.c %D%/locstream.h \
	%D%/launcher.c %D%/launcher.h %D%/jobs.c %D%/jobs.h %D%/heldstderr.c %D%/heldstderr.h
libstparallel_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
