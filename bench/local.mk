# bench/: benchmarks. Their programs are built by `make bench-programs`;
# run the scripts (see bench/README).
EXTRA_PROGRAMS += bench/otf2copy bench/otf2read bench/solve_bench bench/causal_bench
bench_otf2copy_SOURCES = %D%/otf2copy.c
bench_otf2copy_CPPFLAGS = $(TOOLS_CPPFLAGS)
bench_otf2copy_LDADD = $(TOOLS_LIBS)
bench_otf2read_SOURCES = %D%/otf2read.c
bench_otf2read_CPPFLAGS = $(TOOLS_CPPFLAGS)
bench_otf2read_LDADD = $(TOOLS_LIBS)
bench_solve_bench_SOURCES = %D%/solve_bench.c
bench_solve_bench_CPPFLAGS = $(TOOLS_CPPFLAGS)
bench_solve_bench_LDADD = $(TOOLS_LIBS)
bench_causal_bench_SOURCES = %D%/causal_bench.c
bench_causal_bench_CPPFLAGS = $(TOOLS_CPPFLAGS)
bench_causal_bench_LDADD = $(TOOLS_LIBS) -lpthread
bench-programs: $(EXTRA_PROGRAMS)
.PHONY: bench-programs
EXTRA_DIST += %D%/README %D%/RESULTS.md %D%/overhead.c %D%/overhead.sh %D%/hpcc.sh %D%/kernel.c %D%/kernel.sh \
	%D%/shapes.c %D%/accuracy_shapes.sh %D%/merge.sh %D%/accuracy.sh %D%/export.sh %D%/fortran.sh \
	%D%/overhead_fortran.F90 %D%/causal.sh %D%/causal_rebuild.sh %D%/sync_tree.sh %D%/commdup.sh \
	%D%/polling.sh %D%/polling.c %D%/extsort.sh %D%/extsort_bench.c %D%/merge_scaling.sh \
	%D%/merge_parallel.sh %D%/causal_threads.sh %D%/export_locations.sh %D%/hubs.sh %D%/merge_mem.sh \
	%D%/merge_repair.sh %D%/merge_same.sh %D%/rawdefs.sh %D%/waits.sh %D%/waits_parallel.sh
