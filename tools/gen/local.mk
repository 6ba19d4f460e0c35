# tools/gen/: synctrace-gen, synthetic raw traces with known clocks (tests
# and benchmarks at scale), written through the tracer's own writers.
bin_PROGRAMS += synctrace-gen
synctrace_gen_SOURCES = %D%/gen.c
synctrace_gen_CPPFLAGS = $(TOOLS_CPPFLAGS)
synctrace_gen_LDADD = libstwrite.la libstutil.la libstcommon.la $(OTF2_LIBS) -lm
