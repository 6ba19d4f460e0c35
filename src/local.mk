# src/: the tracer's semantics, hand-written, one module per concern; the
# generated wrappers call into them (hooks.h).
lib_LTLIBRARIES += libsynctrace.la
libsynctrace_la_SOURCES = \
	%D%/tracer.h %D%/hooks.h %D%/state.c %D%/location.h \
	%D%/clock.c %D%/clock.h \
	%D%/options.c %D%/options.h \
	%D%/handlemap.c %D%/handlemap.h \
	%D%/writer.c %D%/writer.h \
	%D%/communicators.c %D%/communicators.h \
	%D%/spawn.c %D%/spawn.h \
	%D%/rma.c \
	%D%/p2p.c %D%/requests.c %D%/requests.h \
	%D%/polling.c %D%/polling.h \
	%D%/collectives.c \
	%D%/sync.c %D%/sync.h %D%/sync_background.c %D%/sync_background.h \
	%D%/lifecycle.c %D%/ompi_abort.c %D%/util.c %D%/typesize.c %D%/records.c %D%/records.h %D%/recput.h \
	%D%/fortran.c %D%/fortran.h %D%/fortran_cptr.c \
	$(GENERATED_REGIONS) $(GENERATED_WRAPPERS)
# Only the MPI_* functions are exported: mpi.h declares them visible.
# Preloaded, so its thread-locals can live in the static TLS block (no
# __tls_get_addr call on the hot path).
libsynctrace_la_CPPFLAGS = $(TRACER_CPPFLAGS)
libsynctrace_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -ftls-model=initial-exec
libsynctrace_la_LIBADD = libstwrite.la libstcommon.la $(OTF2_LIBS) -lm
libsynctrace_la_LDFLAGS = $(AM_LDFLAGS) -avoid-version -no-undefined

# libsynctrace.so is preloaded, never linked against: no libtool archive.
install-exec-hook:
	rm -f $(DESTDIR)$(libdir)/libsynctrace.la
uninstall-hook:
	rm -f $(DESTDIR)$(libdir)/libsynctrace.so
