# tools/foreign/: OTF2 archives our tracer did not write (Score-P's, any
# producer's): a copy of any archive, record for record, with new
# timestamps. The per-record code is generated from the installed OTF2's
# headers and kept in the repository (`make regen-otf2copy`;
# tests/test-otf2copy.sh checks that it is current).
noinst_LTLIBRARIES += libstforeign.la
libstforeign_la_SOURCES = %D%/otf2copy.c %D%/otf2copy.h %D%/otf2copy_records.c %D%/evtpatch.c %D%/evtpatch.h %D%/foreign_defs.c %D%/foreign_defs.h \
	%D%/foreign_raw.c %D%/foreign_raw.h %D%/foreign_timemap.c %D%/foreign_timemap.h \
	%D%/foreign_pscw.c %D%/foreign_pscw.h
libstforeign_la_CPPFLAGS = $(TOOLS_CPPFLAGS)
EXTRA_DIST += %D%/gen-otf2copy.py

regen-otf2copy:
	$(PYTHON3) $(srcdir)/tools/foreign/gen-otf2copy.py $(OTF2_INCLUDEDIR) $(srcdir)/tools/foreign/otf2copy_records.c
.PHONY: regen-otf2copy

# `synctrace merge` on a foreign archive: wired into the synctrace program
# (it runs the merge's stages, which live there).
FOREIGN_COMMANDS = %D%/foreign_merge.c %D%/foreign_merge.h
